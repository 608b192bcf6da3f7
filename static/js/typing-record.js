// Records how the text came into the box, for the reviewers: key presses, pastes (and drops)
// with the characters they brought, the characters an input method wrote (an IME's
// composition, a swipe keyboard's word, an autocorrection, dictation: typing, all of them,
// though few or no keys are seen), the time to the first key, the time from the first change
// of the text to the last, and how often and how long the page was left in that time. Only
// counts and times go into the form's hidden typing_* fields: no key, and no text, is kept.
// Where staff forbid pasting, pastes and drops are blocked and the worker is told why.
//
// And, as flags for a reviewer only (each has an honest explanation: docs/staff/reviewing.md):
// copies of the task's own text (selected on the page, outside the box) and pastes after one;
// words inserted with no key press (a drop, autofill, an extension, a script setting the box);
// input events a script made (isTrusted false); navigator.webdriver; the page left, for at least
// the field's data-minimum-ms, with a copy of the task's text as the last thing done (a round
// trip through a chatbot; a word looked up in a dictionary is quicker); how evenly the keys
// came (a driven browser's fixed delay). Counts again, never the copied text.
(function () {
  "use strict";
  var form = document.getElementById("description-form");
  if (!form || !form.elements.text || !form.elements.typing_key_presses) return;
  var text = form.elements.text;
  var names = ["key_presses", "pastes", "pasted_characters", "first_key_ms", "writing_ms",
    "focus_losses", "background_ms", "input_method_characters"];
  var later = ["prompt_copies", "pastes_after_copy", "inserted_without_keys", "untrusted_events",
    "webdriver", "left_after_copy", "key_intervals", "key_interval_variation"];
  function field(name) { return form.elements["typing_" + name]; }
  function digits(name) { return !!field(name) && /^\d+$/.test(field(name).value); }

  // A page shown again after a refusal holds the counts so far: go on from them (a draft
  // kept before the later counts existed holds none of those: they start at 0).
  var resumed = names.every(digits);
  var counts = {};
  names.concat(later).forEach(function (name) {
    counts[name] = resumed && digits(name) ? parseInt(field(name).value, 10) : 0;
  });
  later.forEach(function (name) { if (field(name)) names.push(name); });
  counts.webdriver = navigator.webdriver === true ? 1 : 0;
  var writingBefore = counts.writing_ms;
  var opened = performance.now();
  var started = resumed;  // a first key (or change) has been seen
  var firstChange = null, lastChange = null;
  var awaySince = null, awayPending = 0, lossesPending = 0;
  var leftAfterCopySince = null;  // when the page was left with a copy the last thing done
  var leftAfterCopyMs = field("left_after_copy") ?
    parseInt(field("left_after_copy").dataset.minimumMs, 10) || 0 : 0;
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
    if (copiedLast) {
      copiedLast = false;
      leftAfterCopySince = performance.now();
    }
    if (firstChange !== null && awaySince === null) awaySince = performance.now();
  }

  function back() {
    if (leftAfterCopySince !== null) {
      if (performance.now() - leftAfterCopySince >= leftAfterCopyMs) {
        counts.left_after_copy += 1;
        write();
      }
      leftAfterCopySince = null;
    }
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
    if (counts.prompt_copies) counts.pastes_after_copy += 1;
    counts.pasted_characters += transfer ? transfer.getData("text/plain").length : 0;
    start(performance.now());
    write();
  }

  // Text an input method writes. An IME shows its composition in the box and commits it at
  // compositionend (Chinese, Japanese, Korean; phone keyboards compose words too): what it
  // committed is counted there, once. Without a composition, a swipe keyboard writes a word as
  // one insertText with no key seen, autocorrection and spelling suggestions replace a word
  // (insertReplacementText): one word each, so a whole sentence arriving that way (a script, a
  // rewriting tool) is not counted here and stays text without key presses. Dictation writes
  // what was said (insertFromDictation), sentences included. Pastes and drops (insertFromPaste,
  // insertFromDrop) are counted as pastes above, never here. Only the browser's own (trusted)
  // events count: a script's made-up event is no one's typing.
  var keySeen = false;  // a key press since the last insertion
  var composing = false;
  var copiedLast = false;  // a copy of the task's text is the last thing done
  var seenValue = text.value;  // the text as the last input event left it
  var composed = false;  // a composition just ended (some browsers send its input after)

  function oneWord(inserted) { return !/\s/.test(inserted.trim()); }

  function byInputMethod(event, inserted) {
    if (event.inputType === "insertFromDictation") return true;
    if (event.inputType === "insertReplacementText") return oneWord(inserted);
    // A key writes one character; more than one for one key (Android keyboards send a key
    // code 229 before each word) is the keyboard's word.
    return event.inputType === "insertText" && oneWord(inserted) &&
      (!keySeen || inserted.length > 1);
  }

  function writtenByInputMethod(characters) {
    counts.input_method_characters += characters;
    start(performance.now());
    write();
  }

  function insertedText(event) {
    if (typeof event.data === "string") return event.data;
    return event.dataTransfer ? event.dataTransfer.getData("text/plain") : "";
  }

  // A script's made-up event (dispatchEvent, an extension's) reads isTrusted false; the
  // browser's own events, a person's, always true.
  ["keydown", "beforeinput", "input", "paste", "drop", "compositionstart"].forEach(function (type) {
    text.addEventListener(type, function (event) {
      if (!event.isTrusted) { counts.untrusted_events += 1; write(); }
    });
  });

  // Copies of the page's own text: the instructions, the sentence to paraphrase. A copy inside
  // the box is the worker's own text.
  document.addEventListener("copy", function (event) {
    if (event.target === text || !String(window.getSelection()).trim()) return;
    counts.prompt_copies += 1;
    copiedLast = true;
    write();
  });

  // Words that came into the box without a key, a paste or an input method: a drop, autofill
  // (an input event with no inputType), an extension or a script writing whole words. One word
  // with no key is a swipe keyboard's, counted as an input method above.
  function withoutKeys(event, inserted) {
    if (event.inputType === "insertFromDrop") return true;
    if (!event.inputType) return text.value !== seenValue;
    if (event.inputType.indexOf("insert") !== 0 || event.inputType === "insertFromPaste") {
      return false;
    }
    if (event.inputType === "insertFromDictation" || keySeen || composed) return false;
    return !oneWord(inserted);
  }

  // The rhythm of the keys: the times between key presses, their mean and spread kept as they
  // come (Welford's running variance). A gap of a pause or more is thought, not rhythm; a held
  // key's repeats and a script's events are no one's key presses. Judged by the server
  // (provenance.EVEN_KEYS_*); a page shown again after a refusal counts this showing's keys.
  var pauseMs = parseInt(field("key_intervals") && field("key_intervals").dataset.pauseMs, 10);
  var lastKey = null, intervalMean = 0, intervalSquares = 0;
  counts.key_intervals = counts.key_interval_variation = 0;

  function rhythm(event) {
    if (!event.isTrusted || event.repeat || !pauseMs) return;
    var now = performance.now();
    var gap = lastKey === null ? null : now - lastKey;
    lastKey = now;
    if (gap === null || gap >= pauseMs) return;
    counts.key_intervals += 1;
    var before = intervalMean;
    intervalMean += (gap - intervalMean) / counts.key_intervals;
    intervalSquares += (gap - before) * (gap - intervalMean);
    var spread = Math.sqrt(intervalSquares / counts.key_intervals);
    counts.key_interval_variation = intervalMean > 0 ? 1000 * spread / intervalMean : 0;
  }

  text.addEventListener("keydown", function (event) {
    rhythm(event);
    counts.key_presses += 1;
    keySeen = true;
    copiedLast = false;
    start(performance.now());
    write();
  });
  text.addEventListener("compositionstart", function (event) { composing = event.isTrusted; });
  // Chromium marks compositionend untrusted when the composition began as a trusted one and
  // was committed by the browser itself, so the start decides.
  text.addEventListener("compositionend", function (event) {
    if (composing && event.data) writtenByInputMethod(event.data.length);
    composing = false;
    composed = true;
    keySeen = false;
  });
  text.addEventListener("input", function (event) {
    copiedLast = false;
    if (event.isTrusted && !event.isComposing && withoutKeys(event, insertedText(event))) {
      counts.inserted_without_keys += 1;
      write();
    }
    seenValue = text.value;
    if (!event.isComposing) composed = false;
  });
  text.addEventListener("input", function (event) {
    if (!event.isTrusted || event.isComposing || !event.inputType) return;
    var inserted = insertedText(event);
    var inputMethod = byInputMethod(event, inserted);
    if (event.inputType.indexOf("insert") === 0) keySeen = false;
    if (inputMethod) writtenByInputMethod(inserted.length);
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
  // A text changed with no event at all (a script setting the box) is words without keys too.
  form.addEventListener("submit", function () {
    if (text.value !== seenValue) {
      counts.inserted_without_keys += 1;
      seenValue = text.value;
    }
    write();
  }, true);
  write();
})();
