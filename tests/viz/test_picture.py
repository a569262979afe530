"""``msc ir --format dot|svg|html``: pictures of the README's MLP and the tutorial's
``if_net`` parse (SVG as XML, HTML with html.parser) and name every node that ``msc ir``
prints; If regions are clusters, state-token edges dashed, the compile report a chart.
Graphviz's own drawings are checked where its ``dot`` program and the ``graphviz``
package are installed (skipped otherwise); msc's row layout always."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import build
from msc.ir.printer import print_module
from msc.ir.types import TensorType
from msc.ir import dtypes
from msc.viz import dot
from msc.viz.picture import render
from msc.viz.scene import scene_of
from msc.viz.svg import scene_svg
from tests.e2e.cases.models import ROOT

sys.path.insert(0, str(ROOT / "examples"))
from mlp import MLP  # noqa: E402
from select_vs_if import if_net  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(not dot.has_dot(), reason="needs Graphviz's dot program and "
                               "the graphviz package (pip install 'msc[graph]')")


def i64(*shape):
    return TensorType(dtypes.int64, shape)


@pytest.fixture(scope="module")
def mlp_build():
    return build(MLP(), (TensorType(dtypes.float32, (32, 64)),))


@pytest.fixture(scope="module")
def if_net_build():
    """With its 100 tensor ifs kept as If nodes (regions)."""
    ms.set_context(if_to_select=False)
    try:
        return build(if_net, (i64(1), i64(1)))
    finally:
        ms.context.reset_context()


def printed_nodes(module):
    """``%3 = ReLU`` for every node line of ``msc ir``'s text (``@g`` for a call)."""
    return re.findall(r"^\s*(%\d+ = [@\w]+)\(", print_module(module), re.M)


def svg_texts(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root, {"".join(t.itertext()).split("  ")[0] for t in root.iter(SVG + "text")}


class Page(HTMLParser):
    """The text of an HTML page, and whether it loads anything from elsewhere."""

    def __init__(self, html):
        super().__init__()
        self.text, self.fetches, self.tags = [], [], []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.fetches += [v for k, v in attrs if k in ("src", "href") and v and "//" in v]

    def handle_data(self, data):
        self.text.append(data)


def test_row_layout_names_every_node_of_if_net_with_regions_as_clusters(if_net_build):
    module = if_net_build.module
    expected = printed_nodes(module)
    assert len(expected) == 799 and expected.count("%1 = If") == 1
    root, texts = svg_texts(scene_svg(scene_of(module)))
    assert set(expected) <= texts
    clusters = [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]
    assert len(clusters) == 1 + 200  # the graph, then a then and an else region per if


def test_row_layout_of_the_mlp(mlp_build):
    _, texts = svg_texts(scene_svg(scene_of(mlp_build.module)))
    assert set(printed_nodes(mlp_build.module)) <= texts
    assert {"%para1_x", "%para2_fc1.weight"} <= {t.split()[0] for t in texts if t}


@needs_dot
def test_graphviz_svg_of_the_mlp_names_every_node(mlp_build):
    text = render(mlp_build.module, mlp_build.report, "svg")
    _, texts = svg_texts(text)
    assert set(printed_nodes(mlp_build.module)) <= texts
    assert {"float32[32,128]", "mlp.py:25:16"} <= texts  # type and source line


@needs_dot
def test_graphviz_draws_if_regions_as_clusters_and_leaves_out_what_it_must(if_net_build):
    notes = []
    text = render(if_net_build.module, if_net_build.report, "svg", max_nodes=16,
                  say=notes.append)
    root, texts = svg_texts(text)
    shown = printed_nodes(if_net_build.module)[:16]
    assert set(shown) <= texts and "%16 = If" not in texts
    titles = {"".join(g.itertext()).strip() for g in root.iter(SVG + "g")
              if g.get("class") == "cluster"}
    assert any("then @then of %1" in t for t in titles)
    assert any("orelse @else of %8" in t for t in titles)
    assert "... 783 more nodes" in texts
    assert notes == ["msc ir: showing the first 16 of 799 nodes (--max-nodes 0 shows all)"]


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros(1, np.float32)), name="count")

    def construct(self, x):
        ops.assign_add(self.count, x)
        return self.count * 2


def test_state_token_edges_are_dashed():
    built = build(Counter(), (TensorType(dtypes.float32, (1,)),))
    scene = scene_of(built.module)
    state = [e for e in scene.edges if e.state]
    assert state and len(state) < len(scene.edges)
    if dot.graphviz_module() is not None:
        source = dot.dot_source(scene)
        assert source.count("style=dashed") == len(state)
    svg = scene_svg(scene)
    assert svg.count('stroke-dasharray="4 3"') == len(state)


def test_html_page_is_self_contained_and_has_the_report_chart(mlp_build):
    html = render(mlp_build.module, mlp_build.report, "html")
    page = Page(html)
    text = "\n".join(page.text)
    assert not page.fetches and "script" in page.tags and "svg" in page.tags
    for name in printed_nodes(mlp_build.module):
        assert name in text
    steps = [row["name"] for row in mlp_build.report.as_dicts()]
    assert steps[0] == "parse" and "cse" in steps
    chart = html[html.index("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"report\""):]
    chart = chart[:chart.index("</svg>") + 6]
    root = ET.fromstring(chart)
    bars = [r for r in root.iter(SVG + "rect")]
    assert len(bars) == 2 * len(steps)  # nodes and time per step
    labels = [t.text for t in root.iter(SVG + "text")]
    assert all(step in labels for step in steps)


def test_cli_writes_html_and_dot(tmp_path, capsys):
    from msc.cli import main

    out = tmp_path / "mlp.html"
    model = str(ROOT / "examples" / "mlp.py")
    assert main(["ir", model, "--input", "f32[32,64]", "--format", "html", "-o", str(out)]) == 0
    assert "%3 = ReLU" in "\n".join(Page(out.read_text()).text)
    if dot.graphviz_module() is None:
        return
    assert main(["ir", model, "--input", "f32[32,64]", "--format", "dot"]) == 0
    source = capsys.readouterr().out
    assert source.startswith('digraph "@MLP_construct"') and "%3 = ReLU" in source
