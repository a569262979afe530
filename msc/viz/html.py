"""One self-contained HTML page (no network) for ``msc ir --format html``: the graph's
picture (Graphviz's SVG where ``dot`` is installed, else ``svg.py``'s), a table of every
node (name, op, type, constants and attributes, source line) with a filter box, and the
compile report's chart and table."""

from __future__ import annotations

from html import escape
from typing import Any, Sequence

from msc.viz.report import STYLE, report_svg, report_table
from msc.viz.scene import Scene

_SCRIPT = """
function filterRows(text) {
  text = text.toLowerCase();
  for (const row of document.querySelectorAll('#nodes tr.item')) {
    row.style.display = row.textContent.toLowerCase().includes(text) ? '' : 'none';
  }
}
"""

_EXTRA_STYLE = """
.picture { overflow: auto; max-height: 80vh; border: 1px solid #e5e7eb; padding: 4px; }
input { margin: 0.4em 0; padding: 3px 6px; width: 20em; }
"""


def inline_svg(svg: str) -> str:
    """An SVG document as an element to put in HTML (no XML prolog or doctype)."""
    return svg[svg.index("<svg"):]


def graph_page(scene: Scene, picture: str, rows: Sequence[dict[str, Any]],
               notes: Sequence[str] = (), drawn_by: str = "") -> str:
    title = f"msc ir {scene.title}"
    cut = "" if scene.shown >= scene.total else \
        (f"<p class='muted'>The picture and the table show {scene.shown} of the "
         f"{scene.total} nodes (<code>--max-nodes</code>).</p>")
    table = "".join(
        f"<tr class='item'><td>{escape(i.title)}</td><td>{escape(i.kind)}</td>"
        f"<td>{escape(i.detail)}</td><td>{escape(i.extra)}</td><td>{escape(i.loc)}</td></tr>"
        for i in scene.items())
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{STYLE}{_EXTRA_STYLE}</style><script>{_SCRIPT}</script></head><body>"
        f"<h1>{escape(title)}</h1>{cut}"
        f"<h2>Optimised graph</h2><p class='muted'>{escape(drawn_by)}</p>"
        f"<div class='picture'>{inline_svg(picture)}</div>"
        "<h2>Nodes</h2><input type='search' placeholder='filter: op, shape, line'"
        " oninput='filterRows(this.value)'>"
        "<table id='nodes'><tr><th>value</th><th>kind</th><th>type</th>"
        f"<th>constants, attributes</th><th>source</th></tr>{table}</table>"
        f"<h2>Compile report</h2>{report_svg(rows)}{report_table(rows, notes)}"
        "</body></html>\n")
