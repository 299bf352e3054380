"""Recurrent layers as torch.nn has them: RNN, LSTM and GRU over whole sequences (layers
stacked, both directions, packed sequences), and their cells for one step.

They hold torch's parameters under torch's names (``weight_ih_l0``, ``bias_hh_l1_reverse``,
...), drawn as torch draws them, and compute as torch's reference implementation does
(its CPU code, which also records the graph): the input's share of every gate for all
steps at once, one linear layer over the sequence, taken apart step by step
(UnbindBackward0); then per step the hidden state's share added (AddmmBackward0 +), the
gates cut apart (UnsafeSplitBackward0) and combined; the steps' outputs stacked.  So
outputs and gradients equal torch's, and so do grad_fn names -- those torch records for
float64, or whenever it does not hand an LSTM to oneDNN (for float32 on a CPU with oneDNN,
torch's LSTM is one fused node, MkldnnRnnLayerBackward0, computing the same numbers).
"""
import math
import numbers
import warnings

from .. import creation, devices, functions, sequence_rules
from ..core import dtypes
from . import functional as F, init
from .modules import Module, Parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# -- one step of each cell: (input, hidden, weights, input already projected?) -> hidden ----------
def _gates(x, h, w, projected):
    """The hidden state's share of the gates plus the input's, in torch's order."""
    w_ih, w_hh, b_ih, b_hh = w[:4]
    return F.linear(h, w_hh, b_hh) + (x if projected else F.linear(x, w_ih, b_ih))


def _tanh_cell(x, h, w, projected):
    return _gates(x, h, w, projected).tanh()


def _relu_cell(x, h, w, projected):
    return _gates(x, h, w, projected).relu()


def _lstm_cell(x, hc, w, projected):
    """Input, forget, cell and output gates; c' = f c + i g, h' = o tanh(c') (projected by
    weight_hr when the LSTM has proj_size)."""
    h, c = hc
    i, f, g, o = _gates(x, h, w, projected).unsafe_chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    hy = o.sigmoid() * cy.tanh()
    if len(w) > 4 and w[4] is not None:
        hy = hy @ w[4].t()
    return hy, cy


