// view.js: what every explorer's view shares.  Each explorer's module is this file
// followed by its own (seed.js, where.js, ...), one self-contained ES module, because
// anywidget loads a module from a string (no relative imports) and the book's pages load
// the very same text.  A view knows only its model: it draws `spec` (fixed when the
// explorer was made) and `state` (the numbers of the moment), and sends what the reader
// does as a message.  In Jupyter the kernel answers with a new state, computed by
// autograd_lab; in the book's pages, a small local model answers from numbers that
// autograd_lab computed when the book was built (page.js).

const AL_STYLE = `
.al-x { --al-fg: #1e1e1e; --al-muted: #5c5c5c; --al-bg: #fbfaf6; --al-card: #ffffff;
  --al-line: #cfccc2; --al-accent: #0072b2; --al-warn: #a84200; --al-warn-bg: #fbe3d6;
  --al-note-bg: #dcecf7; --al-off: #ebe9e2;
  --al-zero: #f4f3ef; --al-pos: #b2182b; --al-neg: #2166ac;
  color: var(--al-fg); background: var(--al-bg); border: 1px solid var(--al-line);
  border-radius: 8px; padding: 12px 14px; margin: 4px 0; max-width: 780px;
  box-sizing: border-box; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
html[data-theme="dark"] .al-x, body[data-jp-theme-light="false"] .al-x {
  --al-fg: #e8e6e3; --al-muted: #a9a59d; --al-bg: #1f2329; --al-card: #14171b;
  --al-line: #474d56; --al-accent: #56b4e9; --al-warn: #ff9e6b; --al-warn-bg: #3d2419;
  --al-note-bg: #17303f; --al-off: #2b3038;
  --al-zero: #2a2f37; --al-pos: #cf3f36; --al-neg: #3378b7; }
.al-x * { box-sizing: border-box; }
.al-x .al-title { font-weight: 650; font-size: 15px; margin: 0 0 2px; line-height: 1.35; overflow-wrap: anywhere; }
.al-x .al-sub { color: var(--al-muted); margin: 0 0 8px; }
.al-x .al-host a { color: var(--al-accent); text-decoration: underline; }
.al-x .al-host { color: var(--al-muted); font-size: 12.5px; margin: 8px 0 0;
  border-top: 1px dashed var(--al-line); padding-top: 6px; }
.al-x code, .al-x .al-mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12.5px; font-variant-numeric: tabular-nums; }
.al-x .al-row { display: flex; flex-wrap: wrap; gap: 12px 18px; align-items: flex-start; }
.al-x .al-row > * { min-width: 0; max-width: 100%; }
.al-x .al-controls { display: flex; flex-direction: column; gap: 6px; min-width: 260px; }
.al-x .al-slider { display: grid; grid-template-columns: 5.5em 1fr 5.2em; gap: 8px;
  align-items: center; }
.al-x .al-slider label { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.al-x input[type=range] { width: 100%; min-width: 0; height: 28px; accent-color: var(--al-accent); margin: 0; }
.al-x input[type=checkbox] { width: 24px; height: 24px; min-width: 24px; margin: 1px; accent-color: var(--al-accent); }
.al-x input[type=number], .al-x input[type=text], .al-x textarea {
  font: 12.5px ui-monospace, Menlo, Consolas, monospace; color: var(--al-fg);
  background: var(--al-card); border: 1px solid var(--al-line); border-radius: 4px;
  padding: 3px 5px; width: 100%; min-height: 28px; }
.al-x textarea { resize: vertical; min-height: 2.4em; }
.al-x input:disabled, .al-x textarea:disabled, .al-x button:disabled { opacity: .55; cursor: not-allowed; }
.al-x .al-buttons { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0 0; }
.al-x button { font: 13px system-ui, sans-serif; color: var(--al-fg); background: var(--al-card);
  border: 1px solid var(--al-line); border-radius: 5px; padding: 3px 9px; cursor: pointer; min-height: 24px; min-width: 24px; }
.al-x button:hover:not(:disabled) { border-color: var(--al-accent); }
.al-x button[aria-pressed=true] { border-color: var(--al-accent); box-shadow: inset 0 0 0 1px var(--al-accent); }
.al-x label.al-check { display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
.al-x .al-status:empty { display: none; }
.al-x .al-problem, .al-x .al-note { border-left: 4px solid var(--al-warn); background: var(--al-warn-bg);
  padding: 4px 8px; margin: 8px 0 0; border-radius: 0 4px 4px 0; }
.al-x .al-note { border-left-color: var(--al-accent); background: var(--al-note-bg); }
.al-x .al-readout { margin: 8px 0 0; white-space: pre-wrap; }
.al-x table.al-heat { border-collapse: separate; border-spacing: 2px; margin: 0; }
.al-x table.al-heat th { font: 12px ui-monospace, Menlo, Consolas, monospace; color: var(--al-muted);
  font-weight: 400; padding: 0 4px; white-space: nowrap; }
.al-x table.al-heat th.al-rl { text-align: right; }
.al-x table.al-heat td { min-width: 3.9em; height: 1.9em; padding: 0 4px; text-align: center;
  border-radius: 3px; font: 12.5px ui-monospace, Menlo, Consolas, monospace;
  font-variant-numeric: tabular-nums; transition: opacity .12s; }
.al-x table.al-heat td.al-pos { background: color-mix(in srgb, var(--al-pos) var(--al-mix), var(--al-zero)); }
.al-x table.al-heat td.al-neg { background: color-mix(in srgb, var(--al-neg) var(--al-mix), var(--al-zero)); }
/* heat cells' ink: black or white, whichever reads at 4.5:1 or more on the cell (heat()) */
.al-x table.al-heat td.al-pos, .al-x table.al-heat td.al-neg { color: #000000; }
.al-x table.al-heat td.al-strong { color: #ffffff; }
html[data-theme="dark"] .al-x table.al-heat td.al-pos, html[data-theme="dark"] .al-x table.al-heat td.al-neg,
body[data-jp-theme-light="false"] .al-x table.al-heat td.al-pos,
body[data-jp-theme-light="false"] .al-x table.al-heat td.al-neg { color: #ffffff; }
.al-x table.al-heat td.al-lead { min-width: 0; height: auto; padding: 0 4px; text-align: left;
  font: 12px ui-monospace, Menlo, Consolas, monospace; color: var(--al-muted); white-space: nowrap; }
.al-x .al-scroll { overflow-x: auto; max-width: 100%; }
.al-x .al-scroll:focus-visible { outline: 2px solid var(--al-accent); outline-offset: 2px; }
.al-x table.al-heat td.al-pending { background: repeating-linear-gradient(135deg, var(--al-off),
  var(--al-off) 4px, transparent 4px, transparent 8px); color: var(--al-muted); }
.al-x table.al-heat td.al-bad { outline: 2px solid var(--al-warn); color: var(--al-warn); font-weight: 700; }
.al-x table.al-heat tr.al-sum td { font-weight: 700; }
.al-x table.al-heat tr.al-sum th { color: var(--al-fg); font-weight: 600; }
.al-x table.al-heat tr.al-gap td, .al-x table.al-heat tr.al-gap th { height: 6px; padding: 0; }
.al-x .al-chip { display: inline-block; min-width: 3.6em; padding: 1px 5px; border-radius: 10px;
  border: 1px solid var(--al-line); text-align: center; }
.al-x .al-legend { color: var(--al-muted); font-size: 12px; margin: 6px 0 0; }
`;

