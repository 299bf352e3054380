// page.js: the book's pages host the explorers' views without a kernel.
//
// Every explorer output of a page is a <div class="al-explorer"> holding the static
// picture (for readers without JavaScript) and a JSON script: the explorer's kind, its
// spec, its state when the notebook ran, and what the page needs to answer the view (all
// computed by autograd_lab when the book was built).  The page also carries, once per
// kind, the text of the view's module -- the very text anywidget loads in Jupyter -- in
// a <script type="text/plain" class="al-module">.  This script imports that text as a
// module (from a blob: URL, as anywidget does, so the book works from a web server and
// from files on disk alike), gives the view a small local model -- anywidget's model
// interface: get, set, on, off, save_changes, send -- and answers each message with the
// module's `offline` function.  Nothing is fetched from another host.  (progress.js,
// loaded before this script, keeps a reader's answers to the exercises in the browser.)

function localModel(values, answer, onsend) {
  const listeners = new Map();
  const emit = (name) => (listeners.get(name) || []).slice().forEach((cb) => cb());
  const model = {
    get: (key) => values[key],
    set(key, value) { values[key] = value; emit(`change:${key}`); },
    on(name, cb) { listeners.set(name, [...(listeners.get(name) || []), cb]); },
    off(name, cb) { listeners.set(name, (listeners.get(name) || []).filter((f) => f !== cb)); },
    save_changes() {},
    send(msg) {
      // answered on the next turn, as a kernel would be: the view's handler has returned
      queueMicrotask(() => model.set("state", answer(values, msg)));
      onsend(msg);
    },
  };
  return model;
}

const modules = {};

function moduleOf(kind) {
  if (!modules[kind]) {
    const source = document.querySelector(`script.al-module[data-kind="${kind}"]`);
    if (!source) return Promise.reject(new Error(`no view module "${kind}" in this page`));
    const url = URL.createObjectURL(new Blob([source.textContent], {type: "text/javascript"}));
    modules[kind] = import(url);
  }
  return modules[kind];
}

async function mount(box) {
  const payload = JSON.parse(box.querySelector("script.al-explorer-data").textContent);
  const module = await moduleOf(payload.module);
  const answer = (state, msg) => module.offline({spec: payload.spec, state, page: payload.page}, msg);
  // an answer box shows the answers this browser kept (progress.js), judged again here
  const kept = payload.module === "exercise" && globalThis.alAnswers ? globalThis.alAnswers : null;
  const state = kept ? kept.restore(payload.spec, payload.state, answer) : payload.state;
  const values = {spec: payload.spec, state, host: "page", page: payload.page};
  // each message is also announced as an "al-message" event on the box (tests replay them
  // in Python to check the page's numbers against autograd_lab's)
  const model = localModel(values,
    (current, msg) => module.offline({spec: current.spec, state: current.state, page: current.page}, msg),
    (msg) => box.dispatchEvent(new CustomEvent("al-message", {detail: msg})));
  const view = document.createElement("div");
  view.className = "al-explorer-live";
  box.append(view);
  module.default.render({model, el: view});
  if (kept) kept.watch(payload.spec, model);
  box.classList.add("al-mounted");
}

for (const box of document.querySelectorAll("div.al-explorer")) {
  mount(box).catch((err) => {
    box.classList.add("al-failed");
    console.error("autograd_lab explorer:", err);
  });
}
