"""The errors a forward pass meets first, against torch 2.13 (the first group of the page
of errors, book/errors.ipynb): every pairing of shapes and dtypes in a matrix product
(`@`, matmul, mm, bmm, dot, mv, nn.Linear with and without a bias) raises torch's type and
words, which depend on the kernel torch's matmul reaches; so do a convolution's mixed
dtypes, an index past the end, shapes that do not broadcast or expand, a loss's target of
the wrong dtype, and an integer tensor asked to require grad (in each of torch's three
phrasings); al.tensor(a tensor) and a softmax without dim warn as torch does.  (Two
index errors are left out: for x[:, [1, 7]] and y[..., 9] torch names dimension 0 and 1,
autograd_lab the dimension indexed, 1 and 2.)"""
import itertools
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

SHAPES = [(3,), (4,), (2, 3), (4, 2), (5, 2, 3), (5, 4, 2), (1, 2, 3), (4, 3, 2), (2, 5, 2, 3),
          (5, 3, 3)]
DTYPES = [("float32", "float32"), ("float32", "float64"), ("float64", "float32"),
          ("float32", "int64")]


def same_words(ours, theirs):
    """The same exception type and message; autograd_lab may add a parenthesis (mm's
    "self must be a matrix (got a 1D tensor of shape (3,))")."""
    return ours[0] == theirs[0] and (ours[1] == theirs[1] or ours[1].startswith(theirs[1] + " ("))


def product(L, name, sa, sb, da, db):
    a, b = L.ones(*sa, dtype=getattr(L, da)), L.ones(*sb, dtype=getattr(L, db))
    return a @ b if name == "@" else getattr(L, name)(a, b)


