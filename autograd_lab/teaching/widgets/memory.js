// memory.js: the view of MemoryExplorer (a small MLP's saved bytes through one training
// step, with the blocks the reader picks checkpointed), and how a page without a kernel
// answers it: by the same timeline, worked out from the layer sizes (memoryTimeline).

const MEMORY_STYLE = `
.al-memory fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.al-memory legend { padding: 0; margin: 0 0 2px; font-weight: 600; font-size: 13px; }
.al-memory .al-mem-controls { display: flex; flex-wrap: wrap; gap: 8px 22px; align-items: flex-start; }
.al-memory .al-mem-blocks { display: flex; flex-direction: column; gap: 2px; font-size: 13px; }
.al-memory .al-mem-blocks label { min-height: 28px; }
.al-memory .al-mem-sizes { display: flex; flex-direction: column; gap: 6px; flex: 1 1 250px; max-width: 340px; }
.al-memory .al-slider { grid-template-columns: 3.6em 1fr 4.6em; }
.al-memory .al-mem-dtype { display: flex; align-items: center; gap: 8px; }
.al-memory .al-mem-dtype .al-buttons { margin: 0; }
.al-memory input:focus-visible, .al-memory button:focus-visible { outline: 2px solid var(--al-accent); outline-offset: 2px; }
.al-memory .al-mem-chart { display: block; width: 100%; height: auto; margin: 10px 0 0; overflow: visible; }
.al-memory svg text { font: 11px system-ui, sans-serif; fill: var(--al-muted); }
.al-memory .al-mem-peak { fill: var(--al-fg); font-weight: 650; }
.al-memory .al-mem-axis { stroke: var(--al-line); }
.al-memory .al-mem-saved { fill: color-mix(in srgb, var(--al-accent) 28%, transparent); }
.al-memory .al-mem-total, .al-memory .al-mem-plain { fill: none; stroke: var(--al-accent); stroke-width: 2; }
.al-memory .al-mem-plain { stroke: var(--al-muted); stroke-width: 1.3; stroke-dasharray: 5 4; }
.al-memory .al-mem-again { fill: var(--al-off); }
.al-memory .al-mem-start { stroke: var(--al-muted); stroke-dasharray: 2 3; }
.al-memory .al-mem-dot { fill: var(--al-warn); stroke: var(--al-bg); stroke-width: 1.5; }
.al-memory .al-mem-key { display: flex; flex-wrap: wrap; gap: 2px 16px; color: var(--al-muted); font-size: 12px; margin: 2px 0 0; }
.al-memory .al-mem-key i { display: inline-block; width: 18px; vertical-align: middle; margin-right: 5px; }
.al-memory .al-mem-numbers { border-collapse: collapse; margin: 8px 0 0; font-size: 13px; }
.al-memory .al-mem-numbers :is(th, td) { padding: 2px 10px 2px 0; text-align: left; font-weight: 400; }
.al-memory .al-mem-numbers thead th { color: var(--al-muted); font-size: 12px; }
.al-memory .al-mem-numbers td { font-family: ui-monospace, Menlo, Consolas, monospace; text-align: right; white-space: nowrap; }
/* a phone: each size under its bytes, so the table fits the text column */
@media (max-width: 560px) { .al-memory .al-mem-numbers td span { display: block; }
  .al-memory .al-mem-numbers :is(th, td) { padding-right: 6px; } }
`;

