// jacobian.js: the view of JacobianExplorer (J row by row, one backward pass per one-hot
// seed, or all rows from one batched pass), and how a page without a kernel answers it.

const JACOBIAN_STYLE = `
.al-jacobian .al-count { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 10px 0 8px; align-items: baseline; }
.al-jacobian .al-count span.al-n { font: 600 15px ui-monospace, Menlo, Consolas, monospace; }
.al-jacobian .al-count > span { white-space: nowrap; }
.al-jacobian table.al-heat tr.al-last td { box-shadow: 0 0 0 2px var(--al-accent); }
.al-jacobian table.al-heat tr.al-last th { color: var(--al-accent); font-weight: 700; }
.al-jacobian .al-chip.al-done { border-color: var(--al-accent); }
.al-jacobian .al-chip.al-todo { color: var(--al-muted); border-style: dashed; }
.al-jacobian .al-seed { margin: 8px 0 0; min-height: 1.45em; }
.al-jacobian table.al-costs { border-collapse: collapse; margin: 8px 0 0; font-size: 13px; }
.al-jacobian table.al-costs th, .al-jacobian table.al-costs td { padding: 2px 10px 2px 0; text-align: left;
  border-bottom: 1px solid var(--al-line); }
.al-jacobian table.al-costs th { color: var(--al-muted); font-weight: 500; }
.al-jacobian table.al-costs td.al-num { text-align: right; font-family: ui-monospace, Menlo, Consolas, monospace; }
`;

function render({model, el}) {
  let buttons, count, picture, seedLine, costs;
  return explorer({
    model, el, kind: "jacobian",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: each press runs the passes it names, " +
        "counted by al.autograd.count_passes().",
      page: "This page looks up states autograd_lab computed when the book was built: J after each number of rows, " +
        "and the batched J, with their pass counts. Open the notebook to run the passes yourself.",
    },
    build(ctx) {
      kindStyle("jacobian", JACOBIAN_STYLE);
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      buttons = buttonBar([["step", "next row"], ["all", "all rows at once"], ["reset", "reset"]],
        (key) => ctx.send({do: key}), "buttons");
      buttons.buttons.step.title = `one backward pass with the next one-hot seed eᵢ fills row i`;
      buttons.buttons.all.title = `one forward and one batched backward pass with all ${spec.m} seeds fill every row`;
      const explain = h("p", {class: "al-sub", style: "margin:6px 0 0"},
        h("b", {text: "next row"}), ": one backward pass, ",
        h("code", {text: `autograd.grad(${yn}, ${xn}, grad_outputs=e_i, retain_graph=True)`}),
        ", fills row i. ", h("b", {text: "all rows at once"}), `: one forward pass and one batched backward pass ` +
        `with all ${spec.m} one-hot seeds stacked (is_grads_batched=True).`);
      count = h("div", {class: "al-count", "data-role": "passes"});
      picture = h("div", {"data-role": "picture"});
      seedLine = h("div", {class: "al-seed al-mono", "data-role": "seed"});
      costs = h("div", {"data-role": "costs"});
      return h("div", {}, buttons.el, explain, count, picture, seedLine, costs);
    },
    draw(state, ctx) {
      const {spec} = ctx;
      const [xn, yn] = spec.names;
      const rows = state.rows || [];
      const batched = state.way === "all at once";
      const p = state.passes || {forward: 0, backward: 0};
      const stat = (label, value, role) => h("span", {}, `${label} `, h("span", {class: "al-n", "data-role": role, text: String(value)}));
      patch(count,
        stat("rows done:", `${state.rows_done} of ${spec.m}`, "rows-done"),
        stat("forward passes:", p.forward, "forward"),
        stat("backward passes:", p.backward, "backward"),
        h("span", {class: "al-sub", "data-role": "way", text: batched ? "(all rows at once)" : "(row by row)"}));
      const vmax = vmaxOf(rows.filter((r) => r !== null).flatMap((r) => r.map(num)));
      const table = rows.map((r, i) => ({
        label: spec.rows[i], role: `row-${i}`, cls: i === state.last ? "al-last" : null,
        values: r === null ? spec.cols.map(() => NaN) : r, pending: r === null,
        lead: h("span", {class: `al-chip ${r === null ? "al-todo" : "al-done"}`, "data-role": `pass-${i}`,
          text: r === null ? "not yet" : `pass ${batched ? 1 : i + 1}`}),
      }));
      patch(picture,
        heatTable({cols: spec.cols, rows: table, vmax, lead: true, role: "jacobian"}),
        h("p", {class: "al-legend", text: `J: one row per entry of ${yn}, one column per entry of ${xn}. ` +
          `Each row's chip names the backward pass that filled it; "?" rows are not computed yet. Red positive, blue negative.`}));
      if (state.last !== null && state.last !== undefined) {
        const e = rows.map((_, i) => (i === state.last ? 1 : 0));
        setText(seedLine, `last press: one-hot seed e${state.last} = [${e.join(", ")}] → 1 backward pass → row ${state.last} = ` +
          fmtNested(rows[state.last]));
      } else if (batched) {
        setText(seedLine, `last press: all ${spec.m} one-hot seeds stacked (the ${spec.m} × ${spec.m} identity) → ` +
          "1 batched backward pass → every row");
      } else {
        setText(seedLine, "no row yet: one forward pass has run. Press 'next row'.");
      }
      const done = Object.entries(state.costs || {});
      patch(costs, done.length === 0
        ? h("p", {class: "al-legend", text: "The cost of each way appears here once it has filled every row."})
        : h("table", {class: "al-costs"},
          h("tr", {}, h("th", {text: "cost of a full J"}), h("th", {text: "forward"}), h("th", {text: "backward passes"})),
          done.map(([way, c]) => h("tr", {"data-role": `cost-${way.replace(/ /g, "-")}`},
            h("td", {text: way === "row by row" ? `row by row ('next row' × ${spec.m})` : "'all rows at once'"}),
            h("td", {class: "al-num", text: String(c.forward)}),
            h("td", {class: "al-num", text: String(c.backward)})))));
    },
  });
}

// The page's answer to a press: the state autograd_lab computed for it when the book was
// built.  Costs stay those of the ways the reader has finished, as in the kernel.
function offline({spec, state, page}, msg) {
  let key, note = null;
  if (msg.do === "reset") key = "rows-0";
  else if (msg.do === "all") key = "all";
  else if (msg.do === "step") {
    if (state.way === "all at once") { key = "rows-1"; note = spec.notes.restart; }
    else if (state.rows_done === spec.m) { key = `rows-${spec.m}`; note = spec.notes.done; }
    else key = `rows-${state.rows_done + 1}`;
  } else {
    return {...state, n: state.n + 1, error: `this page does not know the message ${JSON.stringify(msg)}`};
  }
  const {finished, ...next} = page.states[key];
  return {...state, ...next, costs: {...state.costs, ...finished}, note, n: state.n + 1};
}

export default {render};
export {offline};