function alStyle() {
  const doc = globalThis.document;
  if (!doc.getElementById("al-explorer-style")) {
    const style = doc.createElement("style");
    style.id = "al-explorer-style";
    style.textContent = AL_STYLE;
    doc.head.appendChild(style);
  }
}

// -- DOM ---------------------------------------------------------------------------------
const LISTENING = new WeakSet();      // elements h() gave a listener: patch() never reuses them

function h(tag, attrs, ...children) {
  const el = globalThis.document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) { el.addEventListener(k.slice(2), v); LISTENING.add(el); }
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) el.append(c);
  }
  return el;
}

// Redrawing in place.  A draw builds its new content with h() as if from scratch and hands
// it to patch(parent, ...children), which makes parent's children equal to it while
// changing only what differs in the page: a number's text, a cell's class or colour, a row
// more or less.  Elements that stay are not restyled, and the frame after a change lays
// out and repaints only what changed (a frame of JupyterLab's large notebook page costs
// several ms before any of ours).  Children as replaceChildren takes them (null, false and
// "" are left out, arrays flattened one level); they are new nodes, built by h() for this
// draw (a node already in the page would be moved or emptied).  Listeners go through h(),
// which marks their elements: patch never reuses an element that has one.
function patch(parent, ...children) {
  const doc = globalThis.document;
  const want = [];
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false || c === "") continue;
    want.push(typeof c === "object" ? c : doc.createTextNode(String(c)));
  }
  const have = Array.from(parent.childNodes);
  want.forEach((node, i) => {
    const old = have[i];
    if (old === undefined) parent.append(node);
    else if (old !== node && !morph(old, node)) old.replaceWith(node);
  });
  for (let i = want.length; i < have.length; i++) have[i].remove();
}

