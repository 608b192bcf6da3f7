// Shows or clears a field's error in the markup of templates/field.html: the message goes in
// "<field id>_error", the field is marked aria-invalid and described by it. Shared by the
// pages that check their forms before sending them.
window.showFieldError = function (field, message) {
  "use strict";
  var error = document.getElementById(field.id + "_error");
  error.textContent = message;
  field.setAttribute("aria-invalid", message ? "true" : "false");
  // Add or drop only the error's id: the help text (and anything else the server put there)
  // must still be announced.
  var ids = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
    return id && id !== error.id;
  });
  if (message) { ids.push(error.id); }
  if (ids.length) {
    field.setAttribute("aria-describedby", ids.join(" "));
  } else {
    field.removeAttribute("aria-describedby");
  }
  field.closest(".field").classList.toggle("invalid", Boolean(message));
};
