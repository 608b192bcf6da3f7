// The alignment grid: rows are the words of the first sentence, columns those of the second.
// Clicking a cell (or Space/Enter on it) cycles none → sure → possible → none. The links are
// kept in the hidden "links" field in Pharaoh form ("0-1 2p3"), which the server checks.
(function () {
  "use strict";
  var task = JSON.parse(document.getElementById("alignment-task").textContent);
  var field = document.getElementById("links");
  var grid = document.getElementById("alignment-grid");
  var state = {}; // "i-j" → "S" | "P"
  var NEXT = { "": "S", S: "P", P: "" };
  var NAMES = { "": "not aligned", S: "sure", P: "possible" };

  field.value.split(/\s+/).filter(Boolean).forEach(function (link) {
    var possible = link.indexOf("p") >= 0;
    var parts = link.split(possible ? "p" : "-");
    state[parts[0] + "-" + parts[1]] = possible ? "P" : "S";
  });

  function save() {
    field.value = Object.keys(state).sort().map(function (key) {
      var parts = key.split("-");
      return parts[0] + (state[key] === "P" ? "p" : "-") + parts[1];
    }).join(" ");
  }

  function label(i, j) {
    return task.source[i] + " ↔ " + task.target[j] + ": " + NAMES[state[i + "-" + j] || ""];
  }

  var table = document.createElement("table");
  var head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th"));
  task.target.forEach(function (word) {
    var th = document.createElement("th");
    th.scope = "col";
    th.textContent = word;
    head.appendChild(th);
  });
  var body = table.createTBody();
  task.source.forEach(function (word, i) {
    var row = body.insertRow();
    var th = document.createElement("th");
    th.scope = "row";
    th.textContent = word;
    row.appendChild(th);
    task.target.forEach(function (_, j) {
      var cell = row.insertCell();
      var button = document.createElement("button");
      button.type = "button";
      button.className = "cell " + (state[i + "-" + j] || "");
      button.setAttribute("aria-label", label(i, j));
      button.dataset.i = i;
      button.dataset.j = j;
      button.addEventListener("click", function () {
        var key = i + "-" + j;
        var next = NEXT[state[key] || ""];
        if (next) { state[key] = next; } else { delete state[key]; }
        button.className = "cell " + next;
        button.setAttribute("aria-label", label(i, j));
        save();
      });
      cell.appendChild(button);
    });
  });
  grid.appendChild(table);
})();
