"""Recurrent layers against torch, torch's weights loaded into ours: RNN (tanh and relu),
LSTM (with proj_size), GRU and their cells -- outputs, final states and every gradient,
the whole recorded graph node by node (float64, where torch records its reference
implementation rather than oneDNN's fused LSTM node), packed sequences, dropout between
layers, initialisation, printed forms, state_dict and torch's refusals in its words; and
nn.utils.rnn: pad_sequence, pack_padded_sequence, pad_packed_sequence and the rest."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402
from test_conv_family_vs_torch import agree  # noqa: E402


def graph_of(t):
    """The graph recorded behind ``t``, as a list of (node name, its inputs' numbers): a
    node is numbered by its name and its inputs, the first time a depth-first walk meets
    it (so torch's one node with an output per step, UnbindBackward0, and autograd_lab's
    node per step are the same entry).  Equal lists, equal graphs."""
    seen, numbers, rows = {}, {}, []

    def visit(node):
        if node is None:
            return None
        if node not in seen:
            key = (node.name(), tuple(visit(n) for n in _inputs(node)))
            if key not in numbers:
                numbers[key] = len(rows)
                rows.append(key)
            seen[node] = numbers[key]
        return seen[node]
    visit(t.grad_fn)
    return rows


def _inputs(node):
    """A node's inputs; for torch's matmul of a batch of matrices by one matrix -- a view
    of the batch as rows (a copy first, if they are not contiguous), an mm, a view back --
    the batch and the matrix: autograd_lab records that matmul as one node, named as
    torch's last (UnsafeViewBackward0)."""
    inputs = [n for n, _ in node.next_functions]
    if node.name() == "UnsafeViewBackward0" and len(inputs) == 1 and inputs[0] is not None and \
            inputs[0].name() == "MmBackward0":
        rows, matrix = (n for n, _ in inputs[0].next_functions)
        if rows is not None and rows.name() in ("ViewBackward0", "UnsafeViewBackward0"):
            batch = rows.next_functions[0][0]
            if rows.name() == "UnsafeViewBackward0" and batch is not None and batch.name() == "CloneBackward0":
                batch = batch.next_functions[0][0]
            return [batch, matrix]
    return inputs


def copy_of(theirs, make):
    """Our layer, holding torch's parameters."""
    ours = make(al.nn).double()
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours


def flat(out):
    """The tensors of a layer's output: (output, h) or (output, (h, c)), packed or not."""
    found = []
    for o in (out if isinstance(out, tuple) else (out,)):
        if isinstance(o, tuple) and not hasattr(o, "batch_sizes"):
            found += flat(o)
        else:
            found.append(o.data if hasattr(o, "batch_sizes") else o)
    return found


def compare(make, inputs, call=lambda layer, *xs: layer(*xs), seed=0, graphs=True):
    """Run torch's layer and ours (its weights) on the same float64 inputs: every output,
    every gradient (input, initial state, parameters) and every output's graph agree."""
    torch.manual_seed(seed)
    theirs = make(torch.nn).double()
    ours = copy_of(theirs, make)
    results = []
    for lib, layer in ((al, ours), (torch, theirs)):
        xs = [lib.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else
              tuple(lib.tensor(b, requires_grad=True) for b in a) for a in inputs]
        outs = flat(call(layer, *xs))
        rng = np.random.default_rng(seed + 1)
        total = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
        total.backward()
        leaves = [x for a in xs for x in (a if isinstance(a, tuple) else (a,))]
        results.append((outs, [x.grad for x in leaves], [p.grad for p in layer.parameters()],
                        [graph_of(o) for o in outs] if graphs else []))
    (outs, grads, pgrads, g), (touts, tgrads, tpgrads, tg) = results
    assert len(outs) == len(touts)
    for a, b in zip(outs + grads + pgrads, touts + tgrads + tpgrads):
        agree(a, b, 1e-8)
    assert g == tg
    return ours


rng = np.random.default_rng(0)
X = rng.standard_normal((4, 2, 3))                  # (steps, batch, features)

LAYERS = {
    "RNN": lambda nn: nn.RNN(3, 4),
    "RNN, relu, two layers, both ways": lambda nn: nn.RNN(3, 4, 2, "relu", bidirectional=True),
    "RNN, batch_first, no bias": lambda nn: nn.RNN(3, 4, bias=False, batch_first=True),
    "LSTM": lambda nn: nn.LSTM(3, 4),
    "LSTM, batch_first, two layers, both ways": lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True,
                                                                   bidirectional=True),
    "LSTM, proj_size, no bias": lambda nn: nn.LSTM(3, 4, bias=False, proj_size=2),
    "GRU": lambda nn: nn.GRU(3, 4),
    "GRU, three layers, batch_first": lambda nn: nn.GRU(3, 4, 3, batch_first=True),
    "GRU, both ways": lambda nn: nn.GRU(3, 2, bidirectional=True),
}


