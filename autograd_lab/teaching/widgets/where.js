// where.js: the view of WhereExplorer (out = where(x > t, x, y) and the gradient of
// L = out.sum()), and how a page without a kernel answers it.

const WHERE_STYLE = `
.al-where { --al-xb: #c4dcec; --al-yb: #f6dfae; --al-xb-line: #0072b2; --al-yb-line: #b07800; }
html[data-theme="dark"] .al-where, body[data-jp-theme-light="false"] .al-where {
  --al-xb: #173d57; --al-yb: #4a3812; --al-xb-line: #56b4e9; --al-yb-line: #e6a817; }
.al-where .al-where-controls { display: grid; grid-template-columns: 1fr 1fr; gap: 6px 18px; }
.al-where .al-where-controls .al-slider { grid-column: 1 / 3; grid-template-columns: 2.2em 1fr 5.2em; }
.al-where .al-where-controls .al-text { grid-template-columns: 1.4em 1fr !important; }
.al-where .al-checks { grid-column: 1 / 3; display: flex; flex-wrap: wrap; gap: 4px 22px; }
.al-where .al-hint { grid-column: 1 / 3; color: var(--al-muted); font-size: 12.5px; margin: -2px 0 0; }
.al-where .al-expr { margin: 10px 0 4px; }
.al-where .al-expr code { font-size: 13.5px; }
.al-where table.al-route { border-collapse: separate; border-spacing: 3px 3px; margin: 0 0 0 -3px; }
.al-where .al-route th { font: 12.5px ui-monospace, Menlo, Consolas, monospace; font-weight: 400;
  color: var(--al-muted); padding: 0 4px; white-space: nowrap; text-align: center; }
.al-where .al-route th.al-rl { text-align: right; color: var(--al-fg); padding-right: 8px; }
.al-where .al-route td { min-width: 4.4em; height: 1.75em; padding: 0 6px; text-align: center;
  border: 1px solid var(--al-line); border-radius: 4px; background: var(--al-card);
  font: 12.5px ui-monospace, Menlo, Consolas, monospace; font-variant-numeric: tabular-nums; }
.al-where .al-route td.al-from-x { background: var(--al-xb); border-color: var(--al-xb-line); }
.al-where .al-route td.al-from-y { background: var(--al-yb); border-color: var(--al-yb-line); }
.al-where .al-route td.al-off { background: transparent; color: var(--al-muted); border-style: dashed; }
.al-where .al-route td.al-bad { background: var(--al-warn-bg); color: var(--al-warn); font-weight: 700;
  border: 2px solid var(--al-warn); }
.al-where .al-route tr.al-out td { font-weight: 700; }
.al-where .al-route td.al-merged { text-align: left; color: var(--al-muted); border-style: dashed; }
.al-where .al-route tr.al-section th { text-align: left; padding: 8px 0 0 4px; color: var(--al-muted);
  font: 12.5px system-ui, sans-serif; }
.al-where .al-route tr.al-section th code { font-size: 12px; }
.al-where .al-route tr.al-section th { white-space: normal; }
/* a phone: narrower cells, so four entries fit beside their labels */
@media (max-width: 480px) {
  .al-where .al-route td { min-width: 3.1em; padding: 0 3px; }
  .al-where .al-route th.al-rl { padding-right: 4px; } }
`;

