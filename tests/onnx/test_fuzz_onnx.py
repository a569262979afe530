"""The fuzzer's ONNX way: generated programs exported with ``msc.onnx`` and run by
onnxruntime agree with eager mode, or the export refuses them with msc's own error
(programs without float16, which the ONNX way leaves out: see docs/fuzzing.md; and
without the features that exist to write weights or raise, which an ONNX graph cannot)."""

import pytest

from msc.fuzz import FEATURES, Options, fuzz

pytest.importorskip("onnxruntime", reason="the ONNX way needs onnxruntime: pip install 'msc[onnx]'")


def test_generated_programs_agree_through_onnx():
    features = FEATURES - {"float16", "parameter", "param-tuple", "vmap-param", "chosen-param",
                           "raise"}
    options = Options((), features=features, onnx_every=1, shrink_seconds=20)
    report = fuzz(2026, 12, options, log=lambda line: None)
    assert report.runs["onnx"] == 12
    assert not report.findings, "\n".join(f"{f.problem}" for f in report.findings)
    refused = sum(n for text, n in report.rejections.items() if text.startswith("[onnx]"))
    assert refused <= 6  # most programs export
