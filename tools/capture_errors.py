#!/usr/bin/env python3
"""Capture what PyTorch, TensorFlow, JAX and autograd_lab really print for the entries of
the errors page: the test data of the error finder (autograd_lab/explain.py and its twin
in the page, tools/sphinxext/error_finder.js).

    python3 tools/capture_errors.py [--python .venv-frameworks/bin/python] [label ...]
    python3 tools/capture_errors.py --check    # write nothing: are the stored messages current?

Each program ``tests/support/error_messages/<entry label>/<framework>[-variant].py`` is a few lines
that make the error of that entry in that framework (a framework without such an error has
no program).  Run in the frameworks' environment (autograd_lab from this repository), each
gives:

* ``<name>.txt``: the message as printed, the last lines of the traceback
  (``traceback.format_exception_only``), or ``Category: message`` of the warning it gave
  (TensorFlow logs some: ``WARNING:tensorflow:...``, as its logger prints them);
* for the programs named in TRACEBACKS, ``<name>.traceback.txt``: everything the program
  wrote to stderr when run as a script (file paths, the user's code lines, TensorFlow's
  start-up log), and for those in NOTEBOOK, ``<name>.notebook.txt``: the traceback as
  Jupyter shows it (IPython's, without colours).

The files are committed; tests/book/test_error_finder.py checks that each one leads to its entry.
"""
import argparse
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "support" / "error_messages"
TRACEBACKS = ["err-second-time/pytorch", "err-nan/pytorch", "warn-non-leaf-grad/pytorch",
              "err-inplace-version/pytorch", "err-func-scalar/jax", "err-ambiguous/jax-traced",
              "err-second-time/tensorflow", "err-float-only/tensorflow",
              "err-scalar-outputs/autograd_lab", "err-number-of-gradients/autograd_lab",
              "err-matmul-shape/pytorch", "err-same-dtype/tensorflow", "warn-copy-construct/pytorch"]
NOTEBOOK = ["err-unused/pytorch", "err-view-leaf/autograd_lab", "err-numpy/jax",
            "err-broadcast/autograd_lab", "err-target-dtype/pytorch"]

# Runs one program; prints the message it ended with (an exception, else its first warning).
MESSAGE = r"""
import logging, runpy, sys, traceback, warnings
logged = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            logged.append(f"{record.levelname}:{record.name}:{record.getMessage()}")
logging.getLogger().addHandler(Keep())
logging.getLogger("tensorflow").addHandler(Keep())
quiet = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning, ResourceWarning)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        runpy.run_path(sys.argv[1], run_name="__main__")
        said = None
    except Exception as exc:
        said = "".join(traceback.format_exception_only(exc))
if said is None:
    told = [f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, quiet)]
    said = (told or logged or [None])[0]
if said is None:
    sys.exit(f"{sys.argv[1]} raised and warned nothing")
sys.stdout.write("\x00" + said.rstrip() + "\n")
"""

# Runs one program as a notebook cell in IPython (borrowed from this repository's .venv:
# the frameworks' environment has no IPython) and prints the traceback as Jupyter shows it.
NOTEBOOK_CELL = r"""
import sys
sys.path.append(sys.argv[2])
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance(colors="nocolor")
print("\x00", end="")
shell.run_cell(open(sys.argv[1]).read())
"""


def run(python, args, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run([str(python), *args], capture_output=True, text=True, env=env, cwd=ROOT, **kw)
    return done


def capture(python, program, notebook_site, check=False):
    """Run one program; write what it printed (or, with ``check``, compare its message with
    the stored one: None when equal, else a line saying how they differ)."""
    name = program.relative_to(PROGRAMS).with_suffix("").as_posix()
    done = run(python, ["-c", MESSAGE, str(program)])
    if done.returncode != 0 or "\x00" not in done.stdout:
        raise SystemExit(f"{name}: no message\n{done.stderr[-2000:]}")
    said = done.stdout.split("\x00", 1)[1]
    if check:
        stored = program.with_suffix(".txt").read_text(encoding="utf-8")
        here = re.compile(r"/\S*?/(?=tests/support/error_messages/)")      # the clone's folder may differ
        return None if here.sub("", said) == here.sub("", stored) else f"{name}: now\n  {said.strip()}\nstored\n  {stored.strip()}"
    program.with_suffix(".txt").write_text(said, encoding="utf-8")
    if name in TRACEBACKS:
        # -P: the program's folder is not put first on sys.path (its jax.py would hide jax)
        script = run(python, ["-P", str(program)])
        program.with_suffix(".traceback.txt").write_text(script.stderr, encoding="utf-8")
    if name in NOTEBOOK:
        cell = run(python, ["-c", NOTEBOOK_CELL, str(program), str(notebook_site)])
        program.with_suffix(".notebook.txt").write_text(
            cell.stdout.split("\x00", 1)[1].lstrip("\n"), encoding="utf-8")
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=ROOT / ".venv-frameworks" / "bin" / "python",
                        help="the frameworks' environment (torch, tensorflow, jax)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; compare each message with the stored one")
    parser.add_argument("only", nargs="*", help="entry labels or label/framework names to capture")
    args = parser.parse_args()
    site = sysconfig.get_paths(vars={"base": str(ROOT / ".venv"), "platbase": str(ROOT / ".venv")})["purelib"]
    programs = sorted(PROGRAMS.glob("*/*.py"))
    if args.only:
        programs = [p for p in programs if p.parent.name in args.only
                    or p.relative_to(PROGRAMS).with_suffix("").as_posix() in args.only]
    if args.check:
        differ = [d for d in (capture(args.python, p, site, check=True) for p in programs) if d]
        print("\n".join(differ) or f"the {len(programs)} stored messages are what the programs print now")
        return 1 if differ else 0
    for program in programs:
        print(capture(args.python, program, site), flush=True)


if __name__ == "__main__":
    sys.exit(main())
