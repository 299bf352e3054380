// exercise.js: the view of AnswerBox (a reader's answer to an exercise, checked, with a
// hint that names the mistake behind a wrong one), and how a page without a kernel judges
// it.  read() and judge() take the same steps as read() and judge() in exercise.py.

const EXERCISE_STYLE = `
.al-exercise { --al-ok: #1a7f37; --al-ok-bg: #dcf3e2; }
html[data-theme="dark"] .al-exercise, body[data-jp-theme-light="false"] .al-exercise {
  --al-ok: #56d364; --al-ok-bg: #16301f; }
.al-exercise .al-part { margin: 8px 0 0; }
.al-exercise .al-part + .al-part { border-top: 1px dashed var(--al-line); padding-top: 8px; }
.al-exercise .al-ask { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; }
.al-exercise .al-ask > label, .al-exercise legend { font: 600 14px/1.45 system-ui, -apple-system,
  "Segoe UI", sans-serif; color: var(--al-fg); flex: 1 0 100%; padding: 0; margin: 0 0 2px; }
.al-exercise .al-ask input[type=text], .al-exercise .al-ask textarea { flex: 1 1 12em; min-width: 0;
  width: auto; font-size: 13.5px; padding: 4px 6px; }
.al-exercise fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.al-exercise .al-choices { display: flex; flex-wrap: wrap; gap: 4px 16px; }
.al-exercise .al-choices label { display: inline-flex; gap: 5px; align-items: center; cursor: pointer; }
/* a target a finger can hit (24 x 24 px at least, WCAG 2.5.8), like the explorers' controls */
.al-exercise .al-choices input[type=radio] { width: 24px; height: 24px; margin: 0; }
.al-exercise .al-ask input[type=text], .al-exercise .al-ask textarea, .al-exercise .al-ask button {
  min-height: 28px; }
.al-exercise .al-ask button { font-weight: 600; padding: 4px 14px; }
.al-exercise .al-verdict:empty { display: none; }
.al-exercise .al-verdict { margin: 6px 0 0; padding: 4px 8px; border-radius: 0 4px 4px 0;
  border-left: 4px solid var(--al-line); overflow-wrap: anywhere; }
.al-exercise .al-verdict[data-kind=right] { border-left-color: var(--al-ok); background: var(--al-ok-bg); }
.al-exercise .al-verdict[data-kind=mistake] { border-left-color: var(--al-accent); background: var(--al-note-bg); }
.al-exercise .al-verdict[data-kind=bad] { border-left-color: var(--al-warn); background: var(--al-warn-bg); }
.al-exercise .al-verdict[data-kind=wrong] { background: var(--al-off); }
.al-exercise .al-verdict a { color: var(--al-accent); text-decoration: underline; }
.al-exercise .al-x-label { font-weight: 700; }
`;

let exerciseIds = 0;

