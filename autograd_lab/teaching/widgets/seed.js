// seed.js: the view of SeedExplorer (y.backward(v) and x.grad = vᵀJ), and how a page
// without a kernel answers it.

function render({model, el}) {
  let seedControls = [], textBox = null, grid = null, picture, readout, presets, zero;
  return explorer({
    model, el, kind: "seed",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: every change runs y.backward(v) on fresh copies of the inputs.",
      page: "Computed in this page: the gradient is vᵀJ, from the Jacobian autograd_lab computed when the book was built " +
        "(backward is linear in the seed). Open the notebook to run the backward itself.",
    },
    build(ctx) {
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      const m = spec.rows.length;
      const sendSeed = (value) => ctx.send({set: "seed", value});
      const controls = h("div", {class: "al-controls", "data-role": "controls"});
      if (spec.sliders) {
        seedControls = spec.rows.map((label, i) => numberControl({
          label: label.replace(yn, "v"), value: 1, role: `seed-${i}`, onproblem: ctx.problem,
          onchange: () => sendSeed(nest(seedControls.map((c) => wire(c.value)), spec.y_shape)),
        }));
        controls.append(...seedControls.map((c) => c.el));
      } else {
        textBox = textControl({label: "seed v", value: "", rows: 3, role: "seed-text",
          onapply: (text) => {
            const parsed = parseNumbers(text);
            if (parsed.error) ctx.problem(parsed.error);
            else sendSeed(parsed.value);
          }});
        controls.append(textBox.el);
      }
      presets = buttonBar(Object.keys(spec.presets).map((k) => [k, k]),
        (name) => ctx.send({do: "preset", name}), "presets");
      controls.append(presets.el);
      picture = h("div", {"data-role": "picture"});
      readout = h("div", {class: "al-readout al-mono", "data-role": "readout"});
      zero = h("div", {class: "al-status", "data-role": "zero", "aria-live": "polite"});
      return h("div", {},
        h("div", {class: "al-row"}, controls, picture),
        readout, zero);
    },
    draw(state, ctx) {
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      const seed = state.seed === undefined ? null : state.seed;
      const v = seed === null ? [] : flat(seed);
      const fits = v.length === spec.rows.length;
      if (fits) seedControls.forEach((c, i) => c.show(v[i]));
      if (textBox) textBox.show(seed === null ? "" : fmtNested(seed));
      const J = spec.J.map((r) => r.map(num));
      const grad = state.grad === null || state.grad === undefined ? null : flat(state.grad);
      const vmax = vmaxOf(J.flat());
      const wmax = vmaxOf(v);
      const rows = J.map((r, i) => ({
        label: spec.rows[i], values: r, role: `J-${i}`,
        lead: h("span", {class: "al-chip", "data-role": `v-${i}`, text: fits ? fmt(v[i]) : "?"}),
        weight: fits && Number.isFinite(v[i]) ? Math.min(1, Math.abs(v[i]) / wmax) : 1,
      }));
      rows.push({gap: true});
      rows.push({label: `${xn}.grad`, lead: h("span", {class: "al-mono", text: "= vᵀJ"}),
        values: grad === null ? spec.cols.map(() => NaN) : grad, pending: grad === null,
        cls: "al-sum", role: "grad", vmax: vmaxOf(grad || [])});
      patch(picture,
        heatTable({cols: spec.cols, rows, vmax, lead: true, role: "jacobian"}),
        h("p", {class: "al-legend", text: `J: one row per entry of ${yn}, one column per entry of ${xn}; ` +
          `row i counts v[i] times (pale rows count little); ${xn}.grad has a colour scale of its own. Red positive, blue negative.`}));
      const line = (name, value) => `${name.padStart(8)} = ${value === null ? "None" : fmtNested(value)}`;
      setText(readout, [line(yn, spec.y), line("v", seed), line(`${xn}.grad`, state.grad ?? null)].join("\n"));
      patch(zero, fits && v.every((e) => e === 0)
        ? h("div", {class: "al-note"}, `The seed is all zeros: the loss it stands for ignores ${yn}, so every entry of ${xn}.grad is 0.`)
        : "");
      for (const [name, b] of Object.entries(presets.buttons)) {
        b.setAttribute("aria-pressed", fits && flat(spec.presets[name]).every((e, i) => e === v[i]) ? "true" : "false");
      }
    },
  });
}

// The page's answer to a message: x.grad = vᵀJ, the seed cast to the explorer's dtype
// first as the kernel's backward does.  The Jacobian is the one autograd_lab computed.
function offline({spec, state}, msg) {
  let seed = msg.do === "preset" ? spec.presets[msg.name] : msg.value;
  if (seed === undefined) return {...state, error: `no preset ${JSON.stringify(msg.name)}`};
  const want = spec.y_shape;
  if (JSON.stringify(shapeOf(seed)) !== JSON.stringify(want)) {
    return {...state, n: state.n + 1, seed, grad: null,
      error: `the seed has shape ${shapeText(shapeOf(seed))}; it needs ${spec.names[1]}'s shape ${shapeText(want)}. ` +
        "(In the notebook, the engine itself refuses other shapes: try one there.)"};
  }
  const {grad: g, refused} = pageVjp(spec, seed);
  if (refused) return {...state, n: state.n + 1, error: refused};
  return {...state, n: state.n + 1, seed, grad: nest(g, spec.x_shape), error: nonFinite(`${spec.names[0]}.grad`, g, spec.x_shape),
    note: null};
}

export default {render};
export {offline};