// Turn `old` into a copy of `node` in place; false where it cannot: another kind of node,
// or an element whose listeners or form state a copy would not carry.
function morph(old, node) {
  if (old.nodeType !== node.nodeType) return false;
  if (node.nodeType === 3) {                       // text
    if (old.data !== node.data) old.data = node.data;
    return true;
  }
  if (node.nodeType !== 1 || old.tagName !== node.tagName || old.namespaceURI !== node.namespaceURI
      || LISTENING.has(old) || LISTENING.has(node) || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(node.tagName)) {
    return false;
  }
  for (const {name} of Array.from(old.attributes)) if (!node.hasAttribute(name)) old.removeAttribute(name);
  for (const {name, value} of Array.from(node.attributes)) {
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  patch(old, ...node.childNodes);
  return true;
}

// Text written only when it changed (the same text written again still replaces the text
// node, and the page lays it out again).
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// -- numbers -----------------------------------------------------------------------------
// Non-finite numbers travel as the strings "nan", "inf", "-inf" (JSON has no NaN).
function num(v) {
  if (typeof v === "number") return v;
  if (v === "nan") return NaN;
  if (v === "inf") return Infinity;
  if (v === "-inf") return -Infinity;
  return Number(v);
}

// One number as the book prints it (autograd_lab.teaching.viz.num): whole floats as "5.", else
// four significant digits, trailing zeros dropped.
function fmt(v) {
  v = num(v);
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return "0.";
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return `${v}.`;
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e5) {
    const places = Math.max(4 - Math.max(0, Math.floor(Math.log10(a))), 1);
    return v.toFixed(places).replace(/0+$/, "");
  }
  const strip = (m) => (m.includes(".") ? m.replace(/0+$/, "").replace(/\.$/, "") : m);
  if (a >= 1e-4 && a < 1e-3) return strip(v.toPrecision(4));       // Python's %g stays fixed here
  const [mant, exp] = v.toExponential(3).split("e");
  return `${strip(mant)}e${Number(exp)}`;
}

function shapeOf(a) {
  const shape = [];
  while (Array.isArray(a)) { shape.push(a.length); a = a[0]; }
  return shape;
}

function flat(a) {
  return Array.isArray(a) ? a.flatMap(flat) : [num(a)];
}

function nest(values, shape) {
  if (shape.length === 0) return values[0];
  const size = shape.slice(1).reduce((p, q) => p * q, 1);
  return Array.from({length: shape[0]}, (_, i) => nest(values.slice(i * size, (i + 1) * size), shape.slice(1)));
}

function fmtNested(a) {
  return Array.isArray(a) ? "[" + a.map(fmtNested).join(", ") + "]" : fmt(a);
}

function shapeText(shape) {
  return "(" + shape.join(", ") + (shape.length === 1 ? ",)" : ")");
}