@pytest.mark.parametrize("case", list(LAYERS))
def test_layers_match_torch_in_outputs_gradients_and_whole_graphs(case):
    compare(LAYERS[case], [X])


def _states(case):
    """Initial states for a layer of LAYERS: (layers x directions, batch, size)."""
    layer = LAYERS[case](torch.nn)
    n = layer.num_layers * (1 + layer.bidirectional)
    h = rng.standard_normal((n, 2, layer.proj_size or layer.hidden_size))
    return (h, rng.standard_normal((n, 2, layer.hidden_size))) if layer.mode == "LSTM" else h


@pytest.mark.parametrize("case", ["RNN, relu, two layers, both ways", "LSTM, batch_first, two layers, both ways",
                                  "LSTM, proj_size, no bias", "GRU, three layers, batch_first"])
def test_layers_take_initial_states_and_send_them_gradients_as_torch(case):
    x = X.transpose(1, 0, 2).copy() if "batch_first" in case else X
    compare(LAYERS[case], [x, _states(case)])


@pytest.mark.parametrize("case", ["RNN", "LSTM, proj_size, no bias", "GRU, three layers, batch_first"])
def test_one_unbatched_sequence_runs_as_a_batch_of_one_as_in_torch(case):
    state = _states(case)
    one = tuple(s[:, 0] for s in state) if isinstance(state, tuple) else state[:, 0]
    compare(LAYERS[case], [X[:, 0]])
    compare(LAYERS[case], [X[:, 0], one])


@pytest.mark.parametrize("case", ["RNN", "LSTM, batch_first, two layers, both ways", "GRU, both ways",
                                  "LSTM, proj_size, no bias"])
def test_packed_sequences_of_any_order_run_as_in_torch(case):
    """Three sequences of lengths 3, 1 and 4, packed unsorted: the outputs, unpacked; the
    final states, each sequence's own last step, in the batch's order."""
    batch_first = "batch_first" in case
    padded = rng.standard_normal((3, 4, 3) if batch_first else (4, 3, 3))

    def call(layer, x, lib=None):
        lib = al if isinstance(x, al.Tensor) else torch
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, [3, 1, 4], batch_first=batch_first, enforce_sorted=False)
        out, hidden = layer(packed)
        return lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)[0], hidden
    compare(LAYERS[case], [padded], call)


def test_a_packed_sequence_keeps_its_packing_through_a_layer():
    lengths = [3, 2, 2]
    outs = []
    for lib in (al, torch):
        lib.manual_seed(0)
        seqs = [lib.tensor(rng.standard_normal((n, 3))) for n in lengths]
        packed = lib.nn.utils.rnn.pack_sequence(seqs)
        out, _ = lib.nn.GRU(3, 2).double()(packed)
        outs.append((type(out).__name__, out.batch_sizes.tolist(), out.sorted_indices, tuple(out.data.shape)))
    assert outs[0] == outs[1] == ("PackedSequence", [3, 3, 1], None, (7, 2))