function render({model, el}) {
  let parts = [];
  return explorer({
    model, el, kind: "exercise",
    hostText: {
      kernel: "Checked by autograd_lab in the notebook's kernel, against the answer the solution computes.",
      page: "Checked in this page, against the answer the solution computed when the book was built.",
    },
    build(ctx) {
      kindStyle("exercise", EXERCISE_STYLE);
      const {spec} = ctx;
      const body = h("div", {"data-role": "parts"});
      parts = spec.parts.map((part, i) => {
        const id = `al-exercise-${++exerciseIds}`;
        const verdict = h("div", {class: "al-verdict", id: `${id}-verdict`, "data-role": `verdict-${i}`,
          role: "status", "aria-live": "polite"});
        let field, value, fill;
        const check = () => ctx.send({set: `answer-${i}`, value: value()});
        const button = h("button", {type: "button", "data-role": `check-${i}`, onclick: check,
          "aria-describedby": `${id}-verdict`}, "Check");
        if (part.kind === "choice") {
          const radios = part.choices.map((c) => h("input", {type: "radio", name: id, value: c,
            onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); check(); } }}));
          value = () => (radios.find((r) => r.checked) || {value: ""}).value;
          fill = (text) => radios.forEach((r) => { r.checked = r.value === text; });
          field = h("fieldset", {class: "al-ask", "data-role": `answer-${i}`},
            h("legend", {text: part.label}),
            h("div", {class: "al-choices"}, part.choices.map((c, k) => h("label", {}, radios[k], c))),
            button);
        } else {
          // Enter checks; in the two-line box of a long answer, Shift+Enter starts a new line
          const input = h(part.long ? "textarea" : "input", {type: part.long ? null : "text", id,
            rows: part.long ? 2 : null, spellcheck: "false", autocomplete: "off",
            autocapitalize: "off", placeholder: `e.g. ${part.example}`, "data-role": `answer-${i}`,
            "aria-describedby": `${id}-verdict`,
            onkeydown: (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); check(); } }});
          value = () => input.value;
          // (not while the reader is typing in it: a late answer would undo the typing)
          fill = (text) => {
            if (input.value !== text && globalThis.document.activeElement !== input) input.value = text;
          };
          field = h("div", {class: "al-ask"}, h("label", {for: id, text: part.label}), input, button);
        }
        body.append(h("div", {class: "al-part"}, field, verdict));
        return {verdict, fill, judged: false};
      });
      return body;
    },
    draw(state, ctx) {
      (state.verdicts || []).forEach((v, i) => {
        if (!parts[i]) return;
        const el = parts[i].verdict;
        // the field shows the text judged (an answer kept by the page, or the kernel's
        // state drawn again); an answer forgotten empties it
        if (v && typeof v.typed === "string") parts[i].fill(v.typed);
        else if (!v && parts[i].judged) parts[i].fill("");
        parts[i].judged = Boolean(v);
        if (!v) { el.replaceChildren(); el.removeAttribute("data-kind"); return; }
        el.dataset.kind = v.kind;
        const lead = {right: "Right.", mistake: "Not quite: ", wrong: "Not yet: ", bad: "Cannot check: "}[v.kind];
        const [chapter, anchor] = (v.href || "#").split("#");
        const link = !v.href ? [] : [" See ", ctx.page
          ? h("a", {href: `${chapter}.html#${anchor}`, text: v.section})
          : h("a", {href: `${chapter}.ipynb`, target: "_blank", text: `${v.section} (${chapter})`}), "."];
        // rewritten even when the same: a screen reader announces a repeated verdict again
        el.replaceChildren(h("span", {class: "al-x-label", text: lead}),
          v.kind === "right" ? "" : v.text.replace(/^Not yet: /, ""), ...link);
      });
    },
  });
}

// -- judging, as exercise.py does it ------------------------------------------------------
function fixDots(s) {
  return s.replace(/(\d)\.(?!\d)/g, "$1").replace(/(^|[^\d])\.(\d)/g, "$10.$2");
}

