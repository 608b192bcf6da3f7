// Shows or clears a field's error in the markup of templates/field.html: the message goes in
// "<field id>_error", the field is marked aria-invalid and described by it. Shared by the
// pages that check their forms before sending them.
window.showFieldError = function (field, message) {
  "use strict";
  var error = document.getElementById(field.id + "_error");
  error.textContent = message;
  field.setAttribute("aria-invalid", message ? "true" : "false");
  if (message) { field.setAttribute("aria-describedby", error.id); }
  field.closest(".field").classList.toggle("invalid", Boolean(message));
};