def test_dropout_between_layers_drops_in_training_only_as_torch():
    """dropout=1 drops every output of the first layer in training: the second layer sees
    zeros (the same in both libraries); in eval mode the layers compute as torch's."""
    def make(nn):
        return nn.LSTM(3, 4, num_layers=2, dropout=1.0)
    ours = compare(make, [X], call=lambda layer, x: layer.train()(x))
    ours.eval()
    compare(make, [X], call=lambda layer, x: layer.eval()(x))
    al.manual_seed(0)
    half = al.nn.GRU(3, 4, num_layers=2, dropout=0.5).double()
    x = al.tensor(X)
    assert not np.allclose(half(x)[0].detach().numpy(), half.eval()(x)[0].detach().numpy())


CELLS = {
    "RNNCell": lambda nn: nn.RNNCell(3, 4),
    "RNNCell, relu, no bias": lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    "LSTMCell": lambda nn: nn.LSTMCell(3, 4),
    "GRUCell": lambda nn: nn.GRUCell(3, 4),
    "GRUCell, no bias": lambda nn: nn.GRUCell(3, 4, bias=False),
}


@pytest.mark.parametrize("case", list(CELLS))
def test_cells_match_torch_over_a_loop_of_steps(case):
    """The cell called step by step, as learners write it, its state fed back."""
    lstm = "LSTM" in case

    def call(cell, x, h):
        state = h
        outs = []
        for t in range(x.shape[0]):
            state = cell(x[t], state)
            outs.append(state[0] if lstm else state)
        return tuple(outs) + (state if lstm else (state,))
    h = (rng.standard_normal((2, 4)), rng.standard_normal((2, 4))) if lstm else rng.standard_normal((2, 4))
    compare(CELLS[case], [X, h], call)
    compare(CELLS[case], [X[0]])                        # no state: zeros
    compare(CELLS[case], [X[0, 0]])                     # one unbatched input


@pytest.mark.parametrize("case", ["GRUCell", "LSTMCell", "RNNCell, relu, no bias"])
def test_cells_pass_gradcheck_and_second_derivatives(case):
    al.manual_seed(0)
    cell = CELLS[case](al.nn).double()
    x = al.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    h = al.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    f = (lambda x, h: cell(x, (h, h * 0.5))) if "LSTM" in case else cell
    assert al.autograd.gradcheck(f, (x, h), check_forward_ad=True)
    assert al.autograd.gradgradcheck(f, (x, h))


def test_per_sample_gradients_of_a_gru_by_vmap_match_torchs_one_sample_at_a_time():
    """torch.func.vmap cannot batch torch's GRU (its cells add in place into an unbatched
    zero state); autograd_lab's vmap can: each sample's gradient is torch's for it alone."""
    xs = rng.standard_normal((3, 4, 1, 3))                # 3 samples, each 4 steps of a batch of one
    torch.manual_seed(0)
    theirs = torch.nn.GRU(3, 2).double()
    ours = copy_of(theirs, lambda nn: nn.GRU(3, 2))
    params = {k: v.detach() for k, v in ours.named_parameters()}
    grads = al.func.vmap(al.func.grad(lambda p, x: al.func.functional_call(ours, p, (x,))[1].sum()),
                         in_dims=(None, 0))(params, al.tensor(xs))
    for i, x in enumerate(xs):
        theirs.zero_grad()
        theirs(torch.tensor(x))[1].sum().backward()
        for name, p in theirs.named_parameters():
            assert np.allclose(grads[name].numpy()[i], p.grad.numpy())


def test_weights_are_drawn_uniform_within_one_over_root_hidden_size_as_in_torch():
    al.manual_seed(0)
    for layer in (al.nn.LSTM(3, 16, 2, bidirectional=True), al.nn.GRUCell(5, 16)):
        values = np.concatenate([p.detach().numpy().ravel() for p in layer.parameters()])
        assert np.abs(values).max() <= 0.25 and 0.25 / 2 < values.std() < 0.25 / np.sqrt(3) * 1.1
        assert all(p.dtype == al.float32 for p in layer.parameters())


MODULES = {**LAYERS, **CELLS,
           "RNN, every option": lambda nn: nn.RNN(3, 4, 2, "relu", False, True, 0.5, True),
           "LSTM, dropout": lambda nn: nn.LSTM(3, 4, num_layers=3, dropout=0.25),
           "a tagger": lambda nn: nn.Sequential(nn.LSTM(5, 8, batch_first=True, bidirectional=True))}


