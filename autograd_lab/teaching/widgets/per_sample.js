// per_sample.js: the view of PerSampleExplorer (pick an example of a batch, see its row of
// J = ∂losses/∂W, its per-sample gradient, and the sum of the rows), and how a page without
// a kernel answers it: by the same formula, in the explorer's float32 arithmetic.

const PER_SAMPLE_STYLE = `
.al-per_sample fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.al-per_sample legend { padding: 0; margin: 0 0 2px; font-weight: 600; font-size: 13px; }
.al-per_sample .al-top { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-end; }
.al-per_sample .al-radios { display: flex; flex-wrap: wrap; gap: 2px 14px; align-items: center; }
.al-per_sample .al-radios label { display: inline-flex; gap: 5px; align-items: center; cursor: pointer;
  min-height: 28px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
.al-per_sample input[type=radio] { width: 24px; height: 24px; margin: 1px; accent-color: var(--al-accent); }
.al-per_sample input:focus-visible, .al-per_sample button:focus-visible {
  outline: 2px solid var(--al-accent); outline-offset: 2px; }
.al-per_sample .al-groups { display: flex; flex-direction: column; gap: 8px; flex: 1 1 240px; max-width: 310px; }
.al-per_sample .al-groups .al-controls { min-width: 0; }
.al-per_sample .al-slider { grid-template-columns: 3.8em 1fr 5em; }
.al-per_sample .al-chip { min-width: 2.2em; }
.al-per_sample .al-ps-picture { flex: 1 1 300px; min-width: 0; }
/* a phone: narrower cells, so the three weights fit beside their labels */
@media (max-width: 480px) {
  .al-per_sample table.al-heat td { min-width: 3.2em; padding: 0 2px; }
  .al-per_sample table.al-heat th, .al-per_sample table.al-heat td.al-lead { padding: 0 2px; } }
.al-per_sample table.al-heat tr.al-picked td:not(.al-lead) { box-shadow: 0 0 0 2px var(--al-accent); }
.al-per_sample table.al-heat tr.al-picked th { color: var(--al-accent); font-weight: 700; }
.al-per_sample .al-chip.al-one { border-color: var(--al-accent); font-weight: 700; }
.al-per_sample .al-chip.al-zero { color: var(--al-muted); }
.al-per_sample .al-chain { margin: 8px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.al-per_sample .al-chain b { font-weight: 650; }
`;

