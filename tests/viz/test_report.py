"""``msc compile --report-html``: the compile report as a self-contained page whose chart
has a bar of nodes and a bar of time for each step the report lists."""

import json
import xml.etree.ElementTree as ET

from msc.cli import main
from tests.e2e.cases.models import ROOT

SVG = "{http://www.w3.org/2000/svg}"


def test_compile_writes_the_report_chart(tmp_path):
    page = tmp_path / "report.html"
    args = ["compile", str(ROOT / "examples" / "mlp.py"), "--input", "f32[8,64]", "--target",
            "python", "--no-cache", "--quiet", "-o", str(tmp_path / "art"),
            "--report-html", str(page)]
    assert main(args) == 0
    steps = json.loads((tmp_path / "art" / "manifest.json").read_text())["pass_report"]
    html = page.read_text()
    chart = ET.fromstring(html[html.index("<svg"):html.index("</svg>") + 6])
    labels = [t.text for t in chart.iter(SVG + "text")]
    assert labels[:2] == ["nodes after the step", "time (ms)"]
    titles = [g.find(SVG + "title").text for g in chart.iter(SVG + "g")]
    names = [t.split(":")[0] for t in titles]
    assert names == [s["name"] for s in steps] and names[0] == "parse"
    assert [int(t.split(": ")[1].split()[0]) for t in titles] == \
        [s["nodes_after"] for s in steps]
    assert len(list(chart.iter(SVG + "rect"))) == 2 * len(names)
    assert "msc compile: MLP" in html and "http" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
