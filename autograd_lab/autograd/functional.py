"""``al.autograd.functional``: whole Jacobians, Hessians and their products, with
torch.autograd.functional's signatures, tuple handling, shapes and error texts.

One backward walk gives one *row combination* ``vᵀJ`` of the Jacobian; one forward-mode
pass gives one *column combination* ``J u``.  ``jacobian`` assembles the whole matrix
three ways, and ``al.autograd.count_passes()`` shows what each costs for f: Rⁿ → Rᵐ:

===========================================  =========  ==========  ======
``jacobian(f, x, ...)``                      forward    backward    jvp
===========================================  =========  ==========  ======
``vectorize=False`` (one-hot seed per row)   1          m           0
``vectorize=True`` (all seeds in one walk)   1          1           0
``strategy="forward-mode", vectorize=True``  1          0           1
``strategy="forward-mode", vectorize=False`` n          0           n
===========================================  =========  ==========  ======

The last row is autograd_lab's extension: torch allows forward mode only with
``vectorize=True``; here ``vectorize=False`` runs one forward-mode pass per input entry
(one one-hot tangent each), the column-by-column mirror of the row loop.

Shapes: the Jacobian of an output ``y`` with respect to an input ``x`` has shape
``y.shape + x.shape``.  A tuple of inputs and/or a tuple of outputs gives tuples, nested
``[output][input]`` when both are tuples.  ``jvp`` uses torch's double-backward trick
(two backward walks); ``al.func.jvp`` is the true forward-mode one.
"""
import numpy as np

from ..core import engine, forward_mode
from ..func import finish
from ..core.modes import count, enable_grad, set_grad_enabled, state
from ..core.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# -- tuples in, tuples out ------------------------------------------------------------------
def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tuple): torch accepts a Tensor or a tuple of Tensors."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i} has type {type(el)}." if is_tuple else \
                f"the given {arg_name} has type {type(el)}."
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}")
    return is_tuple, items


def _unpack(res, to_unpack):
    """Undo _as_tuple on a result: ``to_unpack`` is one flag, or (outer, inner) flags."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _shape(x):
    return tuple(x.shape)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {_shape(el_other)} but got "
                               f"{_shape(el_v)}.")


# -- making inputs differentiable, and handing results back --------------------------------
def _fresh(x, create_graph, need_graph):
    """A new tensor object for each input, so the function's own uses of the input can be
    told apart from tensors it captured.  With ``create_graph`` and an input that already
    requires grad, the copy stays connected (a view), so the result can be differentiated
    with respect to the caller's tensor."""
    if create_graph and x.requires_grad:
        return x.view_as(x)
    t = Tensor._make(x._data)
    forward_mode.carry(x, t)          # an enclosing al.func.jvp keeps its tangents
    if need_graph:
        if not x.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients (an input has dtype {x.dtype!r})")
        t.requires_grad = True
    return t


def _preprocess(inputs, create_graph, need_graph):
    return tuple(_fresh(x, create_graph, need_graph) for x in inputs)


def _postprocess(res, create_graph):
    """Results without history unless ``create_graph`` asked for it (nested tuples too)."""
    if isinstance(res, Tensor):
        return finish(res, nested=create_graph)
    return tuple(_postprocess(r, create_graph) for r in res)


def _graph_needed(create_graph):
    """Record the backward pass when asked to, or when an enclosing forward-mode pass
    needs tangents to flow through it (they only flow through recorded operations)."""
    return create_graph or bool(state.forward_level)


