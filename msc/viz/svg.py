"""A scene drawn without Graphviz: one row per item in program order, each graph and
region a box around its rows (indented as ``msc ir`` indents them), and each edge an arc
in the left margin from the row defining a value to a row using it (state-token edges
dashed). Linear in the graph's size, so it also draws graphs too large for ``dot``."""

from __future__ import annotations

import math
from html import escape

from msc.viz.scene import Cluster, Item, Scene

ROW, INDENT, PAD, CHAR = 40, 18, 6, 6.6
_FILLS = {"input": "#dbeafe", "weight": "#fef3c7", "node": "#ffffff", "return": "#e5e7eb",
          "more": "#f3f4f6"}


def scene_svg(scene: Scene) -> str:
    """A standalone SVG document of ``scene``."""
    rows: list[tuple[int, Item | Cluster]] = []  # (depth, item or cluster title row)
    spans: list[tuple[int, int, int, Cluster]] = []  # (depth, first row, last row, cluster)

    def visit(cluster: Cluster, depth: int) -> None:
        first = len(rows)
        rows.append((depth, cluster))
        for m in cluster.members:
            visit(m, depth + 1) if isinstance(m, Cluster) else rows.append((depth + 1, m))
        spans.append((depth, first, len(rows) - 1, cluster))

    for c in scene.clusters:
        visit(c, 0)
    where = {r.id: i for i, (_, r) in enumerate(rows) if isinstance(r, Item)}
    bends = [_bend(abs(where[e.dst] - where[e.src])) for e in scene.edges
             if e.src in where and e.dst in where]
    left = 12 + max(bends, default=0)
    width = max((left + d * INDENT + _width(r) for d, r in rows), default=200) + 40
    height = len(rows) * ROW + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
           f'viewBox="0 0 {width:.0f} {height}" font-family="Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
           'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#4b5563"/>'
           '</marker></defs>',
           f'<text x="{left}" y="18" font-size="13" font-weight="bold">{escape(scene.title)}'
           '</text>']
    for depth, first, last, cluster in spans:
        x = left + depth * INDENT - PAD
        y = 26 + first * ROW
        out.append(f'<g class="cluster"><title>{escape(cluster.title)}</title>'
                   f'<rect x="{x}" y="{y}" width="{width - x - 10:.0f}" '
                   f'height="{(last - first + 1) * ROW - 4}" rx="8" fill="none" '
                   'stroke="#9ca3af"/>'
                   f'<text x="{x + 8}" y="{y + 16}" font-size="11" fill="#374151">'
                   f'{escape(cluster.title)}</text></g>')
    for i, (depth, row) in enumerate(rows):
        if isinstance(row, Item):
            out.append(_item(row, left + depth * INDENT, 26 + i * ROW))
    for e in scene.edges:
        if e.src not in where or e.dst not in where:
            continue
        a, b = where[e.src], where[e.dst]
        xa, xb = (left + rows[r][0] * INDENT for r in (a, b))
        ya, yb = (26 + r * ROW + ROW // 2 - 2 for r in (a, b))
        bend = _bend(abs(b - a))
        dash = ' stroke-dasharray="4 3"' if e.state else \
            ' stroke-dasharray="1 3"' if e.elided else ""
        label = f"<title>{escape(e.label)}</title>" if e.label else ""
        out.append(f'<path d="M{xa},{ya} C{xa - bend},{ya} {xb - bend},{yb} {xb},{yb}" '
                   f'fill="none" stroke="#4b5563" stroke-width="0.8"{dash} '
                   f'marker-end="url(#arrow)">{label}</path>')
    out.append("</svg>")
    return "\n".join(out)


def _bend(rows_apart: int) -> float:
    return 8 + 14 * math.log2(1 + rows_apart)


def _lines(item: Item) -> tuple[str, str]:
    return f"{item.title}  {item.detail}".strip(), "  ".join(
        part for part in (item.extra, item.loc) if part)


def _width(row: Item | Cluster) -> float:
    if isinstance(row, Cluster):
        return len(row.title) * CHAR + 2 * PAD
    return max(len(line) for line in _lines(row)) * CHAR + 2 * PAD


def _item(item: Item, x: float, y: float) -> str:
    top, bottom = _lines(item)
    return (f'<g class="node"><title>{escape(item.title)}</title>'
            f'<rect x="{x}" y="{y + 2}" width="{_width(item):.0f}" height="{ROW - 8}" rx="5" '
            f'fill="{_FILLS[item.kind]}" stroke="#6b7280" stroke-width="0.8"/>'
            f'<text x="{x + PAD}" y="{y + 16}" font-size="11">{escape(top)}</text>'
            f'<text x="{x + PAD}" y="{y + 28}" font-size="9" fill="#6b7280">{escape(bottom)}'
            '</text></g>')
