"""Sphinx extension: the theme's icons without its 1.5 MB icon script.

pydata-sphinx-theme loads Font Awesome's JavaScript (``_static/scripts/fontawesome.js``,
1.5 MB, every icon of three icon sets) to turn about a dozen ``<i class="fa-solid
fa-...">`` elements into pictures. At the end of the build this extension replaces that
file with a few kilobytes: a script that adds one style sheet drawing exactly the icons
the pages use, each as a CSS mask filled with the text colour (so icons follow the light
and dark themes as before). Page weight drops by 1.5 MB a page; nothing else changes.
"""
import json
import re
from pathlib import Path

# icons the theme's own JavaScript adds after the page has loaded
ALWAYS = {"xmark"}
# classes that style an icon rather than name one
STYLE_CLASSES = {"solid", "regular", "brands", "lg", "xs", "sm", "fw", "1x", "2x", "3x"}


def _solid_icons(script):
    """{name: (width, height, path)} from Font Awesome's solid set in its script."""
    start = script.index('("far",')          # the regular set is defined just before
    end = script.index('("fas",', start)     # ... and the solid set ends here
    icons = {}
    pattern = re.compile(r'(?:"([a-z0-9-]+)"|\b([a-z0-9]+)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]+",'
                         r'("(?:[^"\\]|\\.)*")')
    for m in pattern.finditer(script, start, end):
        icons[m.group(1) or m.group(2)] = (int(m.group(3)), int(m.group(4)), json.loads(m.group(5)))
    return icons


def _used(html_dir):
    names = set(ALWAYS)
    for page in Path(html_dir).rglob("*.html"):
        names.update(re.findall(r"\bfa-([a-z0-9-]+)", page.read_text(encoding="utf-8")))
    return names - STYLE_CLASSES


def _css(icons):
    rules = [".fa-solid,.fas{display:inline-block;height:1em;vertical-align:-.125em;"
             "background-color:currentColor;-webkit-mask:var(--al-icon) center/contain no-repeat;"
             "mask:var(--al-icon) center/contain no-repeat}",
             ".fa-lg{font-size:1.25em;line-height:.05em;vertical-align:-.2em}"]
    for name, (w, h, path) in sorted(icons.items()):
        svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'><path d='{path}'/></svg>"
        url = "url(\"data:image/svg+xml," + svg.replace("#", "%23").replace('"', "'") + "\")"
        rules.append(f".fa-{name}{{width:{w / h:.4f}em;--al-icon:{url}}}")
    return "".join(rules)


def replace_icon_script(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "scripts" / "fontawesome.js"
    import pydata_sphinx_theme
    original = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" /
                "static" / "scripts" / "fontawesome.js")
    if not target.exists() or not original.exists():
        return
    available = _solid_icons(original.read_text(encoding="utf-8"))
    used = {n: available[n] for n in _used(app.outdir) if n in available}
    script = ("// The few icons these pages use, drawn with CSS (written by tools/sphinxext/"
              "icon_subset.py in place of Font Awesome's full script).\n"
              "(function(){var s=document.createElement('style');s.textContent=" +
              json.dumps(_css(used)) + ";document.head.appendChild(s);})();\n")
    target.write_text(script, encoding="utf-8")


def setup(app):
    app.connect("build-finished", replace_icon_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
