// Records how the text came into the box, for the reviewers: key presses, pastes (and drops)
// with the characters they brought, the time to the first key, the time from the first change
// of the text to the last, and how often and how long the page was left in that time. Only
// counts and times go into the form's hidden typing_* fields: no key, and no text, is kept.
// Where staff forbid pasting, pastes and drops are blocked and the worker is told why.
(function () {
  "use strict";
  var form = document.getElementById("description-form");
  if (!form || !form.elements.text || !form.elements.typing_key_presses) return;
  var text = form.elements.text;
  var names = ["key_presses", "pastes", "pasted_characters", "first_key_ms", "writing_ms",
    "focus_losses", "background_ms"];
  function field(name) { return form.elements["typing_" + name]; }

  // A page shown again after a refusal holds the counts so far: go on from them.
  var resumed = names.every(function (name) { return /^\d+$/.test(field(name).value); });
  var counts = {};
  names.forEach(function (name) { counts[name] = resumed ? parseInt(field(name).value, 10) : 0; });
  var writingBefore = counts.writing_ms;
  var opened = performance.now();
  var started = resumed;  // a first key (or change) has been seen
  var firstChange = null, lastChange = null;
  var awaySince = null, awayPending = 0, lossesPending = 0;
  var pasteForbidden = form.dataset.paste === "forbidden";

  function write() {
    if (firstChange !== null) counts.writing_ms = writingBefore + (lastChange - firstChange);
    names.forEach(function (name) { field(name).value = String(Math.round(counts[name])); });
  }

  function start(now) {
    if (!started) {
      started = true;
      counts.first_key_ms = now - opened;
    }
  }

  // Time away counts once the text changes again: leaving after the last change (to check
  // the video, or before submitting) is not writing elsewhere.
  function changed() {
    var now = performance.now();
    start(now);
    if (awaySince !== null) {  // changed while away: the time so far was away too
      awayPending += now - awaySince;
      awaySince = now;
      lossesPending = Math.max(lossesPending, 1);
    }
    counts.background_ms += awayPending;
    counts.focus_losses += lossesPending;
    awayPending = lossesPending = 0;
    if (firstChange === null) firstChange = now;
    lastChange = now;
    write();
  }

  function left() {
    if (firstChange !== null && awaySince === null) awaySince = performance.now();
  }

  function back() {
    if (awaySince === null) return;
    awayPending += performance.now() - awaySince;
    lossesPending += 1;
    awaySince = null;
  }

  function inserted(event, transfer) {
    if (pasteForbidden) {
      event.preventDefault();
      window.showFieldError(text, "Pasting is turned off for this task: type your text yourself.");
      return;
    }
    counts.pastes += 1;
    counts.pasted_characters += transfer ? transfer.getData("text/plain").length : 0;
    start(performance.now());
    write();
  }

  text.addEventListener("keydown", function () {
    counts.key_presses += 1;
    start(performance.now());
    write();
  });
  text.addEventListener("paste", function (event) { inserted(event, event.clipboardData); });
  text.addEventListener("drop", function (event) { inserted(event, event.dataTransfer); });
  text.addEventListener("input", changed);
  window.addEventListener("blur", left);
  window.addEventListener("focus", back);
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { left(); } else { back(); }
  });
  // Capture: the counts are in place before any other handler reads the form.
  form.addEventListener("submit", write, true);
  write();
})();
