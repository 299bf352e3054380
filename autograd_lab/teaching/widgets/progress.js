// progress.js: the book's pages remember a reader's answers.
//
// The text typed into each answer box (exercise.js) is kept in this browser's
// localStorage, for this site only; nothing is sent anywhere.  A reload judges the kept
// answers again against the page's own answers (page.js asks `alAnswers.restore`), so a
// verdict is never older than the book.  Each chapter's Exercises section says how many of
// its exercises are solved (every question right), the intro's map of the chapters says it
// per chapter, and "Forget my answers" clears them all.  Where the browser lets the page
// keep nothing (storage blocked or full), the boxes work as before and the line says so.
// In Jupyter none of this runs: the kernel judges the boxes and keeps nothing.

const AL_ANSWERS = "autograd_lab.answers";

globalThis.alAnswers = (() => {
  const store = (() => {
    try {
      const s = globalThis.localStorage;
      s.setItem(`${AL_ANSWERS}.probe`, "1");
      s.removeItem(`${AL_ANSWERS}.probe`);
      return s.alStandIn ? null : s;    // (theme_fixes.py's stand-in keeps nothing)
    } catch (err) {
      return null;                      // blocked, or full: the boxes work as before
    }
  })();
  const chapter = decodeURIComponent(location.pathname.split("/").pop() || "").replace(/\.html$/, "");
  const boxes = [];                     // {spec, model} of this page's answer boxes

  function readAll() {
    try {
      const all = JSON.parse(store && store.getItem(AL_ANSWERS) || "{}");
      return all && typeof all === "object" && !Array.isArray(all) ? all : {};
    } catch (err) {
      return {};
    }
  }

  function writeAll(all) {
    try {
      if (store && Object.keys(all).length) store.setItem(AL_ANSWERS, JSON.stringify(all));
      else if (store) store.removeItem(AL_ANSWERS);       // nothing kept, no key
    } catch (err) { /* full: this answer is not kept */ }
  }

  function save(spec, state) {
    const verdicts = state.verdicts || [];
    const all = readAll();
    const here = all[chapter] || {};
    if (verdicts.some((v) => v)) {
      here[spec.title] = {typed: verdicts.map((v) => (v ? v.typed : null)),
                          kinds: verdicts.map((v) => (v ? v.kind : null))};
    } else {
      delete here[spec.title];
    }
    all[chapter] = here;
    if (!Object.keys(here).length) delete all[chapter];
    writeAll(all);
  }

  const solved = (kinds, n) => kinds.length === n && kinds.every((k) => k === "right");

  // a line built once (its button keeps the focus), whose count changes: "Solved ...",
  // where the answers are kept, and the button that forgets them
  function progressLine(what) {
    const count = h("strong", {"data-role": "solved"});
    const said = h("span", {class: "al-progress-said", role: "status"});
    const parts = [count, " "];
    if (store) {
      const button = h("button", {type: "button", class: "al-forget", "data-role": "forget"},
        "Forget my answers");
      button.addEventListener("click", forget);
      parts.push(`Your answers ${what} are kept in this browser only (nothing is sent anywhere). `,
                 button, " ", said);
    } else {
      parts.push("This browser does not let the book keep your answers: they go when you leave.");
    }
    const box = h("div", {class: "al-progress", "data-role": "progress"}, h("p", {}, ...parts));
    return {box, count, said};
  }

  function setCount(count, done, total, text) {
    count.dataset.solved = String(done);
    count.dataset.total = String(total);
    count.textContent = text;
  }

  let here = null, map = null;         // this chapter's line, the intro's line

  function forget() {
    try { store.removeItem(AL_ANSWERS); } catch (err) { /* nothing was kept */ }
    for (const {model} of boxes) {
      const state = model.get("state") || {};
      model.set("state", {...state, n: (state.n || 0) + 1, verdicts: (state.verdicts || []).map(() => null)});
    }
    intro();
    for (const line of [here, map]) {
      if (line) line.said.textContent = "Forgotten: no answers are kept in this browser now.";
    }
  }

  // this chapter's line, at the top of its Exercises section
  function line() {
    if (!boxes.length) return;
    if (!here) {
      const first = document.querySelector('.al-explorer[data-kind="exercise"]');
      const section = document.getElementById("exercises") || (first && first.closest("section"));
      if (!section) return;
      here = progressLine("here");
      const heading = section.querySelector(":scope > h2, :scope > h3");
      heading ? heading.after(here.box) : section.prepend(here.box);
    }
    const done = boxes.filter(({spec, model}) => solved(
      ((model.get("state") || {}).verdicts || []).map((v) => v && v.kind), spec.parts.length)).length;
    setCount(here.count, done, boxes.length, `Solved here: ${done} of ${boxes.length}.`);
  }

  // the chapter a link leads to ("00_first_gradient" of "00_first_gradient.html#x")
  const chapterOf = (link) => link && decodeURIComponent(link.getAttribute("href").split("#")[0]
    .split("/").pop()).replace(/\.(html|ipynb)$/, "");

  // the intro's map of the chapters (the section of the first page whose list links to the
  // most chapters with exercises): how many of each chapter's exercises are solved
  function intro() {
    const data = document.getElementById("al-exercises");
    if (!data) return;
    const exercises = JSON.parse(data.textContent);
    const items = (section) => Array.from(section.querySelectorAll(":scope > ul > li"))
      .filter((item) => exercises[chapterOf(item.querySelector("a[href]"))]);
    const section = Array.from(document.querySelectorAll("article section"))
      .reduce((best, s) => (items(s).length > (best ? items(best).length : 0) ? s : best), null);
    if (!section) return;
    const all = readAll();
    let done = 0, total = 0;
    for (const item of items(section)) {
      const link = item.querySelector("a[href]");
      const name = chapterOf(link);
      const titles = exercises[name];
      const kept = all[name] || {};
      const solvedHere = titles.filter((t) => kept[t] && Array.isArray(kept[t].kinds)
        && solved(kept[t].kinds, kept[t].kinds.length)).length;
      let chip = item.querySelector(".al-progress-chip");
      if (!chip) {
        chip = h("span", {class: "al-progress-chip", "data-chapter": name});
        link.after(chip);
      }
      setCount(chip, solvedHere, titles.length, store
        ? ` (${solvedHere} of ${titles.length} exercises solved)` : ` (${titles.length} exercises)`);
      done += solvedHere;
      total += titles.length;
    }
    if (!map) {
      map = progressLine("to the exercises");
      section.append(map.box);
    }
    setCount(map.count, done, total, store ? `Solved: ${done} of ${total} exercises.` : `${total} exercises.`);
  }

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") el.textContent = v;
      else el.setAttribute(k, v);
    }
    el.append(...children);
    return el;
  }

  document.addEventListener("DOMContentLoaded", intro);

  return {
    // the state of a box with its kept answers judged again (judge: page.js's offline answer)
    restore(spec, state, judge) {
      const kept = (readAll()[chapter] || {})[spec.title];
      if (!kept || !Array.isArray(kept.typed)) return state;
      kept.typed.forEach((text, i) => {
        if (typeof text === "string" && i < spec.parts.length) state = judge(state, {set: `answer-${i}`, value: text});
      });
      return state;
    },
    // keep a box's answers as the reader gives them; the chapter's line follows
    watch(spec, model) {
      boxes.push({spec, model});
      model.on("change:state", () => {
        save(spec, model.get("state") || {});
        line();
        if (here && boxes.some(({model: m}) => ((m.get("state") || {}).verdicts || []).some((v) => v))) {
          here.said.textContent = "";    // "forgotten" no longer holds
        }
      });
      line();
    },
  };
})();
