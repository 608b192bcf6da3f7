// The researcher page: while an export is queued or running, reload now and then to show it finish.
(function () {
  "use strict";
  var jobs = document.querySelector("[data-refresh]");
  if (!jobs) return;
  var seconds = parseInt(jobs.getAttribute("data-refresh"), 10) || 5;
  window.setTimeout(function () { window.location.reload(); }, seconds * 1000);
})();
