"""``mindspore.onnx``: ``export`` writes a network's optimised graph as an ONNX model
(needs the ``onnx`` package: ``pip install 'msc[onnx]'``)."""

from msc.onnx.onnx_export import export

__all__ = ["export"]
