// inplace.js: the view of InplaceExplorer (an operation, an in-place write, and what
// y.sum().backward() then does), and how a page without a kernel answers it.

const INPLACE_STYLE = `
.al-inplace { --al-ok: #1a7f37; --al-ok-bg: #dcf3e2; --al-stale: #8a5a00; --al-stale-bg: #fbefd0; }
html[data-theme="dark"] .al-inplace, body[data-jp-theme-light="false"] .al-inplace {
  --al-ok: #56d37c; --al-ok-bg: #15331f; --al-stale: #f0c05a; --al-stale-bg: #3a2d0e; }
.al-inplace .al-pick { display: grid; grid-template-columns: 5.2em 1fr; gap: 3px 10px; align-items: baseline; }
.al-inplace .al-pick > span { color: var(--al-muted); font-size: 12.5px; }
.al-inplace .al-pick .al-buttons { margin: 0; gap: 3px 5px; }
.al-inplace .al-pick button code { font: inherit; color: inherit; background: none; border: 0; padding: 0; }
.al-inplace .al-pick button, .al-inplace .al-predict button { font: 12px ui-monospace, Menlo, Consolas, monospace; padding: 2px 6px; }
.al-inplace .al-ask { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: stretch; margin: 8px 0 0; }
.al-inplace pre.al-code { flex: 1 1 20em; margin: 0; padding: 5px 10px; background: var(--al-card);
  border: 1px solid var(--al-line); border-radius: 5px; font: 12.5px/1.4 ui-monospace, Menlo, Consolas, monospace;
  white-space: pre-wrap; }
.al-inplace pre.al-code .al-w { color: var(--al-accent); font-weight: 650; }
.al-inplace .al-predict { display: flex; flex-direction: column; justify-content: center; gap: 5px; }
.al-inplace .al-predict .al-buttons { margin: 0; }
.al-inplace .al-predict button { font-family: system-ui, sans-serif; font-size: 13px; }
.al-inplace .al-wait { color: var(--al-muted); margin: 8px 0 0; font-style: italic; }
.al-inplace .al-verdict { margin: 7px 0 0; padding: 2px 9px; border-radius: 0 4px 4px 0; border-left: 4px solid; }
.al-inplace .al-verdict.al-error { border-color: var(--al-warn); background: var(--al-warn-bg); }
.al-inplace .al-verdict.al-fine { border-color: var(--al-ok); background: var(--al-ok-bg); }
.al-inplace .al-verdict.al-stale { border-color: var(--al-stale); background: var(--al-stale-bg); }
.al-inplace .al-verdict b { font-size: 14.5px; }
.al-inplace .al-verdict .al-why { display: block; font-size: 13px; margin: 1px 0 1px; }
.al-inplace .al-chain { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 5px; margin: 8px 0 0; }
.al-inplace .al-node { border: 1.3px solid var(--al-line); border-radius: 6px; background: var(--al-card);
  padding: 3px 7px; min-width: 7.5em; align-self: stretch; }
.al-inplace .al-node.al-broken { border-color: var(--al-warn); box-shadow: inset 0 0 0 1px var(--al-warn); }
.al-inplace .al-node .al-nn { font: 650 12.5px ui-monospace, Menlo, Consolas, monospace; }
.al-inplace .al-node .al-nl { font: 11.5px ui-monospace, Menlo, Consolas, monospace; color: var(--al-muted); }
.al-inplace .al-node .al-nk { font-size: 12px; margin-top: 1px; }
.al-inplace .al-kept { font: 11.5px ui-monospace, Menlo, Consolas, monospace; white-space: nowrap; }
.al-inplace .al-kept.al-bad { color: var(--al-warn); font-weight: 700; }
.al-inplace .al-arrow { color: var(--al-muted); font-size: 15px; }
.al-inplace table.al-vals { border-collapse: separate; border-spacing: 3px 2px; margin: 8px 0 0 -3px; }
.al-inplace .al-vals th { font: 12.5px ui-monospace, Menlo, Consolas, monospace; font-weight: 400;
  color: var(--al-muted); padding: 0 6px; white-space: nowrap; text-align: center; }
.al-inplace .al-vals th.al-rl { text-align: right; color: var(--al-fg); }
.al-inplace .al-vals td { min-width: 4.6em; height: 1.7em; padding: 0 6px; text-align: center;
  border: 1px solid var(--al-line); border-radius: 4px; background: var(--al-card);
  font: 12.5px ui-monospace, Menlo, Consolas, monospace; font-variant-numeric: tabular-nums; }
.al-inplace .al-vals td.al-changed { border: 2px solid var(--al-stale); font-weight: 700; }
.al-inplace .al-vals td.al-differs { border: 2px solid var(--al-warn); color: var(--al-warn); font-weight: 700; }
.al-inplace .al-vals td.al-ver { min-width: 0; border: none; background: transparent; text-align: left;
  color: var(--al-muted); white-space: nowrap; }
.al-inplace .al-vals td.al-ver b { color: var(--al-fg); }
.al-inplace .al-vals td.al-merged { text-align: left; white-space: normal; color: var(--al-warn);
  border-style: dashed; max-width: 46em; font-size: 11.5px; line-height: 1.35; padding: 2px 6px; }
.al-inplace .al-vals tr.al-gap td, .al-inplace .al-vals tr.al-gap th { height: 4px; border: none; background: none; padding: 0; }
`;