function render({model, el}) {
  let boxes = [], sizes = {}, dtypes, chart, key, numbers, last = null, drawnAt = 0;
  const drawChart = () => {                       // at the width it has on screen
    drawnAt = chart.clientWidth;
    patch(chart, memoryChart(last, last.checkpointed.length > 0, drawnAt));
  };
  return explorer({
    model, el, kind: "memory",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: each change runs the step inside count_saved " +
        "(and once more with no block checkpointed).",
      page: "Computed in this page from the sizes and the dtype, which alone set the bytes (tested against " +
        "autograd_lab's count_saved). In the notebook the kernel runs each change.",
    },
    build(ctx) {
      kindStyle("memory", MEMORY_STYLE);
      const {spec} = ctx;
      const start = model.get("state") || {};
      boxes = Array.from({length: spec.blocks}, (_, k) => h("input", {type: "checkbox", "data-role": `block-${k}`,
        onchange: () => ctx.send({set: "checkpointed", value: boxes.flatMap((b, j) => (b.checked ? [j] : []))})}));
      const blocks = h("fieldset", {class: "al-mem-blocks", "data-role": "blocks"},
        h("legend", {text: "Checkpoint these blocks"}),
        boxes.map((b, k) => h("label", {class: "al-check"}, b, `block ${k} (layers ${2 * k} and ${2 * k + 1})`)));
      for (const name of ["batch", "width"]) {
        sizes[name] = wholeControl({name, value: start[name], limits: spec.limits[name], onproblem: ctx.problem,
          onchange: (v) => ctx.send({set: name, value: v})});
      }
      dtypes = buttonBar(Object.keys(spec.dtypes).map((d) => [d, d]), (d) => ctx.send({set: "dtype", value: d}), "dtype");
      const dtype = h("div", {class: "al-mem-dtype"}, h("span", {class: "al-mono", text: "dtype"}), dtypes.el);
      chart = h("div", {"data-role": "chart"});
      if (globalThis.ResizeObserver) {            // a narrower window: the chart is drawn again
        new ResizeObserver(() => { if (last && Math.abs(chart.clientWidth - drawnAt) > 4) drawChart(); }).observe(chart);
      }
      key = h("p", {class: "al-mem-key", "aria-hidden": "true"});
      numbers = h("div", {"data-role": "numbers", "aria-live": "polite"});
      return h("div", {},
        h("div", {class: "al-mem-controls"}, blocks,
          h("fieldset", {class: "al-mem-sizes", "data-role": "sizes"}, h("legend", {text: "The model's size"}),
            sizes.batch.el, sizes.width.el, dtype)),
        chart, key, numbers);
    },
    draw(state) {
      boxes.forEach((b, k) => { b.checked = state.checkpointed.includes(k); });
      sizes.batch.show(state.batch);
      sizes.width.show(state.width);
      for (const [d, b] of Object.entries(dtypes.buttons)) b.setAttribute("aria-pressed", String(d === state.dtype));
      const any = state.checkpointed.length > 0;
      last = state;
      drawChart();
      patch(key,
        h("span", {}, h("i", {style: "border-top: 8px solid color-mix(in srgb, var(--al-accent) 28%, transparent)"}), "saved values"),
        h("span", {}, h("i", {style: "border-top: 2px solid var(--al-accent)"}), "saved + gradients in flight"),
        any ? h("span", {}, h("i", {style: "border-top: 2px dashed var(--al-muted)"}), "the same, no checkpointing") : null,
        state.steps.some((s) => s[3] === "r") ? h("span", {}, h("i", {style: "border-top: 8px solid var(--al-off)"}),
          "a checkpointed block runs again") : null);
      patch(numbers, numbersTable(state, any));
    },
  });
}

// A whole number with a slider and a box; anything else typed is refused with a message.
function wholeControl({name, value, limits, onchange, onproblem}) {
  const id = `al-w${++AL_IDS}`;
  const [lo, hi] = limits;
  const range = h("input", {type: "range", id, min: lo, max: hi, step: 1, "aria-valuetext": String(value)});
  const box = h("input", {type: "text", inputmode: "numeric", "aria-label": `${name} (type a whole number from ${lo} to ${hi})`});
  let current = value;
  const show = (v) => {
    current = v;
    if (Number(range.value) !== v) range.value = v;
    range.setAttribute("aria-valuetext", String(v));
    if (box.value !== String(v)) box.value = String(v);
  };
  const commit = (v) => { if (v !== current) { show(v); onchange(v); } };
  range.addEventListener("change", () => commit(Number(range.value)));
  range.addEventListener("keydown", (e) => {     // the keys handled here (JupyterLab keeps arrows for itself)
    const d = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 16, PageDown: -16}[e.key];
    const to = e.key === "Home" ? lo : e.key === "End" ? hi : d === undefined ? undefined : current + d;
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    commit(Math.min(hi, Math.max(lo, to)));
  });
  const typed = () => {
    const w = whole(name, box.value, limits);
    if (w.error) { onproblem(w.error); show(current); return; }
    commit(w.value);
  };
  box.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typed(); } });
  box.addEventListener("change", typed);
  show(value);
  const el = h("div", {class: "al-slider", "data-role": name}, h("label", {for: id, text: name}), range, box);
  return {el, show, range, box};
}