function render({model, el}) {
  let radios = [], xControls = [], yControl, wControls = [], inputsLegend, picture, seedLine, chain;
  let current = 0;                                   // the example the controls edit now
  return explorer({
    model, el, kind: "per_sample",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: every change runs the batch's forward pass, " +
        "one batched backward pass with every one-hot seed for J, one with the seed eᵢ for row i, and " +
        "losses.sum().backward().",
      page: "Computed in this page, in float32 as autograd_lab computes it: row i = δᵢ·xᵢ with " +
        "δᵢ = 2(ŷᵢ − yᵢ)·ŷᵢ(1 − ŷᵢ), the chain rule's formula, checked against autograd_lab's own numbers " +
        "when the book is tested. Open the notebook to run autograd_lab on every change.",
    },
    build(ctx) {
      kindStyle("per_sample", PER_SAMPLE_STYLE);
      const {spec} = ctx;
      const start = model.get("state") || {};
      current = start.sample || 0;
      const group = `al-ps${++AL_IDS}`;
      radios = spec.rows.map((_, i) => h("input", {type: "radio", name: group, value: String(i),
        "data-role": `sample-${i}`, onchange: () => ctx.send({set: "sample", value: i})}));
      const picker = h("fieldset", {"data-role": "picker"}, h("legend", {text: "Pick an example"}),
        h("div", {class: "al-radios"}, radios.map((r, i) => h("label", {}, r, `example ${i}`))));
      const reset = buttonBar([["reset", "reset"]], () => ctx.send({do: "reset"}), "buttons");
      reset.el.style.margin = "0";
      reset.buttons.reset.title = "the chapter's x, y and W again";
      const control = (label, role, value, onchange, min = -2, max = 2) => numberControl({label, value, role, min, max,
        step: 0.05, limit: spec.limit, onproblem: ctx.problem, onchange});
      const sendX = () => ctx.send({set: `x${current}`, value: xControls.map((c) => wire(c.value))});
      xControls = spec.cols.map((_, k) => control(`x${sub(current)}[${k}]`, `x-${k}`, flat(start.x)[current * spec.n + k],
        sendX));
      yControl = control(`y${sub(current)}`, "y", flat(start.y)[current],
        (v) => ctx.send({set: `y${current}`, value: wire(v)}), -1, 2);
      wControls = spec.cols.map((c, k) => control(c, `w-${k}`, flat(start.W)[k],
        () => ctx.send({set: "W", value: wControls.map((w) => wire(w.value))})));
      inputsLegend = h("legend");
      const inputs = h("fieldset", {class: "al-controls", "data-role": "inputs"}, inputsLegend,
        xControls.map((c) => c.el), yControl.el);
      const weights = h("fieldset", {class: "al-controls", "data-role": "weights"},
        h("legend", {text: "W, shared by every example"}), wControls.map((c) => c.el));
      picture = h("div", {class: "al-ps-picture", "data-role": "picture"});
      seedLine = h("p", {class: "al-readout al-mono", "data-role": "seed"});
      chain = h("p", {class: "al-chain al-mono", "data-role": "chain"});
      return h("div", {},
        h("div", {class: "al-top"}, picker, reset.el),
        h("div", {class: "al-row", style: "margin-top:8px"}, h("div", {class: "al-groups"}, inputs, weights), picture),
        seedLine, chain);
    },
    draw(state, ctx) {
      const {spec} = ctx;
      const i = state.sample;
      const si = sub(i);
      current = i;
      radios.forEach((r, k) => { r.checked = k === i; });
      setText(inputsLegend, `Example ${i}: its inputs x${si} and target y${si}`);
      const x = flat(state.x), y = flat(state.y), W = flat(state.W);
      xControls.forEach((c, k) => { c.relabel(`x${si}[${k}]`); c.show(x[i * spec.n + k]); });
      yControl.relabel(`y${si}`);
      yControl.show(y[i]);
      wControls.forEach((c, k) => c.show(W[k]));
      const J = state.J.map((r) => r.map(num));
      const vmax = vmaxOf(J.flat());
      const rows = J.map((r, k) => ({
        label: spec.rows[k], values: r, role: `J-${k}`, cls: k === i ? "al-picked" : null,
        weight: k === i ? 1 : 0.3,
        lead: h("span", {class: `al-chip ${k === i ? "al-one" : "al-zero"}`, "data-role": `e-${k}`,
          title: `entry ${k} of the seed e${si}`, text: k === i ? "1" : "0"}),
      }));
      const row = flat(state.row), total = flat(state.total);
      rows.push({gap: true});
      rows.push({label: `∂loss${si}/∂W`, lead: h("span", {class: "al-mono", text: `= e${si}ᵀJ`}), values: row,
        cls: "al-sum", role: "row", vmax: vmaxOf(row)});
      rows.push({label: "Σ rows", lead: h("span", {class: "al-mono", text: "= 1ᵀJ"}), values: total,
        cls: "al-sum", role: "total", vmax: vmaxOf(total)});
      patch(picture,
        h("p", {class: "al-legend", style: "margin:0 0 4px",
          text: `e${si}: the one-hot seed over the ${spec.B} losses. J: a row per example, a column per weight.`}),
        heatTable({cols: spec.cols, rows, vmax, lead: true, role: "jacobian"}),
        h("p", {class: "al-legend", text: `Row ${i}, framed, is example ${i}'s gradient ∂loss${si}/∂W; the other rows ` +
          "are faded. Σ rows is W.grad after losses.sum().backward(): backward sums the rows away. " +
          "The last two rows have colour scales of their own. Red positive, blue negative."}));
      const e = spec.rows.map((_, k) => (k === i ? 1 : 0));
      setText(seedLine, `seed e${si} = [${e.join(", ")}] over losses = ${fmtNested(state.losses)}\n` +
        `→ autograd.grad(losses, W, e${si}) = row ${i} = ${fmtNested(state.row)}`);
      const b = flat(spec.b)[i];
      patch(chain,
        `z${si} = W·x${si} + b${si} = ${fmt(state.z[i])} (b${si} = ${fmt(b)});  ŷ${si} = σ(z${si}) = ${fmt(state.y_hat[i])}\n` +
        `loss${si} = (y${si} − ŷ${si})² = ${fmt(state.losses[i])};  δ${si} = 2(ŷ${si} − y${si})·ŷ${si}(1 − ŷ${si}) = ${fmt(state.delta)}\n`,
        h("b", {text: `row ${i} = δ${si}·x${si} = ${fmtNested(state.row)}`}));
    },
  });
}