const WAIT = "Predict first: press error, fine or silently stale. The graph, the versions and the gradients show then.";

function render({model, el}) {
  let ops, writes, code, predict, result;
  return explorer({
    model, el, kind: "inplace",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: each choice runs the forward, the write and " +
        "y.sum().backward(), and the honest recomputation.",
      page: "This page looks up what autograd_lab computed when the book was built: every operation with every " +
        "write, each a real forward, write and backward. In the notebook the kernel runs each choice.",
    },
    build(ctx) {
      kindStyle("inplace", INPLACE_STYLE);
      const {spec} = ctx;
      ops = buttonBar(spec.ops.map((o) => [o, h("code", {text: o})]), (o) => ctx.send({set: "op", value: o}), "ops");
      writes = buttonBar(spec.writes.map((w) => [w, h("code", {text: w})]), (w) => ctx.send({set: "write", value: w}), "writes");
      const pick = h("div", {class: "al-pick", "data-role": "controls"},
        h("span", {text: "operation"}), ops.el, h("span", {text: "then"}), writes.el);
      code = h("pre", {class: "al-code", "data-role": "code"});
      predict = buttonBar(Object.entries(spec.outcomes), (o) => ctx.send({set: "prediction", value: o}), "predict");
      const ask = h("div", {class: "al-ask"}, code,
        h("div", {class: "al-predict"}, h("span", {text: "Predict: y.sum().backward() will …"}), predict.el));
      result = h("div", {"data-role": "result", "aria-live": "polite"});
      return h("div", {}, pick, ask, result);
    },
    draw(state, ctx) {
      const {spec} = ctx;
      for (const [key, b] of Object.entries(ops.buttons)) b.setAttribute("aria-pressed", String(key === state.op));
      for (const [key, b] of Object.entries(writes.buttons)) b.setAttribute("aria-pressed", String(key === state.write));
      for (const [key, b] of Object.entries(predict.buttons)) {
        b.setAttribute("aria-pressed", String(key === state.prediction));
      }
      patch(code, ...(state.code || []).map((line, i) =>
        h("div", {class: line === state.write ? "al-w" : null, "data-line": i, text: line})));
      if (!state.prediction) {
        patch(result, h("p", {class: "al-wait", "data-role": "waiting", text: WAIT}));
        return;
      }
      patch(result, verdict(state, spec), chain(state), values(state));
    },
  });
}

// The outcome, and the reader's prediction judged.
function verdict(state, spec) {
  const where = state.outcome === "error" ? (state.at === "write" ? ", raised by the write itself" : ", raised by y.sum().backward()") : "";
  const right = state.prediction === state.outcome;
  return h("p", {class: `al-verdict al-${state.outcome}`, "data-role": "verdict", "data-outcome": state.outcome},
    h("b", {"data-role": "outcome", text: spec.outcomes[state.outcome]}), where,
    h("span", {"data-role": "judged", text: ` — you predicted ${spec.outcomes[state.prediction]}: ${right ? "right" : "not this time"}.`}),
    h("span", {class: "al-why", "data-role": "why", text: state.why}));
}

