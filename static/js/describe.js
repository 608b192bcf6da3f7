// Says what is wrong with a description before it is sent. The rules come from the server
// (task-rules), which checks them again: this script only saves a round trip.
(function () {
  "use strict";
  var form = document.getElementById("description-form");
  var rulesNode = document.getElementById("task-rules");
  if (!form || !rulesNode) return;
  var rules = JSON.parse(rulesNode.textContent);
  // Python's \w and \b know every script; JavaScript's need Unicode property classes.
  function pattern(source, flags) {
    return new RegExp(source.replace(/\\w/g, "[\\p{L}\\p{N}_]"), flags);
  }
  var secondSentence = pattern(rules.secondSentence, "u");
  var url = pattern(rules.url, "iu");
  var text = form.elements.text;
  var language = form.elements.language;
  var other = form.elements.other_language;
  var otherField = document.getElementById("field-other_language");

  function problemWithText(value) {
    value = value.trim();
    if (!value) return rules.emptyText || "Write one sentence describing the main action.";
    if (value.length > rules.maxLength) {
      return "Keep it to one short sentence: at most " + rules.maxLength +
        " characters (you wrote " + value.length + ").";
    }
    if (/\n/.test(value) || secondSentence.test(value.replace(/[.!?。！？।؟ "'”’)]+$/u, ""))) {
      return "Write exactly one sentence. This looks like more than one.";
    }
    if (url.test(value)) {
      return "Describe what happens in the video; do not include links or web addresses.";
    }
    return "";
  }

  function problemWithLanguage() {
    if (!language.value) return "Say which language you wrote in.";
    return "";
  }

  var show = window.showFieldError;

  // A live count, so a long paste is seen at once rather than cut or refused unexplained.
  var counter = document.createElement("p");
  counter.id = "text-count";
  counter.className = "help char-count";
  counter.setAttribute("aria-live", "polite");
  text.insertAdjacentElement("afterend", counter);
  function count() {
    var used = text.value.trim().length;
    counter.textContent = used + " / " + rules.maxLength + " characters";
    counter.classList.toggle("over", used > rules.maxLength);
  }
  text.addEventListener("input", count);
  count();

  function toggleOther() {
    otherField.hidden = language.value !== "other";
  }

  text.addEventListener("blur", function () { show(text, problemWithText(text.value)); });
  text.addEventListener("input", function () {
    if (text.getAttribute("aria-invalid") === "true") show(text, problemWithText(text.value));
  });
  language.addEventListener("change", function () { toggleOther(); show(language, problemWithLanguage()); });
  toggleOther();

  form.addEventListener("submit", function (event) {
    var textProblem = problemWithText(text.value);
    var languageProblem = problemWithLanguage();
    if (!languageProblem && language.value === "other" && !other.value.trim()) {
      show(other, "Type the name of the language you wrote in.");
      languageProblem = "other";
    }
    show(text, textProblem);
    if (languageProblem !== "other") show(language, languageProblem);
    if (textProblem || languageProblem) {
      event.preventDefault();
      (textProblem ? text : language).focus();
      return;
    }
    // A second click while the first is in flight must not send the form twice.
    form.querySelector("button[type=submit]").disabled = true;
  });
})();
