// Counts down to a task's deadline (#deadline, data-expires); data-late says what happens after.
(function () {
  "use strict";
  var deadline = document.getElementById("deadline");
  if (!deadline) return;
  var expires = new Date(deadline.dataset.expires);
  function tick() {
    var left = Math.round((expires - new Date()) / 1000);
    deadline.textContent = left > 0
      ? Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left"
      : "time is up — " + deadline.dataset.late;
  }
  tick();
  setInterval(tick, 1000);
})();