def _call(func, inputs):
    """Evaluate the user's function: one ``forward`` in the pass counter."""
    from ..func import Tracking
    if not getattr(func, "_al_internal", False):    # hessian's inner gradient is ours, not the user's
        count("forward")
    with Tracking():
        return func(*inputs)


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}."
                               " This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict mode.")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
          is_grads_batched=False):
    """autograd.grad that skips outputs which do not require grad (None for every input
    if none does) and returns None for inputs no path reaches."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return engine.grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                       create_graph=create_graph, retain_graph=retain_graph,
                       is_grads_batched=is_grads_batched)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = Tensor._make(np.zeros_like(ref._data))
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


# -- vjp and jvp --------------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ J)``: one forward pass and one backward walk.

    ``v`` has the output's shape (a tuple for a tuple of outputs); it may be omitted
    when the function returns a single one-element tensor.  The result has the inputs'
    structure."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs = _call(func, inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _preprocess(v, create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    graph = _graph_needed(create_graph)
    with set_grad_enabled(True if graph else state.grad_enabled):
        grads = _grad(outputs, inputs, v, create_graph=graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by torch's *double-backward trick*: the backward walk
    ``u ↦ uᵀJ`` is linear in ``u``, so differentiating it (a second backward walk, seeded
    with ``v``) gives ``J v``.  Two backward walks; for true forward mode (one pass,
    tangents pushed by the JVP rules) use ``al.func.jvp``."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _preprocess(v, create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs = _call(func, inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # the dummy seeds u: their value never matters (the walk is linear in them)
        dummies = []
        for o in outputs:
            u = Tensor._make(np.zeros_like(o._data))
            u.requires_grad = True
            dummies.append(u)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    graph = _graph_needed(create_graph)
    with set_grad_enabled(True if graph else state.grad_enabled):
        grads = _grad(grad_inputs, tuple(dummies), v, create_graph=graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(result, create_graph), is_outputs_tuple))


# -- jacobian -----------------------------------------------------------------------------------
def _basis(tensors):
    """The standard basis of R^N (N = total size), one chunk per tensor: chunk i has
    shape (N, *tensors[i].shape); stacked, the chunks' rows are the N one-hot vectors."""
    sizes = tuple(t.numel() for t in tensors)
    n = sum(sizes)
    chunks, start = [], 0
    for t, k in zip(tensors, sizes):
        c = np.zeros((n, k), t._data.dtype)
        c[start:start + k] = np.eye(k, dtype=t._data.dtype)
        chunks.append(c.reshape((n,) + tuple(t.shape)))
        start += k
    return chunks, sizes


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` of shape
    ``outputs[i].shape + inputs[j].shape`` (tuples unpacked as the arguments were).

    * ``vectorize=False``: one backward walk per output entry, each seeded with a one-hot
      tensor: row by row (m walks for m output entries).
    * ``vectorize=True``: all m one-hot seeds stacked into one batch and sent through ONE
      walk (``al.autograd.grad(..., is_grads_batched=True)``).
    * ``strategy="forward-mode"``: column by column with forward mode -- one pass carrying
      all n one-hot tangents as a batch (``vectorize=True``), or, autograd_lab's
      extension, one pass per input entry (``vectorize=False``; torch raises there).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: '
                         'If your function has more outputs than inputs, "forward-mode" tends to '
                         'be more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs = _call(func, inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        graph = _graph_needed(create_graph)

        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or `vectorize=False`.")
            seeds, sizes = _basis(outputs)
            grads = _grad(outputs, inputs, seeds, create_graph=graph, retain_graph=graph,
                          is_grads_batched=True)
            jac = []
            start = 0
            for out, k in zip(outputs, sizes):
                row = []
                for g, x in zip(grads, inputs):
                    if g is None:
                        row.append(Tensor._make(np.zeros(out.shape + x.shape, x._data.dtype)))
                    else:
                        if graph:    # recorded slicing, so the Jacobian can be differentiated
                            row.append(g[start:start + k].reshape(out.shape + x.shape))
                        else:
                            row.append(Tensor._make(g._data[start:start + k].reshape(out.shape + x.shape)))
                jac.append(tuple(row))
                start += k
            return _unpack(_postprocess(tuple(jac), create_graph), (is_outputs_tuple, is_inputs_tuple))

        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            n = out.numel()
            seed = np.zeros(n, out._data.dtype)
            for e in range(n):
                seed[:] = 0
                seed[e] = 1
                if out.requires_grad:
                    vj = engine.grad(out, inputs, Tensor._make(seed.reshape(out.shape).copy()),
                                     retain_graph=True, create_graph=graph, allow_unused=True)
                else:
                    vj = (None,) * len(inputs)
                for j, (g, x) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               "in strict mode.")
                        g = Tensor._make(np.zeros_like(x._data))
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[j].append(g)
            jac.append(tuple(_stack_rows(r, out.shape + x.shape, graph)
                             for r, x in zip(rows, inputs)))
        return _unpack(_postprocess(tuple(jac), create_graph), (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(rows, shape, graph):
    if graph:
        from ..functions import stack
        return stack(rows).reshape(shape)
    return Tensor._make(np.stack([r._data for r in rows]).reshape(shape))


def _jacfwd(func, inputs, strict, vectorize):
    """Forward mode: the columns of J from one-hot tangents (see ``al.func``)."""
    from ..func import forward_pass, tangent_of
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are "
            "not supported together (yet). Please either set `strict=False` or "
            "`strategy=\"reverse-mode\"`.")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    for x in inputs:
        if not x.is_floating_point():
            raise RuntimeError(f"forward mode needs floating point inputs; got {x.dtype!r}")
    tangents, sizes = _basis(inputs)
    total = sum(sizes)

    def outputs_of(result):
        return _as_tuple(result, "outputs of the user-provided function", "jacobian")

    if vectorize:
        is_outputs_tuple, outputs = outputs_of(forward_pass(func, inputs, tangents))
        cols = [tangent_of(o, (total,)) for o in outputs]          # (N, *out.shape) each
    else:
        cols = None
        for e in range(total):
            one = [t[e] for t in tangents]
            is_outputs_tuple, outputs = outputs_of(forward_pass(func, inputs, one))
            if cols is None:
                cols = [np.zeros((total,) + o.shape, o._data.dtype) for o in outputs]
            for c, o in zip(cols, outputs):
                c[e] = tangent_of(o)
    jac = []
    for c, o in zip(cols, outputs):
        row, start = [], 0
        for x, k in zip(inputs, sizes):
            piece = np.moveaxis(c[start:start + k], 0, -1)             # out.shape + (k,)
            row.append(Tensor._make(np.ascontiguousarray(piece).reshape(o.shape + x.shape)))
            start += k
        jac.append(tuple(row))
    return _unpack(tuple(jac), (is_outputs_tuple, is_inputs_tuple))


