// The session's end page: a button beside each code copies it, so a participant pastes it
// into their platform without selecting it by hand (on a phone, hard to do exactly).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy-code");
    if (!button) return;
    var code = document.getElementById(button.dataset.copy);
    if (!code) return;
    var label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    function say(text) {
      button.textContent = text;
      window.setTimeout(function () { button.textContent = label; }, 3000);
    }
    if (!navigator.clipboard) {
      say("Select the code to copy it");
      return;
    }
    navigator.clipboard.writeText(code.textContent.trim()).then(
      function () { say("Copied"); },
      function () { say("Select the code to copy it"); }
    );
  });
})();