function render({model, el}) {
  let tControl, xBox, yBox, sqrtBox, fixBox, expr, table;
  return explorer({
    model, el, kind: "where",
    hostText: {
      kernel: "Computed by autograd_lab in the notebook's kernel: each change runs where and one " +
        "backward pass of L = out.sum().",
      page: "This page looks up what autograd_lab computed when the book was built, for every interval of t " +
        "(the mask changes only where t crosses an entry of x), with and without sqrt and the fix. " +
        "Open the notebook to edit x and y.",
    },
    build(ctx) {
      kindStyle("where", WHERE_STYLE);
      const start = model.get("state") || {};
      const range = start.range || [-2, 2];
      tControl = numberControl({label: "t", value: start.t, min: range[0], max: range[1], step: 0.1, format: f32text,
        role: "threshold", onproblem: ctx.problem,
        onchange: (v) => ctx.send({set: "threshold", value: wire(v)})});
      xBox = textControl({label: "x", value: start.x_text || "", role: "x-text",
        onapply: (text) => ctx.send({set: "x", value: text})});
      yBox = textControl({label: "y", value: start.y_text || "", role: "y-text",
        onapply: (text) => ctx.send({set: "y", value: text})});
      const check = (name, label, role) => {
        const input = h("input", {type: "checkbox", "data-role": role,
          onchange: () => ctx.send({set: name, value: input.checked})});
        return {input, el: h("label", {class: "al-check"}, input, h("span", {}, ...label))};
      };
      sqrtBox = check("sqrt_branch", ["sqrt branch: ", h("code", {text: "sqrt(x)"}), " in place of x"], "sqrt-branch");
      fixBox = check("double_where", ["double-where fix: ", h("code", {text: "sqrt(where(x > t, x, 1))"})], "double-where");
      const controls = h("div", {class: "al-where-controls", "data-role": "controls"},
        tControl.el, xBox.el, yBox.el,
        h("div", {class: "al-checks"}, sqrtBox.el, fixBox.el));
      if (ctx.page) {
        xBox.disabled = true;
        yBox.disabled = true;
        controls.append(h("p", {class: "al-hint", "data-role": "edit-hint",
          text: "x and y are fixed in this page: open the notebook (Jupyter) to edit them."}));
      }
      expr = h("p", {class: "al-expr", "data-role": "expr"});
      table = h("div", {"data-role": "table"});
      const legend = h("p", {class: "al-legend"},
        "Blue: taken from the x branch (x > t is True); orange: taken from y; dashed: computed, then " +
        "thrown away. Backward sends each entry's ∂L/∂out = 1 back to the branch it came from, 0 to the other.");
      return h("div", {}, controls, expr, table, legend);
    },
    draw(state, ctx) {
      if (!tControl.range.matches(":active")) {            // not while the reader drags it
        tControl.base(...(state.range || [-2, 2]));
        tControl.show(num(state.t));
      }
      xBox.show(state.x_text || "");
      yBox.show(state.y_text || "");
      sqrtBox.input.checked = !!state.sqrt_branch;
      fixBox.input.checked = !!state.double_where;
      const branchName = !state.sqrt_branch ? "x" : state.double_where ? "sqrt(where(x > t, x, 1))" : "sqrt(x)";
      patch(expr, h("code", {text: `out = where(x > ${f32text(state.t)}, ${branchName}, y)`}),
        h("code", {style: "margin-left:2.5em", text: "L = out.sum()"}));
      patch(table, scroller("the routing table", routeTable(state, branchName)));
    },
  });
}

