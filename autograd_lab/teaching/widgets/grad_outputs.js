// grad_outputs.js: the view of GradOutputsExplorer (autograd.grad(y, x, grad_outputs=seed)
// with a seed of y's full shape), and how a page without a kernel answers it.

const GO_STYLE = `
.al-grad_outputs .al-go-left { display: flex; flex-direction: column; gap: 8px; width: 262px; }
.al-grad_outputs .al-go-left .al-buttons { margin: 0; }
.al-grad_outputs .al-go-index { display: flex; align-items: center; gap: 5px; font-size: 13px; }
.al-grad_outputs .al-go-index input { width: 2.6em; min-height: 28px; text-align: center; }
.al-grad_outputs .al-go-cells { display: grid; gap: 3px; }
.al-grad_outputs .al-go-cells input { text-align: center; padding: 2px 2px; }
.al-grad_outputs .al-go-cells input.al-go-zero { color: var(--al-muted); }
.al-grad_outputs .al-go-head { font-size: 12.5px; color: var(--al-muted); margin: 0; }
.al-grad_outputs .al-go-head b { color: var(--al-fg); font-weight: 600; }
.al-grad_outputs .al-text { grid-template-columns: 3.2em 1fr !important; }
.al-grad_outputs .al-readout { margin: 0; }
.al-grad_outputs .al-go-right { flex: 1 1 330px; min-width: 0; }
.al-grad_outputs .al-go-scroll { max-height: 470px; overflow-y: auto; }
.al-grad_outputs table.al-heat td { min-width: 3.6em; height: 1.6em; }
.al-grad_outputs .al-chip { min-width: 3.2em; }
`;

