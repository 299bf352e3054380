#!/usr/bin/env python3
"""One entry point for the book's chores. Needs only Python 3.11+ (standard library).

    python3 tools/dev.py book     # build the book from scratch, print where index.html is
    python3 tools/dev.py test     # build the book, then run every test (pytest, on every core)
    python3 tools/dev.py refresh  # re-execute the notebooks in place (after changing the package)
    python3 tools/dev.py bench    # run every benchmark in bench/
    python3 tools/dev.py lab      # open the chapters in JupyterLab, with live explorers
    python3 tools/dev.py screenshots  # full-page pictures of every built page, light and dark
    python3 tools/dev.py screenshot   # retake the README's picture of the built intro page
    python3 tools/dev.py frameworks   # re-run the PyTorch/TensorFlow/JAX snippets of the tabs
    python3 tools/dev.py frameworks --check  # ... compare instead, and run the torch tests

The first run creates ``.venv`` next to this repository's README and installs
``requirements.txt`` into it (which ends with ``-e .``, the package itself); later runs
reinstall only when requirements.txt or pyproject.toml changed. ``--python PATH`` (or
the AUTOGRAD_LAB_PYTHON variable) uses an existing environment instead.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BUILD = ROOT / "_build"
HTML_INDEX = BUILD / "html" / "index.html"
STAMP_NAME = ".autograd_lab-requirements.sha256"
FW_VENV = ROOT / ".venv-frameworks"            # PyTorch, TensorFlow, JAX: never in .venv
FW_REQUIREMENTS = ROOT / "requirements-frameworks.txt"


def say(msg):
    print(f"[dev] {msg}", flush=True)


def run(cmd, **kw):
    say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], cwd=kw.pop("cwd", ROOT), **kw).returncode


def bin_dir(python):
    return Path(python).parent


def make_env(venv, requirements):
    """The Python of ``venv``, created if missing and (re)installed from ``requirements``
    when it or pyproject.toml changed since the last install."""
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        say(f"creating the virtual environment {venv}")
        if run([sys.executable, "-m", "venv", venv]) != 0:
            sys.exit(f"could not create {venv.name} (on Debian/Ubuntu: apt-get install python3-venv)")
    wanted = hashlib.sha256(
        requirements.read_bytes() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = venv / STAMP_NAME
    if not stamp.exists() or stamp.read_text().strip() != wanted:
        t0 = time.perf_counter()
        if run([python, "-m", "pip", "install", "-r", requirements.name]) != 0:
            sys.exit(f"pip install -r {requirements.name} failed")
        stamp.write_text(wanted + "\n")
        say(f"{venv.name} ready in {time.perf_counter() - t0:.0f} s")
    return python


def ensure_env(python_override=None):
    """Return the Python of the project's environment, creating/updating .venv if needed."""
    override = python_override or os.environ.get("AUTOGRAD_LAB_PYTHON")
    if override:
        return Path(override)
    if sys.version_info < (3, 11):
        sys.exit(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]})")
    return make_env(VENV, ROOT / "requirements.txt")


def quiet_env(**extra):
    """Environment for builds and tests: deterministic hashing, one BLAS thread."""
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    env.update(extra)
    return env


def existing_toc():
    """Write a copy of _toc.yml without the chapters whose file does not exist yet."""
    lines, missing = [], []
    for line in (ROOT / "_toc.yml").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("- file:"):
            name = stripped.split(":", 1)[1].strip()
            if not any((ROOT / f"{name}{ext}").exists() for ext in (".ipynb", ".md")):
                missing.append(name)
                continue
        lines.append(line)
    BUILD.mkdir(exist_ok=True)
    path = BUILD / "_toc.existing.yml"
    path.write_text("\n".join(lines) + "\n")
    if missing:
        say("leaving out chapters that do not exist yet: " + ", ".join(missing))
    return path


def build_book(python, *, incremental=False, only_existing=False):
    """jupyter-book build . -W -n --keep-going, from a clean _build unless incremental."""
    if not incremental:
        for sub in ("html", ".doctrees", "jupyter_execute"):
            shutil.rmtree(BUILD / sub, ignore_errors=True)
    cmd = [bin_dir(python) / "jupyter-book", "build", ROOT, "-W", "-n", "--keep-going"]
    env = quiet_env()
    if only_existing:
        toc = existing_toc()
        cmd += ["--toc", toc]
        env["AUTOGRAD_LAB_TOC"] = str(toc)
    t0 = time.perf_counter()
    rc = run(cmd, env=env)
    seconds = time.perf_counter() - t0
    if rc == 0 and HTML_INDEX.exists():
        say(f"book built in {seconds:.0f} s ({'incremental' if incremental else 'clean'} build)")
        print(HTML_INDEX.resolve(), flush=True)
    else:
        say(f"book build FAILED after {seconds:.0f} s (exit {rc}); see the warnings above")
    return rc or (0 if HTML_INDEX.exists() else 1), seconds


