"""Seeded random small programs over the rules table's ops, for the differential test
against torch (tests/torch_parity/test_differential_vs_torch.py).

A program is Python source, one statement per line, written against a library called
``L`` (autograd_lab or torch: the same text runs on both).  Its inputs are NumPy arrays
in ``DATA``; its seeds for backward and grad are arrays in ``SEEDS``.  Each statement
assigns one variable ``v<n>`` (or writes into one in place); the last lines run a
backward (with a seed), or autograd.grad with grad_outputs and create_graph=True and
then a second grad.

Programs are built one statement at a time, run on autograd_lab as they grow, so that
each new statement fits the shapes computed so far; a statement that raises stays in
(torch should raise the same type), and its variable is then missing: later statements
are not built on it.  ``run`` executes a program on a library and returns what the
test compares; ``shrink`` drops statements while a failure remains.

Left out on purpose, as differences known and not fixed here: losses of operands that
are not floats (torch's nn.functional checks dtypes first: binary_cross_entropy of an
integer target, "Found dtype Long but expected Float"; cross_entropy of an integer input;
mse_loss of a bool and a float under create_graph, which autograd_lab's rule refuses);
in-place writes into the outputs of split/chunk (torch refuses them later, when their
history is read), into expanded tensors (torch lets fill_, zero_ and x[i] = number write
there) and into the product of a matrix and a batch of matrices (see _NO_WRITES); a
tensor to the power of a bool or integer tensor (torch's backward refuses a bool
exponent, autograd_lab's differentiates as if True were 1).
"""
import warnings

import numpy as np

SHAPES = [(), (3,), (2, 3), (1, 3), (3, 1), (2, 1, 3), (3, 2), (4,), (2, 2)]
BIG = 12                                   # at most this many statements before the ending


# -- the statements: (name, number of tensor inputs, builder) ------------------------------
# A builder gets the rng and the input tensors (autograd_lab's, for their shapes) and
# returns the right-hand side, with {0}, {1}, ... standing for the inputs' names, or None
# where the op does not apply.
def _dim(rng, t, extra=0):
    n = t.ndim + extra
    return int(rng.integers(-n, n)) if n else int(rng.choice([0, -1]))


def _shape_of(t):
    return tuple(t.shape)


def _unary(rng, t):
    return rng.choice(["{0}.exp()", "{0}.log()", "{0}.sqrt()", "{0}.sin()", "{0}.cos()",
                       "{0}.tanh()", "{0}.sigmoid()", "{0}.relu()", "{0}.abs()", "-{0}",
                       "{0}.square()", "{0}.rsqrt()", "2.0 / {0}", "{0}.sign()",
                       "{0}.floor()", "{0}.round()", "L.log1p({0})", "{0} ** 2", "{0} ** 3",
                       "{0} ** 0.5", "{0} ** -1", "{0}.clamp(-0.5, 0.5)", "{0}.clamp_min(0.1)",
                       "L.clamp_max({0}, 0.2)", "{0}.clamp(max=0.3)", "L.neg({0})",
                       "{0}.clone()", "{0}.detach()", "{0}.contiguous()", "{0} * 2",
                       "1.5 - {0}", "{0} + 1", "{0}.ceil()", "L.isfinite({0})", "{0}.isinf()",
                       "{0}.isnan()", "L.logical_not({0})", "{0}.any()", "{0}.all(-1)"])


_LOSSES = ["L.nn.functional.mse_loss({0}, {1})",
           "L.nn.functional.binary_cross_entropy({0}.sigmoid(), ({1} > 0).to({0}.dtype))",
           "L.nn.functional.binary_cross_entropy_with_logits({0}, {1}.sigmoid(), reduction='sum')",
           "L.nn.functional.cross_entropy({0}, L.zeros({0}.shape[0], dtype=L.int64))"]


