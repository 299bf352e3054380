// graph_explorer.js: the view of GraphExplorer (a small model's graph, the value in every node and
// the gradient on every edge after a traced backward, as its parameters move), and how a
// page without a kernel answers it.  The layout (boxes, edges, labels) was computed in
// Python once (graph_layout.py, the layout of the book's graph pictures); the view draws it
// as SVG and writes the numbers of each state into it.

const GRAPH_STYLE = `
.al-graph_explorer { --al-g-leaf: #d0eaf9; --al-g-leaf-line: #0072b2; --al-g-op: #f9eac7;
  --al-g-op-line: #9a5b00; --al-g-out: #c7eae0; --al-g-out-line: #00805d; --al-g-const: #ecebe7;
  --al-g-const-line: #77756f; --al-g-grad: #a84200; }
html[data-theme="dark"] .al-graph_explorer, body[data-jp-theme-light="false"] .al-graph_explorer {
  --al-g-leaf: #163a52; --al-g-leaf-line: #56b4e9; --al-g-op: #3b2e12; --al-g-op-line: #e0a43a;
  --al-g-out: #0f3d31; --al-g-out-line: #3cc9a0; --al-g-const: #2b3038; --al-g-const-line: #8d929a;
  --al-g-grad: #ffa06e; }
.al-graph_explorer .al-gsvg { display: block; max-width: 100%; height: auto; margin: 8px 0 0; overflow: visible; }
/* a narrow screen: the graph keeps a size its numbers read at (11 px and up) and scrolls */
@media (max-width: 760px) { .al-graph_explorer .al-gsvg { max-width: none; width: var(--al-gw); } }
.al-graph_explorer .al-gsvg text { font: 10.5px ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono",
  "Liberation Mono", monospace; fill: var(--al-fg); dominant-baseline: central; text-anchor: middle;
  white-space: pre; }
.al-graph_explorer .al-gsvg text.t-block { text-anchor: start; }
.al-graph_explorer .al-gsvg .t-name, .al-graph_explorer .al-gsvg .t-op { font-weight: 700; }
.al-graph_explorer .al-gsvg .t-muted { fill: var(--al-muted); }
.al-graph_explorer .al-gsvg .t-grad { fill: var(--al-g-grad); font-weight: 700; }
.al-graph_explorer .al-gsvg g.l-grad text { font-size: 10px; }
.al-graph_explorer .al-gsvg .t-pending { fill: var(--al-muted); }
.al-graph_explorer .al-gsvg rect.b-leaf { fill: var(--al-g-leaf); stroke: var(--al-g-leaf-line); }
.al-graph_explorer .al-gsvg rect.b-op { fill: var(--al-g-op); stroke: var(--al-g-op-line); }
.al-graph_explorer .al-gsvg rect.b-output { fill: var(--al-g-out); stroke: var(--al-g-out-line); }
.al-graph_explorer .al-gsvg rect.b-const { fill: var(--al-g-const); stroke: var(--al-g-const-line); stroke-dasharray: 4 2; }
.al-graph_explorer .al-gsvg rect.b-box { stroke-width: 1.3; }
.al-graph_explorer .al-gsvg path.e-line { fill: none; stroke: var(--al-fg); stroke-width: 1.2; }
.al-graph_explorer .al-gsvg path.e-const { stroke: var(--al-g-const-line); stroke-dasharray: 4 3; stroke-width: 1; }
.al-graph_explorer .al-gsvg path.e-head { fill: var(--al-fg); stroke: none; }
.al-graph_explorer .al-gsvg path.e-head.e-const { fill: var(--al-g-const-line); }
.al-graph_explorer .al-gsvg rect.l-back { fill: var(--al-bg); opacity: .92; }
.al-graph_explorer .al-gsvg circle.c-ring { fill: var(--al-bg); stroke: var(--al-fg); stroke-width: 1; }
.al-graph_explorer .al-gsvg line.r-band { stroke: var(--al-line); stroke-dasharray: 1 3; }
.al-graph_explorer table.al-g-readout { border-collapse: collapse; margin: 0; }
.al-graph_explorer .al-g-readout th { font-weight: 400; text-align: right; padding: 1px 8px 1px 0; white-space: nowrap; }
.al-graph_explorer .al-g-readout td { text-align: right; padding: 1px 0 1px 10px; min-width: 4.6em; }
.al-graph_explorer .al-g-readout tr:first-child td { font-weight: 700; }
`;

