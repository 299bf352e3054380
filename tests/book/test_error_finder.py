"""Paste an error, land on its entry: the error finder of the page of errors and
``al.explain()`` (autograd_lab/teaching/error_finder.py; its twin in the page,
tools/sphinxext/error_finder.js).

The test data are real: what PyTorch 2.13, TensorFlow 2.21, JAX 0.10.2 and autograd_lab
printed for the programs in tests/support/error_messages/<entry>/ (captured by
tools/capture_errors.py in the frameworks' environment): the message of each, and a few
whole tracebacks as a script and as Jupyter prints them.  Each leads to its entry first,
also with its numbers, names and paths changed and inside a traceback whose code lines
say other entries' words; text that is no error of the page matches nothing; the index
the package carries is what the page generates now; and in the built page the finder
ranks every text as Python does (its box, its live region, light and dark, a phone).
"""
import functools
import io
import random
import re
import string
import subprocess
import sys
import time

import pytest

from book_site import ROOT

import autograd_lab as al
from autograd_lab import error_finder
from autograd_lab.teaching.error_finder import Finder, match, message_of

sys.path.insert(0, str(ROOT / "tools" / "sphinxext"))
import errors_index  # noqa: E402

MESSAGES = ROOT / "tests" / "support" / "error_messages"
CAPTURED = sorted(MESSAGES.glob("*/*.txt"))
INDEX = error_finder.finder().index
ENTRIES = {e["label"]: e for e in INDEX["entries"]}


def framework(path):
    """'pytorch' of err-x/pytorch.traceback.txt, 'jax' of err-x/jax-float.txt."""
    return path.name.split(".")[0].split("-")[0]


def first_is(label, text):
    """The first entry listed for ``text`` is ``label``'s, or ties with it: an entry with
    the same message (the page has two causes of "element 0 of tensors does not require
    grad"; no text can tell them apart)."""
    found = match(text)
    assert found, f"nothing matched for {label}:\n{text[-600:]}"
    score, top = found[0]
    if top["label"] == label:
        return True
    same = [e["label"] for s, e in found if s == score and e["message"] == top["message"]]
    return label in same and ENTRIES[label]["message"] == top["message"]


# -- the data ---------------------------------------------------------------------------------
def test_the_committed_index_is_what_the_page_generates_now():
    """autograd_lab/teaching/errors_index.json (package data: al.explain() works without the book)
    equals the index built from book/errors.ipynb and book/errors_elsewhere.toml now;
    after changing them, run `python3 tools/sphinxext/errors_index.py`."""
    committed = (ROOT / "autograd_lab" / "teaching" / "errors_index.json").read_text(encoding="utf-8")
    assert committed == errors_index.dumps(errors_index.build_index()), \
        "autograd_lab/teaching/errors_index.json is stale: run python3 tools/sphinxext/errors_index.py"


def test_every_entry_is_tested_with_real_messages_of_pytorch_and_autograd_lab():
    labels = {e["label"] for e in INDEX["entries"]}
    for label in labels:
        names = {p.name for p in (MESSAGES / label).glob("*.txt")}
        assert {"pytorch.txt", "autograd_lab.txt"} <= names, label
    assert {p.parent.name for p in CAPTURED} == labels
    # each program's message was captured, and each captured message has its program
    programs = {p.with_suffix("") for p in MESSAGES.glob("*/*.py")}
    assert {p.with_suffix("") for p in MESSAGES.glob("*/*.txt") if p.name.count(".") == 1} == programs


def test_jax_and_tensorflow_messages_are_tested_where_the_page_knows_how_they_say_it():
    """book/errors_elsewhere.toml says how JAX and TensorFlow phrase an entry's error;
    each such entry has a captured message of that framework (and the other way round)."""
    for label, entry in ENTRIES.items():
        told = errors_index.tomllib.loads(errors_index.ELSEWHERE.read_text()).get(label, {})
        for fw in ("jax", "tensorflow"):
            captured = [p for p in (MESSAGES / label).glob(f"{fw}*.txt")]
            assert bool(captured) == bool(told.get(fw)), (label, fw)


# -- real messages ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", CAPTURED, ids=[str(p.relative_to(MESSAGES)) for p in CAPTURED])
def test_a_real_message_or_traceback_leads_to_its_entry_first(path):
    assert first_is(path.parent.name, path.read_text(encoding="utf-8"))