def _binary(rng, a, b):
    if a.is_floating_point() and b.is_floating_point() and rng.integers(6) == 0:
        return rng.choice(_LOSSES)        # (losses of floats only: see the module's notes)
    op = rng.choice(["{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / {1}", "L.maximum({0}, {1})",
                     "L.minimum({0}, {1})", "L.where({0} > {1}, {0}, {1})", "{0} ** {1}",
                     "{0}.add({1}, alpha=2)", "L.subtract({0}, {1})", "L.multiply({0}, {1})",
                     "L.divide({0}, {1})", "{0}.gt({1})", "{0}.le({1})", "L.eq({0}, {1})",
                     "L.max({0}, {1})", "{0}.clamp({1})", "{0}.clamp(max={1})",
                     "{0}.where({0} < 0, {1})", "L.greater_equal({0}, {1})", "{0} != {1}",
                     "L.logical_and({0}, {1})", "L.logical_or({0} > 0, {1})", "{0}.logical_xor({1})", "({0} > 0) | ({1} > 0)",
                     "({0} > 0) & ({1} < 0)", "{0}.clamp_min({1})", "{0}.clamp_max({1})"])
    if op == "{0} ** {1}" and not b.is_floating_point():
        return None                       # (a power by a bool tensor: see the module's notes)
    return op


def _reduce(rng, t):
    d, k = _dim(rng, t), bool(rng.integers(2))
    return rng.choice(["{0}.sum()", f"{{0}}.sum({d}, keepdim={k})", "{0}.mean()",
                       f"{{0}}.mean({d})", "{0}.amax()", f"{{0}}.amax({d}, {k})", f"L.amin({{0}}, {d})",
                       "{0}.max()", "{0}.min()", f"{{0}}.max({d}).values", f"{{0}}.min({d}, {k})[1]",
                       "{0}.norm()", f"{{0}}.norm(dim={d})", f"{{0}}.argmax({d})",
                       f"{{0}}.sort({d}).values", f"{{0}}.sort({d}, descending=True)[1]",
                       f"L.sort({{0}}, dim={d}, stable=True).values",
                       f"{{0}}.softmax({d})", f"L.log_softmax({{0}}, {d})"])


def _shape_op(rng, t):
    s, n = _shape_of(t), t.ndim
    d, e = _dim(rng, t), _dim(rng, t)
    options = ["{0}.reshape(-1)", "{0}.flatten()", f"{{0}}.unsqueeze({_dim(rng, t, 1)})",
               f"{{0}}.squeeze({d})", "{0}.squeeze()", "{0}[None]", "{0}[..., None]",
               f"{{0}}.transpose({d}, {e})", f"{{0}}.swapaxes({d}, {e})"]
    if n <= 2:
        options.append("{0}.t()")
    if n == 2:
        options += ["{0}.T", "{0}.mT", "{0}.T.reshape(-1)", "{0}.T.contiguous()",
                    f"{{0}}.view({s[1]}, {s[0]})", "{0}.movedim(0, 1)"]
    if n >= 1:
        i = int(rng.integers(-s[0], s[0])) if s[0] else 0
        options += [f"{{0}}[{i}]", "{0}[1:]", "{0}[:, None]" if n else "{0}[None]",
                    f"{{0}}.select({d}, 0)", f"{{0}}.narrow({d}, 0, 1)",
                    "{0}[L.tensor([0, 0])]", f"{{0}}.index_select({d}, L.tensor([0]))",
                    f"{{0}}.split(1, {d})[0]", f"{{0}}.chunk(2, {d})[-1]",
                    f"{{0}}.repeat({', '.join(['2'] + ['1'] * (n - 1))})",
                    f"{{0}}.gather({d}, L.zeros({list(s)}, dtype=L.int64))",
                    f"{{0}}.expand(2, {', '.join(map(str, s))})",
                    "L.cat([{0}, {0} * 2])", f"L.stack([{{0}}, {{0}}], {_dim(rng, t, 1)})"]
    if n >= 2:
        options += ["{0}[:, 0]", "{0}[0, 1:]", "{0}[..., 0]", "{0}[:, :]", "{0}[...]",
                    "{0}.permute(1, 0, *range(2, {0}.ndim))", "{0}.mv(L.ones({0}.shape[-1], dtype={0}.dtype))"
                    if n == 2 else "{0}[0]"]
    return rng.choice(options)


