"""``msc ir --format dot|svg|html``: the optimised module as DOT source, an SVG picture or
an HTML page, drawn by Graphviz where its ``dot`` program and the ``graphviz`` package are
installed and by msc's own row layout otherwise."""

from __future__ import annotations

from typing import Any, Callable

from msc.ir.nodes import Module
from msc.viz import dot
from msc.viz.html import graph_page
from msc.viz.scene import scene_of
from msc.viz.svg import scene_svg

FORMATS = ("dot", "svg", "html")
#: Nodes a picture shows unless told otherwise (``--max-nodes``; 0: all).
DEFAULT_MAX_NODES = 200


def render(module: Module, report: Any, fmt: str, max_nodes: int | None = DEFAULT_MAX_NODES,
           say: Callable[[str], None] = lambda text: None) -> str:
    """The picture in ``fmt``; ``say`` hears what the reader should know (nodes left out,
    which layout drew it)."""
    scene = scene_of(module, max_nodes or None)
    if scene.shown < scene.total:
        say(f"msc ir: showing the first {scene.shown} of {scene.total} nodes "
            "(--max-nodes 0 shows all)")
    if fmt == "dot":
        return dot.dot_source(scene)
    if dot.has_dot():
        picture, drawn_by = dot.dot_svg(scene), "Drawn by Graphviz (dot)."
    else:
        picture = scene_svg(scene)
        drawn_by = ("Drawn by msc's row layout: Graphviz's dot was not found "
                    "(pip install 'msc[graph]' and install Graphviz for its layout).")
        say(f"msc ir: {drawn_by}")
    if fmt == "svg":
        return picture
    return graph_page(scene, picture, report.as_dicts(), report.notes, drawn_by)