function render({model, el}) {
  let cells = [], indexBoxes = [], textBox, presets, loss, answer, table, sentIndex = null;
  return explorer({
    model, el, kind: "grad_outputs",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: every change runs autograd.grad(y, x, " +
        "grad_outputs=seed) on a fresh copy of x.",
      page: "Computed in this page: dL/dx = vec(seed)ᵀ J, with the Jacobian J autograd_lab computed when the " +
        "book was built (grad is linear in grad_outputs). Open the notebook to run grad itself, or to change x or y.",
    },
    build(ctx) {
      kindStyle("grad_outputs", GO_STYLE);
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      const shape = spec.y_shape;
      presets = buttonBar(Object.keys(spec.presets).map((k) => [k, k]), (name) => ctx.send({do: "preset", name}),
        "presets");
      // index boxes: whole numbers typed as text (a number input's spin arrows took the
      // clicks meant for the box); anything else is refused here, the same in both hosts
      const sendIndex = () => {
        const texts = indexBoxes.map((b) => b.value.trim());
        const bad = texts.findIndex((t, d) => !/^\d+$/.test(t) || Number(t) >= shape[d]);
        if (bad >= 0) {
          ctx.problem(`index ${bad}: ${texts[bad] === "" ? "empty" : JSON.stringify(texts[bad])}; ` +
            `type a whole number from 0 to ${shape[bad] - 1}`);
          indexBoxes.forEach((b, d) => { b.value = String((model.get("state").index || [])[d] ?? 0); });
          return;
        }
        const value = texts.map(Number);
        if (JSON.stringify(value) !== JSON.stringify(sentIndex)) ctx.send({set: "index", value});
      };
      indexBoxes = shape.map((n, d) => h("input", {type: "text", inputmode: "numeric", value: "0",
        "data-role": `index-${d}`, "aria-label": `one-hot index, axis ${d} (0 to ${n - 1})`,
        onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); sendIndex(); } },
        onchange: sendIndex}));
      const index = h("div", {class: "al-go-index", "data-role": "index"},
        h("span", {text: `one-hot at ${yn}[`}), ...indexBoxes.flatMap((b, d) => (d ? [h("span", {text: ","}), b] : [b])),
        h("span", {text: "]"}));
      const left = h("div", {class: "al-go-left", "data-role": "controls"}, presets.el, index);
      if (spec.cells) {
        const [rows, cols] = shape.length === 2 ? shape : [1, shape[0]];
        cells = Array.from({length: rows * cols}, (_, k) => {
          const input = h("input", {type: "text", inputmode: "decimal", "data-role": `cell-${k}`,
            "aria-label": `seed ${spec.rows[k].replace(yn, "")}`});
          let shown = "";
          const apply = () => {
            const text = input.value.trim();
            if (text === shown) return;
            if (!NUMBER.test(text)) {          // one number (or nan, inf) per cell, refused here
              ctx.problem(`${spec.rows[k]}: ${text === "" ? "the box is empty" : `could not read ${JSON.stringify(text)}`}; ` +
                "type one number (nan and inf too)");
              input.value = shown;
              return;
            }
            ctx.send({set: "entry", index: k, value: text});
          };
          input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); apply(); } });
          input.addEventListener("change", apply);
          return {input, show(text) { shown = text; input.value = text; }};
        });
        left.append(
          h("p", {class: "al-go-head"}, h("b", {text: "seed"}), ` = grad_outputs, ${yn}'s shape ${shapeText(shape)}:`),
          h("div", {class: "al-go-cells", "data-role": "cells", style: `grid-template-columns: repeat(${cols}, 1fr)`},
            ...cells.map((c) => c.input)));
      }
      textBox = textControl({label: "seed", value: "", rows: 3, role: "seed-text",
        onapply: (text) => ctx.send({set: "seed", value: text})});
      loss = h("p", {class: "al-go-head", "data-role": "loss"});
      answer = h("div", {class: "al-readout al-mono", "data-role": "readout"});
      left.append(textBox.el, loss, answer);
      table = h("div", {class: "al-go-scroll"});
      const right = h("div", {class: "al-go-right"},
        h("p", {class: "al-go-head"}, h("b", {text: `dL/d${xn} = vec(seed)ᵀ J`}),
          `: row ${yn}[j, k] of the Jacobian J (∂${yn}[j, k]/∂${xn}) counts seed[j, k] times; the weighted rows add up.`),
        table);
      return h("div", {class: "al-row"}, left, right);
    },
    draw(state, ctx) {
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      const seed = state.seed === undefined ? null : state.seed;
      const v = seed === null ? [] : flat(seed);
      const fits = JSON.stringify(shapeOf(seed)) === JSON.stringify(spec.y_shape);
      cells.forEach((c, k) => c.show(fits ? fmt(v[k]).replace(/\.$/, "") : ""));
      cells.forEach((c, k) => c.input.classList.toggle("al-go-zero", fits && v[k] === 0));
      textBox.show(seed === null ? "" : fmtNested(seed));
      sentIndex = state.preset === "one-hot" ? state.index : null;     // typed again: nothing to redo
      (state.index || []).forEach((i, d) => { indexBoxes[d].value = String(i); });
      for (const [name, b] of Object.entries(presets.buttons)) {
        b.setAttribute("aria-pressed", state.preset === name ? "true" : "false");
      }
      setText(loss, state.loss || "");
      const grad = state.grad === null || state.grad === undefined ? null : flat(state.grad);
      setText(answer, `grad returns dL/d${xn} = ${grad === null ? "None" : fmtNested(state.grad)}`);
      const J = spec.J.map((r) => r.map(num));
      const wmax = vmaxOf(fits ? v : []);
      const rows = J.map((r, i) => ({
        label: spec.rows[i], values: r, role: `J-${i}`,
        lead: h("span", {class: "al-chip", "data-role": `v-${i}`, title: `seed entry ${spec.rows[i].replace(yn, "")}`,
          text: fits ? `${fmt(v[i])} ×` : "?"}),
        weight: fits && Number.isFinite(v[i]) ? Math.min(1, Math.abs(v[i]) / wmax) : 1,
      }));
      rows.push({gap: true});
      rows.push({label: `dL/d${xn}`, lead: h("span", {class: "al-mono", text: "sum ="}),
        values: grad === null ? spec.cols.map(() => NaN) : grad, pending: grad === null,
        cls: "al-sum", role: "grad", vmax: vmaxOf(grad || [])});
      patch(table, heatTable({cols: spec.cols, rows, vmax: vmaxOf(J.flat()), lead: true, role: "jacobian"}),
        h("p", {class: "al-legend", text: `Pale rows count little (seed near 0). Red positive, blue negative; ` +
          `dL/d${xn} has a colour scale of its own.`}));
    },
  });
}

