#!/usr/bin/env python3
"""The book's framework tabs: one computation in autograd_lab, PyTorch, TensorFlow and JAX,
each with the output it really printed.

    book/frameworks/<example>/snippet_<framework>.py   a snippet (framework: autograd_lab,
                                                       pytorch, tensorflow, jax)
    book/frameworks/<example>/output_<framework>.txt   what it printed, captured by running it

(Not ``jax.py``: run as a script, a file named like the package it imports would import
itself.)
A snippet runs in a fresh Python; what it prints to stdout is its output, and an
exception it raises ends it with its last line, ``ExceptionName: message``, as a
notebook with minimal tracebacks shows it. The chapters show the examples as tab sets in
markdown cells that start with ``<!-- frameworks: <example> -->``; those cells are
generated from the snippets and the stored outputs (never typed), so the book build
needs none of the frameworks.

    python3 tools/frameworks.py capture PYTHON [--only FRAMEWORK ...]
        run every snippet with PYTHON and rewrite the stored outputs
    python3 tools/frameworks.py cells [--check]
        rewrite (or check) the chapters' tab cells from the stored outputs

``python3 tools/dev.py frameworks`` does both with the frameworks' own environment
(.venv-frameworks, from requirements-frameworks.txt). Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "book" / "frameworks"
BOOK = ROOT / "book"
REQUIREMENTS = ROOT / "requirements-frameworks.txt"

# (file stem, tab label, the module whose version is named, its requirement name)
FRAMEWORKS = [
    ("autograd_lab", "autograd_lab", None, None),
    ("pytorch", "PyTorch", "torch", "torch"),
    ("tensorflow", "TensorFlow", "tensorflow", "tensorflow-cpu"),
    ("jax", "JAX", "jax", "jax"),
]
MARKER = re.compile(r"<!-- frameworks: ([a-z0-9_]+) -->")
END_MARKER = "<!-- /frameworks -->"

# Runs one snippet as __main__; an exception prints as its last traceback line would.
RUNNER = r"""
import runpy
import sys
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
except Exception as error:
    sys.stdout.flush()
    message = str(error).strip()
    print(f"{type(error).__name__}: {message}" if message else type(error).__name__)
"""


def examples():
    """Every example folder, sorted by name."""
    return sorted(p.name for p in SNIPPETS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def snippet(example, framework):
    return SNIPPETS / example / f"snippet_{framework}.py"


def stored(example, framework):
    return SNIPPETS / example / f"output_{framework}.txt"


def snippet_env():
    """A quiet, deterministic environment: one thread, CPU only, no framework logging."""
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0",
               JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join(
                   p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return env


def run_snippet(python, example, framework, timeout=300):
    """What the snippet prints when run with ``python``, trailing spaces removed."""
    path = snippet(example, framework)
    done = subprocess.run([str(python), "-c", RUNNER, str(path)], cwd=ROOT, env=snippet_env(),
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{path.relative_to(ROOT)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return normalize(done.stdout)


def normalize(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


def pinned_versions():
    """{requirement name: version} from requirements-frameworks.txt."""
    pins = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\s*([A-Za-z0-9_.-]+)==([^\s;#]+)", line)
        if found:
            pins[found.group(1).lower()] = found.group(2)
    return pins


def versions_line():
    pins = pinned_versions()
    named = ", ".join(f"{label} {pins[req]}" for _, label, _, req in FRAMEWORKS if req)
    return (f"Real runs, stored with the book: {named}, CPU "
            f"(pinned in `requirements-frameworks.txt`).")


def fence(text, info):
    """A fenced block that the text inside cannot close."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def tab_cell(example):
    """The markdown cell that shows ``example``: a tab per framework, code then output."""
    parts = [f"<!-- frameworks: {example} -->", versions_line(), "",
             "::::{tab-set}", ":sync-group: framework", ""]
    for name, label, _, _ in FRAMEWORKS:
        code = snippet(example, name).read_text(encoding="utf-8")
        out = stored(example, name).read_text(encoding="utf-8")
        parts += [f":::{{tab-item}} {label}", f":sync: {name}", "",
                  fence(code, "python"), "", fence(out, "text"), ":::", ""]
    parts += ["::::", END_MARKER]
    return "\n".join(parts)


def cell_source(text):
    """nbformat's list-of-lines form of a cell's source."""
    lines = text.splitlines(keepends=True)
    return lines


def tab_cells_in(path):
    """[(cell index, example)] of the generated cells in a notebook."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        hit = MARKER.match("".join(cell["source"]))
        if hit:
            found.append((k, hit.group(1)))
    return found


def sync_cells(write):
    """Compare (and, if ``write``, rewrite) every chapter's tab cells with what the stored
    outputs generate; return the differences as readable lines."""
    problems, seen = [], {}
    for path in sorted(BOOK.glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
        changed = False
        for k, example in tab_cells_in(path):
            seen.setdefault(example, []).append(path.name)
            if example not in examples():
                problems.append(f"{path.name}, cell {k}: no snippets for {example!r} in "
                                f"{SNIPPETS.relative_to(ROOT)}")
                continue
            want = tab_cell(example)
            if "".join(nb["cells"][k]["source"]) != want:
                problems.append(f"{path.name}, cell {k}: the tabs of {example!r} differ "
                                "from the stored outputs")
                nb["cells"][k]["source"] = cell_source(want)
                changed = True
        if write and changed:
            path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for example in examples():
        if example not in seen:
            problems.append(f"{example}: shown in no chapter (add a markdown cell starting "
                            f"with <!-- frameworks: {example} -->)")
        elif len(seen[example]) > 1:
            problems.append(f"{example}: shown more than once: {seen[example]}")
    return problems


def capture(python, only=None):
    """Run every snippet (of the frameworks in ``only``) and store what it printed;
    return the names of the outputs that changed."""
    changed = []
    for example in examples():
        for name, *_ in FRAMEWORKS:
            if only and name not in only:
                continue
            out = run_snippet(python, example, name)
            target = stored(example, name)
            if not target.exists() or target.read_text(encoding="utf-8") != out:
                target.write_text(out, encoding="utf-8")
                changed.append(f"{example}/{name}")
            print(f"[frameworks] {example}/{name}: {len(out.splitlines())} lines", flush=True)
    return changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("capture", help="run the snippets, rewrite the stored outputs")
    p.add_argument("python", help="the Python that has the frameworks")
    p.add_argument("--only", nargs="*", help="only these frameworks (file stems)")
    p = sub.add_parser("cells", help="rewrite the chapters' tab cells")
    p.add_argument("--check", action="store_true", help="only report differences")
    args = parser.parse_args(argv)
    if args.command == "capture":
        changed = capture(args.python, args.only)
        print("[frameworks] changed outputs: " + (", ".join(changed) or "none"))
        return 0
    problems = sync_cells(write=not args.check)
    for line in problems:
        print(f"[frameworks] {line}")
    if not problems:
        print("[frameworks] every tab cell matches the stored outputs")
    return 1 if problems and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
