"""In-place operations on tensors in a graph, as torch records them (the numbers and
texts below are torch 2.13's; tests/torch_parity/test_engine_vs_torch.py compares with torch itself)."""
import re

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import rulebook

HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with al.autograd.set_detect_anomaly(True, check_nan=False).")


def modified(what, now, expected):
    return re.escape("one of the variables needed for gradient computation has been modified by an "
                     f"inplace operation: {what} is at version {now}; expected version {expected} "
                     f"instead. {HINT}")


def leaf(values):
    return al.tensor(values, requires_grad=True)


def test_x_times_2_then_add__is_recorded_on_the_same_tensor():
    x = leaf([1.0, 2.0])
    y = x * 2
    same = y
    y.add_(1)
    assert y is same and y._version == 1 and y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_exp_then_mul__is_refused_because_exp_keeps_its_output():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="^" + modified("[al.FloatTensor [2]], which is output 0 of Exp,", 1, 0) + "$"):
        y.sum().backward()
    assert x.grad is None


def test_a_rule_that_reads_the_old_value_gets_a_copy_of_it():
    x = leaf([0.5, 1.0])
    y = x * 1
    y.sin_()                                 # sin's rule reads its input: the numbers before sin_
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), np.cos([0.5, 1.0]))


def test_detach_shares_the_version_counter_and_data_does_not():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.detach().zero_()
    assert y._version == 1
    with pytest.raises(RuntimeError, match=modified("[al.FloatTensor [2]], which is output 0 of Exp,", 1, 0)):
        y.sum().backward()
    z = x.exp()
    z.data.mul_(2)                           # not counted: the gradient uses the changed numbers
    z.sum().backward()
    assert z._version == 0 and np.allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]))


def test_masked_assignment_routes_the_gradient_like_where():
    x = leaf([1.0, -2.0, 3.0, -4.0])
    y = x * 3
    y[y < 0] = 0
    assert y.grad_fn.name() == "IndexPutBackward0" and y.tolist() == [3.0, 0.0, 9.0, 0.0]
    y.sum().backward()
    z = leaf([1.0, -2.0, 3.0, -4.0])
    al.where(z * 3 < 0, 0.0, z * 3).sum().backward()
    assert x.grad.tolist() == z.grad.tolist() == [3.0, 0.0, 3.0, 0.0]


def test_a_loop_carrying_its_graph_fails_at_the_second_backward_and_detach_fixes_it():
    w = leaf([0.5, -0.3])
    h = al.zeros(2)
    h = h * w + al.tensor([0.0, 1.0])
    h.sum().backward()
    h = h * w + al.tensor([1.0, 1.0])        # the new graph reaches into the walked one
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        h.sum().backward()
    carried = h.detach()                     # the fix: carry the numbers, not the graph
    h = carried * w + al.tensor([2.0, 1.0])
    w.grad = None
    h.sum().backward()
    assert w.grad.tolist() == carried.tolist()


def test_an_optimizer_step_counts_a_version_so_an_older_loss_is_refused():
    w = leaf([1.0, 2.0])
    loss = (w ** 2).sum()                    # PowBackward0 keeps w
    with al.no_grad():
        w -= 0.1 * w                         # allowed on a leaf under no_grad
    assert w._version == 1 and w.is_leaf
    with pytest.raises(RuntimeError, match="^" + modified("[al.FloatTensor [2]]", 1, 0) + "$"):
        loss.backward()
    fresh = (w * 3).sum()                    # a loss computed after the step is fine
    fresh.backward()
    assert w.grad.tolist() == [3.0, 3.0]


