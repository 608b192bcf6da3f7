// The problems of the page on screen at the window's current width, as sentences: controls
// without an accessible name, elements wider than their box, labels drawn over another label
// or over a control not their own. Read by tests/browser/test_every_page.py.
() => {
  const problems = [];
  const describe = (element) => element.outerHTML.slice(0, 140).replace(/\s+/g, " ");
  const shown = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
  };
  // The text that names: an element's words and the alternative text of its images.
  const text = (element) => (element
    ? [element.textContent, ...[...element.querySelectorAll("img[alt]")].map((image) => image.alt)]
      .join(" ").trim()
    : "");
  // Hidden inputs, and controls never drawn (display: none on the control itself), name nothing.
  const controls = [...document.querySelectorAll("input, select, textarea, button")].filter(
    (control) => control.type !== "hidden" && getComputedStyle(control).display !== "none");

  // A name, as assistive technology finds it: a label, aria-label(ledby), a title, a button's text.
  for (const control of controls) {
    const named = [...(control.labels || [])].some((label) => text(label))
      || (control.getAttribute("aria-label") || "").trim()
      || (control.getAttribute("aria-labelledby") || "").split(/\s+/)
        .some((id) => text(document.getElementById(id)))
      || (control.title || "").trim()
      || (control.tagName === "BUTTON" && text(control))
      || (control.tagName === "INPUT" && ["submit", "reset"].includes(control.type))
      || (control.tagName === "INPUT" && control.type === "button" && control.value.trim())
      || (control.type === "image" && (control.alt || "").trim());
    if (!named) problems.push(`a control without a name: ${describe(control)}`);
  }

  // Wider than its box: past the window, or past a parent that does not scroll (a wide table
  // in its own scrolling box is fine; out-of-flow elements such as visually hidden text are
  // not laid out in their parent).
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    problems.push(`the page is ${root.scrollWidth - root.clientWidth}px wider than the window`);
  }
  const clips = (style) => style.overflowX !== "visible";
  for (const element of document.body.querySelectorAll("*")) {
    if (element instanceof SVGElement && element.tagName !== "svg") continue;
    if (!shown(element)) continue;
    const style = getComputedStyle(element);
    if (style.position === "absolute" || style.position === "fixed") continue;
    let parent = element.parentElement;
    while (parent && ["inline", "contents"].includes(getComputedStyle(parent).display)) {
      parent = parent.parentElement;
    }
    if (!parent || clips(getComputedStyle(parent))) continue;
    const box = element.getBoundingClientRect();
    const room = parent === document.body ? root.getBoundingClientRect()
      : parent.getBoundingClientRect();
    const past = Math.max(box.right - room.right, room.left - box.left);
    if (past > 1) problems.push(`${Math.round(past)}px wider than its box: ${describe(element)}`);
    // Text (a long word, an address) running out of an element with nothing else inside.
    if (!element.children.length && !clips(style) && style.display !== "inline"
        && element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0) {
      problems.push(`text wider than its box: ${describe(element)}`);
    }
  }

  // Labels over labels and over controls: the boxes of their text, not of the elements (a
  // label may be as wide as the form, or wrap its own checkbox).
  // Text clipped to a pixel (visually hidden, for screen readers) is not drawn anywhere.
  const clippedAway = (node, label) => {
    for (let element = node.parentElement; element; element = element.parentElement) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) return true;
      if (element === label) return false;
    }
    return false;
  };
  const textBoxes = (element) => {
    const boxes = [], range = document.createRange();
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      if (!node.textContent.trim() || node.parentElement.closest("select, textarea, button")
          || clippedAway(node, element)) continue;
      range.selectNodeContents(node);
      boxes.push(...[...range.getClientRects()].filter((box) => box.width > 1 && box.height > 1));
    }
    return boxes;
  };
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const labels = [...document.querySelectorAll("label, legend")].filter(shown).map((element) => ({
    element,
    boxes: textBoxes(element),
    own: new Set([element.control, ...element.querySelectorAll("input, select, textarea, button")]),
  }));
  const onScreen = controls.filter(shown);
  labels.forEach((label, n) => {
    for (const control of onScreen) {
      const box = control.getBoundingClientRect();
      if (!label.own.has(control) && label.boxes.some((text) => overlap(text, box))) {
        problems.push(`${describe(label.element)} is over ${describe(control)}`);
      }
    }
    for (const other of labels.slice(n + 1)) {
      if (label.element.contains(other.element) || other.element.contains(label.element)) continue;
      if (label.boxes.some((a) => other.boxes.some((b) => overlap(a, b)))) {
        problems.push(`${describe(label.element)} is over ${describe(other.element)}`);
      }
    }
  });
  return problems;
}