def cmd_book(args):
    python = ensure_env(args.python)
    rc, _ = build_book(python, incremental=args.incremental, only_existing=args.only_existing)
    return rc


def cmd_test(args):
    python = ensure_env(args.python)
    timings = {}
    rc_build = 0
    if not args.no_build:
        rc_build, timings["book build"] = build_book(python, only_existing=args.only_existing)
    env = quiet_env(AUTOGRAD_LAB_REQUIRE_HTML="1")
    if args.only_existing:
        env["AUTOGRAD_LAB_TOC"] = str(BUILD / "_toc.existing.yml")
    t0 = time.perf_counter()
    # --durations: the slowest tests are listed, to keep the budget honest
    marks = [] if args.all else ["-m", "slow"] if args.slow else ["-m", "not slow"]
    if not (args.all or args.slow):
        say("the long checks (JupyterLab, dark-theme explorer views, every-button presses, "
            "search, phones) are left out: `tools/dev.py test --slow` runs them, as CI does")
    rc_tests = run([python, "-m", "pytest", "--durations=10", *marks, *parallel(python, args.pytest_args),
                    *args.pytest_args], env=env)
    if rc_tests == 5 and args.slow:   # (pytest: no test selected)
        rc_tests = 0
    timings["pytest"] = time.perf_counter() - t0
    say("timings: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    if rc_build:
        say("the book build failed (warnings are errors): see its log above")
    return rc_build or rc_tests


def parallel(python, pytest_args):
    """pytest-xdist's options, one worker per core, each test file kept on one worker (a
    notebook's cells run in order in one kernel; a module's fixtures are made once) --
    unless the environment lacks xdist or the arguments already choose (-n, --pdb)."""
    chosen = ("-n", "--numprocesses", "--pdb", "--dist")
    if any(a.startswith(chosen) or a == "no:xdist" for a in pytest_args):
        return []
    probe = subprocess.run([str(python), "-c", "import xdist"], capture_output=True)
    if probe.returncode != 0:
        say("pytest-xdist is not installed in this environment: the tests run one at a time")
        return []
    return ["-n", "auto", "--dist", "loadfile"]


def cmd_refresh(args):
    python = ensure_env(args.python)
    return run([python, ROOT / "tools" / "refresh_notebooks.py", *args.notebooks],
               env=quiet_env())


def cmd_bench(args):
    python = ensure_env(args.python)
    scripts = sorted((ROOT / "bench").glob("*.py")) if (ROOT / "bench").is_dir() else []
    scripts = [s for s in scripts if s.name.startswith("bench_")]   # (helpers and before_after.py: by hand)
    if not scripts:
        say("no benchmarks in bench/")
        return 0
    rc = 0
    for script in scripts:
        rc |= run([python, script], env=quiet_env())
    return rc


def cmd_screenshots(args):
    """Every page of the built book, light and dark, top to bottom, as a reader sees it:
    the browser test of each page writes _build/screenshots/<page>-<theme>.jpg."""
    python = ensure_env(args.python)
    if not HTML_INDEX.exists():
        sys.exit("no built book: run `python3 tools/dev.py book` first")
    rc = run([python, "-m", "pytest", "-p", "no:xdist", "-q", "tests/book/test_browser.py",
              "-k", "test_page_works_offline or test_page_turns_dark"], env=quiet_env(AUTOGRAD_LAB_REQUIRE_HTML="1"))
    say(f"screenshots in {BUILD / 'screenshots'}")
    return rc


def torch_test_files():
    """The tests that skip without torch: the comparisons (tests/torch_parity/, every
    *_vs_torch.py) and every other test file that asks for torch with pytest.importorskip,
    in any folder of tests/."""
    return sorted(p.relative_to(ROOT) for p in (ROOT / "tests").rglob("test_*.py")
                  if p.name.endswith("_vs_torch.py")
                  or 'importorskip("torch"' in p.read_text(encoding="utf-8"))


def cmd_frameworks(args):
    """The frameworks' environment (.venv-frameworks, requirements-frameworks.txt), then
    either every tab snippet re-run and its stored output rewritten, with the chapters'
    tab cells regenerated (default), or, with --check, nothing written: the snippets
    compared with their stored outputs and every torch comparison test, in that
    environment (what CI runs)."""
    if sys.version_info < (3, 11):
        sys.exit(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]})")
    timings = {}
    t0 = time.perf_counter()
    python = make_env(FW_VENV, FW_REQUIREMENTS)
    timings["environment"] = time.perf_counter() - t0
    tool = ROOT / "tools" / "frameworks.py"
    t0 = time.perf_counter()
    if args.check:
        tests = ["tests/book/test_frameworks.py", *torch_test_files()]
        rc = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=5",
                  *parallel(python, []), *tests],
                 env=quiet_env(AUTOGRAD_LAB_REQUIRE_FRAMEWORKS="1"))
        timings["snippets and torch tests"] = time.perf_counter() - t0
    else:
        rc = run([python, tool, "capture", python], env=quiet_env())
        timings["snippets"] = time.perf_counter() - t0
        rc = rc or run([sys.executable, tool, "cells"])
    say("timings: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    return rc


def cmd_screenshot(args):
    python = ensure_env(args.python)
    return run([python, ROOT / "tools" / "readme_screenshot.py"])


def lab_command(python, *args):
    """``jupyter lab`` with tools/jupyter_nodelay.py loaded (kernel messages reach the
    browser without a 40 ms wait: see that file); returns (command, environment)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT / "tools"), os.environ.get("PYTHONPATH")) if p))
    cmd = [bin_dir(python) / "jupyter", "lab", "--ServerApp.jpserver_extensions={'jupyter_nodelay': True}",
           *args]
    return cmd, env


def cmd_lab(args):
    python = ensure_env(args.python)
    cmd, env = lab_command(python, ROOT / "book")
    return run(cmd, env=env)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Build, test and maintain the autograd_lab book.",
        epilog="Run from anywhere; paths are relative to the repository.")
    parser.add_argument("--python", help="use this environment's python instead of .venv")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("book", help="build the book (clean) and print where index.html is")
    p.add_argument("--incremental", action="store_true",
                   help="keep _build/ (faster; unchanged notebooks are not re-executed)")
    p.add_argument("--only-existing", action="store_true",
                   help="leave out _toc.yml chapters whose notebook does not exist yet")
    p.set_defaults(func=cmd_book)

    p = sub.add_parser("test", help="build the book, then run all tests with pytest")
    p.add_argument("--no-build", action="store_true", help="test the existing _build/html")
    p.add_argument("--only-existing", action="store_true",
                   help="build without the chapters that do not exist yet")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--slow", action="store_true",
                       help="only the long checks (JupyterLab, dark-theme explorer views, the errors "
                            "page's search, the special-value sweep, phones), which CI runs in a step "
                            "of its own; the command without it leaves them out")
    which.add_argument("--all", action="store_true", help="every test, the long checks included")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER,
                   help="passed to pytest (e.g. -- -k browser)")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("refresh", help="re-execute notebooks in place")
    p.add_argument("notebooks", nargs="*", help="default: every book/*.ipynb")
    p.set_defaults(func=cmd_refresh)

    sub.add_parser("bench", help="run the benchmarks in bench/").set_defaults(func=cmd_bench)
    sub.add_parser("lab", help="start JupyterLab on book/").set_defaults(func=cmd_lab)
    sub.add_parser("screenshots", help="full-page screenshots of every built page, light and "
                   "dark, in _build/screenshots/").set_defaults(func=cmd_screenshots)
    sub.add_parser("screenshot", help="retake docs/rendered_intro.png from the built book"
                   ).set_defaults(func=cmd_screenshot)

    p = sub.add_parser("frameworks", help="re-run the framework tabs' snippets in "
                       ".venv-frameworks and rewrite their stored outputs and tab cells")
    p.add_argument("--check", action="store_true",
                   help="write nothing: compare the snippets with their stored outputs and "
                   "run the torch comparison tests, in .venv-frameworks (CI)")
    p.set_defaults(func=cmd_frameworks)

    args = parser.parse_args(argv)
    if getattr(args, "pytest_args", None) and args.pytest_args[0] == "--":
        args.pytest_args = args.pytest_args[1:]
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
