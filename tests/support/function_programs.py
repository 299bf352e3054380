"""Custom autograd.Functions of every kind, small programs that use them, and the
transforms of torch.func run over those programs: what tests/torch_parity/test_function_transforms_vs_torch.py
runs on torch and on autograd_lab and compares.

**Functions.**  Six operations (:data:`OPS`: elementwise with its input or its output
saved, a reduction, a product with a fixed matrix, two inputs, two outputs), each written
in the kinds of :data:`KINDS` -- torch's two forms (``forward(ctx, ...)``, or
``forward(...)`` with ``setup_context``), with ``generate_vmap_rule = True``, with a
``vmap`` staticmethod, with both (refused), without ``jvp``, with a backward that is
``once_differentiable`` -- and an in-place one (``mark_dirty``) in both forms.  The same
source builds them for either library (:func:`functions`).

**Programs.**  A program is a list of steps applied to a tensor (the input x, a vector
of 3): a Function, a plain op, a hook that scales the gradient passing through, an
in-place write, the in-place Function.  :func:`program` turns it into a Python function
for one library.

**Transforms.**  :data:`CHAINS`: vmap, grad, vjp, jvp, jacrev, jacfwd, hessian, and their
nestings (vmap of each, grad of grad, jacrev of jacrev, jvp of vmap, ...).
:func:`run` applies one to a program and returns what happened: ("ok", arrays) or
("error", type, message).  :func:`random_case` draws a program and a chain from a seed.
"""
import numpy as np

N = 3                                       # the program's input: a vector of N
W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-1.0, 0.75, 1.0]])   # matvec's matrix


# -- the operations: forward, backward and jvp, written once for both libraries -------------
# Each: (number of inputs, forward(lib, *xs) -> output(s), what to save (from inputs and
# outputs), backward(lib, saved, *grads) -> grads, jvp(lib, saved, *tangents) -> tangents,
# batch-polymorphic (its forward works on a batch in front, for a vmap staticmethod)).
def _W(lib, like):
    return lib.tensor(W, dtype=like.dtype)


OPS = {
    "cube": (1, lambda L, x: x ** 3, lambda xs, out: xs,
             lambda L, s, g: 3 * s[0] ** 2 * g,
             lambda L, s, t: 3 * s[0] ** 2 * t),
    "exp": (1, lambda L, x: L.exp(x), lambda xs, out: (out,),
            lambda L, s, g: g * s[0],
            lambda L, s, t: t * s[0]),
    "sumsq": (1, lambda L, x: (x * x).sum(-1), lambda xs, out: xs,
              lambda L, s, g: 2 * s[0] * g.unsqueeze(-1),
              lambda L, s, t: (2 * s[0] * t).sum(-1)),
    "matvec": (1, lambda L, x: x @ _W(L, x), lambda xs, out: xs,
               lambda L, s, g: g @ _W(L, g).T,
               lambda L, s, t: t @ _W(L, t)),
    "mul": (2, lambda L, x, y: x * y, lambda xs, out: xs,
            lambda L, s, g: (g * s[1], g * s[0]),
            lambda L, s, tx, ty: tx * s[1] + s[0] * ty),
    "sincos": (1, lambda L, x: (L.sin(x), L.cos(x)), lambda xs, out: xs,
               lambda L, s, g1, g2: g1 * L.cos(s[0]) - g2 * L.sin(s[0]),
               lambda L, s, t: (t * L.cos(s[0]), -t * L.sin(s[0]))),
}

KINDS = ["plain", "setup_context", "generate", "vmap_rule", "both_vmaps", "no_jvp", "once"]


def _outs(out):
    return out if isinstance(out, tuple) else (out,)


def functions(L):
    """{(op, kind): Function class} for library ``L``, and the in-place Functions."""
    made = {}
    for name, (n_in, fwd, save, bwd, jvp) in OPS.items():
        for kind in KINDS:
            made[name, kind] = _function(L, name, kind, n_in, fwd, save, bwd, jvp)
    made["double_", "plain"] = _doubling(L, split=False)
    made["double_", "generate"] = _doubling(L, split=True)
    made["double_", "jvp_in_place"] = _doubling(L, split=True, jvp_in_place=True)
    return made


