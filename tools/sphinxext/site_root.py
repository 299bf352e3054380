"""Sphinx extension: the page at the site's root, a real page instead of one line.

Jupyter Book's table of contents (sphinx_external_toc) writes ``index.html`` at the end
of the build as a bare ``<meta http-equiv="Refresh">`` line to the first page. A browser
that opens the root asks for ``/favicon.ico`` for it (no ``<link rel="icon">`` says
otherwise), a 404 in the console, and a reader without automatic redirects sees an
empty page. This writes the root page first, before sphinx_external_toc's handler (which
leaves an existing ``index.html`` alone): the book's title, its favicon, the redirect,
and a link to follow by hand.
"""
import html
from pathlib import Path

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="{icon}">
<meta http-equiv="Refresh" content="0; url={first}">
</head>
<body>
<p><a href="{first}">{title}</a></p>
</body>
</html>
"""


def write_root_page(app, exception):
    if exception is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    first = app.builder.get_target_uri(app.config.root_doc)
    favicon = app.config.html_favicon
    icon = f"_static/{Path(favicon).name}" if favicon else ""
    title = app.config.html_title or app.config.project
    page = PAGE.format(title=html.escape(title), icon=icon, first=html.escape(first))
    Path(app.outdir, "index.html").write_text(page, encoding="utf-8")


def setup(app):
    # priority 400: before sphinx_external_toc's own handler (500), which then finds the
    # page written and keeps it
    app.connect("build-finished", write_root_page, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
