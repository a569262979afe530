"""A scene as Graphviz: DOT source built with the ``graphviz`` package, and SVG drawn by
its ``dot`` program (``pip install 'msc[graph]'`` and a system Graphviz, e.g. Debian's
``graphviz``). Graphs and regions are clusters; state-token edges are dashed."""

from __future__ import annotations

import shutil
from typing import Any

from msc.errors import MscError
from msc.viz.scene import Cluster, Item, Scene

_SHAPES = {"input": "ellipse", "weight": "cylinder", "node": "box", "return": "house",
           "more": "note"}
_FILLS = {"input": "#dbeafe", "weight": "#fef3c7", "node": "#ffffff", "return": "#e5e7eb",
          "more": "#f3f4f6"}


#: Items above which dot cuts its network-simplex passes short and draws edges straight:
#: on a graph where one value feeds nodes far apart (if_net's ``y`` feeds all 100
#: iterations) the passes take about a minute of CPU for 200 nodes, and spline routing
#: around 50 clusters another 15 s; with both cut, dot lays either out in under 2 s.
LARGE = 80


def graphviz_module() -> Any:
    """The ``graphviz`` package, or None where it is not installed."""
    try:
        import graphviz
    except ImportError:
        return None
    return graphviz


def has_dot() -> bool:
    """Whether the ``graphviz`` package and Graphviz's ``dot`` program are both here."""
    return graphviz_module() is not None and shutil.which("dot") is not None


def to_digraph(scene: Scene) -> Any:
    graphviz = graphviz_module()
    if graphviz is None:
        raise MscError("DOT output needs the graphviz package: pip install 'msc[graph]'")
    g = graphviz.Digraph(scene.title, graph_attr={"rankdir": "TB", "fontname": "Helvetica",
                                                  "fontsize": "11", "label": scene.title,
                                                  "labelloc": "t"},
                         node_attr={"fontname": "Helvetica", "fontsize": "10",
                                    "style": "filled,rounded", "penwidth": "0.8"},
                         edge_attr={"arrowsize": "0.6", "penwidth": "0.8",
                                    "fontname": "Helvetica", "fontsize": "9"})
    if len(scene.items()) > LARGE:
        g.graph_attr.update(nslimit="1", nslimit1="1", splines="line")  # see LARGE
    for cluster in scene.clusters:
        _cluster(g, cluster, graphviz)
    for e in scene.edges:
        style = {"style": "dashed", "color": "#6b7280"} if e.state else \
            {"style": "dotted", "arrowhead": "none"} if e.elided else {}
        g.edge(e.src, e.dst, label=e.label or None, **style)
    return g


def _cluster(parent: Any, cluster: Cluster, graphviz: Any) -> None:
    with parent.subgraph(name=cluster.id) as c:
        c.attr(label=cluster.title, style="rounded", color="#9ca3af", fontname="Helvetica")
        for m in cluster.members:
            if isinstance(m, Cluster):
                _cluster(c, m, graphviz)
            else:
                c.node(m.id, label=label(m), shape=_SHAPES[m.kind], fillcolor=_FILLS[m.kind],
                       tooltip=m.loc or m.title)


def label(item: Item) -> str:
    """The lines of a box: title, type, constants and attributes, source line."""
    lines = [item.title, item.detail, item.extra, item.loc]
    return "\\n".join(line for line in lines if line)


def dot_source(scene: Scene) -> str:
    return str(to_digraph(scene).source)


def dot_svg(scene: Scene) -> str:
    """Graphviz's SVG of the scene (needs ``has_dot()``)."""
    return to_digraph(scene).pipe(format="svg").decode("utf-8")