@pytest.mark.parametrize("name", ["@", "matmul", "mm", "bmm", "dot", "mv"])
def test_every_product_of_shapes_and_dtypes_fails_or_runs_as_torchs_does(name):
    differ, refused = [], 0
    for (sa, sb), (da, db) in itertools.product(itertools.product(SHAPES, SHAPES), DTYPES):
        ours = error_of(lambda: product(al, name, sa, sb, da, db))
        theirs = error_of(lambda: product(torch, name, sa, sb, da, db))
        refused += theirs[0] is not None
        if not same_words(ours, theirs):
            differ.append(f"{name} {sa} {da} with {sb} {db}:\n  ours  {ours}\n  torch {theirs}")
    assert differ == [], "\n".join(differ[:10])
    assert refused >= 300                 # of 400 pairings: the grid tests refusals


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(2, 3), (2, 5), (3,), (5,), (4, 2, 3), (4, 2, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_a_linear_layer_refuses_an_input_as_torchs_does(bias, shape, dtype):
    """With a bias torch checks the dtypes first ("mat1 and mat2 must have the same
    dtype, but got Double and Float"), without one the shapes ("mat1 and mat2 shapes
    cannot be multiplied (8x5 and 3x4)", a batch folded into the rows)."""
    def run(L):
        L.manual_seed(0)
        return L.nn.Linear(3, 4, bias=bias)(L.ones(*shape, dtype=getattr(L, dtype)))
    assert error_of(lambda: run(al)) == error_of(lambda: run(torch))


REFUSED = {
    "shapes that do not broadcast": lambda L: L.ones(2, 3) + L.ones(2, 4),
    "a batch that does not broadcast": lambda L: L.ones(5, 2, 3) @ L.ones(4, 3, 2),
    "expand to another size": lambda L: L.ones(3).expand(2, 4),
    "expand a leading dimension": lambda L: L.ones(2, 3).expand(4, 3),
    "an index past the end": lambda L: L.ones(3, 4)[5],
    "an index past the end of dimension 1": lambda L: L.ones(3, 4)[1, 9],
    "a negative index past the start": lambda L: L.ones(3, 4)[-4],
    "a tensor of indices past the end": lambda L: L.ones(3, 4)[L.tensor([0, 5])],
    "a convolution of double inputs and float weights": lambda L: L.nn.Conv2d(1, 1, 3)(
        L.ones(1, 1, 5, 5, dtype=L.float64)),
    "a convolution of Long inputs": lambda L: L.nn.Conv1d(1, 1, 3)(L.ones(1, 1, 5, dtype=L.int64)),
    "a convolution without a bias": lambda L: L.nn.Conv2d(1, 1, 3, bias=False)(
        L.ones(1, 1, 5, 5, dtype=L.float64)),
    "a convolution of a double bias": lambda L: L.nn.functional.conv2d(
        L.ones(1, 1, 5, 5), L.ones(1, 1, 3, 3), L.ones(1, dtype=L.float64)),
    "a transposed convolution of double inputs": lambda L: L.nn.ConvTranspose2d(1, 1, 3)(
        L.ones(1, 1, 5, 5, dtype=L.float64)),
    "binary_cross_entropy of a Long target": lambda L: L.nn.functional.binary_cross_entropy(
        L.full((3,), 0.5), L.tensor([1, 0, 1])),
    "binary_cross_entropy of a Double target": lambda L: L.nn.functional.binary_cross_entropy(
        L.full((3,), 0.5), L.tensor([1., 0., 1.], dtype=L.float64)),
    "binary_cross_entropy of a Bool target": lambda L: L.nn.functional.binary_cross_entropy(
        L.full((3,), 0.5), L.tensor([True, False, True])),
    "binary_cross_entropy_with_logits of a Long target":
        lambda L: L.nn.functional.binary_cross_entropy_with_logits(L.ones(3), L.tensor([1, 0, 1])),
    "binary_cross_entropy_with_logits of a Bool target":
        lambda L: L.nn.functional.binary_cross_entropy_with_logits(L.ones(3), L.tensor([True, False, True])),
    "cross_entropy of float class indices": lambda L: L.nn.functional.cross_entropy(
        L.ones(2, 3), L.tensor([1., 0.])),
    "cross_entropy of Int class indices": lambda L: L.nn.functional.cross_entropy(
        L.ones(2, 3), L.tensor([1, 0], dtype=L.int32)),
    "cross_entropy of Long class probabilities": lambda L: L.nn.functional.cross_entropy(
        L.ones(2, 3), L.ones(2, 3, dtype=L.int64)),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_forward_pass_that_cannot_run_is_refused_with_torchs_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours[0] == theirs[0]
    # autograd_lab names the two shapes after torch's sentence on broadcasting
    assert ours[1] == theirs[1] or ours[1].startswith(theirs[1] + ". Shapes ")


@pytest.mark.parametrize("start, make", [
    ("Only Tensors of floating point and complex dtype", lambda L: L.tensor([1, 2], requires_grad=True)),
    ("Only Tensors of floating point and complex dtype", lambda L: L.arange(3, requires_grad=True)),
    ("Only Tensors of floating point and complex dtype", lambda L: L.nn.Parameter(L.tensor([1, 2]))),
    ("only Tensors of floating point and complex dtype",
     lambda L: setattr(L.tensor([1, 2]), "requires_grad", True)),
    ("only Tensors of floating point dtype", lambda L: L.tensor([1, 2]).requires_grad_()),
    ("only Tensors of floating point dtype", lambda L: L.tensor([True]).requires_grad_()),
])
def test_an_integer_tensor_cannot_require_grad_in_each_of_torchs_phrasings(start, make):
    """torch starts the message three ways, by how the flag was asked for; autograd_lab
    says the same and adds the dtype it saw and what to do."""
    theirs, ours = error_of(lambda: make(torch)), error_of(lambda: make(al))
    assert theirs == ("RuntimeError", f"{start} can require gradients")
    assert ours[0] == "RuntimeError" and ours[1].startswith(theirs[1] + " (this tensor is al.")


def warned(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f()
    return [(w.category.__name__, str(w.message)) for w in caught
            if not issubclass(w.category, DeprecationWarning)]


@pytest.mark.parametrize("make", [
    lambda L: L.tensor(L.ones(3, requires_grad=True)),
    lambda L: L.tensor(L.ones(3)),
    lambda L: L.nn.functional.softmax(L.ones(2, 3)),
    lambda L: L.nn.functional.log_softmax(L.ones(2, 3)),
])
def test_the_warnings_of_a_forward_pass_are_torchs(make):
    theirs = warned(lambda: make(torch))
    assert len(theirs) == 1 and warned(lambda: make(al)) == theirs
