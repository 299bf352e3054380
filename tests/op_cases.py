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
    ("diag_of_a_vector", lambda a: al.diag(a, 1), [(3,)], None),
    ("diag_of_a_vector_below", lambda a: a.diag(-2), [(2,)], None),
    ("diag_of_a_matrix", lambda a: al.diag(a), [(3, 4)], None),
    ("diag_of_a_wide_matrix_above", lambda a: a.diag(2), [(2, 5)], None),
    ("softmax", lambda a: al.nn.functional.softmax(a, dim=-1), [(2, 3)], None),
    ("mse_loss", lambda a, b: al.nn.functional.mse_loss(a, b), [(2, 3), (2, 3)], None),
    ("mse_loss_none", lambda a, b: al.nn.functional.mse_loss(a, b, reduction="none"), [(3,), (3,)], None),
    ("binary_cross_entropy", lambda a, b: al.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
     [(2, 3), (2, 3)], None),
    ("bce_with_logits", lambda a, b: al.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid(), reduction="sum"),
     [(4,), (4,)], None),
    ("cross_entropy", lambda a: al.nn.functional.cross_entropy(a, al.tensor([2, 0])), [(2, 3)], None),
    ("log_softmax", lambda a: a.log_softmax(0), [(3, 2)], None),
    ("clamp_tensor_bounds", lambda a, b, c: a.clamp(b, c), [(2, 3), (3,), (2, 1)], "apart"),
    ("clamp_min", lambda a: a.clamp_min(0.1), [(5,)], "apart"),
    ("clamp_max", lambda a: al.clamp_max(a, 0.1), [(5,)], "apart"),
    ("clamp_min_tensor", lambda a, b: a.clamp_min(b), [(2, 3), (3,)], "apart"),
    ("clamp_max_tensor", lambda a, b: a.clamp_max(b), [(2, 3), (2, 1)], "apart"),
    ("rsqrt", lambda a: a.rsqrt(), [(3,)], "pos"),
    ("gather", lambda a: a.gather(1, al.tensor([[0, 0, 2], [1, 0, 1]])), [(2, 3)], None),
    ("sort", lambda a: a.sort(1, descending=True).values, [(2, 4)], "apart"),
    ("index_select", lambda a: a.index_select(0, al.tensor([2, 0, 2])), [(3, 2)], None),
    ("index_add", lambda a, b: a.index_add(0, al.tensor([2, 0, 2]), b, alpha=1.5), [(3, 2), (3, 2)], None),
    ("narrow", lambda a: a.narrow(1, 1, 2), [(2, 4)], None),
    ("split_sizes", lambda a: a.split([1, 3], dim=1)[1], [(2, 4)], None),
    ("chunk", lambda a: a.chunk(2)[0], [(4, 2)], None),
    ("repeat", lambda a: a.repeat(2, 1, 3), [(2, 3)], None),
    ("view", lambda a: a.view(3, 2), [(2, 3)], None),
    ("contiguous", lambda a: a.T.contiguous(), [(2, 3)], None),
    # einsum: a product with a sum, a repeated letter (a diagonal), an ellipsis that
    # broadcasts, an implicit output over three operands, a size-1 letter broadcast
    ("einsum_matmul", lambda a, b: al.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)], None),
    ("einsum_diagonal_times_vector", lambda a, b: al.einsum("ii,j->ij", a, b), [(3, 3), (2,)], None),
    ("einsum_ellipsis", lambda a, b: al.einsum("...ij,...j->...i", a, b), [(2, 3, 4), (1, 4)], None),
    ("einsum_implicit_three", lambda a, b, c: al.einsum("ij,jk,k", a, b, c), [(2, 3), (3, 4), (4,)], None),
    ("einsum_size_one_letter", lambda a, b: al.einsum("ij,ij->j", a, b), [(3, 4), (1, 4)], None),
    # the gradient of "ii->i" is an op of its own (DiagonalBackwardBackward0), here times 2a
    ("einsum_diagonal_gradient",
     lambda g, a: al.autograd.grad(al.einsum("ii->i", a * a), a, g, create_graph=True)[0],
     [(3,), (3, 3)], None),
    ("movedim", lambda a: a.movedim(0, 2), [(2, 3, 4)], None),
    # in place: the out-of-place rule recorded on the tensor (always an intermediate here:
    # a leaf that requires grad refuses); a write through a view is recorded on its base
    ("add_", lambda a, b: (a * 1).add_(b, alpha=2), [(2, 3), (3,)], None),
    ("mul_, keeping the old value for b", lambda a, b: (a * 1).mul_(b), [(3,), (3,)], None),
    ("div_ and pow_", lambda a, b: (a * 1).div_(b).pow_(2), [(2, 3), (3,)], "pos"),
    ("sin_ reads the old value", lambda a: (a * 1).sin_(), [(3,)], None),
    ("mul_ by a number then exp_", lambda a: (a * 1).mul_(2).exp_(), [(3,)], None),
    ("clamp_ then relu_", lambda a: (a * 1).clamp_(max=1.0).relu_(), [(6,)], "apart"),
    ("neg_ then sigmoid_", lambda a: (a * 1).neg_().sigmoid_(), [(3,)], None),
    ("log_ then tanh_", lambda a: (a * 1).log_().tanh_(), [(3,)], "pos"),
    ("+= a broadcast tensor", lambda a, b: iadd(a * 1, b), [(2, 3), (1, 3)], None),
    ("setitem through a mask", lambda a: setitem(a * 1, a > 0, 0.0), [(5,)], "apart"),
    ("setitem of indices", lambda a, b: setitem(a * 1, al.tensor([0, 2]), b), [(4,), ()], None),
    ("setitem of a row", lambda a, b: setitem(a * 1, 1, b), [(3, 2), (2,)], None),
    ("setitem of ints and a list", lambda a, b: setitem(a * 1, (0, [2, 0]), b), [(2, 3), (2,)], None),
    ("setitem of a whole tensor", lambda a, b: setitem(a * 1, Ellipsis, b), [(2, 3), (3,)], None),
    ("masked_fill_ with a tensor", lambda a, b: (a * 1).masked_fill_(a > 0, b), [(5,), ()], "apart"),
    ("masked_fill_ with a number", lambda a: (a * 1).masked_fill_(a > 0, 0.5) * a, [(5,)], "apart"),
    ("fill_ with a tensor", lambda a, b: (a * 1).fill_(b), [(3,), ()], None),
    ("zero_", lambda a: (a * 1).zero_() + a, [(3,)], None),
    ("copy_, broadcast", lambda a, b: (a * 1).copy_(b), [(2, 3), (3,)], None),
    ("mul_ through a view", lambda a, b: ((y := a * 1)[1:].mul_(b), y)[1], [(3,), (2,)], None),
    ("exp_ through a transposed row", lambda a: ((y := a * 1), y.t()[0].exp_(), y)[2], [(3, 2)], None),
    ("setitem through a view", lambda a, b: ((y := a * 1), setitem(y[1:], 0, b), y)[2], [(3, 2), (2,)], None),
    ("a view read after its base changed", lambda a, b: ((y := a * 1), (v := y[:2]), y.mul_(b), v)[3],
     [(3,), (3,)], None),
    # nn's layers (nn/layer_rules.py): a linear layer is one addmm; a convolution and the
    # two rows of its derivative (recorded: ConvolutionBackwardBackward0); each pooling and
    # its adjoint (the pooling's gradient, recorded with create_graph)
    ("linear", lambda x, W, b: al.nn.functional.linear(x, W, b), [(2, 3), (4, 3), (4,)], None),
    ("conv2d", lambda x, w, b: al.nn.functional.conv2d(x, w, b, stride=(1, 2), padding=1),
     [(2, 2, 3, 4), (3, 2, 2, 2), (3,)], None),
    ("conv2d_gradients", lambda g, x, w: al.cat([d.reshape(-1) for d in al.autograd.grad(
        al.nn.functional.conv2d(x, w, padding=1), (x, w), g, create_graph=True)]),
     [(1, 2, 4, 4), (1, 2, 3, 3), (2, 2, 2, 2)], None),
    ("max_pool2d", lambda x: al.nn.functional.max_pool2d(x, 2, stride=1), [(1, 2, 3, 3)], "apart"),
    ("max_pool2d_gradient", lambda g, x: al.autograd.grad(al.nn.functional.max_pool2d(x, 2), x, g,
                                                          create_graph=True)[0],
     [(1, 2, 2, 2), (1, 2, 4, 4)], "apart"),
    ("avg_pool2d", lambda x: al.nn.functional.avg_pool2d(x, 2, padding=1), [(1, 2, 3, 3)], None),
    ("avg_pool2d_gradient", lambda g, x: al.autograd.grad(al.nn.functional.avg_pool2d(x, 2), x, g,
                                                          create_graph=True)[0],
     [(1, 2, 2, 2), (1, 2, 4, 4)], None),
    ("adaptive_avg_pool2d", lambda x: al.nn.functional.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 3, 4)], None),
    ("adaptive_avg_pool2d_gradient", lambda g, x: al.autograd.grad(
        al.nn.functional.adaptive_avg_pool2d(x, (2, 3)), x, g, create_graph=True)[0],
     [(1, 2, 2, 3), (1, 2, 3, 4)], None),
    ("sigmoid_layer", lambda W, b: (al.tensor([[0.0, 1.0]], dtype=al.float64)
                                    - al.sigmoid(W @ al.tensor([[0.1, 0.4], [0.2, 0.6], [0.3, 0.8]],
                                                               dtype=al.float64) + b)) ** 2,
     [(1, 3), (1, 2)], None),
]