@pytest.mark.parametrize("case", list(MODULES))
def test_layers_print_and_hold_parameters_as_torchs(case):
    ours, theirs = MODULES[case](al.nn), MODULES[case](torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    if hasattr(theirs, "all_weights"):
        assert [[tuple(w.shape) for w in ws] for ws in ours.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in theirs.all_weights]


def test_flatten_parameters_does_nothing_on_the_cpu_as_in_torch():
    layer = al.nn.LSTM(3, 4)
    before = [p.detach().numpy().copy() for p in layer.parameters()]
    assert layer.flatten_parameters() is None
    assert all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before, layer.parameters()))


def test_dropout_with_one_layer_warns_as_torch():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1") as ours:
        al.nn.GRU(3, 4, dropout=0.5)
    assert ours[0].filename == __file__


REFUSED = {
    "RNN, a nonlinearity": lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"),
    "RNN, proj_size": lambda L: L.nn.RNN(3, 4, proj_size=2),
    "GRU, proj_size": lambda L: L.nn.GRU(3, 4, proj_size=2),
    "LSTM, proj_size too big": lambda L: L.nn.LSTM(3, 4, proj_size=4),
    "RNN, dropout 2": lambda L: L.nn.RNN(3, 4, dropout=2),
    "RNN, hidden_size 0": lambda L: L.nn.RNN(3, 0),
    "RNN, a float hidden_size": lambda L: L.nn.RNN(3, 4.0),
    "RNN, no layers": lambda L: L.nn.RNN(3, 4, num_layers=0),
    "RNN, input_size 0": lambda L: L.nn.RNN(0, 4),
    "RNN, bias 1": lambda L: L.nn.RNN(3, 4, bias=1),
    "RNN, a 4-d input": lambda L: L.nn.RNN(3, 4)(L.ones(1, 1, 1, 3)),
    "LSTM, a 1-d input": lambda L: L.nn.LSTM(3, 4)(L.ones(3)),
    "GRU, a 4-d input": lambda L: L.nn.GRU(3, 4)(L.ones(1, 1, 1, 3)),
    "RNN, input size": lambda L: L.nn.RNN(3, 4)(L.ones(2, 1, 5)),
    "RNN, hidden size": lambda L: L.nn.RNN(3, 4)(L.ones(2, 1, 3), L.zeros(1, 2, 4)),
    "RNN, a 2-d hidden state": lambda L: L.nn.RNN(3, 4)(L.ones(2, 1, 3), L.zeros(1, 4)),
    "RNN, unbatched, a 3-d hidden state": lambda L: L.nn.RNN(3, 4)(L.ones(2, 3), L.zeros(1, 1, 4)),
    "LSTM, hidden size": lambda L: L.nn.LSTM(3, 4)(L.ones(2, 1, 3), (L.zeros(1, 2, 4), L.zeros(1, 1, 4))),
    "LSTM, cell size": lambda L: L.nn.LSTM(3, 4)(L.ones(2, 1, 3), (L.zeros(1, 1, 4), L.zeros(1, 1, 5))),
    "LSTM, a 2-d hidden state": lambda L: L.nn.LSTM(3, 4)(L.ones(2, 1, 3), (L.zeros(1, 4), L.zeros(1, 1, 4))),
    "LSTM, unbatched, 3-d states": lambda L: L.nn.LSTM(3, 4)(L.ones(2, 3), (L.zeros(1, 1, 4), L.zeros(1, 1, 4))),
    "RNN, no steps": lambda L: L.nn.RNN(3, 4)(L.ones(0, 1, 3)),
    "RNNCell, a 3-d input": lambda L: L.nn.RNNCell(3, 4)(L.ones(1, 1, 3)),
    "RNNCell, a 3-d hidden state": lambda L: L.nn.RNNCell(3, 4)(L.ones(1, 3), L.ones(1, 1, 4)),
    "LSTMCell, a 3-d state": lambda L: L.nn.LSTMCell(3, 4)(L.ones(1, 3), (L.ones(1, 1, 4), L.ones(1, 4))),
    "GRUCell, a 3-d input": lambda L: L.nn.GRUCell(3, 4)(L.ones(1, 1, 3)),
    "RNNCell, input size": lambda L: L.nn.RNNCell(3, 4)(L.ones(2, 5)),
    "RNNCell, hidden batch": lambda L: L.nn.RNNCell(3, 4)(L.ones(2, 3), L.ones(3, 4)),
    "RNNCell, hidden size": lambda L: L.nn.RNNCell(3, 4)(L.ones(2, 3), L.ones(2, 5)),
    "LSTMCell, cell size": lambda L: L.nn.LSTMCell(3, 4)(L.ones(2, 3), (L.ones(2, 4), L.ones(2, 5))),
    "LSTMCell, hidden batch": lambda L: L.nn.LSTMCell(3, 4)(L.ones(2, 3), (L.ones(3, 4), L.ones(2, 4))),
    "GRUCell, input size": lambda L: L.nn.GRUCell(3, 4)(L.ones(2, 5)),
    "GRUCell, hidden size": lambda L: L.nn.GRUCell(3, 4)(L.ones(2, 3), L.ones(2, 5)),
    "RNNCell, a nonlinearity": lambda L: L.nn.RNNCell(3, 4, nonlinearity="gelu")(L.ones(1, 3)),
    "GRUCell, dtypes": lambda L: L.nn.GRUCell(3, 4)(L.ones(2, 3, dtype=L.float64)),
    "pack_padded_sequence, lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 1), [3]),
    "pack_padded_sequence, a length 0": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 1), [3, 0]),
    "pack_padded_sequence, unsorted": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 1), [1, 3]),
    "pack_padded_sequence, a 1-d input": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3), [3]),
    "pad_packed_sequence, total_length": lambda L: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 1), [3, 2]), total_length=2),
    "pad_sequence, nothing": lambda L: L.nn.utils.rnn.pad_sequence([]),
    "pad_sequence, a number": lambda L: L.nn.utils.rnn.pad_sequence(3),
    "pad_sequence, a side": lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2)], padding_side="middle"),
    "pack_sequence, unsorted": lambda L: L.nn.utils.rnn.pack_sequence([L.ones(1), L.ones(2)]),
    "unbind, a number": lambda L: L.tensor(1.0).unbind(),
    "unbind, a dimension": lambda L: L.ones(2, 3).unbind(2),
    "unsafe_chunk, 0": lambda L: L.ones(2, 3).unsafe_chunk(0),
    "unsafe_split, 0": lambda L: L.ones(2, 3).unsafe_split(0),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_recurrent_layers_refuse_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_an_input_of_another_dtype_is_refused_in_torchs_words():
    ours = error_of(lambda: al.nn.RNN(3, 4)(al.ones(2, 1, 3, dtype=al.float64)))
    theirs = error_of(lambda: torch.nn.RNN(3, 4)(torch.ones(2, 1, 3, dtype=torch.float64)))
    assert ours == (theirs[0], theirs[1].replace("torch.", "al."))


