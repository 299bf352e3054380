"""``al.autograd.graph``: torch's view of a recorded node (``Node``, ``next_functions``,
``_saved_self``, ...) and the hooks a learner can put on a graph: on its nodes
(``grad_fn.register_prehook`` / ``register_hook``), on several tensors at once
(``register_multi_grad_hook``), on the values it saves for its backward
(``saved_tensors_hooks``, ``allow_mutation_on_saved_tensors``); and autograd_lab's own
count of the bytes a graph keeps for its backward (``count_saved``, from ``saved.py``).

The walk needs none of this; what it calls while hooks are set is ``watch.py``.  The
view of a node is installed on ``recording.Node`` and ``recording.AccumulateGrad`` when
``al.autograd`` loads.
"""
import abc
import contextlib
import weakref

from ..core import watch
from ..core.engine import reachable
from ..core.versions import check_saved
from ..core.modes import state
from ..core.recording import FREED, AccumulateGrad, Node as _RecordedNode, edge
from ..core.saved import count_saved
from ..core.tensor import Tensor
from .function import function_node

__all__ = ["saved_tensors_hooks", "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "Node",
           "count_saved"]


class Node(abc.ABC):
    """What every ``grad_fn`` is, as in torch: ``isinstance(y.grad_fn,
    al.autograd.graph.Node)`` holds for the nodes autograd_lab records (built-in
    operations, custom Functions, a leaf's AccumulateGrad).  An abstract class: a
    subclass gives these methods."""

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self):
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self):
        raise NotImplementedError

    @abc.abstractmethod
    def _sequence_nr(self):
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def _input_metadata(self):
        raise NotImplementedError

    @abc.abstractmethod
    def _register_hook_dict(self, tensor):
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn):
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn):
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and subclass in (_RecordedNode, AccumulateGrad):
            return True
        return NotImplemented


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


