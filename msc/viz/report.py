"""The compile report as a chart: per step (parse, then each pass) the nodes after it and
the time it took, as two rows of bars in one SVG, and a standalone HTML page around it
(``msc compile --report-html``). Takes the report's plain rows (``PassReport.as_dicts()``,
also what an artifact's manifest keeps)."""

from __future__ import annotations

from html import escape
from typing import Any, Sequence

LABEL, BAR, GAP, ROW = 110, 260, 90, 22


def report_svg(rows: Sequence[dict[str, Any]]) -> str:
    """Bars of node counts (left) and milliseconds (right), one row per step."""
    most_nodes = max((r["nodes_after"] for r in rows), default=1) or 1
    most_ms = max((r["seconds"] * 1e3 for r in rows), default=1.0) or 1.0
    width = LABEL + 2 * (BAR + GAP)
    height = (len(rows) + 1) * ROW + 10
    right = LABEL + BAR + GAP
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="report" width="{width}" '
           f'height="{height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<text x="{LABEL}" y="14" font-weight="bold">nodes after the step</text>',
           f'<text x="{right}" y="14" font-weight="bold">time (ms)</text>']
    for i, r in enumerate(rows):
        y = (i + 1) * ROW
        ms = r["seconds"] * 1e3
        before = r["nodes_before"]
        change = "" if before is None or before == r["nodes_after"] else \
            f" ({r['nodes_after'] - before:+d})"
        n_w = BAR * r["nodes_after"] / most_nodes
        t_w = BAR * ms / most_ms
        out += [f'<g class="step"><title>{escape(r["name"])}: {r["nodes_after"]} nodes, '
                f'{ms:.2f} ms</title>',
                f'<text x="{LABEL - 8}" y="{y + 13}" text-anchor="end">{escape(r["name"])}</text>',
                f'<rect x="{LABEL}" y="{y + 2}" width="{n_w:.1f}" height="{ROW - 6}" '
                'fill="#60a5fa"/>',
                f'<text x="{LABEL + n_w + 4:.1f}" y="{y + 13}">{r["nodes_after"]}{change}</text>',
                f'<rect x="{right}" y="{y + 2}" width="{t_w:.1f}" height="{ROW - 6}" '
                'fill="#f59e0b"/>',
                f'<text x="{right + t_w + 4:.1f}" y="{y + 13}">{ms:.2f}</text></g>']
    out.append("</svg>")
    return "\n".join(out)


def report_table(rows: Sequence[dict[str, Any]], notes: Sequence[str] = ()) -> str:
    """The table ``msc ir`` prints, as HTML, and the passes' notes."""
    body = "".join(
        f"<tr><td>{escape(r['name'])}</td><td>{'-' if r['nodes_before'] is None else r['nodes_before']}"
        f"</td><td>{r['nodes_after']}</td><td>{r['seconds'] * 1e3:.2f}</td></tr>" for r in rows)
    total = sum(r["seconds"] for r in rows) * 1e3
    notes_html = "".join(f"<li>{escape(n)}</li>" for n in notes)
    return ("<table class='report'><tr><th>step</th><th>nodes before</th><th>nodes after</th>"
            f"<th>ms</th></tr>{body}<tr><th>total</th><td></td><td></td><th>{total:.2f}</th>"
            f"</tr></table>" + (f"<ul class='notes'>{notes_html}</ul>" if notes else ""))


STYLE = """
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #111827; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; }
td, th { border: 1px solid #d1d5db; padding: 2px 8px; text-align: left; }
.muted { color: #6b7280; }
"""


def report_page(rows: Sequence[dict[str, Any]], title: str, notes: Sequence[str] = ()) -> str:
    """A self-contained HTML page: the chart and the table."""
    return (f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>"
            f"{report_svg(rows)}{report_table(rows, notes)}</body></html>\n")
