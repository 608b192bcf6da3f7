// The alignment grid: rows are the words of sentence A, columns those of sentence B, and each
// cell is none, sure or possible. It starts from the links the server sent (the automatic
// pre-alignment, or what was just refused) and keeps the hidden "links" field in Pharaoh form
// ("0-1 2p3"), which the server parses and checks again.
//
// Pointer (mouse, pen, touch): pressing a cell cycles it none → sure → possible → none; dragging
// gives the whole rectangle the state the first cell took. Keys: the grid is one tab stop;
// arrows move, Space/Enter cycle, S/P/N (or Delete) set sure/possible/none, Ctrl/Cmd+Z undoes.
// Every press, key, drag or reset is one step of the undo history.
//
// align-words.js, loaded before this file, draws the word-to-word view from the
// "alignment-change" events sent here, and sends "alignment-select" when a word is selected.
(function () {
  "use strict";
  var tool = document.getElementById("alignment-tool");
  if (!tool) return;
  var task = JSON.parse(document.getElementById("alignment-task").textContent);
  var form = document.getElementById("alignment-form");
  var field = document.getElementById("links");
  var submitButton = document.getElementById("align-submit");
  var undoButton = document.getElementById("align-undo");
  var resetButton = document.getElementById("align-reset");
  var countNode = document.getElementById("align-count");
  var currentNode = document.getElementById("align-current");
  var gridBox = document.getElementById("alignment-grid");
  var readonly = tool.dataset.readonly === "true";

  var NEXT = { "": "S", S: "P", P: "" };
  var NAMES = { "": "none", S: "sure", P: "possible" };
  var KEY_STATES = new Map([["s", "S"], ["p", "P"], ["n", ""], ["delete", ""], ["backspace", ""]]);
  var EDGE = 24; // px
  var MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  var source = task.source;
  var target = task.target;
  var names = { source: wordNames(source), target: wordNames(target) };
  var pre = parse(task.preAlignment);
  // The field, not the task: it holds a draft put back by drafts.js (else the same links).
  var links = parse(field.value);
  var history = []; // steps, each a list of {key, before, after}
  var active = { i: 0, j: 0 };
  var drag = null;
  var pointerClickPending = false;

  // A repeated word gets its position, so that "a ↔ a" always says which "a".
  function wordNames(words) {
    return words.map(function (word, k) {
      return words.indexOf(word) === words.lastIndexOf(word) ? word : word + " (word " + (k + 1) + ")";
    });
  }

  function parse(text) {
    var parsed = new Map();
    (text || "").split(/\s+/).forEach(function (item) {
      var match = /^(\d+)([-p])(\d+)$/.exec(item);
      if (!match || +match[1] >= source.length || +match[3] >= target.length) return;
      var key = +match[1] + "-" + +match[3];
      if (parsed.get(key) !== "S") parsed.set(key, match[2] === "p" ? "P" : "S");
    });
    return parsed;
  }

  function format(map) {
    return Array.from(map.keys())
      .map(function (key) { return key.split("-").map(Number); })
      .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
      .map(function (c) { return c[0] + (map.get(c[0] + "-" + c[1]) === "P" ? "p" : "-") + c[1]; })
      .join(" ");
  }

  function stateOf(map, i, j) { return map.get(i + "-" + j) || ""; }

  function put(key, state) {
    if (state) links.set(key, state); else links.delete(key);
  }

  function diff(before, after) {
    var keys = new Set(Array.from(before.keys()).concat(Array.from(after.keys())));
    return Array.from(keys)
      .filter(function (key) { return before.get(key) !== after.get(key); })
      .map(function (key) { return { key: key, before: before.get(key) || "", after: after.get(key) || "" }; });
  }

  // Runs an edit of `links` and records what it changed as one undo step.
  function edit(change) {
    var before = new Map(links);
    change();
    var step = diff(before, links);
    if (step.length) history.push(step);
    render();
  }

  function undo() {
    if (drag || !history.length) return;
    var step = history.pop();
    step.forEach(function (c) { put(c.key, c.before); });
    render();
  }

  // --- The table -------------------------------------------------------------------------
  var table = document.createElement("table");
  table.setAttribute("role", "grid");
  table.setAttribute("aria-labelledby", "grid-heading");
  table.setAttribute("aria-describedby", "align-keys");
  var corner = document.createElement("td");
  corner.className = "corner";
  corner.textContent = "A ↓ B →";
  var headRow = table.createTHead().insertRow();
  headRow.appendChild(corner);
  var columnHeads = target.map(function (word) { return headRow.appendChild(header(word, "col")); });
  var rowHeads = [];
  var body = table.createTBody();
  var cells = source.map(function (word, i) {
    var row = body.insertRow();
    rowHeads.push(row.appendChild(header(word, "row")));
    return target.map(function (_, j) {
      var button = document.createElement("button");
      button.type = "button";
      button.tabIndex = -1;
      button.dataset.i = i;
      button.dataset.j = j;
      row.insertCell().appendChild(button);
      return button;
    });
  });
  if (cells.length && cells[0].length) cells[0][0].tabIndex = 0;
  gridBox.appendChild(table);

  function header(word, scope) {
    var th = document.createElement("th");
    th.scope = scope;
    th.title = word; // long words are cut short in the header
    var text = th.appendChild(document.createElement("span"));
    text.className = "word";
    text.dir = "auto";
    text.textContent = word;
    return th;
  }

  function cellName(i, j) {
    var state = stateOf(links, i, j);
    var was = stateOf(pre, i, j);
    return names.source[i] + " ↔ " + names.target[j] + ": " + NAMES[state] +
      (state === was ? "" : ", changed from " + NAMES[was]);
  }

  function render() {
    var linkedRows = new Set();
    var linkedColumns = new Set();
    links.forEach(function (_, key) {
      var c = key.split("-");
      linkedRows.add(+c[0]);
      linkedColumns.add(+c[1]);
    });
    var sure = 0;
    links.forEach(function (state) { if (state === "S") sure += 1; });
    var changed = diff(pre, links).length;
    cells.forEach(function (row, i) {
      row.forEach(function (button, j) {
        var state = stateOf(links, i, j);
        button.className = "cell" + (state ? " " + state : "") +
          (state === stateOf(pre, i, j) ? "" : " changed");
        button.setAttribute("aria-label", cellName(i, j));
      });
    });
    markUnaligned(rowHeads, linkedRows, names.source);
    markUnaligned(columnHeads, linkedColumns, names.target);
    var unaligned = source.length - linkedRows.size + target.length - linkedColumns.size;
    countNode.replaceChildren(
      span(plural(links.size, "link") + " (" + sure + " sure, " + (links.size - sure) + " possible)"),
      " · ",
      span(plural(changed, "cell") + " changed · " + plural(unaligned, "word") + " unaligned")
    );
    field.value = format(links);
    undoButton.disabled = readonly || !history.length;
    resetButton.disabled = readonly || !changed;
    showCurrent();
  }

  function markUnaligned(heads, linked, wordNames) {
    heads.forEach(function (th, k) {
      var unaligned = !linked.has(k);
      th.classList.toggle("unaligned", unaligned);
      th.setAttribute("aria-label", wordNames[k] + (unaligned ? ", unaligned" : ""));
    });
  }

  function span(text) {
    var node = document.createElement("span");
    node.textContent = text;
    return node;
  }

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function showCurrent() {
    currentNode.textContent = cells.length && target.length ? cellName(active.i, active.j) : "";
    rowHeads.forEach(function (th, i) { th.classList.toggle("current", i === active.i); });
    columnHeads.forEach(function (th, j) { th.classList.toggle("current", j === active.j); });
    tool.dispatchEvent(new CustomEvent("alignment-change", {
      detail: { links: links, names: names, active: active },
    }));
  }

  function moveTo(i, j, byPointer) {
    if (!source.length || !target.length) return;
    i = Math.max(0, Math.min(source.length - 1, i));
    j = Math.max(0, Math.min(target.length - 1, j));
    cells[active.i][active.j].tabIndex = -1;
    active = { i: i, j: j };
    cells[i][j].tabIndex = 0;
    // A press must not scroll the grid under the pointer; a key should bring the cell into view.
    cells[i][j].focus({ preventScroll: !!byPointer });
    showCurrent();
  }

  function cellOf(node) {
    var button = node && node.closest ? node.closest(".cell") : null;
    return button && table.contains(button) ? { i: +button.dataset.i, j: +button.dataset.j } : null;
  }

  function cycle(cell) {
    edit(function () { put(cell.i + "-" + cell.j, NEXT[stateOf(links, cell.i, cell.j)]); });
  }

  // --- Keys ------------------------------------------------------------------------------
  table.addEventListener("keydown", function (event) {
    pointerClickPending = false;
    var cell = cellOf(event.target);
    if (!cell || drag || event.ctrlKey || event.metaKey || event.altKey) return;
    var move = MOVES[event.key];
    var state = KEY_STATES.get((event.key || "").toLowerCase());
    if (move) {
      moveTo(cell.i + move[0], cell.j + move[1]);
    } else if (event.key === "Home" || event.key === "End") {
      moveTo(cell.i, event.key === "Home" ? 0 : target.length - 1);
    } else if (state !== undefined && !readonly) {
      edit(function () { put(cell.i + "-" + cell.j, state); });
    } else {
      return;
    }
    event.preventDefault();
  });

  // Space and Enter reach us as the button's own click (so do clicks from assistive
  // technology); clicks that follow a pointer press were already handled on pointerdown.
  table.addEventListener("click", function (event) {
    var cell = cellOf(event.target);
    var fromPointer = pointerClickPending || event.detail > 0;
    pointerClickPending = false;
    if (cell && !fromPointer && !readonly) cycle(cell);
  });

  document.addEventListener("keydown", function (event) {
    var editing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey &&
        (event.key || "").toLowerCase() === "z" && !editing && !readonly) {
      event.preventDefault();
      undo();
    }
  });

  // --- Pointer: press to cycle, drag to mark a block -------------------------------------
  table.addEventListener("pointerdown", function (event) {
    var cell = cellOf(event.target);
    if (!cell || readonly || drag || event.button !== 0) return;
    moveTo(cell.i, cell.j, true);
    drag = {
      pointerId: event.pointerId,
      start: cell,
      end: cell,
      state: NEXT[stateOf(links, cell.i, cell.j)],
      before: new Map(links),
    };
    table.setPointerCapture(event.pointerId);
    table.classList.add("dragging");
    paintDrag();
  });

  table.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.pointerId) return;
    scrollNearEdge(event.clientX);
    var cell = cellOf(document.elementFromPoint(event.clientX, event.clientY));
    if (!cell || (cell.i === drag.end.i && cell.j === drag.end.j)) return;
    drag.end = cell;
    paintDrag();
  });

  // A drag that reaches an edge of the grid's box (the right one, or the sticky row headers)
  // scrolls it, so that a block can be wider than the screen.
  function scrollNearEdge(x) {
    var left = corner.getBoundingClientRect().right;
    var right = gridBox.getBoundingClientRect().right;
    if (x < left + EDGE) gridBox.scrollLeft -= EDGE;
    else if (x > right - EDGE) gridBox.scrollLeft += EDGE;
  }

  function paintDrag() {
    links = new Map(drag.before);
    var rows = [drag.start.i, drag.end.i].sort(function (a, b) { return a - b; });
    var columns = [drag.start.j, drag.end.j].sort(function (a, b) { return a - b; });
    for (var i = rows[0]; i <= rows[1]; i += 1) {
      for (var j = columns[0]; j <= columns[1]; j += 1) put(i + "-" + j, drag.state);
    }
    render();
  }

  function endDrag(event, keep) {
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (keep) {
      var step = diff(drag.before, links);
      if (step.length) history.push(step);
    } else {
      links = drag.before;
    }
    var end = drag.end;
    drag = null;
    pointerClickPending = true;
    table.classList.remove("dragging");
    if (keep) moveTo(end.i, end.j, true);
    render();
  }

  table.addEventListener("pointerup", function (event) { endDrag(event, true); });
  table.addEventListener("pointercancel", function (event) { endDrag(event, false); });

  // --- Buttons, the word view and the form -----------------------------------------------
  undoButton.addEventListener("click", undo);
  resetButton.addEventListener("click", function () {
    edit(function () { links = new Map(pre); });
  });

  tool.addEventListener("alignment-select", function (event) {
    var selected = event.detail;
    [["source", rowHeads], ["target", columnHeads]].forEach(function (side) {
      side[1].forEach(function (th, k) {
        th.classList.toggle("selected", !!selected && selected.side === side[0] && selected.index === k);
      });
    });
  });

  var submitting = false;
  var submitLabel = submitButton.textContent;
  form.addEventListener("submit", function (event) {
    if (submitting) {
      event.preventDefault();
      return;
    }
    submitting = true;
    field.value = format(links);
    submitButton.disabled = true;
    submitButton.textContent = "Submitting…";
  });
  // Coming back with the Back button shows the page as it was left: make it usable again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    submitting = false;
    submitButton.disabled = readonly;
    submitButton.textContent = submitLabel;
  });

  tool.hidden = false;
  render();
})();
