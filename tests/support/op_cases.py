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
    # nn's building blocks (nn/activation_rules.py, nn/norm_rules.py, nn/embedding_rules.py):
    # activations, a kink kept away from the inputs ("apart"); batch, layer and group norm
    # with their weights; an embedding lookup that picks one row twice
    ("leaky_relu", lambda a: al.nn.functional.leaky_relu(a, 0.2), [(2, 3)], "apart"),
    ("gelu", lambda a: al.nn.functional.gelu(a), [(5,)], None),
    ("gelu_tanh", lambda a: al.nn.functional.gelu(a, approximate="tanh"), [(5,)], None),
    ("silu", lambda a: al.nn.functional.silu(a), [(5,)], None),
    ("elu", lambda a: al.nn.functional.elu(a, alpha=0.5), [(6,)], "apart"),
    ("selu", lambda a: al.nn.functional.selu(a), [(6,)], "apart"),
    ("celu", lambda a: al.nn.functional.celu(a, 2.0), [(6,)], "apart"),
    ("softplus_both_sides_of_threshold", lambda a: al.nn.functional.softplus(a * 15, beta=2), [(6,)], "apart"),
    ("hardtanh", lambda a: al.nn.functional.hardtanh(a, -0.5, 0.5), [(6,)], "apart"),
    ("logsigmoid", lambda a: al.nn.functional.logsigmoid(a * 3), [(4,)], None),
    ("mish", lambda a: al.nn.functional.mish(a), [(4,)], None),
    ("prelu", lambda a, w: al.nn.functional.prelu(a, w), [(2, 3, 2), (3,)], "apart"),
    ("batch_norm", lambda x, w, b: al.nn.functional.batch_norm(x, None, None, w, b, training=True),
     [(4, 3, 2), (3,), (3,)], None),
    ("batch_norm_running_stats", lambda x, w: al.nn.functional.batch_norm(
        x, al.tensor([0.1, -0.2, 0.3], dtype=al.float64), al.tensor([0.5, 2.0, 1.5], dtype=al.float64), w),
     [(4, 3), (3,)], None),
    ("layer_norm", lambda x, w, b: al.nn.functional.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)], None),
    ("layer_norm_two_dims", lambda x: al.nn.functional.layer_norm(x, (2, 3)), [(2, 2, 3)], None),
    ("group_norm", lambda x, w, b: al.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)], None),
    ("embedding", lambda w: al.nn.functional.embedding(al.tensor([[0, 2], [2, 4]]), w), [(5, 3)], None),
    # torch's other math, picking and placing (issue 48): math_rules.py, index_rules.py
    ("std", lambda a: a.std(), [(2, 3)], None),
    ("std_dim_keepdim", lambda a: a.std(0, keepdim=True), [(3, 2)], None),
    ("var_dim_biased", lambda a: a.var(1, unbiased=False), [(2, 3)], None),
    ("var_dims_correction", lambda a: al.var(a, dim=(0, 2), correction=2), [(2, 2, 3)], None),
    ("cumsum", lambda a: a.cumsum(1), [(2, 3)], None),
    ("cumprod", lambda a: a.cumprod(0), [(3, 2)], None),
    ("cumprod_through_a_zero", lambda a: (a * al.tensor([1.0, 0.0, 1.0], dtype=al.float64)).cumprod(-1),
     [(2, 3)], None),
    ("flip", lambda a: al.flip(a, [0, 2]), [(2, 2, 3)], None),
    ("log2", lambda a: a.log2(), [(3,)], "pos"),
    ("log10", lambda a: al.log10(a), [(3,)], "pos"),
    ("exp2", lambda a: al.exp2(a), [(3,)], None),
    ("expm1", lambda a: a.expm1(), [(3,)], None),
    ("remainder", lambda a, b: a % b, [(2, 3), (3,)], "pos"),
    ("remainder_number", lambda a: a.remainder(0.7), [(4,)], "pos"),
    ("fmod", lambda a, b: al.fmod(a, b), [(3,), (2, 3)], "pos"),
    ("fmod_number", lambda a: a.fmod(-0.7), [(4,)], "pos"),
    ("div_rounding_none", lambda a, b: al.div(a, b, rounding_mode=None), [(2, 3), (3,)], "pos"),
    ("div_floor", lambda a, b: a.div(b, rounding_mode="floor") * a, [(2, 3), (3,)], "pos"),
    ("round_decimals", lambda a: a.round(decimals=1) * a, [(4,)], None),
    ("dist", lambda a, b: al.dist(a, b), [(2, 3), (3,)], None),
    ("dist_p1", lambda a, b: al.dist(a, b, p=1), [(2, 3), (2, 3)], "apart"),
    ("dist_p3", lambda a, b: a.dist(b, 3), [(4,), (4,)], "apart"),
    ("dist_inf", lambda a: al.dist(a, a * 0.5, p=float("inf")), [(2, 3)], "apart"),
    ("triu", lambda a: a.triu(1), [(3, 4)], None),
    ("tril", lambda a: al.tril(a, -1), [(2, 3, 3)], None),
    ("bmm", lambda a, b: al.bmm(a, b), [(2, 2, 3), (2, 3, 4)], None),
    ("det", lambda a: al.det(a), [(3, 3)], None),
    ("det_of_a_batch", lambda a: a.det(), [(2, 2, 2)], None),
    ("topk", lambda a: a.topk(2).values, [(2, 4)], "apart"),
    ("topk_smallest_along_0", lambda a: al.topk(a, 1, dim=0, largest=False)[0], [(3, 2)], "apart"),
    ("masked_select", lambda a: a.masked_select(al.tensor([True, False, True])), [(2, 3)], None),
    ("scatter_src", lambda a, b: a.scatter(1, al.tensor([[0, 2], [1, 0]]), b), [(2, 3), (2, 2)], None),
    ("scatter_value", lambda a: a.scatter(0, al.tensor([[1, 0, 1]]), 0.5), [(2, 3)], None),
    ("scatter_add", lambda a, b: a.scatter_add(1, al.tensor([[0, 0], [2, 1]]), b), [(2, 3), (2, 2)], None),
    ("index_put_accumulate", lambda a, b: a.index_put((al.tensor([0, 2, 0]),), b, accumulate=True),
     [(3, 2), (2,)], None),
    ("unfold", lambda a: a.unfold(1, 2, 1), [(2, 4)], None),
    ("unfold_step", lambda a: a.unfold(0, 2, 2), [(5, 3)], None),
    ("repeat_interleave", lambda a: a.repeat_interleave(2, dim=0), [(2, 3)], None),
    ("ravel_of_a_transpose", lambda a: a.T.ravel(), [(2, 3)], None),
    ("meshgrid", lambda a, b: al.meshgrid(a, b, indexing="xy")[0] * al.meshgrid(a, b, indexing="ij")[1].T,
     [(3,), (2,)], None),
    ("movedim", lambda a: a.movedim(0, 2), [(2, 3, 4)], None),
    # (torch's vmap refuses to lay a sample out channels-last: after movedim, not vmapped)
    ("contiguous_channels_last", lambda a: a.contiguous(memory_format=al.channels_last), [(1, 2, 2, 3)], None),
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
    ("unsqueeze_", lambda a: (a * 1).unsqueeze_(0), [(2, 3)], None),
    ("squeeze_", lambda a: (a * 1).squeeze_(), [(2, 1, 3)], None),
    ("squeeze_ of a dim", lambda a: (a * 1).squeeze_(1), [(2, 1, 3)], None),
    ("t_", lambda a: (a * 1).t_(), [(2, 3)], None),
    ("transpose_", lambda a: (a * 1).transpose_(0, 2), [(2, 3, 4)], None),
    ("scatter_ in place", lambda a, b: (a * 1).scatter_(0, al.tensor([[1, 0]]), b), [(2, 2), (1, 2)], None),
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
    # the gradients of nn's activations and of an embedding, rows of their own (recorded
    # with create_graph: LeakyReluBackwardBackward0, ...), as functions of the seed g; the
    # in-place activations (LeakyReluBackward1, EluBackward1); a module with a full backward
    # hook passes its input and output through BackwardHookFunctionBackward
    ("leaky_relu_gradient", lambda g, a: al.autograd.grad(al.nn.functional.leaky_relu(a, 0.2), a, g,
                                                          create_graph=True)[0], [(5,), (5,)], "apart"),
    ("gelu_gradient", lambda g, a: al.autograd.grad(al.nn.functional.gelu(a), a, g, create_graph=True)[0],
     [(4,), (4,)], None),
    ("gelu_tanh_gradient", lambda g, a: al.autograd.grad(al.nn.functional.gelu(a, approximate="tanh"), a, g,
                                                         create_graph=True)[0], [(4,), (4,)], None),
    ("elu_gradient", lambda g, a: al.autograd.grad(al.nn.functional.elu(a, 0.7), a, g, create_graph=True)[0],
     [(6,), (6,)], "apart"),
    ("softplus_gradient", lambda g, a: al.autograd.grad(al.nn.functional.softplus(a * 15, beta=2), a, g,
                                                        create_graph=True)[0], [(6,), (6,)], "apart"),
    ("hardtanh_gradient", lambda g, a: al.autograd.grad(al.nn.functional.hardtanh(a, -0.5, 0.5), a, g,
                                                        create_graph=True)[0], [(6,), (6,)], "apart"),
    ("embedding_gradient", lambda g, w: al.autograd.grad(al.nn.functional.embedding(al.tensor([[0, 2], [2, 4]]),
                                                                                     w * w),
                                                         w, g, create_graph=True)[0], [(2, 2, 3), (5, 3)], None),
    ("leaky_relu_ in place", lambda a: al.nn.functional.leaky_relu(a * 1, 0.2, inplace=True), [(5,)], "apart"),
    ("elu_ in place", lambda a: al.nn.functional.elu(a * 1, inplace=True) * a, [(5,)], "apart"),
    ("celu_ in place", lambda a: al.nn.functional.celu(a * 1, 0.5, inplace=True), [(5,)], "apart"),
    ("a module's full backward hook", lambda a: (m := al.nn.Tanh(), m.register_full_backward_hook(lambda *h: None),
                                                 m(a))[2], [(3,)], None),
    # the convolution family, padding, resizing and pixel shuffles (nn/layer_rules.py,
    # nn/resampling_rules.py): a transposed convolution and its gradients (a convolution,
    # recorded as ConvolutionBackwardBackward0); each map by taps and its adjoint
    ("conv1d", lambda x, w: al.nn.functional.conv1d(x, w, stride=2, padding=1, dilation=2), [(2, 2, 7), (3, 2, 2)],
     None),
    ("conv_transpose2d", lambda x, w, b: al.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1),
     [(1, 2, 3, 3), (2, 3, 2, 2), (3,)], None),
    ("conv_transpose2d_gradients", lambda g, x, w: al.cat([d.reshape(-1) for d in al.autograd.grad(
        al.nn.functional.conv_transpose2d(x, w, stride=2), (x, w), g, create_graph=True)]),
     [(1, 3, 6, 6), (1, 2, 3, 3), (2, 3, 2, 2)], None),
    ("adaptive_avg_pool3d", lambda x: al.nn.functional.adaptive_avg_pool3d(x, (2, 1, 3)), [(1, 2, 3, 2, 4)], None),
    ("pad_constant", lambda x: al.nn.functional.pad(x, (1, -1, 2, 0), value=0.5), [(2, 3, 4)], None),
    ("pad_reflect", lambda x: al.nn.functional.pad(x, (2, 1, 1, 2), "reflect"), [(1, 2, 3, 4)], None),
    ("pad_replicate_gradient", lambda g, x: al.autograd.grad(al.nn.functional.pad(x, (1, 2), "replicate"), x, g,
                                                             create_graph=True)[0], [(2, 7), (2, 4)], None),
    ("pad_circular", lambda x: al.nn.functional.pad(x, (1, 2), "circular"), [(2, 3, 4)], None),
    ("interpolate_bilinear", lambda x: al.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear"),
     [(1, 2, 3, 4)], None),
    ("interpolate_bicubic_gradient", lambda g, x: al.autograd.grad(al.nn.functional.interpolate(
        x, size=(4, 5), mode="bicubic", align_corners=True) ** 2, x, g, create_graph=True)[0],
     [(1, 1, 4, 5), (1, 1, 3, 3)], None),
    ("grid_sample", lambda x, g: al.nn.functional.grid_sample(x, g * 1.2, padding_mode="reflection",
                                                              align_corners=False), [(1, 2, 3, 4), (1, 2, 3, 2)], None),
    ("affine_grid", lambda t: al.nn.functional.affine_grid(t, (2, 1, 3, 2), align_corners=True), [(2, 2, 3)], None),
    ("pixel_shuffle", lambda x: al.nn.functional.pixel_shuffle(x, 2), [(1, 8, 2, 3)], None),
    ("pixel_unshuffle", lambda x: al.nn.functional.pixel_unshuffle(x, 2), [(1, 2, 4, 6)], None),
    # what recurrent layers are built from (sequence_rules.py): slices by unbind and
    # unsafe_chunk, an RNN's output transposed in place (batch_first), packed sequences
    ("unbind", lambda a: al.stack(a.unbind(1)[::-1], 1), [(2, 3)], None),
    ("unsafe_chunk", lambda a: a.unsafe_chunk(2, 1)[1], [(2, 4)], None),
    ("rnn_batch_first", lambda x, wi, wh: al.func.functional_call(
        al.nn.RNN(3, 2, bias=False, batch_first=True), {"weight_ih_l0": wi, "weight_hh_l0": wh}, (x,))[0],
     [(2, 3, 3), (2, 3), (2, 2)], None),
    ("pack_padded_sequence", lambda x: al.nn.utils.rnn.pack_padded_sequence(x, [3, 1]).data, [(3, 2, 2)], None),
    ("scaled_dot_product_attention", lambda q, k, v: al.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True), [(2, 3, 4), (2, 3, 4), (2, 3, 2)], None),
    ("sigmoid_layer", lambda W, b: (al.tensor([[0.0, 1.0]], dtype=al.float64)
                                    - al.sigmoid(W @ al.tensor([[0.1, 0.4], [0.2, 0.6], [0.3, 0.8]],
                                                               dtype=al.float64) + b)) ** 2,
     [(1, 3), (1, 2)], None),
]


def refused(ops):
    """The rows among ``ops`` that torch records with no derivative (2 % x, x // y, unique,
    a scatter with reduce=): a backward through them stops with torch's words (checked in
    tests/torch_parity/test_tensor_ops_vs_torch.py), so no gradient case can reach them."""
    return {op for op in ops if any(getattr(f, "refuses", False) for f in op.vjp or ())}


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
