"""How a tensor prints: the same text PyTorch prints for the same numbers.

torch picks one format for all elements of a tensor: integers-with-a-dot when every
value is whole (``tensor([1., 2.])``), four decimals otherwise, and scientific notation
when the values span more than three orders of magnitude, exceed 1e8 or go below 1e-4.
Columns are right-aligned to the widest element, lines wrap at 80 characters, and
tensors of more than 1000 elements show only their first and last three entries per
dimension.  ``al.set_printoptions`` changes these settings (functions.py).
"""
import math

import numpy as np

from . import dtypes

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = None             # al.set_printoptions(sci_mode=...): True or False forces it, None decides


class _Format:
    """One number format chosen for all elements of a tensor."""

    def __init__(self, values, floating):
        self.floating = floating
        self.sci = False
        self.whole = True
        self.width = 1
        if not floating:
            self.width = max([len(str(v)) for v in values.tolist()] or [1])
            return
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if finite.size == 0:
            return
        big, small = np.abs(finite).max(), np.abs(finite).min()
        self.whole = bool(np.all(finite == np.ceil(finite)))
        spread = big / small > 1000.0 or big > 1.0e8
        self.sci = (spread if self.whole else spread or small < 1.0e-4) if SCI_MODE is None else SCI_MODE
        for v in finite.tolist():
            if self.sci:
                w = len(f"{v:.{PRECISION}e}")
            elif self.whole:
                w = len(f"{v:.0f}") + 1
            else:
                w = len(f"{v:.{PRECISION}f}")
            self.width = max(self.width, w)

    def __call__(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci:
            s = f"{v:{self.width}.{PRECISION}e}"
        elif self.whole:
            s = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            s = f"{v:.{PRECISION}f}"
        return " " * (self.width - len(s)) + s


def _edges(a):
    """The entries a summarized tensor shows (first and last EDGEITEMS per dimension)."""
    if a.ndim == 0:
        return a.reshape(1)
    if a.shape[0] > 2 * EDGEITEMS:
        parts = [a[:EDGEITEMS], a[-EDGEITEMS:]]
    else:
        parts = [a]
    return np.concatenate([_edges(p[i]).ravel() for p in parts for i in range(len(p))]) if len(
        a) else a.ravel()


def _body(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        items = a.tolist()
        if summarize and len(items) > 2 * EDGEITEMS:
            cells = [fmt(v) for v in items[:EDGEITEMS]] + [" ..."] + [fmt(v) for v in items[-EDGEITEMS:]]
        else:
            cells = [fmt(v) for v in items]
        lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(a.shape[0])
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        rows = list(range(EDGEITEMS)) + [None] + list(range(a.shape[0] - EDGEITEMS, a.shape[0]))
    parts = ["..." if i is None else _body(a[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_str(a, indent=0):
    """The bracketed numbers of a tensor, as torch lays them out."""
    if a.size == 0:
        return "[]"
    summarize = a.size > THRESHOLD
    floating = a.dtype.kind == "f"
    fmt = _Format(_edges(a) if summarize else a.ravel(), floating)
    return _body(a, indent, summarize, fmt)


def _with_suffixes(body, suffixes, indent):
    out = [body]
    last = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            out.append(", " + s)
            last += len(s) + 2
    return "".join(out) + ")"


def tensor_repr(t):
    prefix = "tensor("
    a = t._data
    suffixes = []
    if a.size == 0 and a.ndim != 1:
        suffixes.append(f"size={tuple(a.shape)}")
    d = dtypes.from_numpy(a.dtype)
    if d not in (dtypes.float32, dtypes.int64, dtypes.bool_) or (a.size == 0 and d is not dtypes.float32):
        suffixes.append(f"dtype={d!r}")      # torch names the dtype of an empty non-float tensor
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn={t.grad_fn!r}")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + _with_suffixes(array_str(a, len(prefix)), suffixes, len(prefix))
    return "Parameter containing:\n" + text if getattr(t, "_is_parameter", False) else text