// What a reader types: numbers, nan, inf and nested [ ] lists; anything else is refused.
function parseNumbers(text) {
  const src = String(text).trim();
  if (!/^[-+0-9.eE,\s\[\]naif]*$/.test(src) || src === "") {
    return {error: `could not read ${JSON.stringify(src)} as a list of numbers (write e.g. [[1, 0]])`};
  }
  let value;
  try {
    value = JSON.parse(src.replace(/(^|[^a-zA-Z])([-+]?)(nan|inf)(?![a-zA-Z])/g,
      (m, pre, sign, word) => `${pre}"${sign === "-" ? "-" : ""}${word}"`).replace(/\+(?=\d|\.)/g, ""));
  } catch (e) {
    return {error: `could not read ${JSON.stringify(src)} as a list of numbers (write e.g. [[1, 0]])`};
  }
  const bad = (x) => Array.isArray(x) ? x.some(bad) : !(typeof x === "number" || ["nan", "inf", "-inf"].includes(x));
  if (bad(value)) return {error: `could not read ${JSON.stringify(src)} as a list of numbers`};
  const ragged = (x) => Array.isArray(x) && (x.some(ragged) ||
    x.some((r) => JSON.stringify(shapeOf(r)) !== JSON.stringify(shapeOf(x[0]))));
  if (ragged(value)) return {error: `${JSON.stringify(src)} is ragged: every row needs the same number of entries`};
  return {value};
}

// -- colours: a diverging scale (blue negative, red positive, as the book's pictures), mixed
// by CSS from the theme's three colours, so the same cell reads right on light and dark.
// `weight` (0..1) fades a cell's colour, never its digits.
function heat(v, vmax, weight = 1) {
  v = num(v);
  if (!Number.isFinite(v)) return null;
  const t = Math.min(1, vmax > 0 ? Math.abs(v) / vmax : 0) * Math.max(0, Math.min(1, weight));
  const pct = Math.round(t * 100);
  // the light theme's cells: black digits up to the strength where white reads better,
  // white from there (the blue is lighter than the red at the same mix); either ink is at
  // least 4.5:1 where it is used.  The dark theme's cells take white at every strength.
  return {cls: (v < 0 ? "al-neg" : "al-pos") + (pct >= (v < 0 ? 87 : 75) ? " al-strong" : ""),
    mix: `${pct}%`};
}

function vmaxOf(values) {
  let m = 0;
  for (const v of values) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m > 0 ? m : 1;
}

// A matrix as coloured cells with their numbers written in them.  cols: the column
// labels; rows: [{label, values, lead, role, cls, pending, weight, vmax}] (values may be
// non-finite; `pending` draws "?" cells; `weight` fades the row's colours; `vmax` gives
// the row a scale of its own), or {gap: true} for a thin space between rows.
function heatTable({cols, rows, vmax, role, lead}) {
  const table = h("table", {class: "al-heat", "data-role": role || null});
  table.append(h("tr", {}, h("td"), lead ? h("td") : null, cols.map((c) => h("th", {scope: "col", text: c}))));
  for (const row of rows) {
    if (row.gap) { table.append(h("tr", {class: "al-gap", "aria-hidden": "true"}, h("td"), lead ? h("td") : null, cols.map(() => h("td")))); continue; }
    const tr = h("tr", {class: row.cls || null, "data-role": row.role || null});
    tr.append(h("th", {class: "al-rl", scope: "row", text: row.label}));
    if (lead) tr.append(h("td", {class: "al-lead"}, row.lead === undefined ? "" : row.lead));
    row.values.forEach((raw, j) => {
      const v = num(raw);
      const td = h("td", {"data-index": j});
      if (row.pending) {
        td.className = "al-pending";
        td.textContent = "?";
      } else {
        const c = heat(v, row.vmax || vmax, row.weight === undefined ? 1 : row.weight);
        td.textContent = fmt(v);
        if (c) { td.className = c.cls; td.style.setProperty("--al-mix", c.mix); }
        else td.className = "al-bad";
      }
      tr.append(td);
    });
    table.append(tr);
  }
  return scroller(role === "jacobian" ? "the Jacobian" : "the table", table);
}

// A wide table or picture inside a box that scrolls sideways on a narrow screen (the page
// itself never does), reachable and scrollable with the keyboard.
function scroller(label, child) {
  return h("div", {class: "al-scroll", tabindex: "0", role: "region", "aria-label": `${label} (scrolls sideways)`}, child);
}