function read(spec, text) {
  const {kind} = spec;
  let s = String(text).trim();
  if (kind === "choice") {
    const c = spec.choices.find((c) => c.toLowerCase() === s.toLowerCase());
    return c === undefined ? {error: "Pick one of: " + spec.choices.join(", ") + "."} : {value: c};
  }
  if (s === "") return {error: `Type your answer first, for example ${spec.example}.`};
  if (kind === "words") {
    const words = s.split(/[\s,\[\]'"()]+/).filter((w) => w);
    const known = new Map(spec.choices.map((c) => [c.toLowerCase(), c]));
    const unknown = words.filter((w) => !known.has(w.toLowerCase()));
    if (unknown.length) return {error: `'${unknown[0]}' is not one of the words here: ${spec.choices.join(", ")}.`};
    return {value: words.map((w) => known.get(w.toLowerCase()))};
  }
  if (kind === "shape") {
    const m = /^(?:[A-Za-z_][\w.]*\.)?Size\s*\(([\s\S]*)\)$/.exec(s);
    const inner = m ? m[1] : s;
    const parts = inner.split(/[\s,x×()\[\]]+/).filter((p) => p);
    const count = (c) => s.split(c).length - 1;
    const balanced = count("(") === count(")") && count("[") === count("]");
    if (!balanced || !parts.every((p) => /^\d+$/.test(p)) || (!parts.length && !s.includes("("))) {
      return {error: `could not read '${s}' as a shape: write whole numbers, for example (4, 5).`};
    }
    return {value: parts.map(Number)};
  }
  const m = /^(?:[A-Za-z_][\w.]*\.)?tensor\s*\(([\s\S]*)\)$/.exec(s);
  if (m) s = m[1].replace(/,\s*(?:dtype|requires_grad|device)\s*=[\s\S]*$/, "").trim();
  s = fixDots(s);
  if (!s.startsWith("[")) s = `[${s}]`;
  const parsed = parseNumbers(s);
  if (parsed.error) return {error: `could not read '${String(text).trim()}' as numbers: write them like ${spec.example}.`};
  return {value: {values: flat(parsed.value), shape: shapeOf(parsed.value)}};
}

const squeeze = (shape) => shape.filter((n) => n !== 1);
const sameList = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function close(got, want, tol) {
  return got.length === want.length && got.every((g, i) => Math.abs(g - want[i]) <= tol.atol + tol.rtol * Math.abs(want[i]));
}

function same(spec, page, typed, target) {
  if (spec.kind === "numbers" || spec.kind === "linear") {
    const shapeOk = typed.shape.length <= 1 || sameList(squeeze(typed.shape), squeeze(target.shape));
    return shapeOk && close(typed.values, target.values.map(num), page.tol);
  }
  return sameList(typed, target.values);
}

function shapeTextEx(shape) {
  return "(" + shape.join(", ") + (shape.length === 1 ? ",)" : ")");
}

function judge(spec, page, text) {
  const got = read(spec, text);
  if (got.error) return {kind: "bad", text: got.error};
  const typed = got.value, {kind} = spec, answer = page.answer;
  if (kind === "numbers" || kind === "linear") {
    if (!typed.values.every(Number.isFinite)) {
      return {kind: "bad", text: "nan and inf are not possible here: every entry of this answer is a finite number."};
    }
    if (typed.values.some((v) => Math.abs(v) > 1e12)) {
      return {kind: "bad", text: "a number beyond 1e12 cannot be an entry here: check the exponent."};
    }
  }
  if (kind !== "linear" && same(spec, page, typed, answer)) return {kind: "right", text: "Right."};
  for (const m of page.mistakes) {
    if (same(spec, page, typed, m)) return {kind: "mistake", text: m.hint, href: m.href, section: m.section};
  }
  if (kind === "numbers" || kind === "linear") {
    const n = typed.values.length, want = answer.values.length;
    if (n !== want) return {kind: "bad", text: `expected ${want} number${want !== 1 ? "s" : ""}, got ${n}.`};
    if (typed.shape.length > 1 && !sameList(squeeze(typed.shape), squeeze(answer.shape))) {
      return {kind: "bad", text: `expected shape ${shapeTextEx(answer.shape)}, got ${shapeTextEx(typed.shape)}.`};
    }
  }
  if (kind === "shape" && typed.length !== answer.values.length) {
    return {kind: "bad", text: `expected ${answer.values.length} sizes (one per dimension), got ${typed.length}.`};
  }
  if (kind === "words" && typed.length !== answer.values.length) {
    return {kind: "bad", text: `expected ${answer.values.length} words, got ${typed.length}.`};
  }
  if (kind === "linear") {
    const image = page.matrix.map((row) => row.reduce((s, a, j) => s + a * typed.values[j], 0));
    if (close(image, page.target, page.tol)) return {kind: "right", text: "Right."};
    return {kind: "wrong", text: `Not yet: ${spec.image} [${image.map(fmt).join(", ")}], not [${page.target.map(fmt).join(", ")}].`};
  }
  let counted = "";
  if (kind === "numbers" && answer.values.length > 1) {
    const want = answer.values.map(num);
    const good = typed.values.filter((g, i) => close([g], [want[i]], page.tol)).length;
    counted = `${good} of ${want.length} entries match. `;
  }
  if (kind === "words") {
    counted = `${typed.filter((g, i) => g === answer.values[i]).length} of ${typed.length} in the right place. `;
  }
  return {kind: "wrong", text: `Not yet: ${counted}That is none of the usual slips: redo it step by step, or open the solution above.`};
}

// The page's answer to a message: the verdict on one question, judged from the answers
// and mistakes autograd_lab computed when the book was built.
function offline({spec, state, page}, msg) {
  const i = Number((/^answer-(\d+)$/.exec(msg.set || "") || [])[1]);
  const verdicts = (state.verdicts || spec.parts.map(() => null)).slice();
  if (!(i >= 0 && i < spec.parts.length)) return {...state, n: state.n + 1, error: `no question ${msg.set}`};
  verdicts[i] = {...judge(spec.parts[i], page.parts[i], msg.value), typed: String(msg.value)};
  return {...state, n: state.n + 1, verdicts, error: null, note: null};
}

export default {render};
export {offline, judge};
