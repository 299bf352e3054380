#!/usr/bin/env python3
"""Build autograd_lab's sdist and wheel, install the wheel where the repository cannot be
seen, and use it: what `pip install .` or an install from PyPI would give a reader.

    .venv/bin/python tools/check_wheel.py          # CI runs this (see .ci/run)

The repository's own environment installs the package editable (``-e .``), so nothing
else notices a module or a data file that the wheel leaves out.  Here, in a new virtual
environment under a temporary folder, with the working directory and PYTHONPATH away
from the repository, the wheel (with its ``viz`` extra) must import, run chapter 00's
first program, give one explorer's page bundle, its view module read from the installed
files, and explain an error from the page of errors' index (al.explain).  The sdist must hold every file the wheel holds.
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside the new environment: chapter 00's first program, then an explorer's page
# bundle (the mime type the book's pages host), which reads the view's .js file.
USE = r'''
import sys, pathlib
import autograd_lab as al
root = pathlib.Path(sys.argv[1])
where = pathlib.Path(al.__file__).resolve()
assert root not in where.parents, f"imported from the repository: {where}"
x = al.tensor([[2., 1.]], requires_grad=True)
M = al.tensor([[1., 2.], [3., 4.]])
y = x @ M
y.backward(al.tensor([[1., 0.]]))
assert repr(y) == "tensor([[5., 8.]], grad_fn=<MmBackward0>)", repr(y)
assert repr(x.grad) == "tensor([[1., 3.]])", repr(x.grad)
from autograd_lab.teaching.widgets._base import PAGE_MIME
ex = al.widgets.SeedExplorer(lambda x: x @ M, x)
bundle, _ = ex._repr_mimebundle_()
page = bundle[PAGE_MIME]
assert "image/png" in bundle and page["spec"]["J"] == [[1.0, 3.0], [2.0, 4.0]], page["spec"]
source = al.widgets._base.module_source(page["module"])
assert "export" in source and len(source) > 500, page["module"]
import io
said = io.StringIO()          # al.explain reads the index of the page of errors, package data
al.explain("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", file=said)
assert "#err-no-grad-fn" in said.getvalue(), said.getvalue()
print(f"autograd_lab {al.__version__} from {where.parent}: y = {y.tolist()}, "
      f"x.grad = {x.grad.tolist()}, explorer '{page['module']}' ({len(source)} characters of view)")
'''


def run(cmd, **kw):
    print("[check_wheel] $", " ".join(map(str, cmd)), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def main():
    with tempfile.TemporaryDirectory(prefix="autograd_lab-wheel-") as tmp:
        tmp = Path(tmp)
        dist = tmp / "dist"
        leftover = not (ROOT / "build").exists()       # setuptools' scratch folder
        try:
            run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", dist, ROOT])
        finally:
            if leftover:
                shutil.rmtree(ROOT / "build", ignore_errors=True)
        wheel, = dist.glob("*.whl")
        sdist, = dist.glob("*.tar.gz")
        in_wheel = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("autograd_lab/")}
        with tarfile.open(sdist) as tar:
            in_sdist = {n.split("/", 1)[1] for n in tar.getnames() if "/autograd_lab/" in n}
        missing = sorted(in_wheel - in_sdist)
        if missing:
            sys.exit(f"the sdist lacks files the wheel has: {missing}")
        on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "autograd_lab").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts}
        left_out = sorted(on_disk - in_wheel)
        if left_out:
            sys.exit(f"the wheel leaves out files of the package: {left_out}")
        env_dir = tmp / "env"
        venv.create(env_dir, with_pip=True)
        python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        run([python, "-m", "pip", "install", "-q", f"{wheel}[viz]"])
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        run([python, "-c", USE, ROOT], cwd=tmp, env=env)
        print(f"[check_wheel] {wheel.name}: {len(in_wheel)} files, installed and used; "
              f"{sdist.name} holds them all")


if __name__ == "__main__":
    main()