# -- second derivatives --------------------------------------------------------------------------
def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian (outer) of its gradient (inner,
    recorded with ``create_graph=True``).  ``H[i][j]`` has shape
    ``inputs[i].shape + inputs[j].shape``.  The outer Jacobian follows ``vectorize``
    and ``outer_jacobian_strategy`` ("forward-mode" is forward-over-reverse: tangents
    pushed through the recorded backward pass; with ``vectorize=False`` it runs one
    forward-mode pass per input entry, an autograd_lab extension -- torch raises)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    jac_func._al_internal = True
    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ H)``: a gradient recorded with ``create_graph=True``, then one
    more backward walk seeded with ``v``."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` by the double-backward trick, as torch computes it (for a
    symmetric Hessian it equals ``vhp``)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, name):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", name)
            v = _preprocess(v, create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs = _call(func, inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
        _check_requires_grad(outputs, "outputs", strict)
        if is_outputs_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                               "contain a single element")
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        if name == "hvp":
            grad_jac = []
            for x in inputs:
                u = Tensor._make(np.zeros_like(x._data))
                u.requires_grad = True
                grad_jac.append(u)
            grad_jac = tuple(grad_jac)
            double_back = _grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict)
    graph = _graph_needed(create_graph)
    with set_grad_enabled(True if graph else state.grad_enabled):
        if name == "vhp":
            grads = _grad(jac, inputs, v, create_graph=graph)
            result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
        else:
            grads = _grad(double_back, grad_jac, v, create_graph=graph)
            result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(result, create_graph), is_inputs_tuple))

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.autograd.functional", __name__, "al.autograd.functional")   # (names torch has: not_here.py)