def test_a_length_beyond_the_padding_is_refused_in_words():
    """torch reads past the end of its input there; autograd_lab says what is wrong."""
    kind, text = error_of(lambda: al.nn.utils.rnn.pack_padded_sequence(al.ones(3, 2, 1), [4, 3]))
    assert kind == "RuntimeError" and "longer than the padded sequences (3 steps)" in text


# -- nn.utils.rnn ----------------------------------------------------------------------------------
def _both_utils(call, arrays):
    """``call(lib, tensors)`` in both libraries: outputs, gradients, grad_fn names agree."""
    results = []
    for lib in (al, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = call(lib, xs)
        outs = out if isinstance(out, (tuple, list)) else [out]
        tensors = [o for o in outs if o.requires_grad]
        sum((t * (1 + lib.arange(t.numel()).reshape(t.shape))).sum() for t in tensors).backward()
        results.append(([o.detach().numpy() if hasattr(o, "detach") else o for o in outs], [x.grad for x in xs],
                        [graph_of(t) for t in tensors]))
    (outs, grads, graphs), (touts, tgrads, tgraphs) = results
    for a, b in zip(outs, touts):
        assert np.array_equal(a, b)
    for a, b in zip(grads, tgrads):
        agree(a, b)
    assert graphs == tgraphs


SEQS = [rng.standard_normal((3, 2)), rng.standard_normal((1, 2)), rng.standard_normal((4, 2))]


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True, "padding_value": -1.0}, {"padding_side": "left"}])
def test_pad_sequence_matches_torch(kwargs):
    _both_utils(lambda lib, xs: lib.nn.utils.rnn.pad_sequence(xs, **kwargs), SEQS)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_packing_and_unpacking_match_torch(batch_first, enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [3, 1, 4]
    padded = rng.standard_normal((3, 5, 2) if batch_first else (5, 3, 2))
    R = None

    def call(lib, xs):
        nonlocal R
        R = lib.nn.utils.rnn
        packed = R.pack_padded_sequence(xs[0], lengths, batch_first, enforce_sorted)
        out, lens = R.pad_packed_sequence(packed, batch_first, padding_value=0.5, total_length=6)
        return [packed.data, packed.batch_sizes, out, lens] + [t for t in packed[2:] if t is not None]
    _both_utils(call, [padded])


def test_pack_sequence_and_unpack_sequence_match_torch():
    def call(lib, xs):
        R = lib.nn.utils.rnn
        packed = R.pack_sequence(xs, enforce_sorted=False)
        return [packed.data] + R.unpack_sequence(packed) + R.unpad_sequence(R.pad_sequence(xs), lib.tensor([3, 1, 4]))
    _both_utils(call, SEQS)


def test_a_packed_sequence_prints_and_converts_as_torchs():
    ours = al.nn.utils.rnn.pack_sequence([al.tensor([1.0, 2.0]), al.tensor([3.0])])
    theirs = torch.nn.utils.rnn.pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
    assert repr(ours) == repr(theirs).replace("torch.", "al.")
    assert ours.double().data.dtype == al.float64 and ours.is_cuda is False and ours.to("cpu") is ours
    perm = al.tensor([2, 0, 1])
    assert al.nn.utils.rnn.invert_permutation(perm).tolist() == \
        torch.nn.utils.rnn.invert_permutation(torch.tensor([2, 0, 1])).tolist()


def test_unbind_and_unsafe_chunk_name_their_pieces_as_torch():
    x = rng.standard_normal((3, 4))
    _both_utils(lambda lib, xs: list(xs[0].unbind(1)) + list(lib.unbind(xs[0])), [x])
    _both_utils(lambda lib, xs: list(xs[0].unsafe_chunk(3, 1)) + list(lib.unsafe_split(xs[0], 2)), [x])


def test_a_float32_lstm_computes_torchs_numbers_where_torch_records_one_fused_node():
    """For float32 on a CPU, torch hands its LSTM to oneDNN: one node,
    MkldnnRnnLayerBackward0, the same numbers.  autograd_lab records torch's reference
    graph, which torch records too with oneDNN switched off."""
    torch.manual_seed(0)
    theirs = torch.nn.LSTM(3, 4, num_layers=2)
    ours = al.nn.LSTM(3, 4, num_layers=2)
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = X.astype(np.float32)
    names = []
    for flags in ({"enabled": True}, {"enabled": False}):
        with torch.backends.mkldnn.flags(**flags):
            tx, ax = torch.tensor(x, requires_grad=True), al.tensor(x, requires_grad=True)
            (tout, _), (aout, _) = theirs(tx), ours(ax)
            tout.sum().backward()
            aout.sum().backward()
        agree(aout, tout, 1e-5)
        agree(ax.grad, tx.grad, 1e-5)
        names.append((aout.grad_fn.name(), tout.grad_fn.name()))
    assert names == [("StackBackward0", "MkldnnRnnLayerBackward0"), ("StackBackward0", "StackBackward0")]
