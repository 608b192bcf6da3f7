// The campaign page while its campaign is published in the background: ask for its state
// every few seconds and reload when the state or its events change, so staff see
// "Published" (or what went wrong) without reloading by hand. It stops asking after a few
// minutes and says so; a campaign the platform is slow to answer is then reloaded by hand.
(function () {
  "use strict";
  var watched = document.getElementById("campaign-watch");
  if (!watched) return;
  var note = document.getElementById("campaign-following");
  var every = 2000;
  var asks = 90;
  var base = window.location.pathname;

  function changed(now) {
    return now.state !== watched.dataset.state || String(now.events) !== watched.dataset.events;
  }

  function ask() {
    asks -= 1;
    fetch(watched.dataset.stateUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (answer) {
        if (!answer.ok) throw new Error("status " + answer.status);
        return answer.json();
      })
      .then(function (now) {
        // Without ?publishing: a draft whose publication failed is not followed again.
        if (changed(now)) window.location.replace(base);
        else later();
      })
      .catch(later);
  }

  function later() {
    if (asks > 0) window.setTimeout(ask, every);
    else if (note) note.textContent = "Still publishing: reload this page to see how it went.";
  }

  later();
})();