// Subscript digits: x₂, loss₁₀.
function sub(i) {
  return String(i).replace(/\d/g, (d) => "₀₁₂₃₄₅₆₇₈₉"[Number(d)]);
}

// -- the page's answer: the kernel's arithmetic, step by step -----------------------------------
// Each operation as autograd_lab runs it, rounded to the explorer's dtype after every step
// (float32: Math.fround; + − × ÷ of two float32 numbers done in double and rounded once
// give float32's own answer), the sum over examples in NumPy's order for a small batch
// (pairwise: (p₀ + p₁) + (p₂ + p₃)).  Two steps float32 libraries round differently from
// one CPU to another: exp (by an ulp), and the dot products of W @ x.t(), which BLAS adds
// in an order (and with fused multiply-adds) of its own -- harmless unless the terms
// cancel, when z keeps only their last bits.  So the page also computes with exp an ulp or
// two off either way, and with each z moved by the most such a reordering can move it
// (n - 1 float32 roundings of the terms' sizes); where a shown digit depends on either, it
// says so in a note.
// It refuses what the kernel refuses (nan, inf, beyond ±limit), in the kernel's words.
const ULPS = 2 ** -22;

function perSampleAt(spec, W, x, y, sample, wobble, shift = 0) {
  const f = spec.dtype === "float32" ? Math.fround : (v) => v;
  const {B, n} = spec;
  const b = flat(spec.b).map(f);
  const z = [], yHat = [], losses = [], delta = [], J = [];
  for (let i = 0; i < B; i++) {
    let s = f(W[0] * x[i][0]), size = Math.abs(s);
    for (let k = 1; k < n; k++) {                                  // W @ x.t(): a dot product
      const p = f(W[k] * x[i][k]);
      s = f(s + p);
      size += Math.abs(p);
    }
    if (shift) s = f(s + shift * (n - 1) * 2 ** -24 * size);       // another order of the sum
    z.push(f(s + b[i]));
    const e = f(f(Math.exp(f(-z[i]))) * (1 + wobble));             // sigmoid: 1 / (1 + exp(-z))
    yHat.push(f(1 / f(1 + e)));
    const d = f(y[i] - yHat[i]);                                   // (y - ŷ) ** 2
    losses.push(f(d * d));
    const g = -f(2 * d);                                           // pow's rule, then sub's: -2(y - ŷ)
    delta.push(f(g * f(yHat[i] * f(1 - yHat[i]))));                // sigmoid's rule: g · ŷ(1 - ŷ)
    J.push(x[i].map((v) => f(delta[i] * v)));                      // mm's rule: row i = δᵢ xᵢ
  }
  const sum = (lo, hi, k) => (hi - lo === 1 ? J[lo][k]             // losses.sum(): every seed 1
    : f(sum(lo, lo + ((hi - lo) >> 1), k) + sum(lo + ((hi - lo) >> 1), hi, k)));
  const total = W.map((_, k) => sum(0, B, k));
  return {z, y_hat: yHat, losses, J, row: J[sample], delta: delta[sample], total};
}

