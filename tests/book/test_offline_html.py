"""The built book (_build/html) works offline and has what readers expect.

These checks read the HTML files; tests/book/test_browser.py opens the same pages in Chromium.
"""
import functools
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from book_site import source_of, toc_docnames

bs4 = pytest.importorskip("bs4")
pytestmark = pytest.mark.html

# Elements whose URL the browser fetches by itself when the page loads.
FETCHED = [("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
           ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
           ("object", "data")]
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")
CDN_HINTS = ("require.js", "require.min.js", "embed-amd.js", "html-manager", "unpkg.com",
             "jsdelivr", "cdnjs", "thebe", "fonts.googleapis", "polyfill.io")


@functools.lru_cache(maxsize=None)
def _parsed(path, mtime):
    return bs4.BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser")


def soup(path):
    """The parsed page (each file parsed once per run; the tests only read it)."""
    path = Path(path).resolve()
    return _parsed(path, path.stat().st_mtime_ns)


def all_html(built_html):
    return sorted(p for p in built_html.rglob("*.html") if "_static" not in p.parts)


def is_outside(url):
    """True for a URL that would be fetched from another host (or a scheme we do not serve)."""
    if url.startswith(("data:", "#")):
        return False
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)   # http:, https:, //host, file:, ...


def test_every_page_of_the_toc_was_built(built_html):
    missing = [name for name in toc_docnames() if not (built_html / f"{name}.html").exists()]
    assert missing == []


def test_no_page_fetches_a_script_stylesheet_font_or_image_from_another_host(built_html):
    offenders = []
    for page in all_html(built_html):
        doc = soup(page)
        for tag, attr in FETCHED:
            for el in doc.find_all(tag):
                url = el.get(attr)
                if tag == "link" and not set(el.get("rel", [])) & {
                        "stylesheet", "preload", "icon", "modulepreload", "prefetch",
                        "apple-touch-icon", "manifest"}:
                    continue    # rel=prev/next/index/search are links, not fetches
                if url and is_outside(url):
                    offenders.append(f"{page.relative_to(built_html)}: <{tag} {attr}={url}>")
        for style in doc.find_all("style"):
            for m in CSS_URL.finditer(style.get_text()):
                url = m.group(1) or m.group(2)
                if is_outside(url):
                    offenders.append(f"{page.relative_to(built_html)}: inline CSS {url}")
    assert offenders == []


def test_no_stylesheet_loads_fonts_or_imports_from_another_host(built_html):
    offenders = []
    for css in (built_html / "_static").rglob("*.css"):
        for m in CSS_URL.finditer(css.read_text(encoding="utf-8", errors="replace")):
            url = m.group(1) or m.group(2)
            if is_outside(url):
                offenders.append(f"{css.relative_to(built_html)}: {url}")
    assert offenders == []


def test_no_page_mentions_a_cdn_script_for_widgets_thebe_or_fonts(built_html):
    found = [f"{p.relative_to(built_html)}: {hint}" for p in all_html(built_html)
             for hint in CDN_HINTS if hint in p.read_text(encoding="utf-8")]
    assert found == []


def test_mathjax_is_served_from_the_site(built_html):
    pages_with_mathjax = 0
    for page in all_html(built_html):
        for el in soup(page).find_all("script", src=True):
            if "mathjax" in el["src"].lower():
                pages_with_mathjax += 1
                assert not is_outside(el["src"])
                local = (page.parent / el["src"].split("?")[0]).resolve()
                assert local.is_file(), f"{page.name}: {el['src']} is not in the build"
    assert pages_with_mathjax >= 1
    assert (built_html / "_static" / "mathjax" / "output" / "chtml" / "fonts").is_dir()


def test_theme_icons_come_from_a_small_stylesheet_with_every_icon_the_pages_use(built_html):
    script = (built_html / "_static" / "scripts" / "fontawesome.js").read_text()
    assert len(script) < 50_000, "Font Awesome's full 1.5 MB script is back (tools/sphinxext/icon_subset.py)"
    used = set()
    for page in all_html(built_html):
        used.update(re.findall(r"\bfa-([a-z0-9-]+)", page.read_text()))
    used -= {"solid", "regular", "brands", "lg", "xs", "sm", "fw", "1x", "2x", "3x"}
    assert used, "no icons found in the pages"
    missing = [name for name in used | {"xmark"} if f".fa-{name}{{" not in script]
    assert not missing, f"icons used by the pages but not drawn: {missing}"


def test_widget_outputs_become_static_pictures(built_html):
    """Live widget views would need a kernel and CDN JavaScript: the pages carry none."""
    for page in all_html(built_html):
        doc = soup(page)
        assert doc.find("script", type="application/vnd.jupyter.widget-view+json") is None
        assert doc.find("script", type="application/vnd.jupyter.widget-state+json") is None


