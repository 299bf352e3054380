"""What every explorer shares: the widget, its two hosts, reading what readers type.

An explorer is an anywidget: a Python object whose view is an ES module (``view.js``
followed by the explorer's own ``<kind>.js``).  The view draws two synced values --
``spec``, fixed when the explorer is made (shapes, names, the Jacobian...), and
``state``, the numbers of the moment -- and sends each thing the reader does as a
message.  Two hosts answer those messages:

* **the kernel** (JupyterLab and the other front ends anywidget supports): ``_on_view``
  hands the message to the explorer, autograd_lab computes (a real ``backward``,
  ``autograd.grad``, a batched ``grad``) and ``state`` is published again;
* **the book's pages**, which have no kernel: the output carries a page bundle (the
  mime type ``PAGE_MIME``) with the same ``spec`` and ``state`` and, where the view can
  reach finitely many states, every one of them, computed by autograd_lab when the book
  was built.  ``page.js`` feeds the same view from it (``offline`` in the kind's module).

Without JavaScript (nbviewer, GitHub, a text-only reader) the output still has a PNG of
the state with alt text that carries its numbers, and a one-line ``text/plain`` summary.

An explorer never raises from a reader's action: a wrong shape, text that is not a list
of numbers, an overflowing seed are shown in the view and kept in ``ex.error``.
"""
import ast
import contextlib
import math
import warnings
from pathlib import Path

import numpy as np

try:
    import anywidget
    import traitlets
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("autograd_lab.teaching.widgets needs anywidget (and matplotlib), optional extras "
                      "of autograd_lab: pip install 'autograd_lab[viz]'") from exc

from .. import viz
from ...creation import tensor as _tensor
from ...core.engine import grad as _grad
from ...core.tensor import Tensor

PAGE_MIME = "application/vnd.autograd-lab.explorer+json"
HERE = Path(__file__).resolve().parent


def module_source(kind):
    """The view of one kind of explorer as one ES module: the shared ``view.js``, then
    ``<kind>.js``.  anywidget loads it from this text; the book copies the same text."""
    return (HERE / "view.js").read_text(encoding="utf-8") + "\n" + \
        (HERE / f"{kind}.js").read_text(encoding="utf-8")


# -- reading what readers type ---------------------------------------------------------------
_NAMES = {"nan": math.nan, "inf": math.inf}