def _cast(rng, t):
    return rng.choice(["{0}.double()", "{0}.float()", "{0}.long()", "{0}.bool()",
                       "{0}.to(L.float64)", "{0}.to(dtype=L.int64)", "{0}.type(L.DoubleTensor)"])


def _matmul(rng, a):
    s = _shape_of(a)
    if not s:
        return None
    k = s[-1]
    other = [(k,), (k, 2), (3, k, 2), (2, k, 1)][int(rng.integers(4))]
    return f"{{0}} @ L.tensor(DATA_MM[{len(other)}][{other!r}], dtype={{0}}.dtype)"


def _inplace(rng, t):
    """In-place writes (refused on a leaf that requires grad, as in torch)."""
    n = t.ndim
    writes = ["{0}.add_(1)", "{0}.mul_(2)", "{0}.relu_()", "{0}.exp_()", "{0}.clamp_(-1, 1)",
              "{0}.zero_()", "{0}.sigmoid_()", "{0}.masked_fill_({0} > 0, 0.5)", "{0}.fill_(0.5)",
              "{0}.copy_({0} * 2)"]
    if n:
        writes += ["{0}[0] = 1.5", "{0}[0].mul_(3)", "{0}[None].relu_()", "{0}[L.tensor([0])] = 2.0"]
    if n == 2:
        writes += ["{0}.t()[0].exp_()", "{0}[:, 0] = {0}[:, 1]", "{0}[:, L.tensor([0, 1, 0][:{0}.shape[1]])] = {0}"]
    if n == 0:
        writes += ["{0}.t().mul_(2)", "{0}.transpose(0, 0).mul_(2)", "{0}[None][0].add_(1)"]
    return rng.choice(writes)


def _nest(rng, t):
    """al.tensor over a list holding a tensor (torch takes one-element tensors only)."""
    return rng.choice(["L.tensor([{0}.detach()])", "L.tensor([{0}.detach().sum(), 1.0])",
                       "L.tensor([[{0}.detach().reshape(-1)[0]]])"])


BUILDERS = [(_unary, 1, 6), (_binary, 2, 5), (_reduce, 1, 4), (_shape_op, 1, 5), (_cast, 1, 1),
            (_matmul, 1, 1), (_inplace, 1, 2), (_nest, 1, 1)]
_WEIGHTS = np.array([w for _, _, w in BUILDERS], float)


# -- building a program ----------------------------------------------------------------------
class Program:
    """Source lines, and the data they read."""

    def __init__(self, inputs, lines, ending):
        self.inputs = inputs              # [(shape, dtype name, requires_grad)]
        self.lines = lines                # statements after the inputs
        self.ending = ending              # ("backward" | "grad", [output names], [input names])
        self.seed = 0

    def source(self):
        out = [f"v{i} = L.tensor(DATA[{i}], dtype=L.{d}, requires_grad={rg})  # shape {s}"
               for i, (s, d, rg) in enumerate(self.inputs)]
        return "\n".join(out + self.lines + ending_lines(self.ending))


def ending_lines(ending):
    kind, outs, ins = ending
    if not outs:
        return []
    seeds = ", ".join(f"L.tensor(SEEDS[{i}], dtype={o}.dtype)" for i, o in enumerate(outs))
    if kind == "backward":
        total = " + ".join(f"({o} * L.tensor(SEEDS[{i}], dtype={o}.dtype)).sum()" for i, o in enumerate(outs))
        return [f"loss = {total}", "loss.backward()"]
    listed = ", ".join(ins)
    return [f"grads = L.autograd.grad([{', '.join(outs)}], [{listed}], grad_outputs=[{seeds}], "
            "create_graph=True, allow_unused=True)",
            "second = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)",
            f"grads2 = L.autograd.grad(second, [{listed}], allow_unused=True) "
            "if isinstance(second, L.Tensor) and second.requires_grad else None"]


