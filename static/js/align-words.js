// The word-to-word view: sentence A above sentence B as rows of word chips, with a line for
// each link (solid: sure, dashed: possible). It only mirrors the grid: align.js, loaded after
// this file, sends "alignment-change" with the links whenever they or the grid's current cell
// change. Selecting a word shows only its links, and its row or column is marked in the grid
// (this file sends "alignment-select").
// The chips are one tab stop: Left/Right move along a sentence, Up/Down go to the nearest
// word of the other sentence, Space/Enter select, Escape clears the selection.
(function () {
  "use strict";
  var tool = document.getElementById("alignment-tool");
  var box = document.getElementById("alignment-words");
  if (!tool || !box) return;
  var task = JSON.parse(document.getElementById("alignment-task").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var NAMES = { S: "sure", P: "possible" };
  var OTHER = { source: "target", target: "source" };
  var shown = { links: new Map(), names: { source: task.source, target: task.target }, active: null };
  var selected = null; // {side, index}

  var track = document.createElement("div");
  track.className = "word-track";
  var rows = { source: chipRow("source", task.source, "A"), target: chipRow("target", task.target, "B") };
  var svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "word-lines");
  svg.setAttribute("aria-hidden", "true");
  track.append(rows.source.list, svg, rows.target.list);
  box.appendChild(track);
  var firstChip = rows.source.chips[0] || rows.target.chips[0];
  if (firstChip) firstChip.tabIndex = 0;

  function chipRow(side, words, label) {
    var list = document.createElement("ol");
    list.className = "word-row";
    list.dataset.label = label;
    list.setAttribute("aria-label", "Sentence " + label);
    var chips = words.map(function (word, index) {
      var chip = document.createElement("button");
      chip.type = "button";
      chip.className = "chip";
      chip.tabIndex = -1;
      chip.dir = "auto";
      chip.textContent = word;
      chip.dataset.side = side;
      chip.dataset.index = index;
      list.appendChild(document.createElement("li")).appendChild(chip);
      return chip;
    });
    return { list: list, chips: chips };
  }

  function linksByWord() {
    var partners = {
      source: task.source.map(function () { return []; }),
      target: task.target.map(function () { return []; }),
    };
    shown.links.forEach(function (state, key) {
      var c = key.split("-").map(Number);
      partners.source[c[0]].push({ index: c[1], state: state });
      partners.target[c[1]].push({ index: c[0], state: state });
    });
    return partners;
  }

  function isSelected(side, index) {
    return !!selected && selected.side === side && selected.index === index;
  }

  function render() {
    var partners = linksByWord();
    var active = shown.active;
    Object.keys(rows).forEach(function (side) {
      var other = OTHER[side];
      rows[side].chips.forEach(function (chip, k) {
        var mine = partners[side][k];
        var toSelected = selected && selected.side === other &&
          mine.filter(function (p) { return p.index === selected.index; })[0];
        chip.className = "chip" + (mine.length ? "" : " unaligned") +
          (toSelected ? " linked " + toSelected.state : "") +
          (active && active[side === "source" ? "i" : "j"] === k ? " current" : "");
        chip.setAttribute("aria-pressed", String(isSelected(side, k)));
        chip.setAttribute("aria-label", shown.names[side][k] + ": " + (mine.length
          ? mine.map(function (p) { return NAMES[p.state] + " to " + shown.names[other][p.index]; }).join(", ")
          : "unaligned"));
      });
    });
    draw();
  }

  function draw() {
    var origin = svg.getBoundingClientRect();
    svg.setAttribute("viewBox", "0 0 " + origin.width + " " + origin.height);
    svg.classList.toggle("has-selection", !!selected);
    svg.replaceChildren();
    shown.links.forEach(function (state, key) {
      var c = key.split("-").map(Number);
      var a = rows.source.chips[c[0]].getBoundingClientRect();
      var b = rows.target.chips[c[1]].getBoundingClientRect();
      var line = document.createElementNS(SVG, "line");
      line.setAttribute("x1", a.left + a.width / 2 - origin.left);
      line.setAttribute("y1", 0);
      line.setAttribute("x2", b.left + b.width / 2 - origin.left);
      line.setAttribute("y2", origin.height);
      var ofSelected = isSelected("source", c[0]) || isSelected("target", c[1]);
      line.setAttribute("class", state + (ofSelected ? " selected" : ""));
      svg.appendChild(line);
    });
  }

  function select(choice) {
    selected = choice;
    render();
    tool.dispatchEvent(new CustomEvent("alignment-select", { detail: selected }));
  }

  function focusChip(chip) {
    track.querySelectorAll(".chip").forEach(function (c) { c.tabIndex = -1; });
    chip.tabIndex = 0;
    chip.focus();
  }

  function nearest(chips, chip) {
    var x = chip.getBoundingClientRect().left + chip.offsetWidth / 2;
    return chips.reduce(function (best, c) {
      var d = Math.abs(c.getBoundingClientRect().left + c.offsetWidth / 2 - x);
      return !best || d < best.d ? { chip: c, d: d } : best;
    }, null);
  }

  track.addEventListener("click", function (event) {
    var chip = event.target.closest(".chip");
    if (!chip) return;
    var side = chip.dataset.side;
    var index = +chip.dataset.index;
    focusChip(chip);
    select(isSelected(side, index) ? null : { side: side, index: index });
  });

  track.addEventListener("keydown", function (event) {
    var chip = event.target.closest(".chip");
    if (!chip || event.ctrlKey || event.metaKey || event.altKey) return;
    var chips = rows[chip.dataset.side].chips;
    var index = +chip.dataset.index;
    var next = null;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      next = chips[index + (event.key === "ArrowLeft" ? -1 : 1)];
    } else if (event.key === "Home" || event.key === "End") {
      next = chips[event.key === "Home" ? 0 : chips.length - 1];
    } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      var side = event.key === "ArrowUp" ? "source" : "target";
      var found = side === chip.dataset.side ? null : nearest(rows[side].chips, chip);
      next = found && found.chip;
    } else if (event.key === "Escape" && selected) {
      select(null);
    } else {
      return;
    }
    event.preventDefault();
    if (next) focusChip(next);
  });

  tool.addEventListener("alignment-change", function (event) {
    shown = event.detail;
    render();
  });
  if (window.ResizeObserver) new ResizeObserver(draw).observe(track);
  if (document.fonts) document.fonts.ready.then(draw);
})();
