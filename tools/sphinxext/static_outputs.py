"""Sphinx extension: notebook outputs as static pages a reader can trust offline.

1. Alt text and width for images from the output's own metadata. IPython's
   ``Image(..., alt=...)`` (and ``autograd_lab.teaching.viz.show``) store them as
   ``{"image/png": {"alt": "...", "width": 680}}``; MyST-NB reads them only from the
   cell's ``mystnb.image`` settings, so without this the picture would reach the page with
   no alt text, and a picture drawn at twice its size for sharpness would be shown twice
   as large. The cell's settings still win when both exist.
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
    meta = data.output_metadata.get(data.mime_type) or {}
    for node in nodes_:
        if meta.get("alt") and not node.get("alt"):
            node["alt"] = str(meta["alt"])
        if meta.get("width") and not node.get("width"):
            node["width"] = f"{int(meta['width'])}px"
    return nodes_


def render_nb_finalise(self, metadata):
    metadata = {k: v for k, v in metadata.items() if k != "widgets"}
    return _render_nb_finalise(self, metadata)


def setup(app):
    NbElementRenderer.render_image = render_image
    NbElementRenderer.render_nb_finalise = render_nb_finalise
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