def test_how_many_real_messages_and_tracebacks_are_tested():
    count = {}
    for path in CAPTURED:
        kind = "tracebacks" if path.name.endswith((".traceback.txt", ".notebook.txt")) else "messages"
        count.setdefault(framework(path), {}).setdefault(kind, 0)
        count[framework(path)][kind] += 1
    # one message of each per entry, plus other kernels' words for the same error
    plain = {fw: sum(1 for p in CAPTURED if p.name == f"{fw}.txt") for fw in ("pytorch", "autograd_lab")}
    assert plain["pytorch"] == plain["autograd_lab"] == len(ENTRIES)
    assert count["pytorch"]["messages"] >= len(ENTRIES) + 8
    assert count["jax"]["messages"] >= 10 and count["tensorflow"]["messages"] >= 6
    assert sum(c.get("tracebacks", 0) for c in count.values()) >= 12
    assert all(c.get("tracebacks", 0) >= 2 for c in count.values()), count


# -- what must not disturb the match ------------------------------------------------------------
def renumbered(text):
    """Every number another (sizes, shapes, indices, versions, line numbers)."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) * 7 + 3), text)


def renamed(text):
    """Other names: the node, the dtype, the tensor type, the framework's prefix."""
    text = re.sub(r"\b([A-Z][a-z]+)+Backward(\d*)\b", r"SoftplusBackward\2", text)
    text = text.replace("float32", "bfloat16").replace("int64", "uint8").replace("int32", "int16")
    return text.replace("torch.", "tch.").replace("FloatTensor", "DoubleTensor")


# what a learner's own code says around the error: other entries' words
CODE = ["loss.backward(retain_graph=True)  # allow_unused, create_graph, requires_grad",
        "opt = torch.optim.SGD([w.double()], lr=0.1); x.numpy(); y.item(); w.grad = None",
        "with torch.no_grad(), torch.inference_mode(): w -= lr * w.grad  # leaf in-place",
        "g = torch.autograd.grad(out, [x, b], allow_unused=True)  # Mismatch in shape?"]


def in_a_traceback(text, seed):
    """The message at the end of a traceback from a learner's project: paths with versions,
    line numbers, the learner's code lines (saying other entries' words)."""
    rng = random.Random(seed)
    frames = []
    for depth in range(3):
        path = rng.choice(["/home/ada/projects/mnist-v2.3/train_step.py",
                           "C:\\Users\\ada\\venv-3.12\\Lib\\site-packages\\torch\\_tensor.py",
                           "/opt/conda/envs/py311/lib/python3.11/site-packages/jax/_src/api.py"])
        frames.append(f'  File "{path}", line {rng.randint(1, 900)}, in step_{depth}\n'
                      f"    {rng.choice(CODE)}\n")
    return "Traceback (most recent call last):\n" + "".join(frames) + text


MESSAGE_FILES = [p for p in CAPTURED if p.name.count(".") == 1]


@pytest.mark.parametrize("path", MESSAGE_FILES, ids=[str(p.relative_to(MESSAGES)) for p in MESSAGE_FILES])
def test_numbers_names_paths_and_code_lines_do_not_disturb_the_match(path):
    text, label = path.read_text(encoding="utf-8"), path.parent.name
    for changed in (renumbered(text), renamed(text), renamed(renumbered(text)),
                    in_a_traceback(renumbered(text), path.name), in_a_traceback(text, label),
                    "    " + text.replace("\n", "\n    ")):      # pasted with an indent
        assert first_is(label, changed), changed


def test_the_message_of_a_traceback_is_its_last_exception_without_the_code():
    text = (MESSAGES / "err-second-time" / "pytorch.traceback.txt").read_text()
    said = message_of(text)
    assert said.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert "loss.backward()" not in said and "File" not in said and len(said.splitlines()) == 1
    jax = message_of((MESSAGES / "err-ambiguous" / "jax-traced.txt").read_text())
    assert jax.startswith("jax.errors.TracerBoolConversionError") and "For simplicity" not in jax
    warning = message_of((MESSAGES / "warn-non-leaf-grad" / "pytorch.traceback.txt").read_text())
    assert "UserWarning: The .grad attribute" in warning and "print(hidden.grad)" not in warning


# -- what must match nothing ----------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def odd_inputs():
    rng = random.Random(50)
    letters = "".join(rng.choice(string.ascii_letters + " ") for _ in range(200_000))
    words = " ".join(rng.choice(["grad", "tensor", "leaf", "shape", "backward", "the", "x/y", "2.5",
                                 "output", "Error:"]) for _ in range(100_000))
    return {"empty": "", "blank": " \n\t \n", "a path": "/home/ada/projects/mnist/train.py",
            "a Windows path": 'File "C:\\Users\\ada\\train.py", line 12, in <module>',
            "random text": "The quick brown fox jumps over the lazy dog, twice, in place.",
            "another error": "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; "
                             "7.79 GiB total capacity; 5.12 GiB already allocated)",
            "a device error": "RuntimeError: Expected all tensors to be on the same device, but found "
                              "at least two devices, cuda:0 and cpu!",
            "a huge paste of letters": letters, "a huge paste of the book's words": words,
            "one long word": "a" * 1_000_000}


