"""Explorers: widgets in which a reader changes a seed and watches the gradients.

SeedExplorer (the seed of ``backward``), WhereExplorer (``where``'s mask and threshold),
JacobianExplorer (the Jacobian row by row or in one batched pass) and
GradOutputsExplorer (``grad_outputs`` of the output's full shape).

Every number an explorer shows comes from calling autograd_lab -- ``backward(v)``,
``autograd.grad``, a batched ``grad`` -- never from a formula written here.  Every
explorer

- can be driven from code (``ex.seed = [[1, 0]]``, ``ex.threshold = 3``) and read
  (``ex.grad``, ``ex.error``), so tests need no browser;
- draws its current state with ``ex.figure()`` (a fresh matplotlib figure, e.g. for
  ``al.viz.show``) and, when displayed, gives the live widget view plus a PNG
  (``image/png``, its alt text in the output metadata) and a short ``text/plain``
  summary, so a page rendered without a kernel still shows the picture;
- prints nothing when created, and never raises from a callback: a wrong shape, text
  that is not a list of numbers, NaN or inf in a result, an overflowing seed -- all are
  shown in the widget and stored as text in ``ex.error`` (advice that is not an error,
  such as "the seed is all zeros", goes to ``ex.note``).

ipywidgets is an optional extra: ``pip install 'autograd_lab[viz]'``.
"""
import ast
import base64
import contextlib
import math
import warnings

import numpy as np

try:
    import ipywidgets as W
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("autograd_lab.widgets needs ipywidgets (and matplotlib), optional extras "
                      "of autograd_lab: pip install 'autograd_lab[viz]'") from exc

from . import viz
from .autograd import count_passes
from .creation import tensor as _tensor
from .engine import grad as _grad
from .functions import sqrt as _sqrt, where as _where
from .tensor import Tensor

MAX_SLIDERS = 8          # seeds with more entries get a text field instead of sliders


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


def _as_numbers(value):
    """A seed, x or y given as a tensor, array, list, number or text -> a float array."""
    if isinstance(value, Tensor):
        return np.array(value._data, dtype=np.float64)
    if isinstance(value, str):
        return parse_numbers(value)
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"expected numbers (a list, array or tensor), got {value!r}") from None
    return a


def _fmt(a):
    """An array as text a reader can edit: ``[[1., 0.5]]``."""
    return viz._nested(np.asarray(a), viz._num)


def _index_labels(name, shape):
    if len(shape) == 0:
        return [name]
    return [f"{name}[{','.join(str(int(i)) for i in idx)}]" for idx in np.ndindex(*shape)]


def _short(t, width=40):
    return "None" if t is None else viz.summary(t, width)


def _problems(name, a):
    """Text naming the NaN / inf entries of ``a``, or None."""
    if a is None:
        return None
    a = np.asarray(a._data if isinstance(a, Tensor) else a)
    if a.dtype.kind != "f" or np.isfinite(a).all():
        return None
    where_nan = [tuple(int(i) for i in ix) if a.ndim > 1 else int(ix[0])
                 for ix in np.argwhere(np.isnan(a))][:6]
    where_inf = [tuple(int(i) for i in ix) if a.ndim > 1 else int(ix[0])
                 for ix in np.argwhere(np.isinf(a))][:6]
    parts = []
    if where_nan:
        parts.append(f"nan at {', '.join(map(str, where_nan))}")
    if where_inf:
        parts.append(f"inf at {', '.join(map(str, where_inf))}")
    return f"{name} has " + " and ".join(parts)


def _html_escape(s):
    import html
    return html.escape(str(s))