// -- controls ----------------------------------------------------------------------------
// A number with a slider and a box.  Values set from outside are shown exactly (the
// slider has no step, so nothing rounds them); dragging gives multiples of `step`; the
// arrow keys move by `step`; a typed number outside the range widens the range for as
// long as the value stays out there (back inside, the range is its own again, so a later
// drag moves by the usual amounts); a number that cannot be read, or one beyond `limit`,
// is refused with a message.  `format` writes the value in the box (and for screen
// readers, as the slider's value).
let AL_IDS = 0;
function numberControl({label, value, min = -2, max = 2, step = 0.05, limit = 1e6, onchange, onproblem, role,
                        format = (v) => fmt(v).replace(/\.$/, "")}) {
  const id = `al-n${++AL_IDS}`;
  const range = h("input", {type: "range", id, min, max, step: "any"});
  const box = h("input", {type: "text", inputmode: "decimal", "aria-label": `${label} (type a number)`});
  const el = h("div", {class: "al-slider", "data-role": role || null}, h("label", {for: id, text: label}), range, box);
  let current = num(value), lo = Number(min), hi = Number(max);
  const fit = (v) => {                                  // the range: its own, widened for v
    const a = Number.isFinite(v) ? Math.min(lo, Math.floor(v)) : lo;
    const b = Number.isFinite(v) ? Math.max(hi, Math.ceil(v)) : hi;
    if (Number(range.min) !== a) range.min = a;
    if (Number(range.max) !== b) range.max = b;
  };
  const show = (v) => {
    current = v;
    fit(v);
    if (Number.isFinite(v) && Number(range.value) !== v) range.value = v;
    const text = format(v);
    range.setAttribute("aria-valuetext", text);
    if (box.value !== text) box.value = text;     // unchanged: nothing for the page to redo
  };
  const commit = (v) => { show(v); onchange(v); };
  range.addEventListener("input", () => {
    const v = Math.round(Number(range.value) / step) * step;
    commit(Number(v.toFixed(10)));
  });
  range.addEventListener("keydown", (e) => {
    const d = {ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step}[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const base = Number.isFinite(current) ? current : 0;
    commit(Number((Math.round(base / step) * step + d).toFixed(10)));
  });
  const typed = () => {
    const text = box.value.trim();
    const v = readNumber(text);
    if (v === undefined) {
      onproblem(`${label}: ${text === "" ? "the box is empty; type a number" : `could not read ${JSON.stringify(text)} as a number`}`);
      show(current);
      return;
    }
    if (Number.isFinite(v) && Math.abs(v) > limit) {
      onproblem(`${label}: ${text} is beyond ±${limit.toLocaleString("en")}; type a smaller number`); show(current); return;
    }
    if (v !== current) commit(v);
  };
  box.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typed(); } });
  box.addEventListener("change", typed);
  show(current);
  return {el, show, range, box, get value() { return current; },
    base(a, b) { lo = Number(a); hi = Number(b); fit(current); },
    relabel(text) {                     // the same control for another number (its messages too)
      if (text === label) return;
      label = text;
      el.querySelector("label").textContent = text;
      box.setAttribute("aria-label", `${text} (type a number)`);
    },
    set disabled(d) { range.disabled = d; box.disabled = d; }};
}

// One number as a reader types it: digits, a sign, an exponent, or nan / inf / -inf.
const NUMBER = /^([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?(nan|inf))$/i;
function readNumber(text) {
  if (!NUMBER.test(text)) return undefined;
  const t = text.toLowerCase().replace(/^\+/, "");
  return t === "nan" || t === "-nan" ? NaN : t === "inf" ? Infinity : t === "-inf" ? -Infinity : Number(t);
}

// A text box that applies on Enter (Shift+Enter: a new line in a multi-line box) and on
// leaving it; nothing is applied while typing.
function textControl({label, value, rows = 1, onapply, role}) {
  const input = rows > 1 ? h("textarea", {rows, "aria-label": label, spellcheck: "false"})
    : h("input", {type: "text", "aria-label": label, spellcheck: "false"});
  input.value = value;
  let applied = value;
  const apply = () => { if (input.value !== applied) { applied = input.value; onapply(input.value); } };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); apply(); }
  });
  input.addEventListener("change", apply);
  const el = h("label", {class: "al-text", "data-role": role || null, style: "display:grid;grid-template-columns:5.5em 1fr;gap:8px;align-items:center"},
    h("span", {class: "al-mono", text: label}), input);
  return {el, input, show(text) { if (input.value !== text) input.value = text; applied = text; },
    set disabled(d) { input.disabled = d; }};
}

