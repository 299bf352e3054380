"""``al.autograd.graph``: hooks on the values a graph saves for its backward, and the
parts of a node torch shows (``next_functions``, ``_saved_self``, ...).

The walk needs none of this; it is torch's view of a recorded node, installed on
``recording.Node`` and ``recording.AccumulateGrad`` when ``al.autograd`` loads.
"""
from ..inplace import modified
from ..modes import state
from ..recording import FREED, AccumulateGrad, Node
from ..tensor import Tensor

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:
    """Inside this block, every tensor an operation saves for its backward goes through
    ``pack_hook(tensor)``, and what that returns is kept instead; the backward (or
    ``grad_fn._saved_self``) gets the tensor back from ``unpack_hook(packed)``.  Used to
    save memory (keep a copy on disk, compressed, ...) or to watch what a graph keeps::

        with al.autograd.graph.saved_tensors_hooks(lambda x: print("Packing", x) or x,
                                                   lambda x: x):
            y = a * b              # Packing b, Packing a: mul saves each for the other's rule
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        state.saved_hooks = state.saved_hooks + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        state.saved_hooks = state.saved_hooks[:-1]
        return False

# -- torch's view of a node ---------------------------------------------------------------
_NUMBER_IS_ATTRIBUTE = {"PowBackward0", "PowBackward2", "RsubBackward1", "FillBackward2", "ZeroBackward0",
                        "MaskedFillBackward0", "torch::autograd::CopySlices"}


class NodeMethods:
    """What torch shows of a node beyond what the walk needs (installed on Node)."""

    @property
    def next_functions(self):
        """One (node, 0) pair per input that can receive a gradient, as torch lists them:
        where's condition is left out, a constant shows as None, and the scalar variants
        of pow and rsub keep their Python number as an attribute, not an input."""
        rules = self.op.vjp or (True,) * len(self.next)
        drop_numbers = self._name in _NUMBER_IS_ATTRIBUTE
        return tuple((n, 0) for n, rule, a in zip(self.next, rules, self.args or self.next)
                     if rule is not None and not (drop_numbers and isinstance(a, (int, float))))

    @property
    def metadata(self):
        return {}

    def register_hook(self, fn):
        raise NotImplementedError("autograd_lab supports hooks on tensors (Tensor.register_hook), "
                                  "not on grad_fn nodes")

    # torch's grad_fn._saved_self, _saved_other, _saved_result, _saved_<parameter> (see
    # _saved): properties rather than a __getattr__, which would make every attribute
    # read of every node slower (Python does not specialise them on such a class)
    def _saved(self, field):
        """What this node keeps for its rules under torch's name ``_saved_<field>``: an
        input, the output or a parameter.  A value written in place since is refused, as
        the backward would refuse it."""
        if field in self.params:
            return self.params[field]
        index = _SAVED_INPUTS.get(field)
        if index is not None and index < len(self.next) and self.op.reads_inputs:
            kept = self.args[index] if self.args is not None else None
            if not self.reads(index):
                if self.op.saves == "others":
                    return None           # torch has the field, but saved nothing: x * 2's self
            elif isinstance(kept, (int, float)):
                return kept               # a number: pow's exponent, kept as it was given
            elif kept is None or type(kept) is Tensor:
                return self._saved_value(index)
        if field == "result" and self.op.reads_output:
            return self._saved_value("out")
        raise AttributeError(f"'{self._name}' object has no attribute '_saved_{field}'")

    def _saved_value(self, where):
        """Saved input ``where`` (or the output, "out") as a recorded tensor, as the backward
        of create_graph=True would see it."""
        if self.freed:
            raise RuntimeError(FREED)
        if where == "out":
            if self.overwritten:
                modified(self.out, self, self.out_box[0], self.out_version)
        else:
            a = self.args[where]
            if a._vbox is not None and a._vbox[0] != (self.versions[where] if self.versions else 0):
                modified(a._data, a.grad_fn, a._vbox[0], self.versions[where] if self.versions else 0)
        args, y = self.saved(True)
        return y if where == "out" else args[where]


# the fields torch's nodes show: inputs (by position), the output, and the parameters of
# ours that torch keeps under the same names (a node without one raises AttributeError)
_SAVED_INPUTS = {"self": 0, "other": 1, "exponent": 1, "mat2": 1, "condition": 0}
_SAVED_PARAMETERS = ("dim", "dims", "keepdim", "min", "max", "decimals", "reduction", "weight", "pos_weight",
                     "ignore_index", "target")
for _field in (*_SAVED_INPUTS, "result", *_SAVED_PARAMETERS):
    setattr(Node, f"_saved_{_field}", property(lambda node, field=_field: node._saved(field)))
for _name, _value in vars(NodeMethods).items():
    if not _name.startswith("__"):
        setattr(Node, _name, _value)
AccumulateGrad.next_functions = property(lambda node: ())   # a leaf's node leads nowhere