def data_for(program, seed):
    """The arrays a program reads: its inputs, and matrices for matmul (its seeds for
    backward and grad are drawn in ``run``, shaped like the outputs they seed)."""
    rng = np.random.default_rng(seed)
    data = [(np.round(rng.normal(size=s) * 2, 1) + 0.0).astype(d)    # (+ 0.0: no -0.0)
            for s, d, _ in program.inputs]
    mm = {n: {} for n in (1, 2, 3)}
    for k in range(1, 5):
        for shape in [(k,), (k, 2), (3, k, 2), (2, k, 1)]:
            mm[len(shape)][shape] = np.round(rng.normal(size=shape), 1)
    return data, mm


def generate(seed, n_statements=None, builders=None):
    """One program, from its seed (the same seed gives the same program); ``builders``
    (default BUILDERS) are the kinds of statement it draws from."""
    import autograd_lab as al
    rng = np.random.default_rng(seed)
    inputs = []
    for _ in range(int(rng.integers(1, 4))):
        shape = SHAPES[int(rng.integers(len(SHAPES)))]
        dtype = rng.choice(["float64", "float64", "float64", "float32", "int64"])
        inputs.append((shape, str(dtype), bool(dtype != "int64" and rng.integers(4) > 0)))
    program = Program(inputs, [], ("backward", [], []))
    program.seed = seed
    _NO_WRITES.clear()
    data, mm = data_for(program, seed)
    env = {"L": al, "DATA": data, "DATA_MM": mm}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(program.source(), "<program>", "exec"), env)
        names = [f"v{i}" for i in range(len(inputs))]
        n = BIG if n_statements is None else n_statements
        for k in range(int(rng.integers(2, n + 1))):
            line = _statement(rng, env, names, len(inputs) + k, builders or BUILDERS)
            if line is None:
                continue
            program.lines.append(line)
            try:
                exec(compile(line, "<program>", "exec"), env)
            except Exception:
                pass
            target = line.split(" = ")[0] if " = " in line and line.startswith("v") else None
            if target and target in env and target not in names and "[" not in target:
                names.append(target)
    program.ending = _ending(rng, env, names, inputs)
    return program


# Variables no in-place write is built on: outputs of split and chunk and their inputs
# (torch refuses writes that would change a multi-output view's history), and the product
# of a matrix and a batch of matrices, which torch returns as a transposed view of its
# batched product when that is already contiguous (autograd_lab: a new tensor, the same
# numbers, and the name TransposeBackward0; but a write into it would differ).
_NO_WRITES = set()


def _statement(rng, env, names, k, builders=BUILDERS):
    weights = _WEIGHTS if builders is BUILDERS else np.array([w for _, _, w in builders], float)
    for _ in range(10):
        builder, arity, _ = builders[int(rng.choice(len(builders), p=weights / weights.sum()))]
        picked = [names[int(rng.integers(len(names)))] for _ in range(arity)]
        tensors = [env[p] for p in picked]
        rhs = builder(rng, *tensors)
        if rhs is None:
            continue
        if builder is _inplace and picked[0] in _NO_WRITES:
            continue
        code = rhs.format(*picked)
        if builder is _inplace:
            return code
        if ".split(" in code or ".chunk(" in code or any(p in _NO_WRITES for p in picked):
            _NO_WRITES.update(picked + [f"v{k}"])   # torch refuses an in-place write to these
            # (multi-output views, and views of them): none here
        if ".expand(" in code:           # torch lets fill_, zero_ and x[i] = number write into
            _NO_WRITES.add(f"v{k}")       # an expanded tensor; autograd_lab refuses every write
        if builder is _matmul and tensors[0].ndim == 2 and "DATA_MM[3]" in code:
            _NO_WRITES.add(f"v{k}")       # torch's result may be a view of its own (see below)
        return f"v{k} = {code}"
    return None


def _ending(rng, env, names, inputs):
    import autograd_lab as al
    outs = [n for n in names[len(inputs):]
            if isinstance(env.get(n), al.Tensor) and env[n].requires_grad]
    leaves = [f"v{i}" for i, (_, _, rg) in enumerate(inputs) if rg]
    if not outs or not leaves:
        return ("backward", [], [])
    outs = [outs[int(i)] for i in sorted(set(rng.integers(len(outs), size=2)))]
    return ("grad" if rng.integers(2) else "backward", outs, leaves)


