"""``al.autograd.graph``: hooks on the values a graph saves for its backward."""
from ..modes import state

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