const SVG_NS = "http://www.w3.org/2000/svg";
const G_CHAR = 6.4, G_LABEL_CHAR = 6.0, G_LINE = 14, G_PAD = 8;   // the sizes the Python layout used

function svg(tag, attrs, ...children) {
  const el = globalThis.document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

// A smooth curve through the points, leaving and arriving horizontally at each (as the
// book's graph pictures draw it: a cubic per step, its control points halfway across).
function curve(points) {
  let d = `M${points[0][0]},${points[0][1]}`;
  for (let k = 1; k < points.length; k++) {
    const [x0, y0] = points[k - 1], [x1, y1] = points[k];
    const dx = (x1 - x0) / 2;
    d += ` C${x0 + dx},${y0} ${x1 - dx},${y1} ${x1},${y1}`;
  }
  return d;
}

// A number in a sentence: as the book prints it, without the float's trailing dot.
function plain(v) {
  return fmt(v).replace(/\.$/, "");
}

// One line of a value: its numbers, as the book prints them, between two texts.
function lineText(line, numbers) {
  return line.pre + numbers.map(fmt).join(", ") + line.post;
}

// Text that is wider than its room (a long number such as -1.235e-5) is squeezed into it.
function fit(text, room, char = G_CHAR) {
  if (text.textContent.length * char > room) {
    text.setAttribute("textLength", room);
    text.setAttribute("lengthAdjust", "spacingAndGlyphs");
  } else {
    text.removeAttribute("textLength");
  }
}

// The lines of one value (or one label) are written as a block: left-aligned, the block
// centred on its box, so that the numbers of a matrix stand in columns.
function alignBlocks(items, char = G_CHAR) {
  const blocks = new Map();
  for (const it of items) blocks.set(it.key, [...(blocks.get(it.key) || []), it]);
  for (const block of blocks.values()) {
    const longest = Math.max(...block.map(({t}) => t.textContent.length));
    for (const {t, x} of block) {
      const squeezed = t.getAttribute("textLength");
      const width = squeezed ? Number(squeezed) : longest * char;
      t.setAttribute("x", block.length > 1 ? x - Math.min(width, longest * char) / 2 : x);
      t.classList.toggle("t-block", block.length > 1);
    }
  }
}

// A slider over the values the page has states for: it moves from one to the next; the
// box beside it shows the value and takes a typed number (the page's answer snaps it).
function gridControl({label, values, value, onchange, role}) {
  const id = `al-n${++AL_IDS}`;
  const range = h("input", {type: "range", id, min: 0, max: values.length - 1, step: 1});
  const box = h("input", {type: "text", inputmode: "decimal", "aria-label": `${label} (type a number)`});
  const el = h("div", {class: "al-slider", "data-role": role || null}, h("label", {for: id, text: label}), range, box);
  let current = num(value);
  const nearest = (v) => values.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(values[best] - v) ? i : best), 0);
  const show = (v) => {
    current = v;
    range.value = nearest(v);
    range.setAttribute("aria-valuetext", fmt(v));
    box.value = fmt(v).replace(/\.$/, "");
  };
  range.addEventListener("input", () => onchange(values[Number(range.value)]));
  range.addEventListener("keydown", (e) => {            // the arrow keys: the next stored value
    const d = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1}[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const i = Math.min(values.length - 1, Math.max(0, nearest(current) + d));
    if (values[i] !== current) onchange(values[i]);
  });
  const typed = () => {
    const text = box.value.trim();
    const v = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : NaN;
    if (v !== current) onchange(Number.isNaN(v) ? text : v);
  };
  box.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typed(); } });
  box.addEventListener("change", typed);
  show(current);
  return {el, show, range, box, get value() { return current; },
    set disabled(d) { range.disabled = d; box.disabled = d; }};
}