# -- running one on a library ----------------------------------------------------------------
def run(program, lib):
    """Execute ``program`` on ``lib`` and return a record per step: ("step", line,
    outcome), where outcome is the exception type's name or a summary of the variable
    the line set, and at the end every variable and gradient."""
    data, mm = data_for(program, program.seed)
    env = {"L": lib, "DATA": data, "DATA_MM": mm}
    record = []
    lines = program.source().split("\n")
    body = len(program.inputs) + len(program.lines)
    seeds_needed = program.ending[1]
    env["SEEDS"] = [None] * len(seeds_needed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, line in enumerate(lines):
            if i == body and seeds_needed:     # seeds shaped like the outputs, as they came out
                for j, o in enumerate(seeds_needed):
                    t = env.get(o)
                    shape = tuple(t.shape) if t is not None and hasattr(t, "shape") else ()
                    env["SEEDS"][j] = np.round(np.random.default_rng(program.seed + 7 * j).normal(size=shape), 1)
            read = line.split(" = ", 1)[1] if line.startswith("v") and " = " in line and \
                "[" not in line.split(" = ", 1)[0] else line
            if any(w not in env for w in _names_in(read)):   # built on a statement that raised
                record.append(("skipped", line, None))
                continue
            try:
                exec(compile(line, "<program>", "exec"), env)
                outcome = _summary(env, line, lib)
            except Exception as e:
                outcome = ("raised", type(e).__name__, str(e).split("\n")[0][:160])
            record.append(("step", line, outcome))
    # (a backward that raises may have filled some .grad before it stopped, in an order
    # that is the engine's own: then .grad is not compared, the exception type was)
    stopped = any(step[0] == "step" and step[2][0] == "raised" for step in record[body:])
    final = {}
    for name in sorted(env):
        if name.startswith("v") and name[1:].isdigit():
            final[name] = _describe(env[name], lib)
            t = env[name]
            if isinstance(t, lib.Tensor) and not stopped and _leaf_requiring_grad(t):
                final[name + ".grad"] = _describe(t.grad, lib)
    # gradients recorded by create_graph=True: torch records its backward formulas as
    # nodes of their own (TanhBackwardBackward0, ...), autograd_lab records its rules'
    # operations: their grad_fn names are not compared, the rest is
    for name in ("grads", "grads2"):
        if isinstance(env.get(name), tuple):
            final[name] = [_describe(g, lib, named=False) for g in env[name]]
    return record, final


def _leaf_requiring_grad(t):
    try:
        return t.is_leaf and t.requires_grad
    except RuntimeError:               # (see _describe)
        return False


def _names_in(line):
    import re
    return re.findall(r"\bv\d+\b", line)


def _summary(env, line, lib):
    if not line.startswith("v") or " = " not in line:
        target = _names_in(line)[0] if _names_in(line) else None
    else:
        target = line.split(" = ")[0]
    if target is None or target not in env:
        return ("ok",)
    return _describe(env[target], lib)


def _describe(t, lib, named=True):
    """What is compared of a value: for a tensor its numbers, dtype, shape,
    requires_grad, is_leaf and grad_fn's name."""
    if t is None:
        return None
    if not isinstance(t, lib.Tensor):
        return ("value", repr(t))
    try:
        node = t.grad_fn
    except Exception as e:             # (torch refuses to show some views' grad_fn)
        return ("raised", type(e).__name__, str(e).split("\n")[0][:160])
    if getattr(t, "_is_zerotensor", lambda: False)():   # (torch's grad may give a ZeroTensor,
        values = np.zeros(tuple(t.shape), str(t.dtype).split(".")[-1])   # which refuses numpy())
    else:
        values = t.detach().numpy().copy()
    return ("tensor", values, str(t.dtype).split(".")[-1], tuple(t.shape),
            t.requires_grad, t.is_leaf, node.name() if node is not None and named else None)


# -- comparing two runs, and shrinking a failing program -------------------------------------
def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        va, vb = a[1], b[1]
        if a[2:] != b[2:] or va.shape != vb.shape:
            return False
        if va.dtype.kind == "f":
            tol = 1e-3 if va.dtype.itemsize < 8 else 1e-5    # (float64 results may come from float32)
            return bool(np.allclose(va, vb, rtol=tol, atol=tol, equal_nan=True))
        return bool(np.array_equal(va, vb))
    if a[0] == "raised":
        return a[1] == b[1]
    return a == b


def difference(ours, theirs):
    """The first difference between two runs, as text, or None."""
    (rec_a, fin_a), (rec_b, fin_b) = ours, theirs
    for (ka, line, oa), (kb, _, ob) in zip(rec_a, rec_b):
        if ka != kb:
            return f"{line}\n  skipped in one library only"
        if ka == "step" and not _same(oa, ob):
            return f"{line}\n  autograd_lab: {_show(oa)}\n  torch:        {_show(ob)}"
    for name in sorted(set(fin_a) | set(fin_b)):
        a, b = fin_a.get(name), fin_b.get(name)
        if isinstance(a, list) or isinstance(b, list):
            if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                    and all(_same(x, y) for x, y in zip(a, b))):
                return f"at the end, {name}\n  autograd_lab: {a}\n  torch:        {b}"
        elif not _same(a, b):
            return f"at the end, {name}\n  autograd_lab: {_show(a)}\n  torch:        {_show(b)}"
    return None


