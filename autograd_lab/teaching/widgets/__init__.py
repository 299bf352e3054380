"""Explorers: change a seed, a mask or a threshold and watch the gradients move.

They are live in Jupyter (the kernel computes with autograd_lab) and live in the book's
pages (from numbers autograd_lab computed when the book was built).

SeedExplorer (the seed of ``backward``), WhereExplorer (``where``'s mask and threshold),
JacobianExplorer (the Jacobian row by row or in one batched pass), PerSampleExplorer (one
example's row of that Jacobian: its per-sample gradient), GradOutputsExplorer
(``grad_outputs`` of the output's full shape) and GraphExplorer (a small model's graph,
with the gradient on every edge, as its parameters move); InplaceExplorer (an in-place
write and what backward does then) and MemoryExplorer (a small MLP's saved bytes through a
training step, with the blocks the reader picks checkpointed).

Every explorer can be driven from code (``ex.seed = [[1, 0]]``, ``ex.threshold = 3``) and
read (``ex.grad``, ``ex.error``), so tests need no browser.  How the two hosts work:
``_base.py``; each view: ``<kind>.js`` beside its class; the page's host: ``page.js``.

anywidget and matplotlib are optional extras: ``pip install 'autograd_lab[viz]'``.
"""
from ._base import Explorer, parse_numbers
from .grad_outputs import GradOutputsExplorer
from .graph_explorer import GraphExplorer
from .inplace import InplaceExplorer
from .memory import MemoryExplorer
from .seed import SeedExplorer
from .where import WhereExplorer
from .jacobian import JacobianExplorer
from .per_sample import PerSampleExplorer

__all__ = ["Explorer", "SeedExplorer", "WhereExplorer", "JacobianExplorer", "GradOutputsExplorer",
           "GraphExplorer", "parse_numbers"]
__all__ += ["InplaceExplorer", "PerSampleExplorer", "MemoryExplorer"]

# the exercises' answer boxes (exercise.py: the widget and its judge; the book's exercises
# live with the book, in book/book_answers.py)
from .exercise import AnswerBox, answer_box  # noqa: E402
__all__ += ["AnswerBox", "answer_box"]