def _function(L, name, kind, n_in, fwd, save, bwd, jvp):
    def setup_context(ctx, inputs, output):
        saved = save(inputs, _outs(output)[0])
        ctx.save_for_backward(*saved)
        ctx.save_for_forward(*saved)

    def forward_ctx(ctx, *xs):
        out = fwd(L, *xs)
        setup_context(ctx, xs, out)
        return out

    def backward(ctx, *gs):
        return bwd(L, ctx.saved_tensors, *gs)

    def jvp_(ctx, *ts):
        return jvp(L, ctx.saved_tensors, *ts)

    def vmap_rule(info, in_dims, *xs):
        # batch in front for each input (a copy of the batch for an input without one),
        # then the Function itself on the batch: each op works on a batch in front
        moved = [x.movedim(d, 0) if d is not None else
                 x.unsqueeze(0).expand(info.batch_size, *x.shape) for x, d in zip(xs, in_dims)]
        out = cls.apply(*moved)
        return out, (0,) * len(out) if isinstance(out, tuple) else 0

    body = {"backward": staticmethod(backward), "jvp": staticmethod(jvp_)}
    if kind == "plain":
        body["forward"] = staticmethod(forward_ctx)
    else:
        body["forward"] = staticmethod(lambda *xs: fwd(L, *xs))
        body["setup_context"] = staticmethod(setup_context)
    if kind in ("generate", "both_vmaps", "no_jvp", "once"):
        body["generate_vmap_rule"] = True
    if kind in ("vmap_rule", "both_vmaps"):
        body["vmap"] = staticmethod(vmap_rule)
    if kind == "no_jvp":
        del body["jvp"]
    if kind == "once":
        body["backward"] = staticmethod(L.autograd.function.once_differentiable(backward))
    cls = type(f"{name.capitalize()}{kind.title().replace('_', '')}", (L.autograd.Function,), body)
    return cls


def _doubling(L, split, jvp_in_place=False):
    """x.mul_(2) in place, marked dirty: the input comes back as the output.  torch
    wants its jvp to write the tangent in place too (``jvp_in_place``)."""
    def backward(ctx, g):
        return 2 * g

    def jvp(ctx, t):
        return t.mul_(2) if jvp_in_place else 2 * t

    if split:
        def forward(x):
            return x.mul_(2)

        def setup_context(ctx, inputs, output):
            ctx.mark_dirty(inputs[0])
        body = {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
                "generate_vmap_rule": True}
    else:
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x
        body = {"forward": staticmethod(forward)}
    body.update(backward=staticmethod(backward), jvp=staticmethod(jvp))
    return type("DoubleInPlace" if split else "DoubleInPlaceCtx", (L.autograd.Function,), body)


DIRTY_KINDS = ["plain", "generate", "jvp_in_place"]


# -- programs ---------------------------------------------------------------------------------
# Steps: ("fn", op, kind), ("sin",), ("scale", c), ("hook", c): a hook multiplies the
# gradient passing through by c, ("write", c): an in-place mul_ (on a clone of the input),
# ("dirty", kind): the in-place Function (on a clone of the input).
def program(L, steps, fns):
    """The program ``steps`` as a function of x, for library ``L``."""
    def f(x):
        s = x
        for step in steps:
            kind = step[0]
            if kind == "fn":
                F = fns[step[1], step[2]]
                if OPS[step[1]][0] == 2:
                    out = F.apply(s, s * 0.5 + 1.0)
                else:
                    out = F.apply(s)
                s = out[0] * out[1] if isinstance(out, tuple) else out
            elif kind == "sin":
                s = L.sin(s)
            elif kind == "scale":
                s = s * step[1]
            elif kind == "hook":
                s = s * 1.0
                s.register_hook(lambda g, c=step[1]: g * c)
            elif kind == "write":
                s = s.clone() if s is x else s
                s.mul_(step[1])
            elif kind == "dirty":
                s = fns["double_", step[1]].apply(s.clone() if s is x else s)
        return s
    return f


def shape_after(steps):
    """The shape a program's result has (sumsq makes a vector a number)."""
    return () if any(s[:2] == ("fn", "sumsq") for s in steps) else (N,)


# -- the transforms ---------------------------------------------------------------------------
def _total(f):
    return lambda x: f(x).sum()


def _seed(shape):
    return np.linspace(0.5, 1.5, int(np.prod(shape, dtype=int))).reshape(shape)