def _gru_cell(x, h, w, projected):
    """Reset gate r, update gate z, new gate n = tanh(x_n + r (W_hn h + b_hn));
    h' = (h - n) z + n, which is (1 - z) n + z h."""
    w_ih, w_hh, b_ih, b_hh = w[:4]
    xr, xz, xn = (x if projected else F.linear(x, w_ih, b_ih)).unsafe_chunk(3, 1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    r = (hr + xr).sigmoid()
    z = (hz + xz).sigmoid()
    n = (xn + hn * r).tanh()
    return (h - n) * z + n


_CELLS = {"RNN_TANH": _tanh_cell, "RNN_RELU": _relu_cell, "LSTM": _lstm_cell, "GRU": _gru_cell}


def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _slice(hidden, start, stop):
    return tuple(h[start:stop] for h in hidden) if isinstance(hidden, tuple) else hidden[start:stop]


def _join(parts):
    if isinstance(parts[0], tuple):
        return tuple(functions.cat([p[k] for p in parts], 0) for k in range(len(parts[0])))
    return functions.cat(parts, 0)


def _as_cells_read(weights, bias):
    """A layer's weights as the cells read them: (w_ih, w_hh, b_ih, b_hh[, w_hr]), the
    biases None in a layer without them."""
    w = list(weights)
    if not bias:
        w[2:2] = [None, None]
    return tuple(w)


# -- one layer, one direction -----------------------------------------------------------------------
def _sequence_layer(cell, steps, hidden, w, reverse):
    """The cell over the steps (each the input's share of the gates), forwards or
    backwards: (outputs in time order, final hidden state)."""
    outputs = []
    for t in (reversed(range(len(steps))) if reverse else range(len(steps))):
        hidden = cell(steps[t], hidden, w, True)
        outputs.append(_output_of(hidden))
    return (outputs[::-1] if reverse else outputs), hidden


def _packed_layer(cell, data, batch_sizes, hidden, w):
    """The cell over a packed sequence's steps, forwards: at each step only the sequences
    still going; a sequence's final hidden state is set aside when it ends."""
    outputs, finished, offset, last = [], [], 0, batch_sizes[0]
    for n in batch_sizes:
        step = data[offset:offset + n]
        offset += n
        if n < last:
            finished.append(_slice(hidden, n, last))
            hidden = _slice(hidden, 0, n)
        last = n
        hidden = cell(step, hidden, w, True)
        outputs.append(_output_of(hidden))
    finished.append(hidden)
    return functions.cat(outputs, 0), _join(finished[::-1])


def _packed_layer_reversed(cell, data, batch_sizes, hidden, w):
    """The same backwards: from the last step, where the fewest sequences are, taking in
    each sequence's initial hidden state when its last step comes."""
    outputs, offset, last = [], data.shape[0], batch_sizes[-1]
    start = hidden
    hidden = _slice(start, 0, last)
    for n in reversed(batch_sizes):
        if n > last:
            hidden = _join([hidden, _slice(start, last, n)])
        step = data[offset - n:offset]
        offset -= n
        last = n
        hidden = cell(step, hidden, w, True)
        outputs.append(_output_of(hidden))
    return functions.cat(outputs[::-1], 0), hidden


# -- the layers -------------------------------------------------------------------------------------
class RNNBase(Module):
    """What RNN, LSTM and GRU share: settings checked in torch's words, the parameters of
    every layer and direction under torch's names, initialised uniform in ±1/√hidden_size,
    and the run over the layers."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=3)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}[mode] * hidden_size
        out_size = proj_size or hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:1 + bidirectional]:
                fan_in = input_size if layer == 0 else out_size * (1 + bidirectional)
                shapes = {"weight_ih": (gates, fan_in), "weight_hh": (gates, out_size)}
                if bias:
                    shapes.update(bias_ih=(gates,), bias_hh=(gates,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = [f"{kind}_l{layer}{suffix}" for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(creation.empty(*shape, dtype=dtype)))
                self._flat_weights_names += names
                self._all_weights.append(names)
        devices.check(device)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self):
        """torch packs the weights into one block for cuDNN; on the CPU it does nothing, and
        neither does autograd_lab."""

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- checks, as torch's module makes them -------------------------------------------------
    def _check_input(self, input, packed):
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if packed else 3
        if input.ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.ndim}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def _hidden_shape(self, batch, size=None):
        return (self.num_layers * (1 + self.bidirectional), batch, size or self.proj_size or self.hidden_size)

    def _check_hidden(self, hx, shape, message="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != shape:
            raise RuntimeError(message.format(shape, list(hx.shape)))

    # -- the run ------------------------------------------------------------------------------
    def _zeros(self, batch, size, like):
        return creation.zeros(*self._hidden_shape(batch, size), dtype=like.dtype)

    def _run(self, input, hx, batch_sizes):
        """All layers over the input (T, B, features), or over a packed sequence's data:
        (output, final hidden states stacked per layer and direction)."""
        cell = _CELLS[self.mode]
        lstm = self.mode == "LSTM"
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if lstm else list(hx.unbind(0))
        weights, finals = self.all_weights, []
        directions = 1 + self.bidirectional
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                w = weights[k]
                if batch_sizes is None:
                    steps = F.linear(layer_input, w[0], w[2] if self.bias else None).unbind(0)
                    out, final = _sequence_layer(cell, steps, states[k], _as_cells_read(w, self.bias), reverse=d == 1)
                    out = functions.stack(out, 0)
                else:
                    data = F.linear(layer_input, w[0], w[2] if self.bias else None)
                    run = _packed_layer_reversed if d == 1 else _packed_layer
                    out, final = run(cell, data, batch_sizes, states[k], _as_cells_read(w, self.bias))
                outputs.append(out)
                finals.append(final)
            layer_input = outputs[0] if directions == 1 else functions.cat(outputs, outputs[0].ndim - 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        if lstm:
            return layer_input, (functions.stack([f[0] for f in finals], 0), functions.stack([f[1] for f in finals], 0))
        return layer_input, functions.stack(finals, 0)

    def _forward(self, input, hx, name):
        """What torch's modules do around the run: packed or padded input, batch_first, one
        unbatched sequence, the initial hidden state (zeros when not given) and its checks."""
        lstm = self.mode == "LSTM"
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(batch_sizes[0])
            if hx is None:
                hx = self._initial(batch, data)
            elif lstm:
                hx = tuple(h.index_select(1, sorted_indices) if sorted_indices is not None else h for h in hx)
            elif sorted_indices is not None:
                hx = hx.index_select(1, sorted_indices)
            self._check_forward(data, hx, batch, True)
            output, hidden = self._run(data, hx, batch_sizes._data.tolist())
            if unsorted_indices is not None:
                hidden = (tuple(h.index_select(1, unsorted_indices) for h in hidden) if lstm else
                          hidden.index_select(1, unsorted_indices))
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), hidden
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D{' tensor' * (name == 'RNN')} "
                             "instead")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        hx = self._given_hidden(hx, batched)
        batch = input.shape[batch_dim]
        if hx is None:
            hx = self._initial(batch, input)
        self._check_forward(input, hx, batch, False)
        if self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, hidden = self._run(input, hx, None)
        if self.batch_first:       # (torch's RNN and GRU transpose their output in place)
            output = output.transpose(0, 1) if lstm else sequence_rules.transpose_(output, dim0=-3, dim1=-2)
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        return output, hidden

    def _initial(self, batch, like):
        if self.mode == "LSTM":
            return self._zeros(batch, None, like), self._zeros(batch, self.hidden_size, like)
        return self._zeros(batch, None, like)

    def _given_hidden(self, hx, batched):
        if hx is None:
            return None
        if batched and hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D tensor")
        if not batched:
            if hx.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor")
            hx = hx.unsqueeze(1)
        return hx

    def _check_forward(self, input, hx, batch, packed):
        self._check_input(input, packed)
        self._check_hidden(hx, self._hidden_shape(batch))


class RNN(RNNBase):
    """An Elman network: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu), over a sequence
    (T, B, input_size) -- (B, T, input_size) with batch_first -- or a packed sequence;
    returns the outputs of the last layer at every step and the final hidden states."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    """Long short-term memory: a cell state c carried along beside h, through input,
    forget and output gates.  hx is the pair (h_0, c_0)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM")

    def _given_hidden(self, hx, batched):
        if hx is None:
            return None
        want = 3 if batched else 2
        if hx[0].ndim != want or hx[1].ndim != want:
            raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx should also be "
                               f"{want}-D but got ({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
        return hx if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))

    def _check_forward(self, input, hx, batch, packed):
        self._check_input(input, packed)
        self._check_hidden(hx[0], self._hidden_shape(batch), "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], self._hidden_shape(batch, self.hidden_size), "Expected hidden[1] size {}, got {}")


class GRU(RNNBase):
    """Gated recurrent units: reset and update gates decide how much of h to keep."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU")


# -- cells: one step ------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """What the cells share: weight_ih, weight_hh (and biases), uniform in ±1/√hidden_size."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self, cell, input, hx):
        """torch's checks of one step, then the cell (an unbatched input as a batch of one;
        None: a nonlinearity torch does not know)."""
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = hx if isinstance(hx, tuple) else None if hx is None else (hx,)
        for k, h in enumerate(states or ()):
            if h.ndim not in (1, 2):
                what = f"hx[{k}]" if isinstance(hx, tuple) else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
            states = None if states is None else tuple(h.unsqueeze(0) for h in states)
        if states is None:
            zeros = creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            states = (zeros, zeros) if isinstance(self, LSTMCell) else (zeros,)
        if cell is None:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_step(input, states)
        w = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        out = cell(input, states if len(states) == 2 else states[0], w, False)
        if batched:
            return out
        return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)

    def _check_step(self, input, states):
        """The checks torch's cell functions make, in their words."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for k, h in enumerate(states):
            if input.shape[0] != h.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size "
                                   f"{h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected "
                                   f"{self.hidden_size}")
        if input.dtype != self.weight_ih.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{dtypes.scalar_type_name(input._data.dtype)} and "
                               f"{dtypes.scalar_type_name(self.weight_ih._data.dtype)}")


class RNNCell(RNNCellBase):
    """One step of an Elman network: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._step({"tanh": _tanh_cell, "relu": _relu_cell}.get(self.nonlinearity), input, hx)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: hx is the pair (h, c); returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._step(_lstm_cell, input, hx)


class GRUCell(RNNCellBase):
    """One step of a GRU."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step(_gru_cell, input, hx)

