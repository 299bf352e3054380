"""Gradient checks, as ``torch.autograd.gradcheck`` and ``gradgradcheck`` do them.

``gradcheck(func, inputs)`` builds the Jacobian of ``func`` two ways and compares them:

* **numerically**, by central differences: nudge one input entry by ``±eps``, rerun
  ``func``, and take ``(f(x + eps) - f(x - eps)) / 2eps`` -- one column of J per entry;
* **analytically**, by the engine: one backward walk per output entry with a one-hot
  seed (``al.autograd.grad``) -- one row of J per walk.

They must agree entrywise: ``|analytical - numerical| <= atol + rtol * |numerical|``.
Finite differences need double precision (in float32 the rounding error of
``f(x ± 1e-6)`` swamps the difference), so inputs that require grad must be float64.

A failed check raises :class:`GradcheckError` naming the output and input (torch's
first line), then shows both Jacobians side by side -- rows are output entries,
columns input entries -- and lists the entries that differ.
"""
import numpy as np

from ..core import engine
from ..core.modes import enable_grad
from ..core.tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "numerical_jacobian",
           "analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a derivative is wrong."""


NOT_DOUBLE = ("Input #{} requires gradient and is not a double precision floating point or "
              "complex. This check will likely fail if all the inputs are not of double "
              "precision floating point or complex. ")

NONDET = ("Backward is not reentrant, i.e., running backward with same input and grad_output "
          "multiple times gives different values, although analytical gradient matches "
          "numerical gradient.The tolerance for nondeterminism was {}.")


# -- inputs and outputs ----------------------------------------------------------------------
def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _check_inputs(inputs):
    """Which inputs are differentiated (tensors that require grad), after checking that
    there is one and that each is float64.  torch only warns about float32; we refuse,
    because a float32 gradcheck fails (or passes) for reasons that have nothing to do
    with the derivative."""
    wanted = []
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad:
            if x._data.dtype != np.float64:
                raise GradcheckError(NOT_DOUBLE.format(i).rstrip() + " (autograd_lab's gradcheck "
                                     f"refuses it: input #{i} is {x.dtype!r}; pass it as "
                                     "dtype=al.float64.)")
            if not x._data.flags.writeable:
                raise RuntimeError(
                    f"The {i}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .clone() on the input before "
                    "passing it to gradcheck.")
            wanted.append(i)
    if not wanted:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    return wanted