@pytest.mark.parametrize("name", list(odd_inputs()))
def test_text_that_is_no_error_of_the_page_matches_nothing_quickly(name):
    text = odd_inputs()[name]
    start = time.perf_counter()
    assert match(text) == []
    assert time.perf_counter() - start < 3.0


# -- al.explain() -------------------------------------------------------------------------------
def explained(what=None):
    out = io.StringIO()
    al.explain(what, file=out)
    return out.getvalue()


def test_explain_prints_the_cause_the_fix_and_where_to_read_more():
    text = explained("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    entry = ENTRIES["err-no-grad-fn"]
    assert f"explains it: {entry['heading']}" in text
    assert "book/errors.ipynb#err-no-grad-fn" in text and "book/errors.html#err-no-grad-fn" in text
    assert "Why: Nothing in the forward pass required a gradient" in text
    assert max(len(line) for line in text.splitlines() if ".ipynb#" not in line) <= 88
    assert "    w = al.tensor([1., 2.], requires_grad=True)   # before the forward pass" in text
    assert "Taught in: what the forward pass recorded\n  book/01_autograd_in_one_sitting.ipynb#" in text
    # the other cause of the same message is named too
    assert "Other entries that may fit:" in text and "#err-second-derivative" in text


def test_explain_takes_an_exception_or_the_last_one_raised(monkeypatch):
    x = al.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError) as raised:
        (x * 2).backward()
    assert "#err-scalar-outputs" in explained(raised.value)
    monkeypatch.setattr(sys, "last_value", raised.value, raising=False)
    monkeypatch.setattr(sys, "last_exc", raised.value, raising=False)
    assert explained() == explained(raised.value)
    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_exc", raising=False)
    with pytest.raises(ValueError, match="no exception has been raised here yet"):
        al.explain()


def test_explain_takes_a_warning_caught():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = al.tensor([1., 2.], requires_grad=True)
        _ = (x * 2).grad
    assert "#warn-non-leaf-grad" in explained(caught[0])


def test_explain_says_so_when_nothing_matches():
    text = explained("KeyError: 'learning_rate'")
    assert text.startswith("KeyError: 'learning_rate'\n\nNo entry of the book's page of errors "
                           "(book/errors.ipynb) matches this text.")


