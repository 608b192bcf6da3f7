// Keeps every task deadline (.deadline, rendered by crowd/templatetags/deadlines.py) counting
// down in the same words as the server: "12 min left (due 14:56 UTC)"; data-late says what the
// worker may still do once it has passed.
(function () {
  "use strict";
  var deadlines = document.querySelectorAll(".deadline[data-expires]");
  if (!deadlines.length) return;
  function two(n) { return String(n).padStart(2, "0"); }
  function text(expires, late) {
    var due = two(expires.getUTCHours()) + ":" + two(expires.getUTCMinutes());
    var seconds = Math.floor((expires - new Date()) / 1000);
    if (seconds <= 0) return "time is up (was due " + due + " UTC)" + (late ? ": " + late : "");
    var left = seconds < 60 ? "under a minute" : Math.floor(seconds / 60) + " min";
    return left + " left (due " + due + " UTC)";
  }
  function tick() {
    deadlines.forEach(function (deadline) {
      deadline.textContent = text(new Date(deadline.dataset.expires), deadline.dataset.late);
    });
  }
  tick();
  setInterval(tick, 1000);
})();