@contextlib.contextmanager
def _quiet():
    """No NumPy warnings on stderr: an explorer reports NaN, inf and overflow itself."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


# -- what every explorer shares ---------------------------------------------------------------
class _Explorer:
    """Status line, live picture, mime bundle and the never-raise guard."""

    kind = "Explorer"

    def _init_view(self):
        self.error = None
        self.note = None
        self._shown = False
        self._painter = None
        self._live = None
        self._views = []                 # LiveViews of the last few layouts, newest first
        self._status = W.HTML(layout=W.Layout(min_height="1.6em"))
        self._readout = W.HTML()
        self._image = W.Image(format="png", layout=W.Layout(max_width="100%", height="auto"))

    def _start(self, fn, x, names, title):
        """The start shared by the explorers of y = fn(x): check x, make the view, and run
        fn once on a fresh leaf copy of x.  Returns (y, that copy)."""
        _check_input(x, self.kind)
        self._init_view()
        self.fn, self.x, self.names, self.title = fn, x, tuple(names), title
        xc = _leaf_copy(x)
        y = _checked_output(fn, xc, self.kind)
        self._shape, self._dtype = tuple(y.shape), y._data.dtype
        return y, xc

    def _guard(self, fn):
        """Wrap a widget callback: anything it raises is shown, never propagated."""
        def run(*args, **kwargs):
            try:
                with _quiet():                       # overflow etc. are reported as .error
                    fn(*args, **kwargs)
            except Exception as exc:                     # noqa: BLE001 - shown in the widget
                self.error = f"{type(exc).__name__}: {exc}"
                try:
                    self._refresh()
                except Exception:                        # noqa: BLE001 - last resort
                    self._status.value = self._status_html()
        return run

    def _status_html(self):
        parts = []
        if self.error:
            parts.append('<div style="border-left:4px solid #D55E00;background:#fbe3d6;color:#1e1e1e;'
                         f'padding:4px 8px;margin:2px 0"><b>Problem:</b> {_html_escape(self.error)}</div>')
        if self.note:
            parts.append('<div style="border-left:4px solid #0072B2;background:#dcecf7;color:#1e1e1e;'
                         f'padding:4px 8px;margin:2px 0">{_html_escape(self.note)}</div>')
        return "".join(parts)

    def _refresh(self):
        if self._shown:
            try:
                self._image.value = self._live_png()
            except Exception as exc:                     # noqa: BLE001 - keep the last picture
                self._painter = self._live = None
                self._views = []
                self.error = (self.error + "; " if self.error else "") + f"could not draw this state: {exc}"
        self._status.value = self._status_html()
        self._readout.value = self._readout_html()

    def _live_png(self):
        """Redraw the live picture.  The last few layouts are kept (a switch back and
        forth reuses them); in a kept layout only the numbers and colours that changed
        are redrawn over a cached background (viz.LiveView); else a new figure."""
        fits = [view for view in self._views if self._fits(view.picture)]
        painter = self._paint(fits[0].picture if fits else None)
        view = next((v for v in self._views if v.picture is painter), None)
        if view is None:
            view = viz.LiveView(painter)
        self._views = [view] + [v for v in self._views if v is not view][:3]
        self._painter, self._live = painter, view
        return view.png()

    def figure(self):
        """A new figure of the current state (e.g. for ``al.viz.show``)."""
        return self._paint(None).fig

    def _repr_mimebundle_(self, include=None, exclude=None):
        self._shown = True
        self._refresh()
        data = dict(self._root._repr_mimebundle_(include=include, exclude=exclude) or {})
        data["text/plain"] = self.summary()
        meta = {}
        if self._image.value and self._painter is not None:
            png = viz.compact_png(self._image.value)
            data["image/png"] = base64.b64encode(png).decode("ascii")
            meta["image/png"] = {"alt": viz.alt_text(self._painter.fig)}
        if include:
            data = {k: v for k, v in data.items() if k in include}
        if exclude:
            data = {k: v for k, v in data.items() if k not in exclude}
        return data, meta

    def __repr__(self):
        return self.summary()

    def _problem_suffix(self):
        out = ""
        if self.error:
            out += f" | problem: {self.error}"
        if self.note:
            out += f" | note: {self.note}"
        return out


def _leaf_copy(x):
    """A fresh leaf with x's values: the explorer's backward passes never touch x.grad."""
    t = _tensor(np.array(x._data, copy=True))
    t.requires_grad_(True)
    return t


def _check_input(x, who):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who} needs x as an autograd_lab tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"{who} needs a floating-point x (only floats have gradients), "
                        f"got dtype {x.dtype}")


def _checked_output(fn, xc, who):
    y = fn(xc)
    if not isinstance(y, Tensor):
        raise TypeError(f"{who}: fn(x) must return an autograd_lab tensor, got {type(y).__name__}")
    if not y.requires_grad:
        raise ValueError(f"{who}: fn(x) does not depend on x (its result has no grad_fn), so "
                         "there is no gradient to explore")
    return y


def _one_hot(shape, flat_index):
    e = np.zeros(shape)
    e.reshape(-1)[flat_index] = 1.0
    return e


def _batched_jacobian(y, xc):
    """J with y.shape + x.shape, from ONE batched backward pass (one one-hot seed per
    output entry, all sent through the graph at once)."""
    m = y.numel()
    seeds = np.eye(m).reshape((m,) + tuple(y.shape))
    (g,) = _grad(y, xc, grad_outputs=_tensor(seeds.astype(y._data.dtype)), is_grads_batched=True,
                 retain_graph=True)
    return g._data.reshape(tuple(y.shape) + tuple(xc.shape))


def _seed_overflow(v, dtype):
    with np.errstate(all="ignore"):
        cast = v.astype(dtype)
    if np.isfinite(v).all() and not np.isfinite(cast).all():
        big = v.reshape(-1)[np.argmax(~np.isfinite(cast).reshape(-1))]
        return (f"the seed entry {big:g} does not fit in {np.dtype(dtype).name} (largest "
                f"{np.finfo(dtype).max:.4g}): it becomes inf, and the gradient with it")
    return None


# ==============================================================================================
class SeedExplorer(_Explorer):
    """Choose the seed v of ``y.backward(v)`` and watch ``x.grad = vᵀJ``.

    ``fn`` maps x to y (any shape).  Sliders set v for outputs of up to 8 entries (a text
    field takes a list for bigger ones); preset buttons give each one-hot seed, "ones"
    and "mean" (1/n each: the seed of ``y.mean()``).  Each change runs a real
    ``y.backward(v)`` on a fresh copy of x; the picture shows the Jacobian (computed
    once, by one batched backward pass) with its rows weighted by v, and x.grad under it.

    Read: ``.y``, ``.seed``, ``.grad`` (x.grad from the backward), ``.jacobian``
    (y.shape + x.shape), ``.presets``, ``.error``, ``.note``.
    """

    kind = "SeedExplorer"

    def __init__(self, fn, x, seed=None, *, names=("x", "y"), title=None):
        with _quiet():                               # creating prints nothing
            self._init(fn=fn, x=x, seed=seed, names=names, title=title)

    def _init(self, fn, x, seed, names, title):
        y, xc = self._start(fn, x, names, title)
        self.y = y.detach()
        try:
            J = _batched_jacobian(y, xc)
        except Exception:                                # noqa: BLE001 - an op without batch
            J = self._rows(fn, x)                        # support: one backward per row
        self.jacobian = _tensor(J)
        n = y.numel()
        self.presets = {}
        if n > 1:
            for i, idx in enumerate(np.ndindex(*self._shape)):
                key = f"one-hot {idx[0] if len(idx) == 1 else idx}"
                self.presets[key] = _one_hot(self._shape, i)
        self.presets["ones"] = np.ones(self._shape)
        self.presets["mean"] = np.full(self._shape, 1.0 / n)
        self._seed = np.ones(self._shape)
        self.grad = None
        self._syncing = False
        self._build()
        self._apply(self.presets["ones"] if seed is None else seed, sync=True)

    def _rows(self, fn, x):
        rows = []
        for i in range(int(np.prod(self._shape))):
            xc = _leaf_copy(x)
            (g,) = _grad(fn(xc), xc, grad_outputs=_tensor(_one_hot(self._shape, i)))
            rows.append(g._data)
        return np.stack(rows).reshape(self._shape + tuple(x.shape))

    # -- widgets -------------------------------------------------------------------------
    def _build(self):
        xn, yn = self.names
        labels = _index_labels("v", self._shape)
        self._sliders = []
        self._text = None
        if int(np.prod(self._shape)) <= MAX_SLIDERS:
            for lab in labels:
                s = W.FloatSlider(value=1.0, min=-2.0, max=2.0, step=0.05, description=lab,
                                  readout_format=".2f", continuous_update=True,
                                  layout=W.Layout(width="340px"))
                s.observe(self._guard(self._on_slider), names="value")
                self._sliders.append(s)
            controls = W.VBox(self._sliders)
        else:
            self._text = W.Text(description="seed v", continuous_update=False,
                                layout=W.Layout(width="95%"))
            self._text.observe(self._guard(self._on_text), names="value")
            controls = self._text
        buttons = []
        for name in self.presets:
            b = W.Button(description=name, layout=W.Layout(width="auto"))
            b.on_click(self._guard(lambda _b, name=name: self.use_preset(name)))
            buttons.append(b)
        head = W.HTML(f"<b>{_html_escape(self.title or f'{yn}.backward(v): the seed v weights the rows of the Jacobian')}</b><br>"
                      f"{yn} = fn({xn}) has shape {viz._shape_str(self._shape)}; every change runs "
                      f"<code>{yn}.backward(v)</code> and shows <code>{xn}.grad = vᵀJ</code>.")
        self._root = W.VBox([head, W.HBox([controls, self._readout]), W.HBox(buttons, layout=W.Layout(flex_flow="row wrap")),
                             self._status, self._image])

    def _on_slider(self, change):
        if self._syncing:
            return
        self._apply(np.array([s.value for s in self._sliders]).reshape(self._shape), sync=False)

    def _on_text(self, change):
        if self._syncing:
            return
        self._apply(change["new"], sync=False)

    def _sync(self):
        self._syncing = True
        try:
            if self._sliders and self._seed.shape == self._shape:
                for s, v in zip(self._sliders, self._seed.reshape(-1)):
                    if np.isfinite(v) and abs(v) <= 1e6:
                        s.min, s.max = min(-2.0, math.floor(v)), max(2.0, math.ceil(v))
                        s.value = float(v)
            if self._text is not None:
                self._text.value = _fmt(self._seed)
        finally:
            self._syncing = False

    # -- the programmatic API -----------------------------------------------------------------
    @property
    def seed(self):
        with np.errstate(all="ignore"):
            return _tensor(self._seed.astype(self._dtype))

    @seed.setter
    def seed(self, value):
        self._guard(self._apply)(value, sync=True)

    def use_preset(self, name):
        """Set the seed to one of ``.presets``."""
        if name not in self.presets:
            self.error = f"no preset {name!r}; the presets are {', '.join(map(repr, self.presets))}"
            self._refresh()
            return
        self._guard(self._apply)(self.presets[name], sync=True)

    def _apply(self, value, sync):
        self.error = self.note = None
        self.grad = None
        v = _as_numbers(value)
        self._seed = v
        if sync:
            self._sync()
        self._compute()
        self._refresh()

    def _compute(self):
        xn, yn = self.names
        v = self._seed
        xc = _leaf_copy(self.x)
        y = self.fn(xc)
        try:
            y.backward(_tensor(v), inputs=[xc])
        except RuntimeError as exc:                      # the engine's own words
            self.error = str(exc)
            return
        self.grad = xc.grad
        problems = [_seed_overflow(v, self._dtype), _problems(yn, y), _problems(f"{xn}.grad", self.grad)]
        problems = [p for p in problems if p]
        if problems:
            self.error = "; ".join(problems)
        if np.all(v == 0):
            self.note = (f"The seed is all zeros: the loss it stands for ignores {yn}, so every "
                         f"entry of {xn}.grad is 0.")

    # -- views ---------------------------------------------------------------------------------
    def _readout_html(self):
        xn, yn = self.names
        rows = [(yn, self.y), ("v", self.seed), (f"{xn}.grad", self.grad)]
        return ("<pre style='margin:0 0 0 12px;font-size:12px'>" +
                "\n".join(f"{k:>8} = {_html_escape(_short(t, 60))}" for k, t in rows) + "</pre>")

    def _view(self):
        xn, yn = self.names
        m = int(np.prod(self._shape))
        J2 = self.jacobian._data.reshape(m, -1)
        ok = self.grad is not None and self._seed.shape == self._shape
        title = self.title or f"{yn}.backward(v) gives {xn}.grad = vᵀJ"
        note = f"v = {_short(self.seed)}   {xn}.grad from backward = {_short(self.grad)}"
        if self.error:
            note = f"Problem: {self.error}  |  " + note
        return J2, dict(seed=self._seed.reshape(-1) if ok else None,
                        vjp=self.grad._data.reshape(-1) if ok else None, title=title, note=note)

    def _fits(self, painter):
        J2, kw = self._view()
        return isinstance(painter, viz._JacobianPicture) and painter.compatible(J2, kw["seed"], kw["vjp"])

    def _paint(self, painter):
        xn, yn = self.names
        J2, kw = self._view()
        if painter is not None and painter.compatible(J2, kw["seed"], kw["vjp"]):
            painter.update(J2, **kw)
            return painter
        return viz._JacobianPicture(J2, row_labels=_index_labels(yn, self._shape),
                                    col_labels=_index_labels(xn, tuple(self.x.shape)),
                                    vjp_label=f"{xn}.grad", **kw)

    def summary(self):
        xn, yn = self.names
        return (f"SeedExplorer: {yn} = {_short(self.y)}; seed v = {_short(self.seed)}; "
                f"{xn}.grad = {_short(self.grad)} (from {yn}.backward(v))" + self._problem_suffix())


# ==============================================================================================
class WhereExplorer(_Explorer):
    """``out = where(x > threshold, x, y)``: which entries come from x, which from y, and
    where the gradient of ``L = out.sum()`` goes.

    ``sqrt_branch=True`` computes ``where(x > t, sqrt(x), y)``: at entries with x <= 0 the
    discarded branch is NaN (or inf) and x.grad becomes NaN there although the forward
    result is fine (where sends 0, sqrt's rule turns 0 x inf into NaN).
    ``double_where=True`` applies the fix ``where(x > t, sqrt(where(x > t, x, 1)), y)``.
    Everything is computed by ``al.where`` and a real backward.

    Settable: ``.threshold``, ``.x``, ``.y``, ``.sqrt_branch``, ``.double_where``.  Read:
    ``.mask``, ``.out``, ``.grad_x``, ``.grad_y``, ``.condition_grad`` (always None: a
    bool mask never gets a gradient), ``.error``, ``.note``.
    """

    kind = "WhereExplorer"

    def __init__(self, x, y, threshold=2.0, *, sqrt_branch=False, double_where=False, title=None):
        with _quiet():                               # creating prints nothing
            self._init(x=x, y=y, threshold=threshold, sqrt_branch=sqrt_branch, double_where=double_where, title=title)

    def _init(self, x, y, threshold, sqrt_branch, double_where, title):
        self._init_view()
        self.title = title
        self._x = _as_numbers(x).astype(np.float32)
        self._y = _as_numbers(y).astype(np.float32)
        self._t = float(threshold)
        self._sqrt = bool(sqrt_branch)
        self._double = bool(double_where)
        self.mask = self.out = self.grad_x = self.grad_y = self.condition_grad = None
        self.branch = self.branch_grad = None
        self._syncing = False
        self._build()
        self._update()

    def _build(self):
        self._slider = W.FloatSlider(value=self._t, step=0.1, description="threshold t",
                                     continuous_update=True, layout=W.Layout(width="420px"))
        self._slider.observe(self._guard(self._on_threshold), names="value")
        self._xbox = W.Text(description="x", continuous_update=False, layout=W.Layout(width="420px"))
        self._ybox = W.Text(description="y", continuous_update=False, layout=W.Layout(width="420px"))
        self._xbox.observe(self._guard(lambda ch: None if self._syncing else self._set("x", ch["new"])),
                           names="value")
        self._ybox.observe(self._guard(lambda ch: None if self._syncing else self._set("y", ch["new"])),
                           names="value")
        self._sqrt_box = W.Checkbox(value=self._sqrt, description="sqrt(x) as the x branch (NaN pitfall)",
                                    indent=False)
        self._double_box = W.Checkbox(value=self._double, description="double-where fix", indent=False)
        self._sqrt_box.observe(self._guard(lambda ch: None if self._syncing else self._set("sqrt", ch["new"])),
                               names="value")
        self._double_box.observe(self._guard(lambda ch: None if self._syncing else self._set("double", ch["new"])),
                                 names="value")
        head = W.HTML(f"<b>{_html_escape(self.title or 'where(x > t, x, y): the mask routes values forward and gradients back')}</b><br>"
                      "Move t, edit x and y: the picture shows which entries of out come from x or y, "
                      "and where the gradient of <code>L = out.sum()</code> goes. The condition gets none.")
        self._root = W.VBox([head, self._slider, self._xbox, self._ybox,
                             W.HBox([self._sqrt_box, self._double_box]), self._status, self._readout,
                             self._image])

    def _sync(self):
        self._syncing = True
        try:
            vals = [self._t] + [float(v) for v in self._x.reshape(-1) if np.isfinite(v)]
            lo, hi = math.floor(min(vals)) - 1.0, math.ceil(max(vals)) + 1.0
            if abs(lo) < 1e6 and abs(hi) < 1e6:
                self._slider.min, self._slider.max = -1e6, 1e6      # never clip while moving
                self._slider.min, self._slider.max = lo, hi
                self._slider.value = self._t
            self._xbox.value = _fmt(self._x)
            self._ybox.value = _fmt(self._y)
            self._sqrt_box.value = self._sqrt
            self._double_box.value = self._double
        finally:
            self._syncing = False

    def _on_threshold(self, change):
        if not self._syncing:
            self._set("t", change["new"], sync=False)

    def _set(self, what, value, sync=True):
        if what == "t":
            t = float(_as_numbers(value))
            self._t = t
        elif what == "x":
            self._x = _as_numbers(value).astype(np.float32)
        elif what == "y":
            self._y = _as_numbers(value).astype(np.float32)
        elif what == "sqrt":
            self._sqrt = bool(value)
        elif what == "double":
            self._double = bool(value)
        self._update(sync)

    # settable properties (each one recomputes; bad values are shown, not raised)
    threshold = property(lambda self: self._t,
                         lambda self, v: self._guard(self._set)("t", v))
    x = property(lambda self: _tensor(self._x), lambda self, v: self._guard(self._set)("x", v))
    y = property(lambda self: _tensor(self._y), lambda self, v: self._guard(self._set)("y", v))
    sqrt_branch = property(lambda self: self._sqrt, lambda self, v: self._guard(self._set)("sqrt", v))
    double_where = property(lambda self: self._double,
                            lambda self, v: self._guard(self._set)("double", v))

    def _update(self, sync=True):
        self.error = self.note = None
        self.mask = self.out = self.grad_x = self.grad_y = self.condition_grad = None
        self.branch = self.branch_grad = None
        if sync:
            self._sync()
        try:
            self._compute()
        finally:
            self._refresh()

    def _compute(self):
        xt = _tensor(self._x, requires_grad=True)
        yt = _tensor(self._y, requires_grad=True)
        mask = xt > self._t
        if self._sqrt:
            inner = _where(mask, xt, 1.0) if self._double else xt
            branch = _sqrt(inner)
            branch.retain_grad()
        else:
            branch = xt
        try:
            out = _where(mask, branch, yt)
        except RuntimeError as exc:                   # e.g. x and y of different lengths
            self.error = str(exc)
            self.mask = mask
            return
        out.backward(_tensor(np.ones(out.shape, np.float32)))
        self.mask, self.out = mask, out.detach()
        self.grad_x, self.grad_y = xt.grad, yt.grad
        self.condition_grad = mask.grad               # None: the mask is a constant
        if self._sqrt:
            self.branch, self.branch_grad = branch.detach(), branch.grad
        problems = []
        bad_out = _problems("out", self.out)
        if bad_out:
            problems.append(bad_out + " (sqrt of a negative x was selected: move t above 0)"
                            if self._sqrt else bad_out)
        bad_x = _problems("x.grad", self.grad_x)
        if bad_x:
            if self._sqrt and not self._double:
                bad_x += (" although out is finite: the discarded branch sqrt(x) is nan or inf "
                          "there, and sqrt's rule multiplies where's 0 by an infinite slope (0 x inf "
                          "= nan). Tick the double-where fix.")
            problems.append(bad_x)
        if problems:
            self.error = "; ".join(problems)
        if self._double and not self._sqrt:
            self.note = "The double-where fix only matters with the sqrt branch switched on."

    def _readout_html(self):
        rows = [("mask", self.mask), ("out", self.out), ("x.grad", self.grad_x), ("y.grad", self.grad_y),
                ("cond.grad", self.condition_grad)]
        return ("<pre style='margin:0;font-size:12px'>" +
                "\n".join(f"{k:>9} = {_html_escape(_short(t, 60))}" for k, t in rows) + "</pre>")

    def _rows(self):
        t = viz._num(self._t)
        if self.out is None:
            rows = [viz._Row("x", viz._value_cells(self._x.reshape(-1))),
                    viz._Row("y", viz._value_cells(self._y.reshape(-1))),
                    viz._Row("problem", merged=(self.error or "")[:90], color=viz.VERMILLION)]
            return rows
        g = np.ones(self.out.shape, np.float32)
        if not self._sqrt:
            rows = viz.where_rows(self.mask, self._x, self._y, self.out, g=g, grad_a=self.grad_x,
                                  grad_b=self.grad_y, names=("x", "y"))
            rows[1].label = f"cond = x > {t}"
            return rows
        a_label = "sqrt(where(cond, x, 1))" if self._double else "sqrt(x)"
        x_row = viz._Row("x", viz._value_cells(self._x.reshape(-1)))
        grad_x_row = viz._Row("x.grad", viz._value_cells(self.grad_x._data.reshape(-1), viz.TRUE_FILL,
                                                          viz.INK, self.mask._data.reshape(-1)))
        rows = viz.where_rows(self.mask, self.branch, self._y, self.out, g=g, grad_a=self.branch_grad,
                              grad_b=self.grad_y, names=(a_label, "y"), after_a_grad=[grad_x_row])
        rows[1].label = f"cond = x > {t}"
        rows[5].label = f"∂L/∂{a_label}"
        return [x_row] + rows

    def _view(self):
        rows = self._rows()
        if self.out is not None and self._sqrt:
            expr = ("where(x > t, sqrt(where(x > t, x, 1)), y)" if self._double else "where(x > t, sqrt(x), y)")
        else:
            expr = "where(x > t, x, y)"
        title = self.title or f"{expr} with t = {viz._num(self._t)}"
        legend = viz._WHERE_LEGEND
        if self.error:
            legend = "Problem: " + self.error + " " + legend
        return rows, title, legend

    def _fits(self, painter):
        rows, title, legend = self._view()
        return isinstance(painter, viz._TablePicture) and painter.compatible(rows, legend)

    def _paint(self, painter):
        rows, title, legend = self._view()
        if painter is not None and painter.compatible(rows, legend):
            painter.update(rows, title=title, legend=legend)
        else:
            painter = viz._TablePicture(rows, col_labels=[str(k) for k in range(self._x.size)],
                                        title=title, legend=legend)
        painter.fig._al_alt = self._alt()
        return painter

    def _alt(self):
        if self.out is None:
            return f"where explorer with threshold {viz._num(self._t)}: {self.error}"
        return (f"Table for {('the sqrt branch, ' if self._sqrt else '')}where(x > {viz._num(self._t)}, …): "
                f"mask {_short(self.mask)}, out {_short(self.out)}, x.grad {_short(self.grad_x)}, "
                f"y.grad {_short(self.grad_y)}; the condition receives no gradient.")

    def summary(self):
        return (f"WhereExplorer: t = {viz._num(self._t)}, sqrt_branch={self._sqrt}, "
                f"double_where={self._double}; mask = {_short(self.mask)}; out = {_short(self.out)}; "
                f"x.grad = {_short(self.grad_x)}; y.grad = {_short(self.grad_y)}; cond.grad = None"
                + self._problem_suffix())


# ==============================================================================================
class JacobianExplorer(_Explorer):
    """Build the Jacobian of ``fn`` at x row by row -- one backward pass per one-hot seed
    (``.step()``) -- or all at once with one batched backward pass (``.all_at_once()``:
    ``autograd.grad(..., is_grads_batched=True)`` with every one-hot seed stacked), and
    compare what each way costs (``.passes``, counted by ``al.autograd.count_passes``).

    Read: ``.J`` (outputs x inputs, NaN rows not computed yet), ``.rows_done``,
    ``.passes`` (counts since the last reset), ``.costs`` (the counts of each finished
    way), ``.way``, ``.error``.
    """

    kind = "JacobianExplorer"

    def __init__(self, fn, x, *, names=("x", "y"), title=None):
        with _quiet():                               # creating prints nothing
            self._init(fn=fn, x=x, names=names, title=title)

    def _init(self, fn, x, names, title):
        y, _ = self._start(fn, x, names, title)
        self.costs = {}
        self.m, self.n = y.numel(), x.numel()
        self._build()
        self.reset()

    def _build(self):
        b_step = W.Button(description="step: next one-hot seed", layout=W.Layout(width="auto"))
        b_all = W.Button(description="all at once (one batched pass)", layout=W.Layout(width="auto"))
        b_reset = W.Button(description="reset", layout=W.Layout(width="auto"))
        b_step.on_click(self._guard(lambda _b: self.step()))
        b_all.on_click(self._guard(lambda _b: self.all_at_once()))
        b_reset.on_click(self._guard(lambda _b: self.reset()))
        xn, yn = self.names
        head = W.HTML(f"<b>{_html_escape(self.title or 'Reconstructing the Jacobian')}</b><br>"
                      f"Each step sends one one-hot seed eᵢ through <code>autograd.grad({yn}, {xn}, "
                      "grad_outputs=eᵢ)</code> and fills row i; the batched button sends all of them "
                      "in one pass.")
        self._root = W.VBox([head, W.HBox([b_step, b_all, b_reset]), self._status, self._readout,
                             self._image])

    def _forward(self, counter):
        self._xc = _leaf_copy(self.x)
        counter.forward += 1                          # one evaluation of fn
        self._y = self.fn(self._xc)

    def reset(self):
        """Forget all rows and run the forward pass again."""
        self._guard(self._reset)()

    def _reset(self):
        self.error = self.note = None
        try:
            with count_passes() as c:
                self._forward(c)
            self.passes = c.as_dict()
            self._J = np.full((self.m, self.n), np.nan, dtype=self._dtype)
            self.rows_done = 0
            self.way = "row by row"
            self._last = None
        finally:
            self._refresh()

    def step(self):
        """One backward pass with the next one-hot seed: fills the next row of J."""
        self._guard(self._step)()

    def _step(self):
        self.error = self.note = None
        if self.rows_done >= self.m:
            self.note = f"All {self.m} rows are done; reset() to start again."
            self._refresh()
            return
        if self.way != "row by row":
            self._reset()
            self.error = self.note = None
        i = self.rows_done
        with count_passes() as c:
            (g,) = _grad(self._y, self._xc, grad_outputs=_tensor(_one_hot(self._shape, i).astype(self._y._data.dtype)),
                         retain_graph=True)
        self._add(c)
        self._J[i] = g._data.reshape(-1)
        self.rows_done = i + 1
        self._last = i
        if self.rows_done == self.m:
            self.costs["row by row"] = dict(self.passes)
        self._check()
        self._refresh()

    def all_at_once(self):
        """A fresh forward pass and ONE batched backward pass that fills every row."""
        self._guard(self._all)()

    def _all(self):
        self.error = self.note = None
        with count_passes() as c:
            self._forward(c)
            J = _batched_jacobian(self._y, self._xc)
        self.passes = c.as_dict()
        self._J = J.reshape(self.m, self.n).astype(self._dtype)
        self.rows_done = self.m
        self.way = "all at once"
        self._last = None
        self.costs["all at once"] = dict(self.passes)
        self._check()
        self._refresh()

    def _add(self, c):
        for k, v in c.as_dict().items():
            self.passes[k] = self.passes.get(k, 0) + v

    def _check(self):
        bad = _problems("J", self._J[:self.rows_done])
        if bad:
            self.error = bad + " (the function or its derivative is not finite at this x)"

    @property
    def J(self):
        return _tensor(self._J.copy())

    def _cost_text(self):
        p = self.passes
        now = (f"{self.way}: {p['forward']} forward, {p['backward']} backward "
               f"pass{'es' if p['backward'] != 1 else ''} for {self.rows_done} of {self.m} rows")
        done = [f"{k}: {v['forward']} forward + {v['backward']} backward" for k, v in self.costs.items()]
        return now + ("  |  finished: " + "; ".join(done) if done else "")

    def _readout_html(self):
        return f"<pre style='margin:0;font-size:12px'>{_html_escape(self._cost_text())}</pre>"

    def _view(self):
        pending = tuple(range(self.rows_done, self.m))
        seed = vjp = label = None
        if self._last is not None:
            seed = _one_hot((self.m,), self._last)
            vjp = self._J[self._last]
            label = f"row {self._last}"
        title = self.title or (f"J filled row by row: {self.rows_done} of {self.m}" if self.way == "row by row"
                               else f"J from one batched backward pass ({self.m} seeds at once)")
        note = self._cost_text()
        if self.error:
            note = f"Problem: {self.error}  |  " + note
        return dict(seed=seed, vjp=vjp, vjp_label=label, title=title, highlight=self._last,
                    pending=pending, note=note)

    def _fits(self, painter):
        kw = self._view()
        return isinstance(painter, viz._JacobianPicture) and painter.compatible(self._J, kw["seed"], kw["vjp"])

    def _paint(self, painter):
        xn, yn = self.names
        kw = self._view()
        if painter is not None and painter.compatible(self._J, kw["seed"], kw["vjp"]):
            painter.update(self._J, **kw)
            return painter
        return viz._JacobianPicture(self._J, row_labels=_index_labels(yn, self._shape),
                                    col_labels=_index_labels(xn, tuple(self.x.shape)), **kw)

    def summary(self):
        return (f"JacobianExplorer: {self.rows_done} of {self.m} rows ({self.way}); passes "
                f"forward={self.passes['forward']}, backward={self.passes['backward']}; "
                f"J = {_short(self._J, 60)}" + self._problem_suffix())


# ==============================================================================================
class GradOutputsExplorer(_Explorer):
    """Edit ``grad_outputs`` -- a seed with the output's full shape -- and watch
    ``autograd.grad(y, x, grad_outputs=seed)``.

    Presets: "ones" (L = y.sum()), "one-hot" (L = one entry; ``use_preset("one-hot",
    index=(j, k))``), and for a 2-D y "upper triangle" and (square y) "diagonal"; free
    entry through ``set_seed_text("[[...]]")`` or the grid of cells.  A seed of the wrong
    shape is passed to the engine anyway: its error text appears in the widget and in
    ``.error``.  Read: ``.seed``, ``.grad``, ``.loss``, ``.error``.
    """

    kind = "GradOutputsExplorer"

    def __init__(self, fn, x, seed=None, *, names=("x", "y"), title=None):
        with _quiet():                               # creating prints nothing
            self._init(fn=fn, x=x, seed=seed, names=names, title=title)

    def _init(self, fn, x, seed, names, title):
        y, _ = self._start(fn, x, names, title)
        self.y = y.detach()
        self.presets = {"ones": np.ones(self._shape), "one-hot": _one_hot(self._shape, 0)}
        if len(self._shape) == 2:
            self.presets["upper triangle"] = np.triu(np.ones(self._shape))
            if self._shape[0] == self._shape[1]:
                self.presets["diagonal"] = np.eye(self._shape[0])
        self._seed = np.ones(self._shape)
        self.grad = None
        self.preset = None
        self._index = (0,) * len(self._shape)
        self._syncing = False
        self._build()
        if seed is None:
            self.use_preset("ones")
        else:
            self.seed = seed

    def _build(self):
        xn, yn = self.names
        buttons = []
        for name in self.presets:
            b = W.Button(description=name, layout=W.Layout(width="auto"))
            b.on_click(self._guard(lambda _b, name=name: self.use_preset(name, index=self._index)))
            buttons.append(b)
        self._index_boxes = [W.BoundedIntText(value=0, min=0, max=max(s - 1, 0), description=f"index {k}",
                                              layout=W.Layout(width="150px"))
                             for k, s in enumerate(self._shape)]
        for box in self._index_boxes:
            box.observe(self._guard(self._on_index), names="value")
        self._textbox = W.Textarea(description="seed", continuous_update=False,
                                   layout=W.Layout(width="95%", height="5em"))
        self._textbox.observe(self._guard(lambda ch: None if self._syncing else self.set_seed_text(ch["new"])),
                              names="value")
        self._cells = []
        grid = None
        if 1 <= len(self._shape) <= 2 and int(np.prod(self._shape)) <= 36:
            rows, cols = (self._shape if len(self._shape) == 2 else (1, self._shape[0]))
            for k in range(rows * cols):
                c = W.FloatText(value=1.0, layout=W.Layout(width="64px"))
                c.observe(self._guard(lambda ch, k=k: None if self._syncing else self._set_entry(k, ch["new"])),
                          names="value")
                self._cells.append(c)
            grid = W.GridBox(self._cells, layout=W.Layout(grid_template_columns=f"repeat({cols}, 70px)"))
        head = W.HTML(f"<b>{_html_escape(self.title or 'grad_outputs is dL/dy: one weight per entry of y')}</b><br>"
                      f"{yn} has shape {viz._shape_str(self._shape)}; the seed must have that shape. Each change runs "
                      f"<code>autograd.grad({yn}, {xn}, grad_outputs=seed)</code>.")
        parts = [head, W.HBox(buttons), W.HBox(self._index_boxes)]
        if grid is not None:
            parts.append(grid)
        parts += [self._textbox, self._status, self._readout, self._image]
        self._root = W.VBox(parts)

    def _on_index(self, change):
        if self._syncing:
            return
        self._index = tuple(int(b.value) for b in self._index_boxes)
        if self.preset == "one-hot":
            self.use_preset("one-hot", index=self._index)

    def _set_entry(self, k, value):
        if self._seed.shape != self._shape:
            self._seed = np.array(self.presets["ones"])
        v = self._seed.copy()
        v.reshape(-1)[k] = float(value)
        self.preset = None
        self._apply(v)

    # -- the programmatic API -----------------------------------------------------------------
    @property
    def seed(self):
        with np.errstate(all="ignore"):
            return _tensor(self._seed.astype(self._dtype))

    @seed.setter
    def seed(self, value):
        self.preset = None
        self._guard(self._apply)(value)

    def set_seed_text(self, text):
        """Free entry: a seed typed as a (nested) list, e.g. ``"[[1, 0], [0, 1]]"``."""
        self.preset = None
        self._guard(self._apply)(str(text), from_text=True)

    def use_preset(self, name, index=None):
        """"ones", "one-hot" (at ``index``, default the first entry), "upper triangle",
        "diagonal"."""
        def run():
            if name not in self.presets:
                raise ValueError(f"no preset {name!r}; the presets are {', '.join(map(repr, self.presets))}")
            if name == "one-hot":
                idx = self._index if index is None else (tuple(index) if np.ndim(index) else (int(index),))
                if len(idx) != len(self._shape) or any(not 0 <= int(i) < s for i, s in zip(idx, self._shape)):
                    raise IndexError(f"index {tuple(idx)} is outside y's shape {viz._shape_str(self._shape)}")
                self._index = tuple(int(i) for i in idx)
                seed = np.zeros(self._shape)
                seed[self._index] = 1.0
            else:
                seed = self.presets[name]
            self._apply(seed)
            self.preset = name
            self._refresh()
        self._guard(run)()

    def _apply(self, value, from_text=False):
        self.error = self.note = None
        self.grad = None
        v = _as_numbers(value)
        self._seed = v
        self._sync(skip_text=from_text)
        self._compute()
        self._refresh()

    def _sync(self, skip_text=False):
        self._syncing = True
        try:
            if not skip_text:
                self._textbox.value = _fmt(self._seed)
            if self._seed.shape == self._shape:
                for c, v in zip(self._cells, self._seed.reshape(-1)):
                    c.value = float(v)
            for b, i in zip(self._index_boxes, self._index):
                b.value = int(i)
        finally:
            self._syncing = False

    def _compute(self):
        xn, yn = self.names
        xc = _leaf_copy(self.x)
        y = self.fn(xc)
        try:
            (g,) = _grad(y, xc, grad_outputs=_tensor(self._seed))
        except RuntimeError as exc:                   # the engine's own words
            self.error = str(exc)
            return
        self.grad = g
        problems = [_seed_overflow(self._seed, y._data.dtype), _problems(f"dL/d{xn}", g)]
        problems = [p for p in problems if p]
        if problems:
            self.error = "; ".join(problems)
        if np.all(self._seed == 0):
            self.note = f"The seed is all zeros: L ignores {yn}, so the gradient is 0."

    @property
    def loss(self):
        """What the seed means as a loss L, with grad_outputs = dL/dy."""
        yn = self.names[1]
        if self._seed.shape != self._shape:
            return f"no loss: the seed's shape {viz._shape_str(self._seed.shape)} is not {yn}'s shape"
        if self.preset == "ones":
            return f"L = {yn}.sum(): every entry of {yn} counts once"
        if self.preset == "one-hot":
            return f"L = {yn}[{', '.join(map(str, self._index))}]: only that entry counts"
        if self.preset == "upper triangle":
            return f"L = sum of {yn}[j, k] for j <= k: the upper triangle, diagonal included"
        if self.preset == "diagonal":
            return f"L = {yn}[0, 0] + {yn}[1, 1] + ...: the trace of {yn}"
        return f"L = (seed * {yn}).sum(): each entry of {yn} weighted by its seed entry"

    def _readout_html(self):
        xn, yn = self.names
        return ("<pre style='margin:0;font-size:12px'>" +
                _html_escape(f"{self.loss}\ngrad returns dL/d{xn} = {_short(self.grad, 60)}") + "</pre>")

    def _view(self):
        xn, yn = self.names
        title = self.title or f"autograd.grad({yn}, {xn}, grad_outputs=seed)"
        caption = f"{self.loss}.  grad returns dL/d{xn} = {_short(self.grad, 60)}"
        seed = self._seed if self._seed.ndim <= 2 else self._seed.reshape(-1, self._seed.shape[-1])
        grad = None if self.grad is None else self.grad._data
        if grad is not None and grad.ndim > 2:
            grad = grad.reshape(-1, grad.shape[-1])
        y = self.y._data if self.y.ndim <= 2 else None
        return seed, grad, dict(title=title, caption=caption, error=self.error, y=y,
                                seed_label=f"seed = grad_outputs {viz._shape_str(self._seed.shape)}")

    def _fits(self, painter):
        seed, grad, kw = self._view()
        return (isinstance(painter, viz._SeedGradPicture)
                and painter.compatible(seed, grad, self.error, y=kw["y"]))

    def _paint(self, painter):
        xn, yn = self.names
        seed, grad, kw = self._view()
        if painter is not None and painter.compatible(seed, grad, self.error, y=kw["y"]):
            painter.update(seed, grad, **kw)
        else:
            painter = viz._SeedGradPicture(seed, grad, grad_label=f"dL/d{xn} (returned; {xn}.grad untouched)",
                                           y_label=f"{yn} {viz._shape_str(self._shape)}", **kw)
        painter.fig._al_alt = (f"Heatmap of the seed grad_outputs (shape {viz._shape_str(self._seed.shape)}) "
                               f"next to the gradient it returns, dL/d{xn} = {_short(self.grad)}; "
                               + (f"error: {self.error}" if self.error else self.loss) + ".")
        return painter

    def summary(self):
        xn, yn = self.names
        return (f"GradOutputsExplorer: seed {viz._shape_str(self._seed.shape)} = {_short(self.seed)}; "
                f"{self.loss}; dL/d{xn} = {_short(self.grad)}" + self._problem_suffix())


__all__ = ["SeedExplorer", "WhereExplorer", "JacobianExplorer", "GradOutputsExplorer", "parse_numbers"]