REFUSED = {   # (make, the error's start) -- the tensor written stays as it was
    "a leaf that requires grad": (lambda x, y: x.add_(1),
                                  "a leaf Variable that requires grad is being used in an in-place operation."),
    "a view of such a leaf": (lambda x, y: x[0:1].mul_(2), "a view of a leaf Variable that requires grad"),
    "x[0] = 1 on such a leaf": (lambda x, y: x.__setitem__(0, 1.0), "a view of a leaf Variable"),
    "a view made under no_grad": (lambda x, y: _view_without_grad(y).add_(1),
                                  "A view was created in no_grad mode and is being modified inplace"),
    "a result that does not fit": (lambda x, y: y.add_(al.ones(2, 2)),
                                   r"output with shape [2] doesn't match the broadcast shape [2, 2]"),
    "a float mask": (lambda x, y: y.masked_fill_(y * 0, 1.0),
                     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    "a vector to masked_fill_": (lambda x, y: y.masked_fill_(y > 0, y),
                                 "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                                 "with 1 dimension(s)."),
    "a vector to fill_": (lambda x, y: y.fill_(y), "fill_ only supports 0-dimension value tensor"),
    "values that do not fit the indices": (lambda x, y: y.__setitem__([0, 1], al.ones(3)),
                                           "shape mismatch: value tensor of shape [3] cannot be broadcast"),
    "a value that does not expand": (lambda x, y: y.__setitem__(slice(None), al.ones(3)),
                                     "The expanded size of the tensor (2) must match the existing size (3)"),
    "another dtype through indices": (lambda x, y: y.__setitem__([0], al.ones(1, dtype=al.float64)),
                                      "Index put requires the source and destination dtypes match"),
    "an expanded tensor": (lambda x, y: y[:1].expand(3).add_(1),
                           "unsupported operation: more than one element of the written-to tensor"),
}


def _view_without_grad(t):
    with al.no_grad():
        return t[0:1]


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_write_changes_nothing(case):
    make, text = REFUSED[case]
    x = leaf([1.0, 2.0])
    y = x * 2
    before = [(t.tolist(), t._version, t.grad_fn) for t in (x, y)]
    with pytest.raises(RuntimeError, match="^" + re.escape(text)):
        make(x, y)
    assert [(t.tolist(), t._version, t.grad_fn) for t in (x, y)] == before


def test_a_write_through_a_view_sends_gradients_to_what_was_written():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    w = leaf(5.0)
    y = x * 2
    middle = y[1:3]
    first = y[:2]                            # a view that the write changes in part
    middle.mul_(w)
    assert repr(y.grad_fn) == "<CopySlices>" and middle.grad_fn.name() == "AsStridedBackward0"
    assert y.tolist() == [2.0, 20.0, 30.0, 8.0] and first.tolist() == [2.0, 20.0]
    assert y._version == middle._version == first._version == 1
    first.sum().backward()                   # first's history is y's new one
    assert x.grad.tolist() == [2.0, 10.0, 0.0, 0.0] and w.grad.item() == 4.0


def test_writing_a_graph_value_into_a_plain_buffer_makes_the_buffer_part_of_the_graph():
    w = leaf(3.0)
    out = al.zeros(3)
    out[1] = w * w
    assert out.requires_grad and not out.is_leaf and repr(out.grad_fn) == "<CopySlices>"
    out.sum().backward()
    assert w.grad.item() == 6.0


def test_hooks_registered_before_an_in_place_op_see_the_gradient_of_the_old_value():
    x = leaf([1.0, 2.0])
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(("before", g.tolist())))
    y.mul_(3)
    y.register_hook(lambda g: seen.append(("after", g.tolist())))
    y.retain_grad()
    (y * al.tensor([1.0, 10.0])).sum().backward()
    assert seen == [("after", [1.0, 10.0]), ("before", [3.0, 30.0])] and y.grad.tolist() == [1.0, 10.0]


def test_in_place_ops_work_in_forward_mode_and_under_create_graph():
    def f(a):
        b = a * 1
        b[1:].mul_(a[:2])                    # through a view
        b.sin_()
        return b

    def g(a):
        b = a * 1
        return al.cat([b[:1], b[1:] * a[:2]]).sin()

    a = al.tensor([0.3, -0.7, 1.1], dtype=al.float64)
    for v in (al.tensor([1.0, 0.0, 0.0], dtype=al.float64), al.tensor([0.2, 0.5, -1.0], dtype=al.float64)):
        assert np.allclose(al.func.jvp(f, (a,), (v,))[1].numpy(), al.func.jvp(g, (a,), (v,))[1].numpy())
    assert np.allclose(al.func.hessian(lambda a: f(a).sum())(a).numpy(),
                       al.func.hessian(lambda a: g(a).sum())(a).numpy())
    assert np.allclose(al.func.jacfwd(f)(a).numpy(), al.func.jacrev(g)(a).numpy())


def test_rulebook_says_what_each_rule_keeps():
    assert rulebook.rule("exp").keeps == "the output" and rulebook.rule("exp").saves == "output"
    assert rulebook.rule("sin").keeps == "x" and rulebook.rule("add").keeps == "nothing"
    assert rulebook.rule("where").keeps == "mask" and rulebook.rule("pow_number").keeps == "a and b"
    assert rulebook.rule("index_put").keeps == "the index"


def test_a_row_that_keeps_the_index_it_was_called_with_says_no_backward_frees_it():
    """The table's words for indexing and max(dim) match what a second backward does."""
    for row in ("index", "max_dim"):
        assert rulebook.rule(row).keeps == "the index it was called with, which no backward frees"
    x = leaf([1.0, 5.0, 3.0])
    for y in (x[al.tensor([2, 0])].sum(), x.max(0).values):
        y.backward()
        y.backward()                         # nothing freed: the walk runs again
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_anomaly_mode_shows_where_the_forward_recorded_the_node_that_failed():
    x = leaf([1.0, 2.0])
    with al.autograd.detect_anomaly(check_nan=False):
        y = x.exp()                          # the line the warning shows
        y.mul_(2)
        with pytest.warns(UserWarning, match=r"^Error detected in ExpBackward0. Traceback of forward call "
                                             r"that caused the error:\n(.|\n)*y = x.exp\(\)"), \
                pytest.raises(RuntimeError, match=re.escape(
                    "expected version 0 instead. Hint: the backtrace further above shows the operation "
                    "that failed to compute its gradient. The variable in question was changed in there "
                    "or anywhere later. Good luck!")):
            y.sum().backward()
    assert not al.autograd.is_anomaly_enabled()


def test_in_place_writes_reach_everything_that_shares_the_memory():
    plain = al.zeros(3)
    held = plain.numpy()                     # a NumPy array on the same memory
    data = plain.data                        # .data: the same memory, its own version counter
    view = plain[1:]
    plain.add_(1)
    source = np.zeros(2, np.float32)
    shared = al.from_numpy(source)
    shared.mul_(2).add_(5)
    assert held.tolist() == data.tolist() == [1.0, 1.0, 1.0] and view.tolist() == [1.0, 1.0]
    assert source.tolist() == [5.0, 5.0] and plain._version == view._version == 1 and data._version == 0
    y = al.ones(3, requires_grad=True) * 2
    first = y.detach()
    y.exp_()
    assert np.allclose(first.numpy(), np.exp(2.0)) and first._version == 1


# -- a write on a big tensor computes straight into its memory (Op.writes_into) ------------
BIG = (128, 64)                           # 8,192 numbers: above saved.KEEP_BELOW


def big(seed, requires_grad=True, shape=BIG):
    rng = np.random.default_rng(seed)
    return al.tensor(rng.normal(size=shape).astype(np.float32), requires_grad=requires_grad)


@pytest.mark.parametrize("write", ["add_(w)", "sub_(w, alpha=2)", "mul_(w)", "mul_(0.5)", "div_(w * w + 1)",
                                   "exp_()", "log_()", "log1p_()", "sqrt_()", "sin_()", "cos_()", "tanh_()", "sigmoid_()",
                                   "add_(y, alpha=2)", "add_(y.data, alpha=2)", "sub_(y.detach())"])
def test_a_big_write_has_the_numbers_and_gradients_of_its_out_of_place_form(write):
    method, args = write.split("(", 1)
    def run(in_place):
        x, w = big(0), al.tensor(0.75, requires_grad=True)
        y = x.abs() + 0.5 if method in ("log_", "log1p_", "sqrt_") else x * 1
        result = eval(f"y.{method if in_place else method[:-1]}({args}", {"y": y, "w": w})
        assert (result is y) == in_place
        (result * result).sum().backward()
        return result.detach().numpy().copy(), x.grad.numpy(), None if w.grad is None else w.grad.item()
    for a, b in zip(run(True), run(False)):
        assert np.array_equal(a, b), write   # the same float32 operations: equal to the bit


def test_a_big_in_place_write_needs_no_second_array():
    import tracemalloc
    x, p, g = (big(seed, requires_grad=seed < 3, shape=(256, 256)) for seed in (1, 2, 3))
    y = x * 1
    size = g.numpy().nbytes
    tracemalloc.start()
    try:
        y.add_(1).mul_(2.0).tanh_()       # recorded
        with al.no_grad():                # an optimizer's step
            p.mul_(0.9).sub_(g)
            g.sigmoid_()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 4, f"{peak} bytes allocated for writes into {size} bytes"
    y.sum().backward()                    # and the graph is whole: tanh keeps its output, y now
    t = np.tanh((x.detach().numpy() + 1) * 2)
    assert np.allclose(x.grad.numpy(), 2 * (1 - t * t), atol=1e-6)


def test_a_big_write_refused_for_an_inference_tensor_changes_nothing_and_others_still_go_straight_in():
    import tracemalloc
    with al.inference_mode():
        frozen = big(4, requires_grad=False) * 1             # an inference tensor
    y = big(5) * 1
    before = y.detach().numpy().copy()
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        y.mul_(frozen)                    # mul's rule for y reads the other factor
    assert np.array_equal(y.detach().numpy(), before) and y._version == 0
    tracemalloc.start()                   # an inference tensor elsewhere slows no other write
    try:
        y.add_(1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < before.nbytes / 4


@pytest.mark.parametrize("n", [8, 8192], ids=["small", "big"])
def test_a_write_stopped_by_a_floating_point_error_leaves_the_tensor_as_it_was(n):
    y = al.full((n,), -1.0)                # (nothing recorded: log_ may write into it)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        y.log_()
    assert (y.detach().numpy() == -1).all() and y._version == 0


def test_a_big_write_with_warnings_made_errors_is_whole_or_not_at_all():
    import warnings
    y = al.full((8192,), -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            y.log_()
        except RuntimeWarning:
            assert (y.detach().numpy() == -1).all() and y._version == 0
        else:                             # (written into memory: torch's nan, no warning)
            assert np.isnan(y.detach().numpy()).all() and y._version == 1


def test_the_write_under_way_is_taken_only_by_its_own_op_in_its_own_thread():
    from autograd_lab.core.modes import state
    x = big(6, requires_grad=False)
    before = x.numpy().copy()
    state.into = (x._data, -1)            # another thread's x.add_ is under way
    try:
        y = x * 2.0                       # this thread reads x
    finally:
        state.into = None
    assert not np.shares_memory(y.numpy(), x.numpy()) and np.array_equal(x.numpy(), before)

    class Scale:                          # caller's code that runs inside add_, before its op
        def __mul__(self, alpha):
            seen.append(x.exp())
            return 0.0
    seen = []
    x.add_(Scale(), alpha=2)
    assert np.array_equal(seen[0].numpy(), np.exp(before)) and np.array_equal(x.numpy(), before)


def test_a_write_takes_the_new_array_when_no_one_else_holds_the_old_one():
    # (white box: copying it back instead cost 2.5x on a 2M-number int64 add_)
    x = al.arange(10_000)
    old = id(x._data)
    x.add_(1)
    assert id(x._data) != old and x[-1].item() == 10_000
