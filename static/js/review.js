// "Tick all on this page" for the review table. Without this script, tick one by one.
(function () {
  "use strict";
  var all = document.getElementById("tick-all");
  if (!all) return;
  var ticks = Array.prototype.slice.call(document.querySelectorAll("#review-table .tick"));
  all.addEventListener("change", function () {
    ticks.forEach(function (tick) { tick.checked = all.checked; });
  });
  ticks.forEach(function (tick) {
    tick.addEventListener("change", function () {
      var ticked = ticks.filter(function (t) { return t.checked; }).length;
      all.checked = ticked === ticks.length;
      all.indeterminate = ticked > 0 && ticked < ticks.length;
    });
  });
})();