CHAINS = {   # name -> (how it is applied: func(F, f, L, x, X) -> result, needs a batch X)
    "call": lambda F, f, L, x, X: _backward(L, f, x),
    "vmap": lambda F, f, L, x, X: F.vmap(f)(X),
    "grad": lambda F, f, L, x, X: F.grad(_total(f))(x),
    "vjp": lambda F, f, L, x, X: _vjp(F, f, L, x),
    "jvp": lambda F, f, L, x, X: F.jvp(f, (x,), (L.tensor(_seed(N)),)),
    "jacrev": lambda F, f, L, x, X: F.jacrev(f)(x),
    "jacfwd": lambda F, f, L, x, X: F.jacfwd(f)(x),
    "hessian": lambda F, f, L, x, X: F.hessian(_total(f))(x),
    "vmap(grad)": lambda F, f, L, x, X: F.vmap(F.grad(_total(f)))(X),
    "vmap(jacrev)": lambda F, f, L, x, X: F.vmap(F.jacrev(f))(X),
    "vmap(jacfwd)": lambda F, f, L, x, X: F.vmap(F.jacfwd(f))(X),
    "vmap(jvp)": lambda F, f, L, x, X: F.vmap(lambda y: F.jvp(f, (y,), (L.tensor(_seed(N)),)))(X),
    "vmap(vjp)": lambda F, f, L, x, X: F.vmap(lambda y: _vjp(F, f, L, y))(X),
    "vmap(vmap)": lambda F, f, L, x, X: F.vmap(F.vmap(f), in_dims=1)(X.reshape(2, 2, N).transpose(0, 1)),
    "vmap(hessian)": lambda F, f, L, x, X: F.vmap(F.hessian(_total(f)))(X),
    "grad(grad)": lambda F, f, L, x, X: F.grad(lambda y: (F.grad(_total(f))(y) ** 2).sum())(x),
    "jacrev(jacrev)": lambda F, f, L, x, X: F.jacrev(F.jacrev(f))(x),
    "jacfwd(jacfwd)": lambda F, f, L, x, X: F.jacfwd(F.jacfwd(f))(x),
    "jvp(vmap)": lambda F, f, L, x, X: F.jvp(F.vmap(f), (X,), (L.tensor(_seed(X.shape)),)),
    "vjp(vmap)": lambda F, f, L, x, X: _vjp(F, F.vmap(f), L, X),
    "grad(vmap)": lambda F, f, L, x, X: F.grad(lambda Y: F.vmap(f)(Y).sum())(X),
    "jacrev(vmap)": lambda F, f, L, x, X: F.jacrev(F.vmap(f))(X),
}


def _vjp(F, f, L, x):
    out, pull = F.vjp(f, x)
    return out, pull(L.tensor(_seed(tuple(out.shape)), dtype=out.dtype))


def _backward(L, f, x):
    """No transform: the program's value and the gradient of its weighted sum, by backward."""
    x = x.detach().requires_grad_()
    y = f(x)
    (y * L.tensor(_seed(tuple(y.shape)), dtype=y.dtype)).sum().backward()
    return y, x.grad


def inputs(L):
    x = L.tensor([0.3, -0.7, 1.1], dtype=L.float64)
    X = L.tensor([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4], [-1.2, 0.6, 0.5], [0.1, 1.3, -0.8]],
                 dtype=L.float64)
    return x, X


def run(L, F, steps, chain, fns):
    """("ok", list of arrays) or ("error", type name, message): ``chain`` over ``steps``."""
    x, X = inputs(L)
    f = program(L, steps, fns)
    try:
        got = CHAINS[chain](F, f, L, x, X)
    except Exception as e:  # noqa: BLE001
        return ("error", type(e).__name__, str(e))
    return ("ok", [np.array(t.detach().numpy(force=True)) for t in _flat(got)])


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _flat(v)]
    return [x]


# -- random programs ----------------------------------------------------------------------------
FN_STEPS = [("fn", op, kind) for op in OPS for kind in KINDS]


def random_case(seed):
    """(steps, chain) drawn from ``seed``: one to four steps, at least one Function."""
    rng = np.random.default_rng(seed)
    steps, scalar = [], False
    for i in range(int(rng.integers(1, 5))):
        choice = rng.random()
        if choice < 0.5 or (i == 0 and choice < 0.7):
            op, kind = FN_STEPS[rng.integers(len(FN_STEPS))][1:]
            if scalar and op in ("sumsq", "matvec"):
                op = "cube"
            steps.append(("fn", op, kind))
            scalar = scalar or op == "sumsq"
        elif choice < 0.65:
            steps.append(("sin",) if rng.random() < 0.5 else ("scale", float(rng.choice([2.0, -0.5]))))
        elif choice < 0.8:
            steps.append(("hook", float(rng.choice([2.0, 3.0]))))
        elif choice < 0.92:
            steps.append(("write", float(rng.choice([2.0, -1.0]))))
        else:
            steps.append(("dirty", str(rng.choice(DIRTY_KINDS))))
    if not any(s[0] == "fn" for s in steps):
        steps.insert(0, ("fn", "cube", "generate"))
    return steps, str(rng.choice(list(CHAINS)))