function buttonBar(names, onclick, role) {
  const bar = h("div", {class: "al-buttons", "data-role": role || null});
  const buttons = {};
  for (const [key, label] of names) {
    buttons[key] = h("button", {type: "button", "data-key": key, onclick: () => onclick(key)}, label);
    bar.append(buttons[key]);
  }
  return {el: bar, buttons};
}

// -- the frame every explorer has ----------------------------------------------------------
// Title and subtitle, the body, a status line (problems and notes), and a line saying who
// computes: the kernel (Jupyter) or this page (the book).  `draw` runs once per state.
function explorer({model, el, kind, build, draw, hostText}) {
  alStyle();
  const spec = model.get("spec") || {};
  const page = model.get("host") === "page";
  const root = h("div", {class: `al-x al-${kind}`, "data-kind": kind, "data-frames": "0",
    "data-host": page ? "page" : "kernel"});
  const title = h("p", {class: "al-title", role: "heading", "aria-level": "3"});
  const sub = h("p", {class: "al-sub"});
  const status = h("div", {class: "al-status", "data-role": "status", "aria-live": "polite"});
  const host = h("p", {class: "al-host", "data-role": "host"});
  const local = h("div", {class: "al-status", "data-role": "local", "aria-live": "polite"});   // the view's own messages
  const inflight = requester(model);
  // the chapter's notebook, as the page's own download button offers it
  const notebook = page ? (globalThis.document.querySelector('a[href$=".ipynb"]') || {}).href || null : null;
  const ctx = {
    spec, page, root,
    send: (msg) => { if (local.firstChild) local.replaceChildren(); inflight(msg); },
    problem: (text) => {          // (an older answer's problem is now beside the point)
      for (const old of status.querySelectorAll(".al-problem")) old.remove();
      local.replaceChildren(h("div", {class: "al-problem"}, h("b", {text: "Problem: "}), text));
    },
  };
  const body = build(ctx);
  root.append(title, sub, body, local, status, host);
  el.replaceChildren(root);
  let frames = 0;
  const redraw = () => {
    const state = model.get("state") || {};
    setText(title, state.title || spec.title || "");
    patch(sub, ...[].concat(state.subtitle || spec.subtitle || []));
    draw(state, ctx);
    patch(status,
      state.error ? h("div", {class: "al-problem"}, h("b", {text: "Problem: "}), state.error) : "",
      state.note ? h("div", {class: "al-note"}, state.note) : "");
    patch(host, ...hostLine(page ? hostText.page : hostText.kernel, page && notebook));
    root.dataset.frames = String(++frames);
  };
  const onState = () => redraw();
  model.on("change:state", onState);
  redraw();
  return () => model.off("change:state", onState);
}

// The line saying who computes; in the book's pages its first "notebook" links to the
// chapter's notebook, as the page's download button offers it.
function hostLine(text, notebook) {
  const at = notebook ? text.search(/\bnotebook\b/) : -1;
  if (at < 0) return [text];
  return [text.slice(0, at), h("a", {href: notebook, download: "", "data-role": "notebook",
    title: "download this chapter's notebook", text: "notebook (.ipynb)"}), text.slice(at + "notebook".length)];
}

