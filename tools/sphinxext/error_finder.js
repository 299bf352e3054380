// error_finder.js: the box at the top of the page of errors.  Paste a message or a whole
// traceback, and the entries that explain it are listed, best first, found in this page
// (nothing is sent anywhere).  The matcher takes the same steps as autograd_lab's
// error_finder.py (al.explain() in a notebook), with the same rules, which come with the
// entries in the index the build put into the page (tools/sphinxext/errors_index.py):
// 1. the message: the last exception or warning line of a traceback and the lines after
//    it, up to an indented line or a traceback's part; text without one, whole, less its
//    frames and code;  2. its words: no paths, ordinals, node names or digits, lower case,
//    no little words;  3. each entry's score: the largest share of a phrasing's weight
//    (its words and word pairs, weighted by rarity) that the message holds.

const re = (pattern, flags) => new RegExp(pattern, flags);   // Python reads them with re.ASCII

function messageOf(text, rules) {
  const lines = String(text).replace(re(rules.spaces, "g"), " ")
    .replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n");
  const header = re(rules.header), stop = re(rules.stop);
  let last = -1;
  lines.forEach((line, i) => { if (header.test(line)) last = i; });
  if (last >= 0) {
    const kept = [lines[last]];
    for (const line of lines.slice(last + 1)) {
      if (stop.test(line)) break;
      kept.push(line);
    }
    return kept.join("\n");
  }
  const lead = (line) => line.length - line.replace(/^ +/, "").length;
  const filled = lines.filter((line) => !/^ *$/.test(line));
  const indent = filled.reduce((least, line) => Math.min(least, lead(line)), filled.length ? Infinity : 0);
  const frame = re(rules.frame);
  return lines.map((line) => line.slice(indent)).filter((line) => !frame.test(line)).join("\n");
}

function words(text, rules) {
  for (const pattern of rules.drop) text = text.replace(re(pattern, "g"), " ");
  text = text.replace(re(rules.node, "g"), ` ${rules.node_as} `).replace(/\d/g, "");
  const little = new Set(rules.little);
  return (text.match(re(rules.word, "g")) || []).map((w) => w.toLowerCase())
    .filter((w) => !little.has(w) && w.length > 1);
}

function grams(ws) {
  return new Set([...ws, ...ws.slice(1).map((w, i) => `${ws[i]} ${w}`)]);
}

// The entries of an index, ready to score messages (Finder in error_finder.py).
function finder(index) {
  const {rules, entries} = index;
  const phrasings = entries.map((e) => e.phrasings.map((p) => grams(words(p, rules))));
  const uses = new Map();
  for (const sets of phrasings) {
    for (const g of new Set(sets.flatMap((s) => [...s]))) uses.set(g, (uses.get(g) || 0) + 1);
  }
  const weight = new Map([...uses].map(([g, k]) => [g, Math.floor(100 * Math.log(1 + entries.length / k) + 0.5)]));

  // [[score, weight found]] of each entry, in page order
  function scores(text) {
    const found = grams(words(messageOf(text, rules), rules));
    return phrasings.map((sets) => {
      let best = [0, 0];
      for (const p of sets) {
        let total = 0, got = 0;
        for (const g of p) {
          total += weight.get(g);
          if (found.has(g)) got += weight.get(g);
        }
        const share = total ? got / total : 0;
        if (total && (share > best[0] || (share === best[0] && got > best[1]))) best = [share, got];
      }
      return best;
    });
  }

  // the entries that explain `text`, best first: [{score, entry}]
  function match(text) {
    const all = scores(text);
    const top = Math.max(0, ...all.map((s) => s[0]));
    const least = Math.max(rules.least, rules.near * top);
    return all.map((s, i) => ({s, i}))
      .sort((a, b) => b.s[0] - a.s[0] || b.s[1] - a.s[1] || a.i - b.i)
      .filter(({s}) => s[0] >= least).slice(0, rules.most)
      .map(({s, i}) => ({score: s[0], entry: entries[i]}));
  }

  return {scores, match, messageOf: (text) => messageOf(text, rules)};
}

// -- the box --------------------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

function mount(box, index) {
  const find = finder(index);
  const field = el("textarea", {id: "al-error-text", rows: "4", spellcheck: "false",
    autocomplete: "off", autocapitalize: "off", "aria-describedby": "al-error-status",
    placeholder: "RuntimeError: Trying to backward through the graph a second time…"});
  const status = el("p", {id: "al-error-status", class: "al-found-status", role: "status"});
  const list = el("ol", {class: "al-found", "aria-label": "Entries that match, best first"});
  box.append(el("label", {for: "al-error-text", text: "Error message or traceback"}), field, status, list);
  box.classList.add("al-mounted");

  function show() {
    const text = field.value;
    list.replaceChildren();
    if (!/\S/.test(text)) { status.replaceChildren(); return; }
    const read = find.messageOf(text).split("\n").find((line) => /\S/.test(line)) || "";
    const shown = read.length > 140 ? `${read.slice(0, 137)}…` : read;
    const found = find.match(text);
    const quoted = (what) => (shown ? [` the ${what} “`, el("span", {class: "al-found-read", text: shown}), "”"] : []);
    if (!found.length) {
      status.replaceChildren(el("strong", {text: "No entry matches"}), ...quoted("text"),
        ". This page has the errors and warnings of autograd in PyTorch's words, and JAX's and",
        " TensorFlow's where they have the same error; the book's search finds other words.");
      return;
    }
    const tied = found.length > 1 && found[1].entry.message === found[0].entry.message;
    status.replaceChildren(el("strong", {text: found.length === 1 ? "1 entry matches" : `${found.length} entries match`}),
      ...quoted("message"), found.length > 1 ? ", best first" : "", ".",
      tied ? " The first two have this same message: read both." : "");
    for (const {score, entry} of found) {
      list.append(el("li", {"data-label": entry.label, "data-score": String(score)},
        el("a", {href: `#${entry.label}`}, el("code", {text: entry.heading})),
        el("span", {class: "al-found-group", text: ` (${entry.group})`})));
    }
  }

  let timer = null;
  field.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(show, 150); });
  return {field, show};
}

const box = document.getElementById("al-error-finder");
const data = document.getElementById("al-error-index");
if (box && data) mount(box, JSON.parse(data.textContent));

export {finder, messageOf, words};
