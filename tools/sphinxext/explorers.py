"""Sphinx extension: the explorers live in the book's pages, without a kernel.

An explorer's output (``autograd_lab.teaching.widgets``) carries, beside the Jupyter widget view,
a PNG of its state (with alt text) and a page bundle: the mime type
``application/vnd.autograd-lab.explorer+json`` holding its view module's name, spec and
state and every number the page needs to answer the view, all computed by autograd_lab
when the notebook ran during the build.  Here each such output becomes

    <div class="cell_output al-explorer" data-kind="seed">
      <img ... alt="...">                          the picture, for readers without JavaScript
      <script type="application/json" class="al-explorer-data">{...}</script>
    </div>

and a page with explorers gets, once per kind, the text of the view module (the same
text anywidget loads in Jupyter) in a ``<script type="text/plain" class="al-module">``.
``_static/autograd_lab/page.js`` (on every page, 2 kB) mounts each view with a local
model.  Nothing is loaded from another host; the page works from files on disk too.
``progress.js`` (on every page, before it) keeps a reader's answers to the exercises in
the browser and shows the progress per chapter; the first page of the book gets the list
of each chapter's exercises for it.
"""
import json
import re
from pathlib import Path

from docutils import nodes
from myst_nb.core.render import NbElementRenderer
from sphinx.transforms.post_transforms import SphinxPostTransform

from autograd_lab.teaching.widgets._base import HERE, PAGE_MIME, module_source

_render_mime_type = NbElementRenderer.render_mime_type
KIND = re.compile(r'<div class="[^"]*\bal-explorer\b[^"]*" data-kind="(\w+)"')


def _script(content):
    """JSON or JavaScript inside <script>: nothing in it may close the element."""
    if "</script" in content.lower():
        raise ValueError("an explorer's data or module contains '</script'")
    return content


def render_mime_type(self, data):
    """The page bundle becomes a JSON script (it is joined to its picture below)."""
    if data.mime_type != PAGE_MIME:
        return _render_mime_type(self, data)
    payload = data.content if isinstance(data.content, dict) else json.loads(data.content)
    text = json.dumps(payload, separators=(",", ":"), allow_nan=False)
    node = nodes.raw(text=f'<script type="application/json" class="al-explorer-data">'
                          f'{_script(text)}</script>', format="html")
    node["al_kind"] = payload["module"]
    return [node]


class JoinExplorerOutputs(SphinxPostTransform):
    """Each explorer output: its picture and its data in one <div class="al-explorer">,
    chosen before MyST-NB picks one mime type per output (its SelectMimeType runs at 4)."""

    default_priority = 3
    formats = ("html",)

    def run(self, **kwargs):
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            parts = {c.get("mime_type"): c for c in bundle.children}
            if PAGE_MIME not in parts:
                continue
            data = parts[PAGE_MIME].children
            kind = data[0]["al_kind"]
            picture = parts.get("image/png")
            box = nodes.raw(text=f'<div class="cell_output al-explorer" data-kind="{kind}">',
                            format="html")
            end = nodes.raw(text="</div>", format="html")
            bundle.replace_self([box, *(picture.children if picture else []), *data, end])


BOX = re.compile(r'(<div class="cell_output al-explorer" data-kind="\w+">\s*<img )(?![^>]*\bloading=)')


def add_view_modules(app, pagename, templatename, context, doctree):
    """A page with explorers carries the text of each view module it uses, once.  Each
    explorer's picture is loaded lazily: where the live view replaces it (book.css hides
    it), the browser never downloads it; without JavaScript it loads as the reader
    scrolls to it."""
    body = BOX.sub(r'\1loading="lazy" ', context.get("body", ""))
    context["body"] = body
    kinds = sorted(set(KIND.findall(body)))
    if kinds:
        context["body"] = body + "".join(
            f'<script type="text/plain" class="al-module" data-kind="{k}">'
            f'{_script(module_source(k))}</script>' for k in kinds)


def exercises_of(app):
    """{chapter file name: [the titles of its answer boxes]}, from the notebooks' stored
    outputs (a box's page bundle), for the intro's map of the chapters (progress.js)."""
    found = {}
    for docname in sorted(app.env.found_docs):
        path = Path(app.env.doc2path(docname))
        if path.suffix != ".ipynb":
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        titles = [o["data"][PAGE_MIME]["spec"]["title"] for c in cells for o in c.get("outputs", [])
                  if o.get("data", {}).get(PAGE_MIME, {}).get("module") == "exercise"]
        if titles:
            found[path.stem] = titles
    return found


def add_exercises_map(app, pagename, templatename, context, doctree):
    """The book's first page lists each chapter's exercises, for the progress it shows."""
    if pagename == app.config.root_doc:
        text = json.dumps(exercises_of(app), ensure_ascii=False, separators=(",", ":"))
        context["body"] = context.get("body", "") + \
            f'<script type="application/json" id="al-exercises">{_script(text)}</script>'


def copy_page_host(app, exception):
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / "autograd_lab"
        target.mkdir(parents=True, exist_ok=True)
        for name in ("progress.js", "page.js"):
            (target / name).write_text((HERE / name).read_text(encoding="utf-8"), encoding="utf-8")


def setup(app):
    NbElementRenderer.render_mime_type = render_mime_type
    app.add_post_transform(JoinExplorerOutputs)
    app.connect("html-page-context", add_view_modules)
    app.connect("html-page-context", add_exercises_map)
    app.connect("build-finished", copy_page_host)
    # progress.js first: page.js asks it for the answers this browser kept
    app.add_js_file("autograd_lab/progress.js", loading_method="defer")
    app.add_js_file("autograd_lab/page.js", loading_method="defer")
    # with JavaScript the live view replaces the picture (book.css): no picture flashes first
    app.add_js_file(None, body="document.documentElement.classList.add('al-js');")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
