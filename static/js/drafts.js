// Keeps what a worker has done on a task page in this browser until the server has stored it,
// so that leaving the task and coming back, a reload, or a crash loses nothing; and asks before
// the page is left with work not yet sent.
//
// A task form open for work carries data-draft-key ("assignment:<pk>": never anything the
// worker typed). Its fields are kept in localStorage on every change, with the hidden fields
// named in data-draft-hidden (the alignment grid's links) and data-draft-with (the typing
// record's counts, which go on from where they were). The server renders the key only while the
// assignment is open, so a draft is only ever put back into work that was not stored. A page
// answering a refused submission (data-draft-refused) already shows what was sent: nothing is
// put back there. The page answering a stored (or skipped) task names it in
// <body data-draft-stored>, and its draft is forgotten. Drafts nobody comes back to are
// forgotten after DRAFT_DAYS.
//
// Loaded by base.html before every page's own scripts, so those start from the restored values
// (align.js reads the links field, segment-marker.js loads the restored link). Putting a draft
// back sends no input, key or paste events: the typing record does not count it as typed or
// pasted. The form gets data-draft-restored and a "draft-restored" event, for any script that
// wants to know.
(function () {
  "use strict";
  var PREFIX = "paracrowd.draft.";
  var DRAFT_DAYS = 14;
  var store;
  try {
    store = window.localStorage;
    store.getItem(PREFIX);  // a browser refusing storage throws here, not later
  } catch (error) {
    return;
  }

  function read(key) {
    try {
      return JSON.parse(store.getItem(PREFIX + key));
    } catch (error) {
      return null;
    }
  }

  function forget(key) { store.removeItem(PREFIX + key); }

  // Forget drafts the server said are stored, and old ones.
  var stored = document.body.dataset.draftStored;
  if (stored) forget(stored);
  var oldest = Date.now() - DRAFT_DAYS * 24 * 3600 * 1000;
  for (var k = store.length - 1; k >= 0; k -= 1) {
    var name = store.key(k);
    if (name && name.indexOf(PREFIX) === 0) {
      var old = read(name.slice(PREFIX.length));
      if (!old || !(old.saved > oldest)) store.removeItem(name);
    }
  }

  var form = document.querySelector("form[data-draft-key]");
  if (!form) return;
  var key = form.dataset.draftKey;

  function patterns(attribute) {
    return (form.getAttribute(attribute) || "").split(/\s+/).filter(Boolean);
  }
  function matches(list, fieldName) {
    return list.some(function (pattern) {
      return pattern.slice(-1) === "*" ? fieldName.indexOf(pattern.slice(0, -1)) === 0 : fieldName === pattern;
    });
  }
  var hiddenWork = patterns("data-draft-hidden");
  var hiddenWith = patterns("data-draft-with");

  // The form's fields as {name: value}: "work" is what the worker did, "with" what goes along.
  function snapshot() {
    var work = {}, along = {};
    Array.prototype.forEach.call(form.elements, function (field) {
      var fieldName = field.name;
      if (!fieldName || field.type === "submit" || field.type === "button" || field.type === "file") return;
      if (field.type === "hidden") {
        if (matches(hiddenWork, fieldName)) work[fieldName] = field.value;
        else if (matches(hiddenWith, fieldName)) along[fieldName] = field.value;
        return;
      }
      if (field.type === "radio") {
        if (field.checked) work[fieldName] = field.value;
        else if (!(fieldName in work)) work[fieldName] = null;
      } else if (field.type === "checkbox") {
        work[fieldName] = field.checked;
      } else {
        work[fieldName] = field.value;
      }
    });
    return { work: work, with: along };
  }

  function put(values) {
    Object.keys(values || {}).forEach(function (fieldName) {
      var value = values[fieldName];
      var fields = form.elements[fieldName];
      if (!fields) return;
      var list = fields.length !== undefined && !fields.tagName ? fields : [fields];
      Array.prototype.forEach.call(list, function (field) {
        if (field.type === "radio") field.checked = value !== null && field.value === value;
        else if (field.type === "checkbox") field.checked = !!value;
        else field.value = value;
      });
    });
  }

  // Work the server has not stored is on the page from the start: put back from a draft, or
  // sent and refused.
  var refused = form.hasAttribute("data-draft-refused");
  var unstored = refused;
  var draft = read(key);
  if (draft && !refused) {
    put(draft.work);
    put(draft.with);
    unstored = true;
    form.dataset.draftRestored = "true";
    form.dispatchEvent(new CustomEvent("draft-restored", { detail: { key: key } }));
  }

  // What the page shows once its own scripts have run (they may rewrite a field, as align.js
  // writes the links in its own order): work is unsaved when it differs from that, or when it
  // was unstored from the start.
  var baseline = null;
  function unsaved() {
    return unstored || (baseline !== null && JSON.stringify(snapshot().work) !== baseline);
  }

  var pending = null;
  function save() {
    pending = null;
    if (baseline === null) return;
    if (!unsaved()) {
      forget(key);
      return;
    }
    var now = snapshot();
    try {
      store.setItem(PREFIX + key, JSON.stringify({ saved: Date.now(), work: now.work, with: now.with }));
    } catch (error) {
      // Storage full or refused: the page still works, without a draft.
    }
  }
  // After the page's own handlers, which may change fields in answer to the same event.
  function later() { if (pending === null) pending = window.setTimeout(save, 0); }
  ["input", "change", "click", "keyup", "pointerup", "alignment-change"].forEach(function (type) {
    form.addEventListener(type, later, true);
  });
  document.addEventListener("DOMContentLoaded", function () {
    baseline = JSON.stringify(snapshot().work);
  });
  // Leaving with the page hidden (a tab closed on a phone) saves what the last event missed.
  document.addEventListener("visibilitychange", function () { if (document.hidden) save(); });

  var submitting = false;
  // Bubbling to the window: a form whose own check stopped the submit is still unsent.
  window.addEventListener("submit", function (event) {
    if (!event.defaultPrevented) {
      if (pending !== null) save();
      submitting = true;
    }
  });
  window.addEventListener("pageshow", function (event) { if (event.persisted) submitting = false; });
  window.addEventListener("beforeunload", function (event) {
    if (submitting || !unsaved()) return;
    event.preventDefault();
    event.returnValue = "";  // older browsers show the dialog only with a value set
  });
})();