def setitem(y, key, value):
    """y[key] = value, as an expression (for torch too: it uses only the tensor's own method)."""
    y[key] = value
    return y


def iadd(y, value):
    y += value
    return y


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
# words or None).  torch checks only the values a node saved: exp saves its output, mul its
# inputs, add nothing; a change to anything else is not an error.  It names the saved
# tensor by the node that makes it now (a = x * 2 is "output 0 of Mul").
INPLACE_AFTER_FORWARD = [
    ("input of exp", lambda a: (a.exp(), a), None),
    ("output of exp", lambda a: (a.exp(), "y"), "[al.DoubleTensor [2]], which is output 0 of Exp,"),
    ("output of mul", lambda a: (a * 3, "y"), None),
    ("input of mul", lambda a: (a * a, a), "[al.DoubleTensor [2]], which is output 0 of Mul,"),
    ("output of sigmoid", lambda a: (a.sigmoid(), "y"), "[al.DoubleTensor [2]], which is output 0 of Sigmoid,"),
    ("output of matmul", lambda a: (a @ a, "y"), None),
    ("input of add", lambda a: (a + 1, a), None),
    ("output of relu", lambda a: (a.relu(), "y"), "[al.DoubleTensor [2]], which is output 0 of Relu,"),
    ("input of relu", lambda a: (a.relu(), a), None),
    # a view shares its base's version counter: a write through it is a write to the base
    ("output of exp, through a view", lambda a: ((y := a.exp()), y.reshape(2, 1)),
     "[al.DoubleTensor [2]], which is output 0 of Exp,"),
    ("input of mul, through a slice", lambda a: (a * a, a[0:1]), "[al.DoubleTensor [2]], which is output 0 of Mul,"),
    # (a view whose base was written since reads the base's new history: AsStrided)
    ("base of a saved view", lambda a: ((v := a.reshape(2, 1)) * v, a),
     "[al.DoubleTensor [2, 1]], which is output 0 of AsStrided,"),
    ("output of mul, through a view", lambda a: ((y := a * 3), y.t()), None),
]


def error_of(f):
    """(exception type name, message) of what ``f()`` raises, or (None, None)."""
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None, None