function render({model, el}) {
  kindStyle("graph_explorer", GRAPH_STYLE);
  const spec = model.get("spec") || {};
  const page = model.get("page") || {};
  const stored = page.states ? page.states.length : 0;
  const out = spec.output;
  const values = (spec.grid || []).map(plain).join(", ");
  let controls = [], buttons, readout, texts = [], labels = [];
  return explorer({
    model, el, kind: "graph_explorer",
    hostText: {
      kernel: `Computed by autograd_lab in the notebook's kernel: every change runs the model and a traced ` +
        `${out}.backward(), for any value you type.`,
      page: page.states
        ? `Computed when the book was built: autograd_lab ran the model and a traced ${out}.backward() for ` +
          `all ${stored} combinations of slider values (each slider snaps to ${values} or its starting value), ` +
          `and this page looks them up. Open the notebook to try any value: there every change runs the model.`
        : `This page cannot move the parameters (${page.why || "no states were stored"}): open the notebook, ` +
          `where every change runs the model and a traced ${out}.backward().`,
    },
    build(ctx) {
      const send = (name, index) => (value) => ctx.send({set: "param", name, index, value: typeof value === "string" ? value : wire(value)});
      controls = spec.sliders.map((s, k) => {
        const start = flat(spec.start[s.name])[s.index];
        const c = ctx.page
          ? gridControl({label: s.label, values: page.axes ? page.axes[k] : [start], value: start,
            role: `param-${k}`, onchange: send(s.name, s.index)})
          : numberControl({label: s.label, value: start, min: spec.range[0], max: spec.range[1], step: 0.1,
            role: `param-${k}`, onproblem: ctx.problem, onchange: send(s.name, s.index)});
        if (ctx.page && !page.states) c.disabled = true;
        return c;
      });
      buttons = buttonBar([["reset", "reset"], ...Object.keys(spec.presets).map((k) => [k, k])],
        (key) => ctx.send(key === "reset" ? {do: "reset"} : {do: "preset", name: key}), "presets");
      if (ctx.page && !page.states) Object.values(buttons.buttons).forEach((b) => { b.disabled = true; });
      readout = h("table", {class: "al-g-readout al-mono", "data-role": "readout"});
      const picture = svg("svg", {class: "al-gsvg", width: spec.width, height: spec.height,
        viewBox: `0 0 ${spec.width} ${spec.height}`, role: "group", "data-role": "graph",
        style: `--al-gw: ${Math.ceil(spec.width * 1.1)}px`,
        "aria-label": `The graph of ${out}: each box shows a value of the forward pass, each edge the gradient ` +
          `sent back along it.`});
      for (const y of spec.rules) picture.append(svg("line", {class: "r-band", x1: 0, x2: spec.width, y1: y, y2: y}));
      spec.edges.forEach((e, i) => {
        const cls = e.kind === "const" ? "e-line e-const" : "e-line";
        for (const p of e.pieces) {
          picture.append(svg("path", {class: cls, d: curve(p.points), "data-role": `edge-${i}`}));
          if (p.arrow) {
            const [x, y] = p.points[p.points.length - 1];
            picture.append(svg("path", {class: `e-head ${e.kind === "const" ? "e-const" : ""}`,
              d: `M${x},${y} l-7,-3.5 l0,7 z`}));
          }
        }
      });
      for (const c of spec.connectors) {
        picture.append(svg("circle", {class: "c-ring", cx: c.x, cy: c.y, r: 8.5}),
          svg("text", {x: c.x, y: c.y, text: c.letter, class: "t-muted"}));
      }
      spec.vertices.forEach((v, i) => {
        const g = svg("g", {"data-role": `node-${i}`, "data-kind": v.kind});
        g.append(svg("rect", {class: `b-box b-${v.kind}`, x: v.x - v.w / 2, y: v.y - v.h / 2, width: v.w,
          height: v.h, rx: 5}));
        v.lines.forEach((line, k) => {
          const y = v.y - v.h / 2 + G_PAD - 3 + G_LINE * (k + 0.5);
          const t = svg("text", {x: v.x, y, class: `t-${line.style}`, "xml:space": "preserve"});
          if (line.text !== undefined) { t.textContent = line.text; fit(t, v.w - 2 * G_PAD + 4); }
          else texts.push({t, line, v, room: v.w - 2 * G_PAD + 4});
          g.append(t);
        });
        picture.append(g);
      });
      spec.edges.forEach((e, i) => {
        if (!e.label) return;
        const lab = e.label;
        const g = svg("g", {"data-role": `grad-${i}`, class: "l-grad"});
        g.append(svg("rect", {class: "l-back", x: lab.x - lab.w / 2, y: lab.y - lab.h / 2, width: lab.w,
          height: lab.h, rx: 3}));
        const rows = lab.lines.length + (lab.note ? 1 : 0);
        const lines = lab.lines.map((line, k) => {
          const t = svg("text", {x: lab.x, y: lab.y + (k - (rows - 1) / 2) * (G_LINE - 1), class: "t-grad",
            "xml:space": "preserve"});
          g.append(t);
          return t;
        });
        if (lab.note) g.append(svg("text", {x: lab.x, y: lab.y + (rows - 1) / 2 * (G_LINE - 1), class: "t-muted",
          text: lab.note}));
        labels.push({g, lines, e});
        picture.append(g);
      });
      const legend = h("p", {class: "al-legend", text: "Blue: parameters. Orange: operations (their grad_fn) " +
        "with the value each computed. Grey dashed: constants, which get no gradient. Orange numbers (←): the " +
        "gradient sent back along each edge."});
      buttons.el.style.marginTop = "6px";
      return h("div", {},
        h("div", {class: "al-row"},
          h("div", {class: "al-controls", "data-role": "controls"}, ...controls.map((c) => c.el)),
          h("div", {}, readout, buttons.el)),
        h("div", {class: "al-scroll", tabindex: "0", role: "region", "aria-label": "the graph (scrolls sideways)"}, picture),
        legend);
    },
    draw(state, ctx) {
      const slots = state.slots || null;
      const numbers = (i) => (slots ? slots[i].map(num) : null);
      spec.sliders.forEach((s, k) => {
        const p = state.params && state.params[s.name];
        if (p !== undefined) controls[k].show(flat(p)[s.index]);
      });
      // one pass over the slots: a line takes its numbers in order
      for (const {t, line, room} of texts) {
        const slot = spec.slots[line.slot];
        const spec_line = slot.lines[line.line];
        const start = slot.lines.slice(0, line.line).reduce((a, l) => a + l.n, 0);
        const ns = numbers(line.slot);
        setText(t, line.prefix + (ns ? lineText(spec_line, ns.slice(start, start + spec_line.n))
          : spec_line.pre + Array(spec_line.n).fill("?").join(", ") + spec_line.post));
        t.setAttribute("class", `t-${ns ? line.style : "pending"}`);
        fit(t, room);
      }
      alignBlocks(texts.map(({t, line, v}) => ({t, key: `${v.x},${v.y},${line.slot}`, x: v.x})));
      for (const {lines, e} of labels) {
        const ns = numbers(e.slot);
        let start = 0;
        e.label.lines.forEach((line, k) => {
          const part = ns ? ns.slice(start, start + line.n) : null;
          start += line.n;
          setText(lines[k], (k === 0 ? "← " : "  ") +
            (part ? lineText(line, part) : line.pre + Array(line.n).fill("?").join(", ") + line.post));
          fit(lines[k], e.label.w - 4, G_LABEL_CHAR);
        });
        alignBlocks(lines.map((t) => ({t, key: "label", x: e.label.x})), G_LABEL_CHAR);
      }
      const text = (i) => {
        const ns = numbers(i);
        if (!ns) return "?";
        const slot = spec.slots[i];
        if (ns.length === slot.shape.reduce((a, b) => a * b, 1)) return fmtNested(nest(ns, slot.shape));
        let start = 0;
        return spec.slots[i].lines.map((line) => {
          const part = ns.slice(start, start + line.n);
          start += line.n;
          return lineText(line, part);
        }).join(" ");
      };
      patch(readout, ...spec.readout.map((r) => {
        const ns = numbers(r.slot);
        return h("tr", {"data-role": `value-${r.label}`, title: text(r.slot)}, h("th", {text: `${r.label} =`}),
          ...(ns ? ns.map((v) => h("td", {text: fmt(v)})) : [h("td", {text: "?"})]));
      }));
      for (const [key, b] of Object.entries(buttons.buttons)) {
        const target = key === "reset" ? spec.start : spec.presets[key];
        const same = Object.entries(target).every(([name, v]) =>
          state.params && JSON.stringify(flat(v)) === JSON.stringify(flat(state.params[name])));
        b.setAttribute("aria-pressed", same ? "true" : "false");
      }
    },
  });
}