// The graph in the order the forward recorded it (backward walks it from the right),
// each node with what it keeps for its rule and that value's version: saved at, now.
function chain(state) {
  const box = h("div", {class: "al-chain", "data-role": "graph"});
  state.nodes.forEach((node, k) => {
    if (k) box.append(h("span", {class: "al-arrow", text: "→"}));
    const broken = node.keeps.some((it) => it.at !== null && it.now !== it.at);
    const kept = node.keeps.length === 0 ? [h("div", {class: "al-kept", text: node.name === "AccumulateGrad" ? "writes x.grad" : "keeps nothing"})]
      : node.keeps.map((it) => {
        const bad = it.at !== null && it.now !== it.at;
        return h("div", {class: "al-kept" + (bad ? " al-bad" : ""), "data-role": "kept",
          title: it.at === null ? null : `${it.what} was saved at version ${it.at}; it is at version ${it.now} now`},
          h("div", {text: `keeps ${it.what}`}),
          it.at === null ? null : h("div", {"data-role": "versions", text: `saved v${it.at} · now v${it.now} ${bad ? "✗" : "✓"}`}));
      });
    box.append(h("div", {class: "al-node" + (broken ? " al-broken" : ""), "data-role": `node-${k}`},
      h("div", {class: "al-nn", "data-role": "node-name", text: node.name}),
      h("div", {class: "al-nl", text: node.line}),
      h("div", {class: "al-nk"}, ...kept)));
  });
  return box;
}

// x and y at the forward and now (numbers a write changed are outlined), with their
// versions; then x.grad from the backward (or its error) and the honest gradient.
function values(state) {
  const n = state.tensors[0].forward.length;
  const tbl = h("table", {class: "al-vals", "data-role": "values"});
  tbl.append(h("tr", {}, h("th"), Array.from({length: n}, (_, j) => h("th", {text: String(j)})), h("th")));
  const cells = (vals, cls) => vals.map((v, j) => h("td", {class: cls ? cls(j) : null, "data-index": j, text: fmt(v)}));
  for (const t of state.tensors) {
    const was = t.forward.map(num), now = t.now.map(num);
    const changed = now.some((v, j) => v !== was[j]);
    const ver = h("td", {class: "al-ver", "data-role": `${t.name}-version`}, "version ", h("b", {text: String(t.version)}),
      t.data_version === null ? "" : ` (${t.name}.data: ${t.data_version})`);
    if (changed) {
      tbl.append(h("tr", {"data-role": `${t.name}-forward`}, h("th", {class: "al-rl", text: `${t.name} at the forward`}),
        cells(was), h("td", {class: "al-ver"})));
    }
    tbl.append(h("tr", {"data-role": `${t.name}-now`}, h("th", {class: "al-rl", text: changed ? `${t.name} now` : t.name}),
      cells(now, (j) => (now[j] !== was[j] ? "al-changed" : null)), ver));
  }
  tbl.append(h("tr", {class: "al-gap"}, h("th"), h("td", {colspan: n + 1})));
  const honest = state.honest.map(num);
  if (state.grad === null) {
    tbl.append(h("tr", {"data-role": "grad"}, h("th", {class: "al-rl", text: "x.grad"}),
      h("td", {class: "al-merged", colspan: n + 1, "data-role": "error-text", text: `None: ${state.backward_error}`})));
  } else {
    const grad = state.grad.map(num);
    const same = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));
    tbl.append(h("tr", {"data-role": "grad"}, h("th", {class: "al-rl", text: "x.grad"}),
      cells(grad, (j) => (same(grad[j], honest[j]) ? null : "al-differs")), h("td", {class: "al-ver", text: "from the backward above"})));
  }
  tbl.append(h("tr", {"data-role": "honest"}, h("th", {class: "al-rl", text: "honest x2.grad"}), cells(honest),
    h("td", {class: "al-ver", text: "the same steps, out of place"})));
  return h("div", {}, tbl, h("p", {class: "al-legend"}, "honest: ", h("code", {"data-role": "honest-code", text: state.honest_code}),
    ` on a fresh leaf x2 = x at the forward.`));
}

// The page's answer to a message: the state autograd_lab computed when the book was built
// for the chosen operation and write; a prediction only reveals it.
function offline({spec, state, page}, msg) {
  const next = {...state, n: state.n + 1, error: null, note: null};
  if (msg.set === "prediction") {
    if (!(msg.value in spec.outcomes)) {
      return {...next, error: `ValueError: predict 'error', 'fine' or 'silently stale', not ${JSON.stringify(msg.value)}`};
    }
    return {...next, prediction: msg.value};
  }
  if (msg.set !== "op" && msg.set !== "write") {
    return {...next, error: `ValueError: this page does not know the message ${JSON.stringify(msg)}`};
  }
  const op = msg.set === "op" ? msg.value : state.op;
  const write = msg.set === "write" ? msg.value : state.write;
  const found = page.states[`${op}|${write}`];
  if (!found) return {...next, error: `ValueError: no ${msg.set} ${JSON.stringify(msg.value)}; press one of the buttons`};
  return {...next, ...found, op, write, prediction: null};
}

export default {render};
export {offline};