// The page's answer to a message: dL/dx = vec(seed)ᵀ J with the Jacobian autograd_lab
// computed when the book was built, the seed first cast to the explorer's dtype as grad
// casts it.  A seed of the wrong shape gets the engine's words, recorded at build time.
function offline({spec, state}, msg) {
  const shape = spec.y_shape;
  const refuse = (error) => ({...state, n: state.n + 1, error, note: null});
  let seed, preset = null, index = state.index;
  if (msg.do === "preset" || msg.set === "index") {
    preset = msg.do === "preset" ? msg.name : "one-hot";
    if (!spec.presets[preset]) return refuse(`no preset ${JSON.stringify(preset)}`);
    if (msg.set === "index") index = msg.value.map(Number);
    else if (msg.index) index = msg.index;
    if (preset === "one-hot") {
      if (index.length !== shape.length || index.some((i, d) => !(Number.isInteger(i) && i >= 0 && i < shape[d]))) {
        return refuse(`IndexError: index (${index.join(", ")}) is outside ${spec.names[1]}'s shape ${shapeText(shape)}`);
      }
      const v = Array(shape.reduce((a, b) => a * b, 1)).fill(0);
      v[index.reduce((flatIndex, i, d) => flatIndex * shape[d] + i, 0)] = 1;
      seed = nest(v, shape);
    } else {
      seed = spec.presets[preset];
    }
  } else if (msg.set === "entry") {
    const parsed = parseNumbers(String(msg.value));
    if (parsed.error || Array.isArray(parsed.value)) {
      return refuse(`ValueError: ${parsed.error || `${JSON.stringify(String(msg.value))} is not one number`}`);
    }
    const base = JSON.stringify(shapeOf(state.seed)) === JSON.stringify(shape) ? flat(state.seed) : flat(spec.presets.ones);
    base[msg.index] = num(parsed.value);
    seed = nest(base, shape);
  } else if (msg.set === "seed") {
    const parsed = typeof msg.value === "string" ? parseNumbers(msg.value) : {value: msg.value};
    if (parsed.error) return refuse(`ValueError: ${parsed.error}`);
    seed = parsed.value;
  } else {
    return refuse(`the page does not know the message ${JSON.stringify(msg)}`);
  }
  const xn = spec.names[0];
  const seedShape = shapeOf(seed);
  if (JSON.stringify(seedShape) !== JSON.stringify(shape)) {
    return {...state, n: state.n + 1, seed, grad: null, preset: null, index,
      loss: spec.loss.shape.replace("{shape}", shapeText(seedShape)),
      error: spec.wrong_shape.replace("{shape}", shapeText(seedShape)), note: null};
  }
  const cast = spec.dtype === "float32" ? Math.fround : (x) => x;
  const v = flat(seed);
  const {grad: g, refused} = pageVjp(spec, seed, "seed");
  if (refused) return refuse(refused);
  const problems = [];                   // in the kernel's words (_base.seed_overflow, problems)
  const big = v.find((e) => Number.isFinite(e) && !Number.isFinite(cast(e)));
  if (big !== undefined) {
    problems.push(`the seed entry ${pyG(big)} does not fit in ${spec.dtype} (largest ` +
      `${(3.4028234663852886e38).toPrecision(4)}): it becomes inf, and the gradient with it`);
  }
  const bad = nonFinite(`dL/d${xn}`, g, spec.x_shape);
  if (bad) problems.push(bad);
  const loss = (preset === null ? spec.loss.custom : spec.loss[preset]).replace("{index}", index.join(", "));
  return {...state, n: state.n + 1, seed, grad: nest(g, spec.x_shape), preset, index, loss,
    error: problems.length ? problems.join("; ") : null,
    note: v.every((e) => e === 0) ? spec.zero : null};
}

export default {render};
export {offline};