def _tensor_outputs(out):
    outs = _as_tuple(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise GradcheckError(f"gradcheck: the function must return a Tensor or a tuple of "
                                 f"Tensors, but it returned a {type(o).__name__}")
    return outs


def _differentiable(outs):
    return [o for o in outs if o.requires_grad]


# -- the two Jacobians -------------------------------------------------------------------------
def numerical_jacobian(func, inputs, wanted, eps, out_index=None):
    """J[output][input] as (out.numel, in.numel) arrays, by central differences.

    Each entry of each differentiated input is nudged in place (so a function that
    closes over its inputs sees the nudge, as in torch) and restored exactly."""
    base = _tensor_outputs(func(*inputs))
    keep = [k for k, o in enumerate(base) if out_index is None or k in out_index]
    jac = [[np.zeros((base[k].numel(), inputs[j].numel())) for j in wanted] for k in keep]
    for col, j in enumerate(wanted):
        data = inputs[j]._data
        for e in range(data.size):
            orig = data.flat[e]
            data.flat[e] = orig - eps
            lo = _snapshot(func(*inputs))      # copies: an output may share the input's memory
            data.flat[e] = orig + eps
            hi = _snapshot(func(*inputs))
            data.flat[e] = orig
            for r, k in enumerate(keep):
                _same_shape(base[k], lo[k], hi[k], e, eps)
                diff = (hi[k]._data.astype(np.float64) - lo[k]._data.astype(np.float64)) / (2 * eps)
                jac[r][col][:, e] = diff.reshape(-1)
    return jac


def _snapshot(out):
    return [Tensor._make(np.array(o._data, copy=True)) for o in _tensor_outputs(out)]


def _same_shape(base, a, b, index, eps):
    for o in (a, b):
        if o.shape != base.shape:
            raise GradcheckError(f"Expected `func` to return outputs with the same shape when "
                                 f"inputs are perturbed on index {index} by {eps}, but got: shapes "
                                 f"{tuple(base.shape)} and {tuple(o.shape)}.")
        if o._data.dtype != base._data.dtype:
            raise GradcheckError(f"Expected `func` to return outputs with the same dtype when "
                                 f"inputs are perturbed on index {index} by {eps}, but got: dtypes "
                                 f"{base.dtype!r} and {o.dtype!r}.")


def analytical_jacobian(output, inputs, check_grad_dtypes=False):
    """J[input] as (out.numel, in.numel) arrays: one backward walk per output entry,
    each seeded with a one-hot tensor (one row of J per walk)."""
    rows = [np.zeros((output.numel(), x.numel())) for x in inputs]
    seed = np.zeros(output.numel(), output._data.dtype)
    for r in range(output.numel()):
        seed[:] = 0
        seed[r] = 1
        grads = engine.grad(output, inputs, Tensor._make(seed.reshape(output.shape).copy()),
                            retain_graph=True, allow_unused=True)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                continue
            if g.shape != x.shape:
                raise GradcheckError("Analytical gradient has incorrect size")
            if check_grad_dtypes and g._data.dtype != x._data.dtype:
                raise GradcheckError("Gradient has dtype mismatch")
            rows[j][r] = g._data.reshape(-1)
    return rows


def _batched_jacobian(output, inputs):
    """The same Jacobian from ONE batched backward walk: all one-hot seeds at once."""
    n = output.numel()
    seeds = np.eye(n, dtype=output._data.dtype).reshape((n,) + output.shape)
    grads = engine.grad(output, inputs, Tensor._make(seeds), retain_graph=True,
                        allow_unused=True, is_grads_batched=True)
    return [np.zeros((n, x.numel())) if g is None else g._data.reshape(n, -1)
            for g, x in zip(grads, inputs)]


def _forward_jacobians(func, inputs, wanted, batched):
    """J[output][input] by forward mode: one pass per input entry (one-hot tangent), or
    one pass per input carrying all its one-hot tangents as a batch."""
    from ..func import forward_pass, tangent_of

    result = None
    for col, j in enumerate(wanted):
        x = inputs[j]
        n = x.numel()
        if batched:
            tangents = [None] * len(inputs)
            tangents[j] = np.eye(n, dtype=x._data.dtype).reshape((n,) + x.shape)
            outs = _tensor_outputs(forward_pass(func, inputs, tangents))
            cols = [tangent_of(o, (n,)).reshape(n, -1).T for o in outs]
        else:
            cols = None
            for e in range(n):
                tangents = [None] * len(inputs)
                t = np.zeros(n, x._data.dtype)
                t[e] = 1
                tangents[j] = t.reshape(x.shape)
                outs = _tensor_outputs(forward_pass(func, inputs, tangents))
                if cols is None:
                    cols = [np.zeros((o.numel(), n)) for o in outs]
                for c, o in zip(cols, outs):
                    c[:, e] = tangent_of(o).reshape(-1)
        if result is None:
            result = [[None] * len(wanted) for _ in cols]
        for k, c in enumerate(cols):
            result[k][col] = c
    return result


# -- reporting -----------------------------------------------------------------------------------
def _close(a, n, rtol, atol):
    return np.isclose(a, n, rtol=rtol, atol=atol, equal_nan=True)


def _matrix_lines(m):
    text = np.array2string(m, precision=4, floatmode="fixed", suppress_small=False,
                           threshold=400, edgeitems=4, max_line_width=10 ** 6, separator=", ")
    return text.splitlines()


def _side_by_side(left, right, titles):
    a, b = _matrix_lines(left), _matrix_lines(right)
    width = max(len(titles[0]), *(len(line) for line in a)) + 4
    lines = [titles[0].ljust(width) + titles[1]]
    for k in range(max(len(a), len(b))):
        lines.append((a[k] if k < len(a) else "").ljust(width) + (b[k] if k < len(b) else ""))
    return "\n".join(lines)


def _entry(shape, flat):
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def mismatch_message(first_line, expected, got, out_shape, in_shape, rtol, atol,
                     titles=("numerical", "analytical"), limit=10):
    """``first_line``, both Jacobians side by side, then the entries that differ."""
    bad = np.argwhere(~_close(got, expected, rtol, atol))
    lines = [first_line,
             f"rows: the {expected.shape[0]} entries of the output (shape {tuple(out_shape)}); "
             f"columns: the {expected.shape[1]} entries of the input (shape {tuple(in_shape)})",
             _side_by_side(expected, got, titles),
             f"{len(bad)} of {expected.size} entries differ by more than atol + rtol * "
             f"|{titles[0]}| (atol={atol}, rtol={rtol}):"]
    for r, c in bad[:limit]:
        lines.append(f"  J[{r}, {c}]  output {_entry(tuple(out_shape), r)}, input "
                     f"{_entry(tuple(in_shape), c)}: {titles[0]} {expected[r, c]:.6g}, "
                     f"{titles[1]} {got[r, c]:.6g}")
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more")
    return "\n".join(lines)


# -- gradcheck -----------------------------------------------------------------------------------
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check ``func``'s derivatives at ``inputs`` against finite differences.

    Returns True, or raises :class:`GradcheckError` (returns False with
    ``raise_exception=False``).  Options as in torch:

    * ``check_backward_ad`` (default): reverse mode, one backward walk per output entry,
      run twice to catch non-reentrant rules (``nondet_tol``); also checks that a zero
      seed gives a zero gradient ("backward not multiplied by grad_output").
    * ``check_batched_grad``: the same Jacobian from one batched walk
      (``is_grads_batched=True``, all one-hot seeds at once) must equal the row loop.
    * ``check_forward_ad``: forward mode (JVP rules), one pass per input entry;
      ``check_batched_forward_grad``: one pass carrying all tangents as a batch.
    * ``fast_mode``: compare the single number ``vᵀ J u`` for random ``u``, ``v``
      (one JVP by finite differences, one VJP per output); on failure the full check runs
      to produce the detailed message.

    ``check_undefined_grad`` and ``masked`` are accepted for torch compatibility and have
    no effect: autograd_lab has no undefined gradients (a missing one is zeros) and no
    sparse tensors.  Float32 inputs that require grad are refused (torch warns).
    """
    if check_batched_grad and not check_backward_ad:
        raise ValueError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise ValueError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    inputs = _as_tuple(inputs)
    wanted = _check_inputs(inputs)
    try:
        return _gradcheck(func, inputs, wanted, eps, atol, rtol, nondet_tol, check_grad_dtypes,
                          check_batched_grad, check_batched_forward_grad, check_forward_ad,
                          check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func, inputs, wanted, eps, atol, rtol, nondet_tol, check_grad_dtypes,
               check_batched_grad, check_batched_forward_grad, check_forward_ad,
               check_backward_ad, fast_mode):
    outs = _tensor_outputs(func(*inputs))
    diff_outs = _differentiable(outs)
    diff_inputs = [inputs[j] for j in wanted]
    if not diff_outs:
        for per_out in numerical_jacobian(func, inputs, wanted, eps):
            for n in per_out:
                if np.any(n != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    diff_idx = [k for k, o in enumerate(outs) if o.requires_grad]

    if fast_mode and check_backward_ad and not check_forward_ad:
        if _fast_check(func, inputs, wanted, diff_idx, outs, eps, atol, rtol):
            _mul_by_grad_output(diff_outs, diff_inputs)
            if check_batched_grad:
                _check_batched(diff_outs, diff_inputs, atol, rtol)
            return True

    numerical = numerical_jacobian(func, inputs, wanted, eps, out_index=set(diff_idx))
    if check_backward_ad:
        for i, o in enumerate(diff_outs):
            first = analytical_jacobian(o, diff_inputs, check_grad_dtypes)
            again = analytical_jacobian(o, diff_inputs)
            for j, (a, n) in enumerate(zip(first, numerical[i])):
                if not np.all(_close(a, n, rtol, atol)):
                    raise GradcheckError(mismatch_message(
                        f"Jacobian mismatch for output {i} with respect to input {j},",
                        n, a, o.shape, diff_inputs[j].shape, rtol, atol))
            for a, b in zip(first, again):
                if np.max(np.abs(a - b), initial=0.0) > nondet_tol:
                    raise GradcheckError(NONDET.format(nondet_tol))
        _mul_by_grad_output(diff_outs, diff_inputs)
        if check_batched_grad:
            _check_batched(diff_outs, diff_inputs, atol, rtol)

    if check_forward_ad:
        forward = _forward_jacobians(func, inputs, wanted, batched=False)
        forward = [forward[k] for k in diff_idx]
        for i, o in enumerate(diff_outs):
            for j, (f, n) in enumerate(zip(forward[i], numerical[i])):
                if not np.all(_close(f, n, rtol, atol)):
                    raise GradcheckError(mismatch_message(
                        f"Jacobian computed with forward mode mismatch for output {i} with "
                        f"respect to input {j},", n, f, o.shape, diff_inputs[j].shape, rtol, atol,
                        titles=("numerical", "forward mode")))
        if check_batched_forward_grad:
            batched = _forward_jacobians(func, inputs, wanted, batched=True)
            batched = [batched[k] for k in diff_idx]
            for i, o in enumerate(diff_outs):
                for j, (b, f) in enumerate(zip(batched[i], forward[i])):
                    if not np.all(_close(b, f, rtol, atol)):
                        raise GradcheckError(mismatch_message(
                            f"Batched forward-mode Jacobian mismatch for output {i} with respect "
                            f"to input {j} (one pass with all tangents vs one pass per tangent),",
                            f, b, o.shape, diff_inputs[j].shape, rtol, atol,
                            titles=("one pass per tangent", "one batched pass")))
    return True


def _mul_by_grad_output(outs, inputs):
    """A zero seed must give a zero gradient (a rule that ignores g fails this)."""
    grads = engine.grad(outs, inputs, [np.zeros_like(o._data) for o in outs],
                        retain_graph=True, allow_unused=True)
    for g, x in zip(grads, inputs):
        if g is None:
            continue
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")
        if g._data.dtype != x._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")


def _check_batched(outs, inputs, atol, rtol):
    for i, o in enumerate(outs):
        loop = analytical_jacobian(o, inputs)
        try:
            batched = _batched_jacobian(o, inputs)
        except RuntimeError as ex:
            raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                                 "One batched backward walk (is_grads_batched=True) must give "
                                 "what one walk per seed gives; some rule does not handle a "
                                 "leading batch dimension of its gradient.") from ex
        for j, (b, a) in enumerate(zip(batched, loop)):
            if not np.all(_close(b, a, rtol, atol)):
                raise GradcheckError(mismatch_message(
                    f"Batched gradient mismatch for output {i} with respect to input {j} "
                    "(one batched walk vs one walk per seed),", a, b, o.shape, inputs[j].shape,
                    rtol, atol, titles=("one walk per seed", "one batched walk")))


def _fast_check(func, inputs, wanted, diff_idx, outs, eps, atol, rtol):
    """vᵀ J u, numerically and analytically, for one random u per input and v per output."""
    rng = np.random.default_rng(0)
    us = []
    for j in wanted:
        u = rng.normal(size=inputs[j].shape)
        us.append(u / max(np.linalg.norm(u), 1e-12))
    vs = [rng.normal(size=outs[k].shape) for k in diff_idx]
    diff_inputs = [inputs[j] for j in wanted]
    for col, (j, u) in enumerate(zip(wanted, us)):
        data = inputs[j]._data
        orig = data.copy()
        data[...] = orig - eps * u
        lo = _snapshot(func(*inputs))
        data[...] = orig + eps * u
        hi = _snapshot(func(*inputs))
        data[...] = orig
        for r, k in enumerate(diff_idx):
            jvp = (hi[k]._data.astype(np.float64) - lo[k]._data.astype(np.float64)) / (2 * eps)
            numeric = float(np.sum(vs[r] * jvp))
            g = engine.grad(outs[k], diff_inputs, Tensor._make(vs[r].astype(outs[k]._data.dtype)),
                            retain_graph=True, allow_unused=True)[col]
            analytic = 0.0 if g is None else float(np.sum(g._data * u))
            if not np.isclose(analytic, numeric, rtol=rtol, atol=atol):
                return False
    return True


# -- gradgradcheck -----------------------------------------------------------------------------
def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck the function ``(inputs, v) ↦ vᵀ J`` that
    ``al.autograd.grad(..., create_graph=True)`` computes, with respect to the inputs
    and to ``v`` (``grad_outputs``; random in [-1, 1), float64, from a fixed seed when
    not given).  This is what tests that every VJP rule is itself differentiable."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise ValueError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise ValueError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        with enable_grad():
            outs = _differentiable(_tensor_outputs(func(*inputs)))
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outs:
            v = Tensor._make(rng.uniform(-1, 1, o.shape).astype(
                o._data.dtype if o.is_floating_point() else np.float64))
            v.requires_grad = True
            grad_outputs.append(v)
        grad_outputs = tuple(grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def vjp_of_func(*args):
        ins, vs = args[:len(args) - n_out], args[len(args) - n_out:]
        with enable_grad():
            outs = _differentiable(_tensor_outputs(func(*ins)))
            if not outs:
                return ()
            grads = engine.grad(outs, [ins[i] for i in diff_in], list(vs), create_graph=True,
                                allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp_of_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode)