def test_explain_after_a_cell_raised_in_a_jupyter_kernel():
    """In the kernel JupyterLab runs (ipykernel): a cell raises, the next cell's
    al.explain() prints the entry of that error."""
    manager = pytest.importorskip("jupyter_client.manager")
    km, kc = manager.start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        def run(code):
            printed = []
            reply = kc.execute_interactive(code, timeout=60, output_hook=lambda msg: printed.append(
                msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None)
            return reply["content"]["status"], "".join(printed)
        assert run("import autograd_lab as al")[0] == "ok"
        assert run("w = al.tensor([1., 2.], requires_grad=True)\nw[0] = 0.")[0] == "error"
        status, text = run("al.explain()")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert status == "ok"
    assert "explains it: a view of a leaf Variable that requires grad…" in text
    assert "#err-view-leaf" in text and "Why: `w[0]` is a view" in text


def test_the_package_reads_its_index_without_the_repository(tmp_path):
    """The index is read from the package's folder: a copy of the package alone, away from
    the repository, explains a message.  (tools/check_wheel.py, in CI, does the same with
    the built wheel installed.)"""
    import shutil
    shutil.copytree(ROOT / "autograd_lab", tmp_path / "autograd_lab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import autograd_lab as al, pathlib; al.explain('ValueError: can\\'t optimize a non-leaf Tensor');"
            "print(pathlib.Path(al.__file__).parent)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "#err-non-leaf-optim" in done.stdout and str(tmp_path / "autograd_lab") in done.stdout


def test_a_finder_of_a_small_index_scores_as_the_docstring_says():
    """Two entries: the message holding a whole phrasing scores 1; one holding half of
    another's weight scores its share; the longer of two whole phrasings ranks first."""
    index = {"rules": error_finder.RULES, "page": "p", "entries": [
        {"label": "a", "message": "m", "phrasings": ["a leaf Variable is used in an in-place operation"]},
        {"label": "b", "message": "n", "phrasings": ["a view of a leaf Variable is used in an in-place operation"]}]}
    finder = Finder(index)
    view = "RuntimeError: a view of a leaf Variable is used in an in-place operation."
    assert [(s, e["label"]) for s, e in finder.match(view)] == [(1.0, "b"), (1.0, "a")]
    leaf = "RuntimeError: a leaf Variable is used in an in-place operation."
    (sa, _), (sb, _) = finder.scores(leaf)
    assert sa == 1.0 and 0.5 < sb < 1.0


# -- in the built page --------------------------------------------------------------------------

def page_texts():
    """Every captured text, each changed as above, and the odd inputs."""
    texts = []
    for path in CAPTURED:
        text = path.read_text(encoding="utf-8")
        texts += [text, in_a_traceback(renamed(renumbered(text)), path.name)]
    return texts + list(odd_inputs().values())


RANK_IN_PAGE = """async (texts) => {
    const url = new URL('../_static/autograd_lab/error_finder.js', location.href).href;
    const {finder} = await import(url);
    const f = finder(JSON.parse(document.getElementById('al-error-index').textContent));
    return texts.map((t) => f.match(t).map(({score, entry}) => [entry.label, score]));
}"""


@pytest.mark.browser
def test_the_page_ranks_every_text_as_python_does(chromium, book_server):
    """The page's matcher (its own copy of the rules and entries: the index in the page)
    lists the same entries, in the same order, with the same scores, as al.explain's."""
    texts = page_texts()
    context = chromium.new_context(service_workers="block")
    page = context.new_page()
    try:
        page.goto(book_server + "book/errors.html", wait_until="domcontentloaded")
        in_page = page.evaluate(RANK_IN_PAGE, texts)
    finally:
        context.close()
    in_python = [[[e["label"], s] for s, e in match(t)] for t in texts]
    differ = [(t[-200:], p, q) for t, p, q in zip(texts, in_python, in_page) if p != q]
    assert differ == [] and len(texts) == 2 * len(CAPTURED) + len(odd_inputs())


TYPE_AND_READ = """async (text) => {
    const field = document.getElementById('al-error-text');
    field.focus();
    field.value = text;
    field.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise((r) => setTimeout(r, 400));
    return {labels: Array.from(document.querySelectorAll('.al-found li')).map((li) => li.dataset.label),
            hrefs: Array.from(document.querySelectorAll('.al-found li a')).map((a) => a.getAttribute('href')),
            status: document.getElementById('al-error-status').textContent,
            live: document.getElementById('al-error-status').getAttribute('role'),
            wide: document.documentElement.scrollWidth};
}"""


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_box_lists_the_entries_of_a_pasted_traceback_and_says_when_nothing_matches(
        chromium, book_server, theme):
    """Through the box, as a reader uses it, on a phone (390 px): a labelled field; a
    traceback's entries listed as links to their sections, best first, announced by a live
    region; odd input says that nothing matched and lists nothing; nothing scrolls
    sideways; axe-core finds no WCAG 2.1 A/AA violation with results shown."""
    from explorer_driver import axe_violations
    context = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                   has_touch=True, service_workers="block")
    context.add_init_script(f"localStorage.setItem('mode', '{theme}'); localStorage.setItem('theme', '{theme}');")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        page.goto(book_server + "book/errors.html", wait_until="load")
        page.wait_for_selector("#al-error-finder.al-mounted textarea")
        label = page.evaluate("document.querySelector('label[for=\"al-error-text\"]').textContent")
        assert label == "Error message or traceback"
        for path in [MESSAGES / "err-nan" / "pytorch.traceback.txt",
                     MESSAGES / "err-numpy" / "jax.notebook.txt",
                     MESSAGES / "err-second-time" / "tensorflow.traceback.txt"]:
            got = page.evaluate(TYPE_AND_READ, path.read_text())
            want = [e["label"] for _, e in match(path.read_text())]
            assert got["labels"] == want and want[0] == path.parent.name
            assert got["hrefs"] == [f"#{label}" for label in want]
            assert got["live"] == "status" and "match" in got["status"] and got["wide"] <= 390
        assert axe_violations(page) == {}, f"axe-core with results shown ({theme})"
        for name, text in odd_inputs().items():
            if not text.strip():
                continue
            got = page.evaluate(TYPE_AND_READ, text)
            assert got["labels"] == [] and got["status"].startswith("No entry matches"), name
            assert got["wide"] <= 390, name
        assert page.evaluate(TYPE_AND_READ, "  \n ")["status"] == ""
        # by keyboard: the field is reached with Tab and answers what is typed into it
        page.evaluate("document.getElementById('al-error-text').value = ''")
        page.focus("#al-error-text")
        page.keyboard.type("can't optimize a non-leaf Tensor")
        page.wait_for_selector('.al-found li[data-label="err-non-leaf-optim"]')
        assert errors == []
    finally:
        context.close()