// A batch or a width as typed, or the problem in the kernel's words (memory.py whole).
function whole(name, text, [lo, hi]) {
  const t = String(text).trim();
  const range = `a whole number from ${lo} to ${hi}`;
  if (t === "") return {error: `${name}: the box is empty; type ${range}`};
  const v = readNumber(t);
  if (v === undefined) return {error: `${name}: could not read '${t}' as a number; type ${range}`};
  if (!(Number.isInteger(v) && v >= lo && v <= hi)) {
    return {error: `${name}: ${Number.isFinite(v) ? fmt(v).replace(/\.$/, "") : wire(v)} is not ${range}`};
  }
  return {value: v};
}

// -- the picture ------------------------------------------------------------------------------
const CHART = {w: 640, h: 230, left: 62, right: 12, top: 14, bottom: 34};

function bytesText(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function peakStep(steps) {
  let best = -1, at = null;
  steps.forEach(([, now, held, phase], i) => { if (phase !== "f" && now + held > best) { best = now + held; at = i; } });
  return at;
}

function memoryChart(state, any, width) {
  const S = "http://www.w3.org/2000/svg";
  const s = (tag, attrs, ...kids) => {
    const el = globalThis.document.createElementNS(S, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, v);
    for (const c of kids.flat(Infinity)) if (c !== null && c !== undefined) el.append(c);
    return el;
  };
  const steps = state.steps, plain = state.plain.steps;
  const n = Math.max(steps.length, plain.length);
  const top = Math.max(1, ...steps.map(([, a, b]) => a + b), ...(any ? plain.map(([, a, b]) => a + b) : []));
  const {h: H, left, right, top: pad, bottom} = CHART;
  const w = width >= 200 && width < CHART.w ? width : CHART.w;
  const X = (i) => left + (w - left - right) * i / Math.max(1, n);
  const Y = (v) => H - bottom - (H - bottom - pad) * v / (top * 1.12);
  const stepPath = (values) => values.map((v, i) => `${i ? "L" : "M"}${X(i).toFixed(1)},${Y(v).toFixed(1)}H${X(i + 1).toFixed(1)}`).join("");
  const saved = steps.map((st) => st[1]), total = steps.map((st) => st[1] + st[2]);
  const area = `${stepPath(saved)}V${Y(0).toFixed(1)}H${X(0).toFixed(1)}Z`;
  const again = [];
  steps.forEach((st, i) => { if (st[3] === "r") again.push(s("rect", {class: "al-mem-again", x: X(i).toFixed(1), y: pad,
    width: (X(i + 1) - X(i)).toFixed(2), height: (H - bottom - pad).toFixed(1)})); });
  const fwd = steps.filter((st) => st[3] === "f").length;
  const at = peakStep(steps);
  const px = (X(at) + X(at + 1)) / 2, py = Y(total[at]);
  const ticks = [0, 0.5, 1].map((f) => f * top);
  const alt = altText(state, any);
  return s("svg", {class: "al-mem-chart", viewBox: `0 0 ${w} ${H}`, role: "img", "aria-label": alt, "data-role": "chart-svg"},
    s("title", {}, alt),
    again,
    ticks.map((v) => [s("line", {class: "al-mem-axis", x1: left, x2: w - right, y1: Y(v).toFixed(1), y2: Y(v).toFixed(1),
      "stroke-opacity": v ? 0.45 : 1}),
    s("text", {x: left - 6, y: (Y(v) + 4).toFixed(1), "text-anchor": "end"}, bytesText(Math.round(v)))]),
    s("path", {class: "al-mem-saved", d: area, "data-role": "saved-line", "data-values": saved.join(",")}),
    any ? s("path", {class: "al-mem-plain", d: stepPath(plain.map((st) => st[1] + st[2])), "data-role": "plain-line",
      "data-values": plain.map((st) => st[1] + st[2]).join(",")}) : null,
    s("path", {class: "al-mem-total", d: stepPath(total), "data-role": "total-line", "data-values": total.join(",")}),
    s("line", {class: "al-mem-start", x1: X(fwd).toFixed(1), x2: X(fwd).toFixed(1), y1: pad, y2: H - bottom}),
    s("text", {x: (X(fwd) - 4).toFixed(1), y: H - bottom + 14, "text-anchor": "end"}, "forward"),
    s("text", {x: (X(fwd) + 4).toFixed(1), y: H - bottom + 14}, "backward →"),
    s("text", {x: left, y: H - 4}, `${steps.length} steps${w < 420 ? "" : ": nodes recorded, then nodes run"}`),
    s("circle", {class: "al-mem-dot", cx: px.toFixed(1), cy: py.toFixed(1), r: 5, "data-role": "peak-dot", "data-step": at}),
    s("text", {class: "al-mem-peak", x: (px + (px > w * 0.7 ? -8 : 8)).toFixed(1), y: (py - 7).toFixed(1),
      "text-anchor": px > w * 0.7 ? "end" : "start"}, `peak ${bytesText(state.peak)}`));
}

function altText(state, any) {
  const at = peakStep(state.steps);
  const [, now, held] = state.steps[at];
  let s = `Step chart of the bytes one training step holds, over ${state.steps.length} steps (batch ${state.batch}, ` +
    `width ${state.width}, ${state.dtype}, ${any ? `block${state.checkpointed.length > 1 ? "s" : ""} ` +
    `${state.checkpointed.join(", ")} checkpointed` : "no block checkpointed"}). The forward climbs to ` +
    `${state.kept.toLocaleString("en")} bytes saved. The backward peaks at step ${at} with ` +
    `${state.peak.toLocaleString("en")} bytes: ${now.toLocaleString("en")} saved and ${held.toLocaleString("en")} of gradients.`;
  if (any) s += ` With no block checkpointed the peak is ${state.plain.peak.toLocaleString("en")} bytes.`;
  return s;
}

function numbersTable(state, any) {
  const cell = (n, role) => h("td", {"data-role": role, "data-bytes": String(n)},
    `${n.toLocaleString("en")} B`, h("span", {class: "al-legend", text: ` (${bytesText(n)})`}));
  const again = new Set(state.steps.filter((st) => st[3] === "r").length ? state.checkpointed : []);
  return h("table", {class: "al-mem-numbers", "data-role": "numbers-table"},
    h("thead", {}, h("tr", {}, h("th", {scope: "col", text: "bytes"}), h("th", {scope: "col", text: "these settings"}),
      any ? h("th", {scope: "col", text: "no checkpointing"}) : null)),
    h("tbody", {},
      h("tr", {}, h("th", {scope: "row", text: "saved after the forward"}), cell(state.kept, "kept"),
        any ? cell(state.plain.kept, "plain-kept") : null),
      h("tr", {}, h("th", {scope: "row", text: "peak during the backward"}), cell(state.peak, "peak"),
        any ? cell(state.plain.peak, "plain-peak") : null),
      h("tr", {}, h("th", {scope: "row", text: "steps (blocks run again)"}),
        h("td", {"data-role": "steps", text: `${state.steps.length} (${again.size ? [...again].join(", ") : "none"})`}),
        any ? h("td", {text: `${state.plain.steps.length} (none)`}) : null)));
}

// -- the page's answer: the timeline worked out from the sizes -----------------------------------
// count_saved's timeline for the chapter's MLP as which node keeps which value (a value
// counts once while some node keeps it).  Forward: a Linear records TBackward0 (a leaf's
// transpose: nothing) and AddmmBackward0 (keeps its input, but x, a leaf); a ReLU keeps
// its output; the loss its input.  In a checkpointed block, placeholders keep only the
// block's input.  Backward: a node that ran lets go of what it kept; the gradients in
// flight are those it sent on (not those to leaves: .grad).  At a checkpointed block the
// block runs again until its last placeholder is filled; they hold values till used.
function memoryTimeline(spec, width, batch, checkpointed, dtype) {
  const s = spec.dtypes[dtype], nIn = spec.n_in, nOut = spec.n_out, B = spec.blocks;
  const a = batch * width * s;                      // one hidden activation
  const size = {}, keepers = {};
  const keep = (value, who, bytes) => { size[value] = bytes; (keepers[value] = keepers[value] || new Set()).add(who); };
  const drop = (who) => { for (const set of Object.values(keepers)) set.delete(who); };
  const saved = () => Object.entries(keepers).reduce((t, [v, set]) => t + (set.size ? size[v] : 0), 0);
  const steps = [];
  let held = 0;
  const rec = (name, phase) => steps.push([name, saved(), phase === "f" ? 0 : held, phase]);
  const walk = (name, who, gradients) => { drop(who); held = gradients; steps.push([name, saved(), held, "b"]); };
  const ck = (b) => checkpointed.includes(b);
  for (let b = 0; b < B; b++) {
    for (let j = 0; j < 2; j++) {
      const k = 2 * b + j;
      rec("TBackward0", "f");
      if (ck(b)) { if (j === 0 && b > 0) keep(`h${k - 1}`, `frame${b}`, a); }
      else if (k > 0) keep(`h${k - 1}`, `addmm${k}`, a);
      rec("AddmmBackward0", "f");
      if (!ck(b)) keep(`h${k}`, `relu${k}`, a);
      rec("ReluBackward0", "f");
    }
  }
  const last = 2 * B;
  rec("TBackward0", "f");
  keep(`h${last - 1}`, `addmm${last}`, a);
  rec("AddmmBackward0", "f");
  keep("out", "mse", batch * nOut * s);
  rec("MseLossBackward0", "f");
  const kept = saved();
  walk("MseLossBackward0", "mse", batch * nOut * s);
  walk("AddmmBackward0", `addmm${last}`, a + width * nOut * s);
  walk("TBackward0", null, a);
  for (let b = B - 1; b >= 0; b--) {
    const k = 2 * b;
    const first = b === 0 ? nIn * width * s : a + width * width * s;
    if (ck(b)) {                                    // the block runs again, up to its last placeholder
      rec("TBackward0", "r");
      if (b > 0) keep(`h${k - 1}`, "again", a);
      rec("AddmmBackward0", "r");
      keep(`r${k}`, "again", a);
      keep(`r${k}`, `relu${k}`, a);                 // (its placeholder, and the next Addmm's)
      keep(`r${k}`, `addmm${k + 1}`, a);
      rec("ReluBackward0", "r");
      rec("TBackward0", "r");
      rec("AddmmBackward0", "r");
      keep(`r${k + 1}`, `relu${k + 1}`, a);         // the last placeholder: the run stops
      drop("again");
    }
    walk("ReluBackward0", `relu${k + 1}`, a);
    walk("AddmmBackward0", `addmm${k + 1}`, a + width * width * s);
    walk("TBackward0", null, a);
    walk("ReluBackward0", `relu${k}`, a);
    drop(`frame${b}`);
    walk("AddmmBackward0", `addmm${k}`, first);
    walk("TBackward0", null, b === 0 ? 0 : a);
  }
  let peak = 0;
  for (const [, now, h2, phase] of steps) if (phase !== "f" && (phase === "b" || h2)) peak = Math.max(peak, now + h2);
  return {steps, kept, peak};
}

function offline({spec, state}, msg) {
  const refuse = (error) => ({...state, n: state.n + 1, error, note: null});
  const next = {checkpointed: state.checkpointed, batch: state.batch, width: state.width, dtype: state.dtype};
  const value = msg.value;
  if (msg.set === "checkpointed") {
    const ok = Array.isArray(value) && value.every((i) => Number.isInteger(i) && i >= 0 && i < spec.blocks);
    if (!ok) return refuse(`checkpointed: a list of block numbers from 0 to ${spec.blocks - 1}, not ${JSON.stringify(value)}`);
    next.checkpointed = [...new Set(value)].sort((p, q) => p - q);
  } else if (msg.set === "batch" || msg.set === "width") {
    const w = whole(msg.set, String(value), spec.limits[msg.set]);
    if (w.error) return refuse(w.error);
    next[msg.set] = w.value;
  } else if (msg.set === "dtype") {
    if (!(value in spec.dtypes)) return refuse(`dtype: float32 or float64, not '${value}'`);
    next.dtype = value;
  } else {
    return refuse(`MemoryExplorer does not know the message ${JSON.stringify(msg)}`);
  }
  const r = memoryTimeline(spec, next.width, next.batch, next.checkpointed, next.dtype);
  const plain = next.checkpointed.length ? memoryTimeline(spec, next.width, next.batch, [], next.dtype) : r;
  return {...state, ...next, n: state.n + 1, error: null, note: null, steps: r.steps, kept: r.kept, peak: r.peak,
    plain: {steps: plain.steps, kept: plain.kept, peak: plain.peak}};
}

export default {render};
export {offline, memoryTimeline};