def test_every_page_has_title_favicon_logo_and_search(built_html, book_pages):
    for name in book_pages:
        doc = soup(built_html / name)
        assert "autograd_lab" in doc.title.get_text(), name
        icon = doc.find("link", rel="icon")
        assert icon is not None and (built_html / name).parent.joinpath(icon["href"]).resolve().is_file()
        logo = doc.find("img", class_=re.compile("logo"))
        assert logo is not None and logo.get("alt"), name
        assert doc.find("form", action=re.compile(r"search\.html")) is not None, name
    assert (built_html / "search.html").is_file() and (built_html / "searchindex.js").is_file()


def test_the_site_root_redirects_to_the_first_page_with_the_books_favicon(built_html,
                                                                          book_pages):
    """The root page (index.html) is what a browser opens first: without its own
    <link rel="icon"> the browser asks for /favicon.ico, a 404 in the console."""
    doc = soup(built_html / "index.html")
    icon = doc.find("link", rel="icon")
    assert icon is not None, "index.html names no favicon"
    assert (built_html / icon["href"]).resolve().is_file(), icon["href"]
    refresh = doc.find("meta", attrs={"http-equiv": "Refresh"})
    assert refresh is not None and refresh["content"].endswith(f"url={book_pages[0]}")
    assert doc.find("a", href=book_pages[0]) is not None, "no link to follow by hand"
    assert "autograd_lab" in doc.title.get_text()


def test_the_footer_shows_no_year_that_can_go_stale(built_html, book_pages):
    for name in book_pages:
        footer = soup(built_html / name).find("footer", class_="bd-footer-content")
        assert footer is not None, name
        text = footer.get_text(" ", strip=True)
        assert "©" not in text and not re.search(r"\b(19|20)\d\d\b", text), f"{name}: {text}"


def test_intro_page_carries_the_short_description(built_html, book_pages):
    doc = soup(built_html / book_pages[0])
    meta = doc.find("meta", attrs={"name": "description"})
    assert meta is not None and "autograd" in meta["content"]


def test_notebook_pages_offer_their_ipynb_for_download(built_html, book_pages):
    notebooks = [n for n in toc_docnames() if str(source_of(n)).endswith(".ipynb")]
    assert notebooks, "the book has no notebook pages"
    for name in notebooks:
        doc = soup(built_html / f"{name}.html")
        links = [a["href"] for a in doc.find_all("a", href=True) if a["href"].endswith(".ipynb")]
        assert links, f"{name}: no .ipynb download link"
        target = (built_html / name).parent.joinpath(links[0]).resolve()
        assert target.is_file() and target.read_bytes().startswith(b"{"), target


def test_previous_and_next_links_follow_the_table_of_contents(built_html, book_pages):
    for i, name in enumerate(book_pages):
        doc = soup(built_html / name)
        prev_a, next_a = doc.find("a", class_="left-prev"), doc.find("a", class_="right-next")
        base = urljoin("http://book/", name)
        if i > 0:
            assert prev_a is not None, f"{name} has no previous link"
            assert urljoin(base, prev_a["href"]) == urljoin("http://book/", book_pages[i - 1])
        if i + 1 < len(book_pages):
            assert next_a is not None, f"{name} has no next link"
            assert urljoin(base, next_a["href"]) == urljoin("http://book/", book_pages[i + 1])
        else:
            assert next_a is None


def test_hide_input_cells_are_folded_behind_a_toggle(built_html):
    """Every cell tagged hide-input renders folded, with its output in view."""
    import nbformat

    checked = 0
    for name in toc_docnames():
        src = source_of(name)
        if src is None or src.suffix != ".ipynb":
            continue
        tagged = [c for c in nbformat.read(src, as_version=4).cells
                  if "hide-input" in c.metadata.get("tags", [])]
        doc = soup(built_html / f"{name}.html")
        cells = doc.find_all("div", class_="tag_hide-input")
        assert len(cells) == len(tagged), name
        for stored, cell in zip(tagged, cells):
            assert cell.find("details", class_="hide") is not None, f"{name}: input not folded"
            if stored.get("outputs"):
                assert cell.find("div", class_="cell_output") is not None, f"{name}: output hidden"
        checked += len(tagged)
    assert checked >= 1


def test_copy_buttons_leave_prompts_out(built_html):
    js = (built_html / "_static" / "copybutton.js").read_text(encoding="utf-8")
    m = re.search(r"formatCopyText\(.*?,\s*'(.*?)',\s*(true|false)", js, re.S)
    assert m is not None, "copybutton.js has no prompt settings"
    prompt_regex, is_regexp = m.group(1).encode().decode("unicode_escape"), m.group(2)
    assert is_regexp == "true"
    for prompt, code in [(">>> ", "x.grad"), ("... ", "y = 1"), ("In [3]: ", "y.backward()"),
                         ("$ ", "python3 tools/dev.py book")]:
        # the same regular expression copybutton.js builds
        m = re.match("^(" + prompt_regex + ")(.*)", prompt + code)
        assert m is not None and m.group(2) == code, (prompt, m and m.group(2))


def test_dark_theme_frames_figures_on_a_solid_background(built_html):
    css = (built_html / "_static" / "book.css").read_text(encoding="utf-8")
    assert re.search(r'html\[data-theme="dark"\][^{]*img[^{]*\{[^}]*background-color:\s*#fff',
                     css, re.S)