// Messages to the host, one in flight at a time: while the kernel works on one change,
// later changes of the same control replace each other, and the newest is sent when the
// answer (a new state) arrives.  A slider dragged fast never queues up stale work.
function requester(model) {
  let busy = false, timer = null;
  const waiting = new Map();
  const next = () => {
    busy = false;
    clearTimeout(timer);
    const first = waiting.entries().next();
    if (!first.done) {
      waiting.delete(first.value[0]);
      go(first.value[1]);
    }
  };
  const go = (msg) => {
    busy = true;
    timer = setTimeout(next, 2000);          // a lost answer does not block the controls
    model.send(msg);
  };
  model.on("change:state", next);
  return (msg) => {
    if (busy) waiting.set(msg.set || msg.do, msg);
    else go(msg);
  };
}

// -- added for WhereExplorer -----------------------------------------------------------------
// A number as it travels to the host: JSON has no NaN or infinity (JSON.stringify turns
// them into null), so they go as the strings "nan", "inf", "-inf", which num() and the
// kernel's as_numbers read back.
function wire(v) {
  v = num(v);
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

// CSS of one kind of view, added to the document once (beside AL_STYLE).
function kindStyle(kind, css) {
  const doc = globalThis.document;
  if (!doc.getElementById(`al-style-${kind}`)) {
    doc.head.appendChild(h("style", {id: `al-style-${kind}`, text: css}));
  }
}

// -- the page's vᵀJ (SeedExplorer, GradOutputsExplorer) ----------------------------------------
// x.grad[j] = Σ v[i] * J[i][j] over the seed entries i that reach x's entry j (spec.reach,
// learnt from autograd_lab's backward: an elementwise op's v[i] never meets the other
// entries, so inf there is not turned into 0 * inf = nan), from -0, rounded to the
// explorer's dtype after every product and sum as its backward rounds.  Seed entries that
// autograd_lab found this rule cannot answer exactly (spec.trust: too large, or inf/nan
// where several paths meet) are refused with a message: the notebook computes them.
// _base.page_vjp is the same rule in Python.
function pageVjp(spec, seed, seedName = "v") {
  const cast = spec.dtype === "float32" ? Math.fround : (x) => x;
  const v = flat(seed).map((e) => cast(e));
  const trust = spec.trust || [];
  for (let i = 0; i < v.length; i++) {
    const [limit, special] = trust[i] || [Infinity, true];
    const odd = !Number.isFinite(v[i]) || Object.is(v[i], -0);
    if ((odd && !special) || (Number.isFinite(v[i]) && Math.abs(v[i]) > limit)) {
      return {refused: `${seedName}: ${fmt(flat(seed)[i])} at ${spec.rows[i]} is beyond what this page computes exactly ` +
        `(the backward's own steps would round or overflow differently); open the notebook to run it there`};
    }
  }
  const J = spec.J.map((r) => r.map(num));
  const reach = spec.reach || null;
  const g = J[0].map((_, j) => {
    let s = -0;
    for (let i = 0; i < v.length; i++) {
      if (reach && reach[i][j] === "0") continue;
      s = cast(s + cast(v[i] * J[i][j]));
    }
    return s;
  });
  return {grad: g};
}

// Where a result is nan or inf, in the kernel's words (_base.problems): "x.grad has nan at
// (0, 1) and inf at (0, 0)", the first six places of each; null when all are finite.
function nonFinite(name, values, shape) {
  const at = (test) => values.map((v, k) => [v, k]).filter(([v]) => test(v)).slice(0, 6).map(([, k]) => {
    if (shape.length <= 1) return String(k);
    const idx = [];
    for (let d = shape.length - 1; d >= 0; d--) { idx.unshift(k % shape[d]); k = Math.floor(k / shape[d]); }
    return `(${idx.join(", ")})`;
  });
  const parts = [];
  const nan = at(Number.isNaN), inf = at((v) => v === Infinity || v === -Infinity);
  if (nan.length) parts.push(`nan at ${nan.join(", ")}`);
  if (inf.length) parts.push(`inf at ${inf.join(", ")}`);
  return parts.length ? `${name} has ${parts.join(" and ")}` : null;
}


// Python's "%g" of a number beyond float32 (seed_overflow's words): 1e+39, -3.5e+38.
function pyG(v) {
  const [mant, exp] = v.toExponential(5).split("e");
  const m = mant.includes(".") ? mant.replace(/0+$/, "").replace(/\.$/, "") : mant;
  const e = Number(exp);
  return `${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}
