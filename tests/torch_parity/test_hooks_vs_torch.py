"""Hooks on graph nodes, on several tensors, after .grad is written, and on saved values,
through torch and autograd_lab: which hooks run, in which order, what they see, what a
returned value replaces, removal and errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

LIBS = (al, torch)


def values(ts):
    """Hook arguments as comparable values: nested lists, None kept."""
    if ts is None:
        return None
    if isinstance(ts, (tuple, list)):
        return [values(t) for t in ts]
    return np.round(np.asarray(ts.detach().tolist(), dtype=float), 4).tolist()


def error_text(fn):
    """(exception type, message with torch's names as ours), or None."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001  (any exception: compared with torch's)
        return type(e).__name__, str(e).replace("torch.", "al.").split(" (a gradient of shape")[0]
    return None


def same(scenario, *args):
    """Run ``scenario(lib, *args)`` through both libraries; the results must be equal."""
    ours, theirs = (scenario(lib, *args) for lib in LIBS)
    assert ours == theirs
    return ours


# -- which hooks run, and in which order --------------------------------------------------
CALLS = {
    "backward": lambda lib, z, a, x: z.backward(retain_graph=True),
    "grad of an intermediate": lambda lib, z, a, x: lib.autograd.grad(z, a, retain_graph=True),
    "grad of a leaf": lambda lib, z, a, x: lib.autograd.grad(z, x, retain_graph=True),
    "grad of both": lambda lib, z, a, x: lib.autograd.grad(z, [a, x], retain_graph=True),
    "backward(inputs=[intermediate])": lambda lib, z, a, x: z.backward(inputs=[a], retain_graph=True),
    "backward(inputs=[leaf])": lambda lib, z, a, x: z.backward(inputs=[x], retain_graph=True),
    "backward(inputs=both)": lambda lib, z, a, x: z.backward(inputs=[a, x], retain_graph=True),
}


def every_kind_of_hook(lib, call):
    """z = exp(x * w).sum() with a hook of every kind on a, b = exp(a) and the leaf x:
    the log of which ran, with what they saw (twice: .grad accumulates)."""
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([0.3, -0.4], requires_grad=True)
    a = x * w
    b = a.exp()
    z = b.sum()
    for name, t in (("a", a), ("b", b)):
        t.register_hook(lambda g, n=name: log.append(("tensor " + n, values(g))))
        t.retain_grad()
        t.grad_fn.register_prehook(lambda go, n=name: log.append(("pre " + n, values(go))))
        t.grad_fn.register_hook(lambda gi, go, n=name: log.append(("post " + n, values(gi), values(go))))
    acc = a.grad_fn.next_functions[0][0]
    x.register_hook(lambda g: log.append(("tensor x", values(g))))
    acc.register_prehook(lambda go: log.append(("pre AccumulateGrad", values(go))))
    acc.register_hook(lambda gi, go: log.append(("post AccumulateGrad", values(gi), values(go),
                                                 values(x.grad))))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("after .grad", t is x, values(t.grad))))
    for _ in range(2):
        CALLS[call](lib, z, a, x)
        log.append(("grads", values(x.grad), values(w.grad), values(a.grad)))
    return log


@pytest.mark.parametrize("call", list(CALLS))
def test_every_kind_of_hook_runs_where_and_when_torch_runs_it(call):
    log = same(every_kind_of_hook, call)
    assert log                                  # (something ran)