def _show(d):
    if d is None or d[0] != "tensor":
        return repr(d)
    return (f"{np.array2string(d[1], precision=4)} dtype={d[2]} shape={d[3]} requires_grad={d[4]} "
            f"is_leaf={d[5]} grad_fn={d[6]}")


def compare(program, al, torch):
    return difference(run(program, al), run(program, torch))


def shrink(program, al, torch, budget=200):
    """The smallest program found that still shows a difference: statements dropped,
    inputs made simpler (no requires_grad, float64), the ending made simpler (fewer
    outputs, a backward for a grad, none at all)."""
    best = program
    changed = True
    while changed and budget > 0:
        changed = False
        candidates = []
        for i in range(len(best.lines)):
            candidates.append(_with(best, lines=best.lines[:i] + best.lines[i + 1:]))
        for i, line in enumerate(best.lines):     # a statement bypassed: its input read instead
            bypass = _bypassed(best, i, line)
            if bypass is not None:
                candidates.append(bypass)
        for i, (shape, dtype, rg) in enumerate(best.inputs):    # simpler inputs: no grad, float64
            for simpler in ((shape, dtype, False), (shape, "float64", rg)):
                if simpler != best.inputs[i] and not (simpler[2] and simpler[1] == "int64"):
                    candidates.append(_with(best, inputs=best.inputs[:i] + [simpler] + best.inputs[i + 1:]))
        kind, outs, ins = best.ending
        if outs:
            candidates.append(_with(best, ending=("backward", [], [])))
            candidates += [_with(best, ending=(kind, [o for o in outs if o != drop], ins)) for drop in outs
                           if len(outs) > 1]
            if kind == "grad":
                candidates.append(_with(best, ending=("backward", outs, ins)))
        for c in candidates:
            budget -= 1
            if compare(c, al, torch) is not None:
                best, changed = c, True
                break
    return best


def _bypassed(program, i, line):
    """The program without statement i, ``vK = f(vJ)``, reading vJ where it read vK."""
    import re
    if not (line.startswith("v") and " = " in line):
        return None
    target, rhs = line.split(" = ", 1)
    read = set(_names_in(rhs))
    if "[" in target or len(read) != 1:
        return None
    source = read.pop()

    def swap(text):
        return re.sub(rf"\b{target}\b", source, text)
    kind, outs, ins = program.ending
    ending = (kind, list(dict.fromkeys(swap(o) for o in outs)), ins)
    return _with(program, lines=program.lines[:i] + [swap(x) for x in program.lines[i + 1:]], ending=ending)


def _with(program, lines=None, ending=None, inputs=None):
    p = Program(program.inputs if inputs is None else inputs, program.lines if lines is None else lines,
                program.ending if ending is None else ending)
    p.seed = program.seed
    return p