// The page's answer to a message: the state autograd_lab computed when the book was built
// for these slider values.  A value between the stored ones snaps to the nearest.
function offline({spec, state, page}, msg) {
  const refuse = (error) => ({...state, n: state.n + 1, error, note: null});
  if (!page.states) return refuse(`this page stores no states (${page.why}); open the notebook to move the parameters`);
  const want = spec.sliders.map((s) => flat(state.params[s.name])[s.index]);
  let note = null;
  if (msg.do === "reset" || msg.do === "preset") {
    const target = msg.do === "reset" ? spec.start : spec.presets[msg.name];
    if (!target) return refuse(`no preset ${JSON.stringify(msg.name)}`);
    spec.sliders.forEach((s, k) => { if (target[s.name] !== undefined) want[k] = flat(target[s.name])[s.index]; });
  } else if (msg.set === "param") {
    const k = spec.sliders.findIndex((s) => s.name === msg.name && s.index === msg.index);
    const v = num(msg.value);
    const axis = page.axes[k];
    const label = spec.sliders[k].label;
    if (k < 0) return refuse(`no slider ${msg.name}[${msg.index}]`);
    if (!Number.isFinite(v)) return refuse(`${label}: could not read ${JSON.stringify(String(msg.value))} as a number`);
    const lo = axis[0], hi = axis[axis.length - 1];
    if (v < lo || v > hi) {
      return refuse(`${label}: this page has states for values from ${plain(lo)} to ${plain(hi)} only; ` +
        `open the notebook to try ${plain(v)}`);
    }
    const near = axis.reduce((best, x) => (Math.abs(x - v) < Math.abs(best - v) ? x : best), axis[0]);
    if (near !== v) {
      note = `${label} = ${plain(v)} snapped to ${plain(near)}: this page has states for ` +
        `${axis.map(plain).join(", ")} only. The notebook takes any value.`;
    }
    want[k] = near;
  } else {
    return refuse(`the page does not know the message ${JSON.stringify(msg)}`);
  }
  let index = 0;
  for (let k = 0; k < want.length; k++) {
    const i = page.axes[k].indexOf(want[k]);
    if (i < 0) return refuse(`${spec.sliders[k].label} = ${plain(want[k])} has no stored state`);
    index = index * page.axes[k].length + i;
  }
  const params = {...state.params};
  for (const name of new Set(spec.sliders.map((s) => s.name))) {
    const v = flat(params[name]);
    spec.sliders.forEach((s, k) => { if (s.name === name) v[s.index] = want[k]; });
    params[name] = nest(v, spec.sliders.find((s) => s.name === name).shape);
  }
  const row = page.states[index];
  const slots = page.slots.map((s, i) => (s.param ? spec.slots[i].shown.map((j) => flat(params[s.param])[j]) : null));
  page.slots.forEach((s, i) => {
    if (s.fixed) slots[i] = s.fixed;
    else if (s.same !== undefined) slots[i] = slots[s.same];
    else if (!s.param) slots[i] = row.slice(s.at, s.at + s.n);
  });
  return {...state, n: state.n + 1, params, slots, error: null, note};
}

export default {render};
export {offline};