const LAST_BIT = "Some last digits here depend on how float32 rounds exp or a sum whose terms " +
  "cancel, which libraries and CPUs do differently: the notebook's may differ in the last digit.";

function perSample(spec, W, x, y, sample) {
  const r = perSampleAt(spec, W, x, y, sample, 0);
  const shown = (q) => [q.z, q.y_hat, q.losses, q.J, q.total, q.delta].map(fmtNested).join();
  const moved = [[-ULPS, 0], [ULPS, 0], [0, -1], [0, 1]];
  const uncertain = moved.some(([w, s]) => shown(perSampleAt(spec, W, x, y, sample, w, s)) !== shown(r));
  return {...r, note: uncertain ? LAST_BIT : null};
}

// What a reader gave, checked as the kernel checks it (PerSampleExplorer._numbers).
function checked(values, names, limit, spoiled = "every row") {
  for (let k = 0; k < values.length; k++) {
    const v = num(values[k]);
    if (!Number.isFinite(v)) {
      return {error: `${names[k]} = ${wire(v)}: only finite numbers are taken (with nan or inf ${spoiled} would be nan)`};
    }
    if (Math.abs(v) > limit) return {error: `${names[k]} = ${fmt(v)} is beyond ±${limit.toLocaleString("en")}; type a smaller number`};
  }
  return {values: values.map(num)};
}

function offline({spec, state}, msg) {
  const f = spec.dtype === "float32" ? Math.fround : (v) => v;
  const refuse = (error) => ({...state, n: state.n + 1, error});   // (the note stays with its numbers)
  let sample = state.sample;
  let W = flat(state.W), x = state.x.map((r) => r.map(num)), y = flat(state.y);
  const name = msg.set;
  const m = /^([xy])(\d+)$/.exec(name || "");
  if (msg.do === "reset") {
    W = flat(spec.start.W); x = spec.start.x.map((r) => r.map(num)); y = flat(spec.start.y);
  } else if (name === "sample") {
    const i = num(msg.value);
    if (!(Number.isInteger(i) && i >= 0 && i < spec.B)) {
      return refuse(`there is no example ${JSON.stringify(msg.value)}: pick 0 to ${spec.B - 1}`);
    }
    sample = i;
  } else if (name === "W") {
    const c = checked([].concat(msg.value), spec.cols, spec.limit);
    if (c.error) return refuse(c.error);
    if (c.values.length !== spec.n) return refuse(`${spec.cols.join(", ")}: expected ${spec.n} numbers, got ${c.values.length}`);
    W = c.values.map(f);
  } else if (m && Number(m[2]) < spec.B) {
    const i = Number(m[2]);
    const names = m[1] === "x" ? spec.cols.map((_, k) => `x${sub(i)}[${k}]`) : [`y${sub(i)}`];
    const c = checked([].concat(msg.value), names, spec.limit, `row ${i} and Σ rows`);
    if (c.error) return refuse(c.error);
    if (c.values.length !== names.length) {
      return refuse(`${names.join(", ")}: expected ${names.length} number${names.length > 1 ? "s" : ""}, got ${c.values.length}`);
    }
    if (m[1] === "x") x[i] = c.values.map(f);
    else y[i] = f(c.values[0]);
  } else {
    return refuse(`PerSampleExplorer does not know the message ${JSON.stringify(msg)}`);
  }
  const r = perSample(spec, W, x, y, sample);
  return {...state, n: state.n + 1, error: null, note: r.note, sample, W, x, y, z: r.z, y_hat: r.y_hat,
    losses: r.losses, J: r.J, row: r.row, delta: r.delta, total: r.total};
}

export default {render};
export {offline, perSample};