def test_grad_inputs_has_one_entry_per_next_function_none_where_nothing_is_sent():
    def seen(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([5.0, 6.0])
        out = []
        # (torch's cat computes a gradient for a constant too: autograd_lab sends none)
        for y in (x * c, x * 2, x ** 2, lib.where(c > 5, x, c), 2 ** x, x - 3, c / x):
            y.grad_fn.register_hook(lambda gi, go: out.append((values(gi), values(go))))
            y.sum().backward()
        return out
    same(seen)


def test_a_custom_functions_node_has_hooks_too():
    def seen(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2 + y

            @staticmethod
            def backward(ctx, g):
                return g * 2, g

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        out = Twice.apply(x, y)
        log = []
        out.grad_fn.register_prehook(lambda go: log.append(("pre", values(go))) or (go[0] * 3,))
        out.grad_fn.register_hook(lambda gi, go: log.append(("post", values(gi))) or (gi[0], gi[1] + 1))
        out.sum().backward()
        return log, values(x.grad), values(y.grad), isinstance(out.grad_fn, lib.autograd.graph.Node)
    same(seen)


def test_a_function_with_two_outputs_has_one_node_whose_hooks_see_both_gradients():
    def seen(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 3

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        log = []
        for use_both in (True, False):
            a, b = Two.apply(x)
            a.grad_fn.register_prehook(lambda go: log.append(("pre", values(go))) or
                                       tuple(None if g is None else g * 10 for g in go))
            b.grad_fn.register_hook(lambda gi, go: log.append(("post", values(gi), values(go))))
            ((a.sum() if use_both else 0) + 5 * b.sum()).backward()
            log.append(values(x.grad))
        return log
    same(seen)


# -- what a hook returns replaces the gradient -------------------------------------------
def replacing(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    log = []
    y = x * 2
    y.register_hook(lambda g: g * 10)                   # the tensor's hook first ...
    y.retain_grad()                                     # ... retain_grad keeps that ...
    y.grad_fn.register_prehook(lambda go: (go[0] + 1,))     # ... the node's pre-hooks see it
    y.grad_fn.register_prehook(lambda go: log.append(values(go)))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))
    y.grad_fn.register_hook(lambda gi, go: log.append((values(gi), values(go))))
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: (go[0] - 1,))       # a leaf's pre-hook: what .grad gets
    y.sum().backward()
    return log, values(y.grad), values(x.grad)


def test_pre_hooks_and_hooks_replace_gradients_in_torchs_order():
    same(replacing)


def test_a_pre_hook_returning_none_lets_nothing_through():
    def blocked(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3 + w
        y.grad_fn.next_functions[0][0].register_prehook(lambda go: (None,))   # MulBackward0
        acc = (w * 1).grad_fn.next_functions[0][0]
        handle = acc.register_prehook(lambda go: (None,))
        y.sum().backward(retain_graph=True)
        first = values(x.grad), values(w.grad)
        handle.remove()
        y.sum().backward(retain_graph=True)
        w.grad = w.grad * 1                             # a .grad that exists stays as it is
        handle = acc.register_prehook(lambda go: (None,))
        y.sum().backward()
        return first, values(x.grad), values(w.grad)
    same(blocked)


def test_removed_hooks_are_not_called_and_removing_twice_is_fine():
    def removal(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        log = []
        handles = [y.grad_fn.register_prehook(lambda go: log.append("pre 1")),
                   y.grad_fn.register_prehook(lambda go: (go[0] * 2,)),
                   y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None)),
                   y.grad_fn.register_hook(lambda gi, go: log.append(("post", values(gi)))),
                   x.register_post_accumulate_grad_hook(lambda t: log.append("after .grad"))]
        y.sum().backward(retain_graph=True)
        for h in handles[1:3] + handles[4:]:
            h.remove()
        handles[2].remove()
        y.sum().backward(retain_graph=True)
        with y.grad_fn.register_prehook(lambda go: (go[0] * 100,)):
            y.sum().backward(retain_graph=True)
        y.sum().backward()
        return log, values(x.grad)
    same(removal)


BAD_RETURNS = {
    "a tensor, not a tuple": lambda old: old[0],
    "a list": lambda old: list(old),
    "one too many": lambda old: tuple(old) + (old[0],),
    "one too few": lambda old: tuple(old)[:-1],
    "another shape": lambda old: (torch_or_al(old[0]).ones(3),) + tuple(old)[1:],
    "another dtype": lambda old: (old[0].double(),) + tuple(old)[1:],
    "a number": lambda old: (1.0,) + tuple(old)[1:],
    "an int": lambda old: 5,
}


def torch_or_al(t):
    return al if isinstance(t, al.Tensor) else torch


@pytest.mark.parametrize("bad", list(BAD_RETURNS))
@pytest.mark.parametrize("kind", ["pre-hook", "hook"])
def test_a_hook_returning_the_wrong_thing_is_refused_in_torchs_words(kind, bad):
    def refused(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        if kind == "pre-hook":
            y.grad_fn.register_prehook(lambda go: BAD_RETURNS[bad](go))
        else:
            y.grad_fn.register_hook(lambda gi, go: BAD_RETURNS[bad](gi))
        return error_text(lambda: y.sum().backward()), values(x.grad)
    error, grad = same(refused)
    assert error is not None and grad is None       # refused, and no .grad written


def test_a_hook_may_not_put_a_gradient_where_none_was():
    def refused(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2                                       # (None for the constant 2)
        y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
        acc = y.grad_fn.next_functions[0][0]
        acc.register_hook(lambda gi, go: (go[0],))      # a leaf's node sends nothing on
        first = error_text(lambda: y.sum().backward(retain_graph=True))
        y2 = x * 2
        y2.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (go[0],))
        return first, error_text(lambda: y2.sum().backward())
    same(refused)


@pytest.mark.parametrize("bad", ["a number", "another shape", "another dtype"])
def test_a_tensor_hook_returning_the_wrong_thing_is_refused_in_torchs_words(bad):
    def refused(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: BAD_RETURNS[bad]((g,))[0])
        return error_text(lambda: y.sum().backward())
    same(refused)


def test_hooks_under_create_graph_see_recorded_gradients_and_second_derivatives_follow():
    def second(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x ** 3
        log = []
        y.grad_fn.register_prehook(lambda go: log.append((values(go), go[0].requires_grad)))
        y.grad_fn.register_hook(lambda gi, go: log.append((values(gi), gi[0].requires_grad)) or
                                (gi[0] * x,))
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        return log, values(g), values(x.grad)
    same(second)


# -- after .grad is written ---------------------------------------------------------------
def test_post_accumulate_grad_hooks_see_the_accumulated_grad_and_can_step_there():
    def sgd_in_backward(lib):
        rng = np.random.default_rng(3)
        w = lib.tensor(rng.normal(size=(3, 2)).astype(np.float32), requires_grad=True)
        b = lib.tensor(rng.normal(size=2).astype(np.float32), requires_grad=True)
        data = lib.tensor(rng.normal(size=(4, 3)).astype(np.float32))
        seen = []

        def step(p):                                    # the optimizer step, in the backward
            seen.append(values(p.grad))
            with lib.no_grad():
                p.add_(p.grad, alpha=-0.1)
            p.grad = None
        handles = [p.register_post_accumulate_grad_hook(step) for p in (w, b)]
        for _ in range(3):
            ((data @ w + b) ** 2).mean().backward()
        handles[0].remove()
        ((data @ w + b) ** 2).mean().backward()        # w's .grad now stays
        return sorted(seen, key=str), values(w), values(b), values(w.grad), values(b.grad)
    same(sgd_in_backward)


def test_post_accumulate_grad_hooks_run_leaf_after_leaf_in_torchs_order():
    """In torch each runs as its leaf's node does, during the walk; in autograd_lab every
    .grad is written once the walk succeeded, so they run then: in the same order among
    themselves, after the hooks of the tensors."""
    def order(lib):
        rng = np.random.default_rng(0)
        ps = {n: lib.tensor(rng.normal(size=s).astype(np.float32), requires_grad=True)
              for n, s in (("W1", (3, 4)), ("b1", (4,)), ("W2", (4, 2)), ("b2", (2,)))}
        x = lib.tensor(rng.normal(size=(5, 3)).astype(np.float32))
        log = []
        for n, p in ps.items():
            p.register_post_accumulate_grad_hook(lambda t, n=n: log.append(n))
            p.register_hook(lambda g, n=n: log.append("hook " + n))
        (((x @ ps["W1"] + ps["b1"]).sigmoid() @ ps["W2"] + ps["b2"]) ** 2).mean().backward()
        return [e for e in log if e.startswith("hook")], [e for e in log if not e.startswith("hook")]
    same(order)


def test_tensor_hooks_registered_before_and_after_an_in_place_write_as_in_torch():
    def hooked(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        log = []
        y = x * 2
        y.register_hook(lambda g: log.append(("before", values(g))))
        y.retain_grad()
        y.mul_(3)
        y.register_hook(lambda g: log.append(("after", values(g))))
        y.grad_fn.register_prehook(lambda go: log.append(("pre", values(go))))
        (y * y).sum().backward()
        return log, values(y.grad), values(x.grad)
    same(hooked)


def test_post_accumulate_grad_hooks_are_refused_where_torch_refuses_them():
    def refused(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return (error_text(lambda: (x * 2).register_post_accumulate_grad_hook(print)),
                error_text(lambda: lib.ones(2).register_post_accumulate_grad_hook(print)))
    assert all(same(refused))


def test_grad_does_not_call_post_accumulate_grad_hooks():
    def grad_only(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        log = []
        x.register_post_accumulate_grad_hook(lambda t: log.append("called"))
        lib.autograd.grad((x * x).sum(), x)
        return log, values(x.grad)
    same(grad_only)


# -- several tensors at once --------------------------------------------------------------
def test_multi_grad_hook_all_mode_as_torchs_documentation_shows():
    def example(lib):
        a = lib.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
        b = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        c = a * b
        d = a * b
        log = []
        handle = lib.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: log.append([values(g) for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        (c + d).sum().backward(retain_graph=True)
        handle.remove()
        c.sum().backward()
        return log
    assert len(same(example)) == 3


def test_multi_grad_hook_any_mode_calls_once_per_backward_with_the_first_gradient():
    def first(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        d = c.exp()
        log = []
        lib.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda g: log.append(values(g)),
                                                    mode="any")
        d.sum().backward(retain_graph=True)
        (c.sum() * 2).backward()
        return log
    assert len(same(first)) == 2


def test_multi_grad_hook_refusals():
    def refused(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        return (error_text(lambda: lib.autograd.graph.register_multi_grad_hook((a,), print, mode="some")),
                error_text(lambda: lib.autograd.graph.register_multi_grad_hook((a, lib.ones(2)), print)))
    assert all(same(refused))


# -- the Node class -----------------------------------------------------------------------
def test_every_grad_fn_is_a_node_an_abstract_class_with_torchs_methods():
    def node(lib):
        Node = lib.autograd.graph.Node
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        acc = y.grad_fn.next_functions[0][0]
        y.grad_fn.metadata["where"] = "here"            # a dict the node keeps
        return (isinstance(y.grad_fn, Node), isinstance(acc, Node), issubclass(type(acc), Node),
                isinstance(x, Node), isinstance(None, Node), error_text(Node),
                y.grad_fn.name(), acc.name(), y.grad_fn.metadata, acc.metadata,
                acc.next_functions, y.grad_fn._sequence_nr() > acc._sequence_nr())
    out = same(node)
    assert out[:3] == (True, True, True)


# -- writing into saved values ------------------------------------------------------------
# (torch's first allow_mutation_on_saved_tensors block takes about 7 s, importing its
# tensor subclasses: these comparisons are CI's long checks; tests/core/test_hooks.py checks
# the same block without torch)
@pytest.mark.slow
def test_allow_mutation_on_saved_tensors_as_torchs_documentation_shows():
    def example(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            c = a * 1
            e = c.exp()                                 # saves its output, written below
            e.mul_(2)
            (out + e.sum()).backward()
        return values(a.grad), values(b)
    same(example)


def test_writing_into_a_saved_value_is_refused_outside_the_block():
    def refused(lib):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        return error_text(out.backward)
    assert same(refused)[0] == "RuntimeError"


@pytest.mark.slow
def test_allow_mutation_backward_outside_the_block_and_nesting_are_refused():
    def refused(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            out = (a.clone() ** 2).sum()
        outside = error_text(out.backward)

        def nested():
            with lib.autograd.graph.allow_mutation_on_saved_tensors():
                with lib.autograd.graph.allow_mutation_on_saved_tensors():
                    pass
        return outside, error_text(nested)
    same(refused)


def test_saved_tensors_hooks_values_are_not_version_checked_as_in_torch():
    def unchecked(lib):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            b = a * 1
            out = (b ** 2).sum()
        b.mul_(10)                                      # the copy the hooks keep is unchanged
        out.backward()
        return values(a.grad)
    same(unchecked)


# -- numpy() and _version -----------------------------------------------------------------
def test_numpy_of_a_tensor_that_requires_grad_is_given_under_no_grad_or_with_force():
    def given(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        refused = error_text(x.numpy)
        with lib.no_grad():
            n = x.numpy()
            m = y.numpy()
        n[0] = 5.0                                      # shared memory
        with lib.inference_mode():
            k = x.numpy().tolist()
        return refused, values(x), m.tolist(), k, x.numpy(force=True).tolist()
    assert same(given)[0][0] == "RuntimeError"


def test_an_inference_tensors_version_is_refused_in_torchs_words():
    def refused(lib):
        with lib.inference_mode():
            t = lib.ones(2)
            inside = error_text(lambda: t._version)
        return inside, error_text(lambda: t._version), lib.ones(2)._version
    assert same(refused)[0][0] == "RuntimeError"


# -- a seeded random case -----------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_random_graphs_with_random_hooks_give_torchs_gradients(seed):
    def run(lib):
        rng = np.random.default_rng(seed)
        xs = [lib.tensor(rng.normal(size=3).astype(np.float32), requires_grad=True) for _ in range(3)]
        ts = list(xs)
        for _ in range(6):
            i, j = rng.integers(len(ts), size=2)
            op = rng.integers(3)
            t = ts[i] * ts[j] if op == 0 else (ts[i] + ts[j]).tanh() if op == 1 else ts[i].exp() - ts[j]
            scale = float(rng.uniform(0.5, 2.0))
            kind = rng.integers(3)
            if kind == 0:
                t.grad_fn.register_prehook(lambda go, s=scale: (go[0] * s,))
            elif kind == 1:
                t.grad_fn.register_hook(lambda gi, go, s=scale: tuple(None if g is None else g * s for g in gi))
            else:
                t.register_hook(lambda g, s=scale: g * s)
            ts.append(t)
        sum(t.sum() for t in ts[3:]).backward()
        return [values(x.grad) for x in xs]
    ours, theirs = (run(lib) for lib in LIBS)
    assert np.allclose(np.array(ours, dtype=float), np.array(theirs, dtype=float), rtol=1e-4, atol=1e-4)
