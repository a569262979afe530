"""``mindspore.onnx.export``: a Cell or ``@jit`` function as an ONNX model file.

The network is traced for the given inputs as a compile traces it (in inference mode,
``set_train(False)``, restored afterwards), optimised by msc's passes, and its optimised
graph written with the ``onnx`` package: weights as initializers, shapes static (those of
the example inputs), opset 17. ``msc.export(..., file_format="ONNX")`` calls this.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from msc._atomic import write_atomic
from msc.errors import ExportError, GraphTypeError, GraphValueError

__all__ = ["export"]


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ExportError("ONNX export needs the onnx package: pip install 'msc[onnx]'") \
            from None
    return onnx


def export(net: Any, *inputs: Any, file_name: str, input_names: list[str] | None = None,
           output_names: list[str] | None = None, export_params: bool = True,
           keep_initializers_as_inputs: bool = False,
           dynamic_axes: dict[str, dict[int, str]] | None = None) -> str:
    """Write ``net`` run on ``inputs`` as ONNX to ``file_name`` (``.onnx`` appended when
    it lacks it); returns the file's path. ``input_names``/``output_names`` name the
    graph's tensors in order; ``export_params=False`` leaves the weights out as inputs.
    ``dynamic_axes`` is not supported: the shapes are the example inputs'."""
    for name, value, kind in (("input_names", input_names, list),
                              ("output_names", output_names, list),
                              ("dynamic_axes", dynamic_axes, dict)):
        if value is not None and not isinstance(value, kind):
            raise GraphValueError(f"For 'export', '{name}' must be a {kind.__name__}, but got "
                                  f"{type(value).__name__}")
    if dynamic_axes:
        raise GraphValueError("For 'export', dynamic_axes is not supported by msc: an "
                              "exported graph has the example inputs' static shapes")
    if not isinstance(file_name, str) or not file_name:
        raise GraphTypeError(f"For 'export', 'file_name' must be a non-empty str, but got "
                             f"{file_name!r}")
    _onnx()  # (a clear error where the onnx package is missing, before any work)
    model = to_model(net, inputs, input_names or [], output_names or [], export_params,
                     keep_initializers_as_inputs)
    path = os.path.abspath(file_name)
    if not path.endswith(".onnx"):
        path += ".onnx"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, model.SerializeToString())  # whole or not at all
    return path


def to_model(net: Any, inputs: Sequence[Any], input_names: Sequence[str] = (),
             output_names: Sequence[str] = (), export_params: bool = True,
             keep_initializers_as_inputs: bool = False) -> Any:
    """The ``onnx.ModelProto`` of ``net`` on ``inputs`` (checked by ``onnx.checker``)."""
    from msc.compiler import arg_spec, build
    from msc.nn.cell import Cell

    _onnx()
    training = net.training if isinstance(net, Cell) else None
    if training:
        net.set_train(False)
    try:
        built = build(net, tuple(arg_spec(x) for x in inputs))
    finally:
        if training:
            net.set_train(True)
    return model_of(built, input_names, output_names, export_params,
                    keep_initializers_as_inputs)


def model_of(built: Any, input_names: Sequence[str] = (), output_names: Sequence[str] = (),
             export_params: bool = True, keep_initializers_as_inputs: bool = False) -> Any:
    """The ``onnx.ModelProto`` of a compile's ``Build`` (its optimised IR and weights)."""
    onnx = _onnx()
    from onnx import helper

    from msc._version import VERSION
    from msc.onnx.graph import OPSET, Converter, elem_type, leaves
    from msc.onnx.ops import CONVERTERS, NOT_EXPORTED

    graph = built.module.entry_graph
    cx = Converter(CONVERTERS, NOT_EXPORTED)
    ins = []
    for i, var in enumerate(graph.inputs):
        name = input_names[i] if i < len(input_names) else _unique(var.hint or "input", cx)
        t = var.type
        cx.env[var] = name
        cx.dtypes[name] = t.dtype  # type: ignore[union-attr]
        ins.append(helper.make_tensor_value_info(name, elem_type(t.dtype),  # type: ignore
                                                 t.shape))  # type: ignore[union-attr]
    for var, param in zip(graph.weights, built.weights):
        name = _unique(param.name or var.hint, cx)
        array = np.asarray(param.asnumpy())
        if export_params:
            cx.env[var] = cx.initializer(array, name=name)
        else:
            cx.env[var] = name
            cx.dtypes[name] = var.type.tensor.dtype  # type: ignore[union-attr]
        if keep_initializers_as_inputs or not export_params:
            ins.append(helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape))
    form = cx.convert_nodes(graph)
    count = len(leaves(graph.output.type))
    if not count:
        from msc.errors import ExportError

        raise ExportError(f"ONNX export needs a network that returns tensors or numbers, "
                          f"but @{graph.name} returns {graph.output.type}")
    names = [output_names[i] if i < len(output_names) else
             ("output" if count == 1 else f"output{i}") for i in range(count)]
    outs = cx.outputs(form, graph.output.type, names)
    onnx_graph = helper.make_graph(cx.nodes, graph.name, ins, outs, cx.initializers)
    model = helper.make_model(onnx_graph, producer_name="msc", producer_version=VERSION,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = min(model.ir_version, 8)  # what opset 17's runtimes read
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as e:
        from msc.errors import InternalCompilerError

        raise InternalCompilerError(f"the exported ONNX model does not validate: {e}") from None
    return model


def _unique(stem: str, cx: Any) -> str:
    """``stem``, or ``stem_1``, ... if the graph already has a tensor of that name."""
    name, i = stem, 0
    while name in cx.dtypes:
        i += 1
        name = f"{stem}_{i}"
    cx.dtypes[name] = None
    return name
