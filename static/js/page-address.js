// A task page sent in answer to a form (next task, skip, submit and next) names its own
// address in a canonical link: show that address, so that reloading, bookmarking or going back
// opens the task page itself and never sends the form again.
(function () {
  "use strict";
  var canonical = document.querySelector('link[rel="canonical"]');
  if (canonical && canonical.href !== window.location.href) {
    window.history.replaceState(null, "", canonical.href);
  }
})();
