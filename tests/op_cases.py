"""Sample inputs for every differentiable operation, shared by the op tests.

Each case is (name, function, input shapes, kind): inputs are drawn in float64 from a
seeded generator; ``kind`` keeps them away from points where the op has no derivative
("pos": positive, "apart": entries far from each other and from 0)."""
import numpy as np

import autograd_lab as al

CASES = [
    # broadcasting in every direction: (3,1)+(1,4), (4,)+(2,4), (2,4)+(), ...
    ("add", lambda a, b: a + b, [(3, 1), (1, 4)], None),
    ("add_scalar_tensor", lambda a, b: a + b, [(2, 4), ()], None),
    ("sub", lambda a, b: a - b, [(4,), (2, 4)], None),
    ("rsub_number", lambda a: 1.5 - a, [(3,)], None),
    ("mul", lambda a, b: a * b, [(2, 1, 3), (4, 1)], None),
    ("div", lambda a, b: a / b, [(2, 3), (3,)], "pos"),
    ("neg", lambda a: -a, [(3,)], None),
    ("reciprocal_number_over_tensor", lambda a: 2.0 / a, [(2, 3)], "pos"),
    ("pow_number", lambda a: a ** 3, [(2, 2)], None),
    ("pow_tensor", lambda a, b: a ** b, [(3,), (2, 3)], "pos"),
    ("rpow", lambda a: 2.0 ** a, [(3,)], None),
    ("maximum", lambda a, b: al.maximum(a, b), [(3,), (2, 3)], "apart"),
    ("minimum", lambda a, b: al.minimum(a, b), [(2, 3), (3,)], "apart"),
    ("where", lambda a, b: al.where(a > 0, a, b), [(2, 3), (3,)], "apart"),
    ("where_number_branch", lambda a: al.where(a > 0, a * 2, 1.0), [(4,)], "apart"),
    ("clamp", lambda a: a.clamp(-0.5, 0.5), [(5,)], "apart"),
    ("relu", lambda a: al.relu(a), [(5,)], "apart"),
    # relu's gradient, an op of its own (ThresholdBackwardBackward0): a function of the seed g
    ("relu_gradient", lambda g, a: al.autograd.grad(al.relu(a), a, g, create_graph=True)[0],
     [(5,), (5,)], "apart"),
    ("exp", lambda a: a.exp(), [(3,)], None),
    ("log", lambda a: a.log(), [(3,)], "pos"),
    ("log1p", lambda a: al.log1p(a), [(3,)], "pos"),
    ("sqrt", lambda a: a.sqrt(), [(3,)], "pos"),
    ("sin", lambda a: a.sin(), [(3,)], None),
    ("cos", lambda a: a.cos(), [(3,)], None),
    ("tanh", lambda a: a.tanh(), [(3,)], None),
    ("sigmoid", lambda a: a.sigmoid(), [(3,)], None),
    ("abs", lambda a: a.abs(), [(4,)], "apart"),
    ("sum_all", lambda a: a.sum(), [(2, 3)], None),
    ("sum_dim", lambda a: a.sum(0), [(2, 3)], None),
    ("sum_dims_keepdim", lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 2)], None),
    ("mean", lambda a: a.mean(), [(2, 3)], None),
    ("mean_dim", lambda a: a.mean(-1), [(2, 3)], None),
    ("norm", lambda a: a.norm(), [(4,)], None),
    ("norm_dim", lambda a: a.norm(dim=1), [(2, 3)], None),
    ("amax", lambda a: a.amax(), [(5,)], "apart"),
    ("amax_dim", lambda a: a.amax(1), [(2, 4)], "apart"),
    ("amin", lambda a: a.amin(0), [(3, 2)], "apart"),
    ("max_min_all", lambda a: a.max() - a.min(), [(4,)], "apart"),
    ("piecewise_constant", lambda a: a.round() + a.floor() * a + a.ceil() + a.sign(), [(4,)], "apart"),
    ("max_dim_values", lambda a: a.max(0).values, [(3, 2)], "apart"),
    ("min_dim_keepdim", lambda a: a.min(-1, keepdim=True)[0], [(2, 3, 2)], "apart"),
    ("max_dim_of_a_number", lambda a: a.max(0).values * 1.0, [()], None),
    ("reshape", lambda a: a.reshape(3, 2) * 2, [(2, 3)], None),
    ("transpose", lambda a: a.transpose(0, 1), [(2, 3)], None),
    ("t", lambda a: a.t(), [(2, 3)], None),
    ("T", lambda a: a.T, [(3, 2)], None),          # (torch deprecates .T on other than 2-d)
    ("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 4)], None),
    ("unsqueeze", lambda a: a.unsqueeze(1), [(2, 3)], None),
    ("squeeze", lambda a: a.squeeze(), [(2, 1, 3)], None),
    ("expand", lambda a: a.expand(4, 3), [(1, 3)], None),
    ("index_int", lambda a: a[1], [(3, 2)], None),
    ("index_slice", lambda a: a[:, 1:], [(2, 3)], None),
    ("index_repeat", lambda a: a[[0, 0, 2]], [(3,)], None),
    ("index_mask", lambda a: a[a > 0], [(5,)], "apart"),
    ("index_int_slice_list", lambda a: a[1, :, [0, 2, 2]], [(2, 3, 4)], None),   # ints first, as torch
    ("cat", lambda a, b: al.cat([a, b], dim=1), [(2, 1), (2, 3)], None),
    ("stack", lambda a, b: al.stack([a, b], dim=1), [(2, 3), (2, 3)], None),
    ("to_float32_and_back", lambda a: (a.float() * 2).double(), [(3,)], None),
    ("clone", lambda a: a.clone(), [(3,)], None),
    ("mm", lambda a, b: al.mm(a, b), [(2, 3), (3, 4)], None),
    ("matmul_mv", lambda a, b: a @ b, [(2, 3), (3,)], None),
    ("matmul_vm", lambda a, b: a @ b, [(3,), (3, 2)], None),
    ("dot", lambda a, b: al.dot(a, b), [(3,), (3,)], None),
    ("matmul_batched", lambda a, b: a @ b, [(2, 2, 3), (3, 2)], None),
    ("outer", lambda a, b: al.outer(a, b), [(3,), (4,)], None),
    ("softmax", lambda a: al.nn.functional.softmax(a, dim=-1), [(2, 3)], None),
    ("mse_loss", lambda a, b: al.nn.functional.mse_loss(a, b), [(2, 3), (2, 3)], None),
    ("mse_loss_none", lambda a, b: al.nn.functional.mse_loss(a, b, reduction="none"), [(3,), (3,)], None),
    ("binary_cross_entropy", lambda a, b: al.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
     [(2, 3), (2, 3)], None),
    ("bce_with_logits", lambda a, b: al.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid(), reduction="sum"),
     [(4,), (4,)], None),
    ("cross_entropy", lambda a: al.nn.functional.cross_entropy(a, al.tensor([2, 0])), [(2, 3)], None),
    ("sigmoid_layer", lambda W, b: (al.tensor([[0.0, 1.0]], dtype=al.float64)
                                    - al.sigmoid(W @ al.tensor([[0.1, 0.4], [0.2, 0.6], [0.3, 0.8]],
                                                               dtype=al.float64) + b)) ** 2,
     [(1, 3), (1, 2)], None),
]