// The routing as a table: one column per entry of out.  Forward: x, the mask, the
// branch, y and out, coloured by the branch each entry is taken from; backward: where
// the gradient of L = out.sum() arrives, and the condition, which gets none.
function routeTable(state, branchName) {
  const cols = state.cols || [];
  const mask = state.mask || [];
  const fromX = (k) => mask[k] === true;
  const tbl = h("table", {class: "al-route"});
  tbl.append(h("tr", {}, h("th", {class: "al-rl", text: "entry"}), cols.map((c) => h("th", {text: c}))));
  // kind: "x" (coloured where the mask is True), "y" (where False), "out" (by the mask), null
  const row = (label, values, kind, role, shape) => {
    const tr = h("tr", {"data-role": role, class: kind === "out" ? "al-out" : null});
    tr.append(h("th", {class: "al-rl", text: label}));
    if (values === null || values === undefined) {
      tr.append(h("td", {class: "al-merged", colspan: cols.length || 1, text: "None"}));
    } else if (values.length !== cols.length) {          // a branch broadcast, its gradient summed back
      tr.append(h("td", {class: "al-merged", colspan: cols.length || 1,
        text: `${fmtNested(values)}  (summed back to its shape ${shapeText(shape || [values.length])})`}));
    } else {
      values.forEach((raw, k) => {
        const v = num(raw);
        const on = kind === "out" ? true : kind === "x" ? fromX(k) : kind === "y" ? !fromX(k) : null;
        const side = kind === "out" ? (fromX(k) ? "al-from-x" : "al-from-y") : kind === "x" ? "al-from-x" : "al-from-y";
        const cls = typeof raw === "boolean" ? (raw ? "al-from-x" : "al-from-y")
          : !Number.isFinite(v) ? "al-bad" : on === null ? "" : on ? side : "al-off";
        tr.append(h("td", {class: cls || null, "data-index": k,
          title: kind === "out" ? `from ${fromX(k) ? "the x branch" : "y"}` : null,
          text: typeof raw === "boolean" ? (raw ? "True" : "False") : fmt(v)}));
      });
    }
    return tr;
  };
  const section = (...content) => h("tr", {class: "al-section"}, h("th", {colspan: cols.length + 1}, ...content));
  const sqrt = !!state.sqrt_branch;
  tbl.append(row("x", state.x, sqrt ? null : "x", "x"));
  tbl.append(row("x > t", mask, null, "mask"));
  if (sqrt && state.inner) tbl.append(row("where(x > t, x, 1)", state.inner, null, "inner"));
  if (sqrt) tbl.append(row(branchName, state.branch, "x", "branch"));
  tbl.append(row("y", state.y, "y", "y"));
  if (state.out) tbl.append(row("out", state.out, "out", "out"));
  if (!state.out) return tbl;                          // nothing computed: the problem says why
  tbl.append(section("backward of ", h("code", {text: "L = out.sum()"}), ": ∂L/∂out = 1 for every entry"));
  if (sqrt) tbl.append(row(`∂L/∂${branchName}`, state.branch_grad, "x", "branch-grad"));
  tbl.append(row("x.grad", state.grad_x, "x", "grad-x", state.grad_x_shape));
  tbl.append(row("y.grad", state.grad_y, "y", "grad-y", state.grad_y_shape));
  const none = h("tr", {"data-role": "mask-grad"}, h("th", {class: "al-rl", text: "mask.grad"}),
    h("td", {class: "al-merged", colspan: cols.length || 1, text: "None: the mask x > t is a bool tensor; it never receives a gradient"}));
  tbl.append(none);
  return tbl;
}

// t as the mask uses it: x > t compares in float32, so t is shown as the shortest number
// that is the same float32 (2.99999 stays 2.99999; 2.9999999999 is 3, and x = 3 is not > 3).
function f32text(t) {
  const v = Math.fround(num(t));
  if (!Number.isFinite(v)) return fmt(v);
  if (v === 0) return "0";
  for (let p = 1; p <= 9; p++) {
    const text = String(Number(v.toPrecision(p)));
    if (Math.fround(Number(text)) === v) return text;
  }
  return String(v);
}

// The page's answer to a message: the state autograd_lab computed, when the book was
// built, for the interval t falls in (with the sqrt branch and the fix as ticked).  The
// mask is x > t in float32, as the engine compares; t itself is the reader's.
function whereInterval(t, cuts) {
  const tf = Math.fround(num(t));
  return Number.isNaN(tf) ? cuts.length : cuts.filter((c) => c <= tf).length;
}

function offline({state, page}, msg) {
  const next = {...state, n: state.n + 1, error: null, note: null};
  if (msg.set === "threshold") next.t = msg.value;
  else if (msg.set === "sqrt_branch") next.sqrt_branch = !!msg.value;
  else if (msg.set === "double_where") next.double_where = !!msg.value;
  else if (msg.set === "x" || msg.set === "y") {
    return {...state, n: state.n + 1, error: `${msg.set} cannot be edited in this page; open the notebook to edit it`};
  } else {
    return {...state, n: state.n + 1, error: `this page does not know the message ${JSON.stringify(msg)}`};
  }
  const key = `${whereInterval(next.t, page.cuts)}${next.sqrt_branch ? 1 : 0}${next.double_where ? 1 : 0}`;
  return {...next, ...page.states[key]};
}

export default {render};
export {offline};