def _literal(node):
    """Numbers, signs and nested lists only (``nan`` and ``inf`` allowed): what a seed is."""
    if isinstance(node, ast.Expression):
        return _literal(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _literal(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    raise ValueError("only numbers and [ ] lists are allowed")


def parse_numbers(text):
    """``"[[1, 0], [0.5, -2]]"`` -> a float array; a clear ValueError for anything else."""
    try:
        value = _literal(ast.parse(str(text).strip(), mode="eval"))
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"could not read {str(text)!r} as a list of numbers "
                         f"(write e.g. [[1, 0]]): {exc}") from None
    try:
        return np.array(value, dtype=np.float64)
    except ValueError:
        raise ValueError(f"{str(text)!r} is ragged: every row needs the same number of entries") from None


def as_numbers(value):
    """A seed, x or y given as a tensor, array, list, number or text -> a float array.
    The view sends non-finite numbers as the strings "nan", "inf" and "-inf"."""
    if isinstance(value, Tensor):
        return np.array(value._data, dtype=np.float64)
    if isinstance(value, str):
        return parse_numbers(value)
    try:
        return np.array(from_js(value), dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"expected numbers (a list, array or tensor), got {value!r}") from None


def from_js(v):
    if isinstance(v, list):
        return [from_js(e) for e in v]
    if isinstance(v, str) and v.strip().lstrip("+-") in ("nan", "inf"):
        return float(v)
    return v


def js(value):
    """Numbers for the view: nested lists, with NaN and infinities as strings (JSON has none)."""
    if value is None:
        return None
    a = np.asarray(value._data if isinstance(value, Tensor) else value, dtype=np.float64)

    def conv(v):
        if isinstance(v, list):
            return [conv(e) for e in v]
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return conv(a.tolist())


def text(a):
    """An array as text a reader can edit: ``[[1., 0.5]]``."""
    return viz.nested(np.asarray(a), viz.num)


def index_labels(name, shape):
    if len(shape) == 0:
        return [name]
    return [f"{name}[{','.join(str(int(i)) for i in idx)}]" for idx in np.ndindex(*shape)]


def short(t, width=40):
    return "None" if t is None else viz.summary(t, width)


def problems(name, a):
    """Text naming the NaN / inf entries of ``a``, or None."""
    if a is None:
        return None
    a = np.asarray(a._data if isinstance(a, Tensor) else a)
    if a.dtype.kind != "f" or np.isfinite(a).all():
        return None
    def where(mask):
        return [tuple(int(i) for i in ix) if a.ndim > 1 else int(ix[0])
                for ix in np.argwhere(mask)][:6]
    parts = []
    if where(np.isnan(a)):
        parts.append(f"nan at {', '.join(map(str, where(np.isnan(a))))}")
    if where(np.isinf(a)):
        parts.append(f"inf at {', '.join(map(str, where(np.isinf(a))))}")
    return f"{name} has " + " and ".join(parts)


@contextlib.contextmanager
def quiet():
    """No NumPy warnings on stderr: an explorer reports NaN, inf and overflow itself."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def leaf_copy(x):
    """A fresh leaf with x's values: the explorer's backward passes never touch x.grad."""
    t = _tensor(np.array(x._data, copy=True))
    t.requires_grad_(True)
    return t


def check_input(x, who):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who} needs x as an autograd_lab tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{who} needs a floating-point x (only floats have gradients), "
                        f"got dtype {x.dtype}")


def checked_output(fn, xc, who):
    y = fn(xc)
    if not isinstance(y, Tensor):
        raise TypeError(f"{who}: fn(x) must return an autograd_lab tensor, got {type(y).__name__}")
    if not y.requires_grad:
        raise ValueError(f"{who}: fn(x) does not depend on x (its result has no grad_fn), so "
                         "there is no gradient to explore")
    return y


def one_hot(shape, flat_index):
    e = np.zeros(shape)
    e.reshape(-1)[flat_index] = 1.0
    return e


def batched_jacobian(y, xc):
    """J with y.shape + x.shape, from ONE batched backward pass (one one-hot seed per
    output entry, all sent through the graph at once)."""
    m = y.numel()
    seeds = np.eye(m).reshape((m,) + tuple(y.shape))
    (g,) = _grad(y, xc, grad_outputs=_tensor(seeds.astype(y._data.dtype)), is_grads_batched=True,
                 retain_graph=True)
    return g._data.reshape(tuple(y.shape) + tuple(xc.shape))


def jacobian(fn, x, y, xc):
    """J of y = fn(x), shaped y.shape + x.shape: one batched backward pass through y's
    graph (xc is the leaf it was computed from), or one pass per row for an operation that
    takes no batch of seeds."""
    try:
        return batched_jacobian(y, xc)
    except Exception:                                    # noqa: BLE001 - no batch support
        rows = []
        for i in range(y.numel()):
            xi = leaf_copy(x)
            (g,) = _grad(fn(xi), xi, grad_outputs=_tensor(one_hot(tuple(y.shape), i)))
            rows.append(g._data)
        return np.stack(rows).reshape(tuple(y.shape) + tuple(x.shape))


# -- the page's vᵀJ, made to agree with the kernel's backward ---------------------------------
# The page forms x.grad as a sum over the seed's entries of v[i] * J[i, j].  For finite
# seeds of moderate size that is the backward's answer (backward is linear in the seed).
# For inf and nan it is not: 0 * inf is nan, and the backward never multiplies v[i] into
# an entry of x that v[i] does not reach (an elementwise op's gradient stays off its
# diagonal).  So the page learns, from autograd_lab, which entries each v[i] reaches (a
# backward with nan at i and 0 elsewhere: nan lands exactly where v[i] flows), and adds
# only those terms, in the dtype's arithmetic (float32 rounding after each product and
# sum, as the kernel's float32 backward).  Then every special seed (inf, -inf, nan, -0)
# and the largest finite ones are tried on both -- the kernel's backward and this very
# rule -- one entry at a time; an entry where they differ is refused in the page ("the
# notebook handles it"), never answered wrongly.
SPECIAL_PROBES = (math.inf, -math.inf, math.nan, -0.0)


def page_vjp(J, reach, v, dtype):
    """The page's rule (seed.js/grad_outputs.js ``pageVjp``) in NumPy: Σ over reached i of
    v[i] * J[i, j], from -0, rounded to ``dtype`` after every product and sum."""
    f = np.dtype(dtype).type
    J = np.asarray(J, dtype=dtype)
    out = []
    with np.errstate(all="ignore"):
        vv = np.asarray(v, dtype=np.float64).reshape(-1).astype(dtype)
        for j in range(J.shape[1]):
            s = f(-0.0)
            for i in range(J.shape[0]):
                if reach is None or reach[i][j]:
                    s = f(s + f(vv[i] * J[i, j]))
            out.append(s)
    return np.array(out, dtype=dtype)


def _same(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def page_rule(fn, x, shape, dtype, J):
    """What the page needs to form x.grad as the kernel's backward does: ``reach`` (per
    row of J, a string of "1"/"0": does v[i] reach x's entry j), or None when every v[i]
    reaches every entry; and ``trust`` (per row: [largest |v[i]| the page may answer,
    whether inf/nan/-0 in v[i] may be answered]), or None when the page may answer all."""
    m = int(np.prod(shape))
    J = np.asarray(J, dtype=dtype).reshape(m, -1)

    def kernel(v):
        xc = leaf_copy(x)
        (g,) = _grad(fn(xc), xc, grad_outputs=_tensor(np.asarray(v).reshape(shape).astype(dtype)))
        return g._data.reshape(-1)

    with quiet():
        if np.isnan(kernel(np.zeros(m))).any():          # inf in J: nan everywhere, learn nothing
            reach = np.ones(J.shape, dtype=bool)
        else:
            reach = np.stack([np.isnan(kernel(np.where(np.arange(m) == i, math.nan, 0.0)))
                              for i in range(m)])
        top = float(np.finfo(dtype).max)
        sizes = [top, 1e30, 1e20, 1e10, 1e6]
        trust = []
        for i in range(m):
            def agrees(s):
                v = np.ones(m)
                v[i] = s
                return _same(kernel(v), page_vjp(J, reach, v, dtype))
            special = all(agrees(s) for s in SPECIAL_PROBES)
            limit = next((z for z in sizes if agrees(z) and agrees(-z)), 0.0)
            trust.append([limit, special])
    reach_out = None if reach.all() else ["".join("1" if r else "0" for r in row) for row in reach]
    trust_out = None if all(t == [top, True] for t in trust) else trust
    return reach_out, trust_out


def seed_overflow(v, dtype):
    with np.errstate(all="ignore"):
        cast = v.astype(dtype)
    if np.isfinite(v).all() and not np.isfinite(cast).all():
        big = v.reshape(-1)[np.argmax(~np.isfinite(cast).reshape(-1))]
        return (f"the seed entry {big:g} does not fit in {np.dtype(dtype).name} (largest "
                f"{np.finfo(dtype).max:.4g}): it becomes inf, and the gradient with it")
    return None


# -- the widget ------------------------------------------------------------------------------
class Explorer(anywidget.AnyWidget):
    """The base of every explorer: two synced values, the message handler, the page
    bundle and the static picture.  A subclass names its view (``kind = "seed"``,
    ``_esm = module_source("seed")``), fills ``spec``, answers messages in ``_act`` (or
    takes the default: one value set through ``_set``) and returns its state from ``_state``."""

    kind = "explorer"
    spec = traitlets.Dict().tag(sync=True)
    state = traitlets.Dict().tag(sync=True)

    def __init__(self):
        super().__init__()
        self.error = None
        self.note = None
        self._published = 0
        self.on_msg(self._on_view)

    # -- the kernel host -------------------------------------------------------------------
    def _on_view(self, _widget, content, _buffers):
        """A message from the view: ``{"set": name, "value": v}`` or ``{"do": action, ...}``."""
        self._guard(self._act)(content)

    def _start(self, fn, x, names, title):
        """What the explorers of y = fn(x) share: x checked, fn run once on a fresh copy of
        it, y and the Jacobian J kept (``.y``, ``.jacobian``, ``._shape``, ``._dtype``)."""
        who = type(self).__name__
        check_input(x, who)
        self.fn, self.x, self.names, self.title = fn, x, tuple(names), title
        xc = leaf_copy(x)
        y = checked_output(fn, xc, who)
        self._shape, self._dtype = tuple(y.shape), y._data.dtype
        self.y = y.detach()
        self.jacobian = _tensor(jacobian(fn, x, y, xc))

    def _act(self, msg):
        """Answer one message of the view.  By default a message sets one value,
        ``{"set": name, "value": v}``, through the subclass's ``_set(name, value)``."""
        if "set" not in msg or "value" not in msg:
            raise ValueError(f"{type(self).__name__} does not know the message {msg!r}")
        self._set(msg["set"], msg["value"])

    def _guard(self, fn):
        """Run a change; anything it raises is shown, never propagated.  Whatever happens,
        the state is published once (the view redraws once per change)."""
        def run(*args, **kwargs):
            try:
                with quiet():
                    fn(*args, **kwargs)
            except Exception as exc:                     # noqa: BLE001 - shown in the view
                self.error = f"{type(exc).__name__}: {exc}"
            self._publish()
        return run

    def _publish(self):
        self._published += 1
        state = self._state()
        state.update(n=self._published, error=self.error, note=self.note)
        self.state = state

    def _state(self):
        raise NotImplementedError

    # -- the page host and the static picture ---------------------------------------------
    def _page(self):
        """What the page needs beyond spec and state to answer the view (see page.js)."""
        return {}

    def figure(self):
        """A new matplotlib figure of the current state (e.g. for ``al.viz.show``)."""
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None):
        data, meta = super()._repr_mimebundle_()
        picture, picture_meta = viz.picture(self.figure())._repr_mimebundle_()
        data = {**data, **picture, "text/plain": self.summary(),
                PAGE_MIME: {"module": self.kind, "spec": self.spec, "state": self.state,
                            "page": self._page()}}
        return viz.mime_subset(data, include, exclude), {**(meta or {}), **picture_meta}

    def __repr__(self):
        return self.summary()

    def summary(self):
        raise NotImplementedError

    def _problem_suffix(self):
        out = ""
        if self.error:
            out += f" | problem: {self.error}"
        if self.note:
            out += f" | note: {self.note}"
        return out