def make_inputs(shapes, kind, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(shapes):
        if kind == "pos":
            v = rng.uniform(0.5, 2.0, shape)
        elif kind == "apart":
            n = int(np.prod(shape))
            v = (rng.permutation(n) - n / 2 + 0.25 + 0.1 * i).reshape(shape) * 0.37
        else:
            v = rng.normal(size=shape)
        out.append(al.tensor(v, dtype=al.float64, requires_grad=True))
    return out


# In-place changes after the forward: (case, make(a) -> (y, what is changed), the error's
# node or None).  torch checks only the values a node saved: exp saves its output, mul its
# inputs, add nothing; a change to anything else is not an error.
INPLACE_AFTER_FORWARD = [
    ("input of exp", lambda a: (a.exp(), a), None),
    ("output of exp", lambda a: (a.exp(), "y"), "output 0 of ExpBackward0"),
    ("output of mul", lambda a: (a * 3, "y"), None),
    ("input of mul", lambda a: (a * a, a), "input 0 of MulBackward0"),
    ("output of sigmoid", lambda a: (a.sigmoid(), "y"), "output 0 of SigmoidBackward0"),
    ("output of matmul", lambda a: (a @ a, "y"), None),
    ("input of add", lambda a: (a + 1, a), None),
    ("output of relu", lambda a: (a.relu(), "y"), "output 0 of ReluBackward0"),
    ("input of relu", lambda a: (a.relu(), a), None),
    # a view shares its base's version counter: a write through it is a write to the base
    ("output of exp, through a view", lambda a: ((y := a.exp()), y.reshape(2, 1)), "output 0 of ExpBackward0"),
    ("input of mul, through a slice", lambda a: (a * a, a[0:1]), "input 0 of MulBackward0"),
    ("base of a saved view", lambda a: ((v := a.reshape(2, 1)) * v, a), "input 0 of MulBackward0"),
    ("output of mul, through a view", lambda a: ((y := a * 3), y.t()), None),
]


def error_of(f):
    """(exception type name, message) of what ``f()`` raises, or (None, None)."""
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None, None