# -- hooks on several tensors at once ------------------------------------------------------
class _MultiHandle(watch.RemovableHandle):
    """One handle for the hooks register_multi_grad_hook put on each tensor."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward, when the gradients of ``tensors`` are known.

    ``mode="all"``: once the gradient of every tensor the walk reaches is computed,
    ``fn(grads)`` gets them in the order of ``tensors``, None for a tensor it did not
    reach (outside the graph, or leading to no input asked about).  ``mode="any"``:
    ``fn(grad)`` gets the first of them to be computed.  Built, as in torch, from one
    ``register_hook`` per tensor.  Returns a handle with ``remove()``."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    if mode == "all":
        nodes = [_node_of(t) for t in tensors]
        walks = weakref.WeakKeyDictionary()     # walk (engine.Plan) -> [seen, expected, grads]

        def hook_for(k):
            def hook(grad):
                walk = _current_walk()
                got = walks.get(walk)
                if got is None:
                    reached = _reached(walk)
                    got = walks[walk] = [0, sum(n in reached for n in nodes), [None] * len(nodes)]
                got[2][k] = grad
                got[0] += 1
                if got[0] == got[1]:
                    del walks[walk]
                    fn(got[2])
            return hook
        return _MultiHandle(tuple(t.register_hook(hook_for(k)) for k, t in enumerate(tensors)))
    called = weakref.WeakSet()                  # the walks that called fn already

    def first(grad):
        walk = _current_walk()
        if walk not in called:
            called.add(walk)
            fn(grad)
    return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))


def _node_of(t):
    node = edge(t)
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def _current_walk():
    if not watch.walking:
        raise AssertionError("expected this hook to be called inside a backward call")
    return watch.walking[-1]


def _reached(walk):
    """The nodes the walk executes: those leading to an input asked about, else every
    node reachable from the outputs."""
    return walk.needed if walk.needed is not None else reachable(walk.roots)


# -- writing in place into saved values -------------------------------------------------------
_MUTATION_ALLOWED = []                  # the allow_mutation_on_saved_tensors block open, if any
OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
           "in which the graph was originally recorded.")      # (torch's words, run together)


class _Packed:
    """What a graph keeps of a value saved inside allow_mutation_on_saved_tensors."""
    __slots__ = ("__weakref__",)


class _SavedCopies:
    """What allow_mutation_on_saved_tensors yields: the copies of the values saved inside
    it (``saved``: what the graph keeps -> the copy), each let go of with its graph, all
    when the block ends."""

    def __init__(self):
        self.saved = weakref.WeakKeyDictionary()

    def clear(self):
        self.saved.clear()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside this block, a tensor a graph saved for its backward may be written in
    place: the backward uses the value as it was saved.  As in torch, the block is a
    :class:`saved_tensors_hooks` pair, so the values saved inside are not version-checked;
    autograd_lab keeps a copy of each at once (torch copies a value only when it is
    written), and the backward must run inside the same block::

        with al.autograd.graph.allow_mutation_on_saved_tensors():
            a = al.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()       # saves b
            b.sin_()                   # allowed: pow's rule reads b as it was
            out.backward()             # a.grad is 2 * ones
    """
    if _MUTATION_ALLOWED:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    copies = _SavedCopies()

    def pack(t):
        key = _Packed()
        copies.saved[key] = t.clone()   # (recorded: a create_graph backward goes through it)
        return key

    def unpack(key):
        if copies not in _MUTATION_ALLOWED or key not in copies.saved:
            raise AssertionError(OUTSIDE)
        return copies.saved[key]

    with saved_tensors_hooks(pack, unpack):
        _MUTATION_ALLOWED.append(copies)
        try:
            yield copies
        finally:
            _MUTATION_ALLOWED.pop()
            copies.clear()


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
        return tuple((self.next[i], 0) for i in self._listed())

    def _listed(self):
        """The input positions next_functions lists (see there)."""
        rules = self.op.vjp or (True,) * len(self.next)
        drop_numbers = self.name() in _NUMBER_IS_ATTRIBUTE
        return tuple(i for i, (rule, a) in enumerate(zip(rules, self.args or self.next))
                     if rule is not None and not (drop_numbers and isinstance(a, (int, float))))

    def _sequence_nr(self):
        return self.seq

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` when this node is about to run: ``grad_outputs`` is a
        tuple holding the gradient of the node's output, after the hooks of its tensor and
        retain_grad; a returned tuple replaces it.  Returns a handle with ``remove()``."""
        node = function_node(self)
        hooks = watch.hooks_of(node)
        hooks.inputs = node._listed()
        return watch.RemovableHandle(hooks.pre, fn)

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` when this node has run: ``grad_inputs``
        holds what it sends to each input (one entry per ``next_functions`` entry, None
        where it sends nothing), ``grad_outputs`` what it received; a returned tuple
        replaces ``grad_inputs``.  Returns a handle with ``remove()``."""
        node = function_node(self)
        hooks = watch.hooks_of(node)
        hooks.inputs = node._listed()
        return watch.RemovableHandle(hooks.post, fn)

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
        raise AttributeError(f"'{self.name()}' object has no attribute '_saved_{field}'")

    def _saved_value(self, where):
        """Saved input ``where`` (or the output, "out") as a recorded tensor, as the backward
        of create_graph=True would see it."""
        if self.freed:
            raise RuntimeError(FREED)
        check_saved(self, where)
        args, y = self.saved(True)
        return y if where == "out" else args[where]


# the fields torch's nodes show: inputs (by position), the output, and the parameters of
# ours that torch keeps under the same names (a node without one raises AttributeError)
_SAVED_INPUTS = {"self": 0, "other": 1, "exponent": 1, "mat2": 1, "condition": 0}
_SAVED_PARAMETERS = ("dim", "dims", "keepdim", "min", "max", "decimals", "reduction", "weight", "pos_weight",
                     "ignore_index", "target")
for _field in (*_SAVED_INPUTS, "result", *_SAVED_PARAMETERS):
    setattr(_RecordedNode, f"_saved_{_field}", property(lambda node, field=_field: node._saved(field)))
def _ctx_field(name):
    """A field of a custom Function's ``ctx``, read through its node: in torch the node
    *is* the ctx (``y.grad_fn.saved_tensors``, ``.needs_input_grad``).  Properties, not a
    ``__getattr__`` on nodes (which would slow every attribute a walk reads); so what
    forward set on ctx by its own names is not read here.  Any other node: no such field."""
    def read(node):
        ctx = function_node(node).params.get("ctx")
        if ctx is None:
            raise AttributeError(f"'{node.name()}' object has no attribute '{name}'")
        return getattr(ctx, name)
    return property(read)


for _field in ("saved_tensors", "needs_input_grad"):
    setattr(_RecordedNode, _field, _ctx_field(_field))
for _name, _value in vars(NodeMethods).items():
    if not _name.startswith("__"):
        setattr(_RecordedNode, _name, _value)
for _name in ("register_prehook", "register_hook"):
    setattr(AccumulateGrad, _name, getattr(NodeMethods, _name))
AccumulateGrad.next_functions = property(lambda node: ())   # a leaf's node leads nowhere
AccumulateGrad._listed = lambda node: ()
AccumulateGrad._sequence_nr = lambda node: 2 ** 64 - 1      # (torch gives a leaf's node the highest)
# a node's metadata: a dict the user may fill, kept as long as the node lives
_metadata = weakref.WeakKeyDictionary()
_RecordedNode.metadata = AccumulateGrad.metadata = property(lambda node: _metadata.setdefault(node, {}))

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.autograd.graph", __name__, "al.autograd.graph")   # (names torch has: not_here.py)
