"""Re-execute the book's notebooks in place so their stored outputs match a fresh run.

    python tools/refresh_notebooks.py                 # every book/*.ipynb, in name order
    python tools/refresh_notebooks.py book/02_*.ipynb # just these

Run it with the project's environment (``python3 tools/dev.py refresh`` does) after
changing autograd_lab, then check with pytest (nbval) and commit the notebooks.

What it guarantees:
- one fresh kernel per notebook (the environment's own ``python3``), working directory
  ``book/``, ``PYTHONHASHSEED=0``, one BLAS thread: the same outputs on every machine;
  randomness in the notebooks is seeded with ``al.manual_seed``;
- a cell that raises stops the refresh with its traceback, unless it is tagged
  ``raises-exception``;
- no widget state (``metadata.widgets``), no execution timestamps, no autosave bloat;
  a widget keeps the model id stored before (a new run draws fresh random ones), so a
  refresh that changes nothing else leaves the file as it was;
  cell tags, cell ids and other cell metadata are kept; execution counts run 1, 2, 3...;
- each notebook stays under 2 MB (the refresh fails past that).
"""
import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
MAX_BYTES = 2 * 1024 * 1024
# Cell metadata that is state, not content: dropped on every refresh.
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled")


def _deterministic_env():
    os.environ["PYTHONHASHSEED"] = "0"
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def clean(nb):
    """Strip run state from a notebook; keep what a reader or a test needs."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    count = 0
    for i, cell in enumerate(nb.cells):
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if "id" not in cell:
            cell["id"] = f"cell-{i:03d}"
        if cell.cell_type == "code":
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if "execution_count" in out:
                    out["execution_count"] = count
                out.get("metadata", {}).pop("widgets", None)
    return nb


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _widget_views(cell):
    """The widget views a cell's outputs show, in order (each holds a ``model_id``)."""
    return [out["data"][WIDGET_VIEW] for out in cell.get("outputs", ()) if WIDGET_VIEW in out.get("data", {})]


def widget_ids(nb):
    """{cell id: the model ids of the widgets its outputs show, in order}."""
    return {cell.get("id"): [view["model_id"] for view in _widget_views(cell)] for cell in nb.cells}


def keep_widget_ids(nb, before):
    """Give the widgets of each cell the model ids they had ``before``, where the cell
    shows as many widgets as it did.  The ids name no stored state (``clean`` drops it):
    only their churn would show in a diff."""
    for cell in nb.cells:
        views, old = _widget_views(cell), before.get(cell.get("id"), [])
        if len(views) == len(old):
            for view, model_id in zip(views, old):
                view["model_id"] = model_id


def refresh(path, timeout=300):
    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    before = widget_ids(nb)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False, store_widget_state=False,
    )
    client.execute()
    clean(nb)
    keep_widget_ids(nb, before)
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    if not text.endswith("\n"):
        text += "\n"
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise SystemExit(f"{path.name}: {size / 1e6:.1f} MB after execution; the limit is 2 MB "
                         "(smaller figures, fewer stored outputs)")
    path.write_text(text, encoding="utf-8")
    return size


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to refresh (default: every book/*.ipynb)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    _deterministic_env()
    paths = sorted(args.notebooks or BOOK.glob("*.ipynb"))
    if not paths:
        raise SystemExit(f"no notebooks found in {BOOK}")
    for path in paths:
        print(f"refreshing {path} ...", flush=True)
        size = refresh(path, timeout=args.timeout)
        print(f"  ok, {size / 1024:.0f} kB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
