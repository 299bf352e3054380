"""Sphinx extension: notebook outputs as static pages a reader can trust offline.

1. Alt text for images from the output's own metadata. IPython's ``Image(..., alt=...)``
   (and ``autograd_lab.viz.show``) store it as ``{"image/png": {"alt": "..."}}``; MyST-NB
   reads alt text only from the cell's ``mystnb.image.alt``, so without this the picture
   would reach the page with none. The cell's setting still wins when both exist.
2. No widget state in the pages. Executing a notebook that shows explorers leaves the
   ipywidgets state in its metadata, and MyST-NB would embed it as a JSON script for an
   HTML widget manager. The book shows each explorer's static PNG instead
   (``nb_mime_priority_overrides`` in _config.yml) and loads no widget JavaScript
   (``nb_ipywidgets_js: {}``), so the state would be dead weight: it is dropped.
"""
from myst_nb.core.render import NbElementRenderer

_render_image = NbElementRenderer.render_image
_render_nb_finalise = NbElementRenderer.render_nb_finalise


def render_image(self, data):
    nodes_ = _render_image(self, data)
    alt = (data.output_metadata.get(data.mime_type) or {}).get("alt")
    if alt:
        for node in nodes_:
            if not node.get("alt"):
                node["alt"] = str(alt)
    return nodes_


def render_nb_finalise(self, metadata):
    metadata = {k: v for k, v in metadata.items() if k != "widgets"}
    return _render_nb_finalise(self, metadata)


def setup(app):
    NbElementRenderer.render_image = render_image
    NbElementRenderer.render_nb_finalise = render_nb_finalise
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
