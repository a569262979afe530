"""Checkpoints in MindSpore's ``.ckpt`` format: ``save_checkpoint``, ``load_checkpoint``
and ``load_param_into_net``.

A ``.ckpt`` file is a sequence of serialized protobuf ``Checkpoint`` messages, each with
one ``Value {tag = 1: name; tensor = 2: TensorProto {dims = 1 (int64, repeated),
tensor_type = 2 ("Float32", ...), tensor_content = 3 (raw little-endian bytes)}}``; a
large tensor is split over consecutive values with the same name. The format is small
enough to read and write by hand, so files move between msc and MindSpore both ways
without a protobuf dependency.
"""

from __future__ import annotations

import binascii
import math
import os
from collections.abc import Iterator
from typing import Any, Callable

import numpy as np

from msc._atomic import write_atomic
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError, MscError
from msc.nn.cell import Cell

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

_TYPE_NAMES = {np.dtype(np.bool_): "Bool", np.dtype(np.int8): "Int8",
               np.dtype(np.int16): "Int16", np.dtype(np.int32): "Int32",
               np.dtype(np.int64): "Int64", np.dtype(np.uint8): "UInt8",
               np.dtype(np.uint16): "UInt16", np.dtype(np.uint32): "UInt32",
               np.dtype(np.uint64): "UInt64",
               np.dtype(np.float16): "Float16", np.dtype(np.float32): "Float32",
               np.dtype(np.float64): "Float64"}
_DTYPES = {name: dt for dt, name in _TYPE_NAMES.items()}
_STRING = "str"
_CHUNK = 512 << 20  # bytes of tensor content per message, as MindSpore splits them
_CRC_MARK = b"crc_num"
_LEN, _VARINT = 2, 0


class CheckpointError(MscError, RuntimeError):
    """A checkpoint value that does not fit the network (MindSpore raises RuntimeError)."""


# --- protobuf wire format --------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return _varint(number << 3 | _LEN) + _varint(len(payload)) + payload


def _read_varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise GraphValueError("truncated checkpoint file")
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos


def _fields(buf: bytes | memoryview) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of one message: an int for varints, bytes for
    length-delimited fields; fixed-width fields are skipped."""
    pos = 0
    while pos < len(buf):
        key, pos = _read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _read_varint(buf, pos)
        elif wire == _LEN:
            size, pos = _read_varint(buf, pos)
            if pos + size > len(buf):  # checked before slicing: a size is the file's word
                raise GraphValueError("truncated checkpoint file")
            value, pos = buf[pos:pos + size], pos + size
        elif wire in (1, 5):
            pos, value = pos + (8 if wire == 1 else 4), None
            if pos > len(buf):
                raise GraphValueError("truncated checkpoint file")
        else:
            raise GraphValueError(f"not a checkpoint file (protobuf wire type {wire})")
        yield number, wire, value


def _encode_value(name: str, dims: tuple[int, ...], type_name: str, content: bytes) -> bytes:
    tensor = b"".join(_varint(1 << 3 | _VARINT) + _varint(d) for d in dims)
    tensor += _field(2, type_name.encode()) + _field(3, content)
    return _field(1, _field(1, name.encode()) + _field(2, tensor))


def _payload(wire: int, value: Any) -> memoryview:
    """A length-delimited field's bytes; any other wire type there is a damaged file."""
    if wire != _LEN:
        raise GraphValueError(f"protobuf wire type {wire} where a length-delimited field "
                              "belongs")
    return value


def _text(wire: int, value: Any) -> str:
    try:
        return bytes(_payload(wire, value)).decode()
    except UnicodeDecodeError:
        raise GraphValueError("a name that is not UTF-8") from None


def _decode_tensor(buf: memoryview) -> tuple[list[int], str, bytes]:
    dims: list[int] = []
    type_name, content = "", b""
    for number, wire, value in _fields(buf):
        if number == 1 and wire == _VARINT:
            dims.append(value)
        elif number == 1 and wire == _LEN:  # packed dims
            pos = 0
            while pos < len(value):
                d, pos = _read_varint(value, pos)
                dims.append(d)
        elif number == 2:
            type_name = _text(wire, value)
        elif number == 3:
            content = bytes(_payload(wire, value))
    return dims, type_name, content


def _records(buf: memoryview) -> Iterator[tuple[str, list[int], str, bytes]]:
    """(name, dims, type name, content) of each value, chunks of one tensor joined."""
    pending: list[Any] = []
    for number, wire, value in _fields(buf):
        if number != 1:
            continue
        name, tensor = "", None
        for field, kind, item in _fields(_payload(wire, value)):
            if field == 1:
                name = _text(kind, item)
            elif field == 2:
                tensor = _decode_tensor(_payload(kind, item))
            elif field == 3:
                raise GraphTypeError(f"checkpoint value '{name}' is a MapParameter, which msc "
                                     "does not support")
        if tensor is None:
            continue
        if pending and pending[0] == name:
            pending[3] += tensor[2]
            continue
        if pending:
            yield tuple(pending)  # type: ignore[misc]
        pending = [name, tensor[0], tensor[1], tensor[2]]
    if pending:
        yield tuple(pending)  # type: ignore[misc]


# --- saving ----------------------------------------------------------------------------


def _named_values(save_obj: Any, choice_func: Callable[[str], bool] | None
                  ) -> list[tuple[str, Any]]:
    if isinstance(save_obj, Cell):
        pairs = [(p.name, p) for _, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, dict):
        if not all(isinstance(k, str) for k in save_obj):
            raise GraphTypeError("For save_checkpoint, when save_obj is made up by dict, the "
                                 "key should be str.")
        pairs = list(save_obj.items())
    elif isinstance(save_obj, list) and all(isinstance(p, Parameter) for p in save_obj):
        pairs = [(p.name, p) for p in save_obj]
    elif isinstance(save_obj, list) and all(isinstance(p, dict) and "name" in p and "data" in p
                                            for p in save_obj):
        pairs = [(p["name"], p["data"]) for p in save_obj]
    elif isinstance(save_obj, list):
        raise GraphTypeError("For save_checkpoint, save_obj should be a list of Parameters or "
                             "of dicts with keys 'name' and 'data'.")
    else:
        raise GraphTypeError("For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, "
                             f"list or dict, but got {type(save_obj)}.")
    return [(n, v) for n, v in pairs if choice_func is None or choice_func(n)]


def _encode(name: str, value: Any) -> bytes:
    if isinstance(value, str):
        return _encode_value(name, (0,), _STRING, np.array(value).tobytes())
    if isinstance(value, bool) or not isinstance(value, (int, float, Tensor, np.ndarray)):
        raise GraphTypeError(f"For 'save_checkpoint', the value of '{name}' must be a Tensor, "
                             f"Parameter, numpy array, int, float or str, but got "
                             f"{type(value).__name__}.")
    if isinstance(value, (int, float)):  # MindSpore stores extra numbers as int64 / float32
        value = np.array(value, np.int64 if isinstance(value, int) else np.float32)
    arr = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value, order="C")
    type_name = _TYPE_NAMES.get(arr.dtype)
    if type_name is None:
        raise GraphTypeError(f"For 'save_checkpoint', the dtype {arr.dtype} of '{name}' is not "
                             "supported.")
    data = arr.tobytes()
    return b"".join(_encode_value(name, arr.shape, type_name, data[i:i + _CHUNK])
                    for i in range(0, max(len(data), 1), _CHUNK))


def save_checkpoint(save_obj: Any, ckpt_file_name: str, integrated_save: bool = True,
                    async_save: bool = False, append_dict: dict[str, Any] | None = None,
                    enc_key: Any = None, enc_mode: str = "AES-GCM",
                    choice_func: Callable[[str], bool] | None = None, crc_check: bool = False,
                    format: str = "ckpt", **kwargs: Any) -> None:  # noqa: A002 - MindSpore's
    """Write a Cell's parameters (or a list of Parameters, of ``{"name", "data"}`` dicts,
    or a dict) to ``ckpt_file_name`` (``.ckpt`` is appended if missing), plus the
    numbers and strings of ``append_dict``."""
    if format != "ckpt":
        raise GraphValueError(f"For 'save_checkpoint', only the 'ckpt' format is supported, "
                              f"but got {format!r}.")
    if enc_key is not None:
        raise GraphValueError("For 'save_checkpoint', encrypted checkpoints are not supported.")
    if not isinstance(ckpt_file_name, str):
        raise GraphTypeError("For 'save_checkpoint', 'ckpt_file_name' must be string, but got "
                             f"{type(ckpt_file_name)}.")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', the parameter `ckpt_file_name`: {path} "
                                "is a directory, it must be a file name.")
    if not path.endswith("ckpt"):
        path += ".ckpt"
    values = _named_values(save_obj, choice_func) + list((append_dict or {}).items())
    blob = b"".join(_encode(name, value) for name, value in values)
    if crc_check:
        blob += _CRC_MARK + binascii.crc32(blob).to_bytes(10, "big")
    write_atomic(path, blob)  # a save killed midway leaves the checkpoint that was there


# --- loading ---------------------------------------------------------------------------


def _decode(name: str, dims: list[int], type_name: str, content: bytes) -> Any:
    if type_name == _STRING:
        if len(content) % 4:
            raise GraphValueError(f"string value '{name}' of {len(content)} bytes")
        try:
            return str(np.frombuffer(content, f"U{len(content) // 4}")[0]) if content else ""
        except ValueError:  # a code point past U+10FFFF
            raise GraphValueError(f"string value '{name}' is not UTF-32") from None
    dtype = _DTYPES.get(type_name)
    if dtype is None:
        raise GraphTypeError(f"checkpoint value '{name}' has dtype {type_name}, which msc does "
                             "not support")
    shape = () if dims == [0] and content else tuple(dims)
    size, rest = divmod(len(content), dtype.itemsize)
    if rest or size != math.prod(shape):  # math.prod: huge dims must not wrap around
        raise GraphValueError(f"checkpoint value '{name}': {len(content)} bytes of "
                              f"{type_name} for shape {shape}")
    return Parameter(Tensor(np.frombuffer(content, dtype).reshape(shape)), name=name)


def _split_crc(blob: bytes, crc_check: bool, path: str) -> bytes:
    """The messages without MindSpore's trailing CRC block, checked if ``crc_check``."""
    tail = len(_CRC_MARK) + 10
    if len(blob) >= tail and blob[-tail:-10] == _CRC_MARK:
        body, crc = blob[:-tail], int.from_bytes(blob[-10:], "big")
        if crc_check and binascii.crc32(body) != crc:
            raise GraphValueError(f"For 'load_checkpoint', the crc check of {path} failed.")
        return body
    if crc_check:
        raise GraphValueError(f"For 'load_checkpoint', the checkpoint file {path} has no crc.")
    return blob


def load_checkpoint(ckpt_file_name: str, net: Cell | None = None, strict_load: bool = False,
                    filter_prefix: Any = None, dec_key: Any = None, dec_mode: str = "AES-GCM",
                    specify_prefix: Any = None,
                    choice_func: Callable[[str], bool] | None = None, crc_check: bool = False,
                    remove_redundancy: bool = False,
                    format: str = "ckpt") -> dict[str, Any]:  # noqa: A002 - MindSpore's
    """name -> Parameter (a str for saved strings) of a ``.ckpt`` file; with ``net``, also
    loads them into it (``load_param_into_net``)."""
    if dec_key is not None or format != "ckpt":
        raise GraphValueError("For 'load_checkpoint', only unencrypted 'ckpt' files are "
                              "supported.")
    if not isinstance(ckpt_file_name, str):
        raise GraphTypeError("For 'load_checkpoint', the argument 'ckpt_file_name' must be "
                             f"string, but got {type(ckpt_file_name)}.")
    if not ckpt_file_name.endswith("ckpt"):
        raise GraphValueError("For 'load_checkpoint', the checkpoint file format must same "
                              f"with 'format', but got file_name:'{ckpt_file_name}', "
                              "format:'ckpt'")
    path = os.path.realpath(ckpt_file_name)
    if not os.path.exists(path):
        raise GraphValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not "
                              "exist, please check whether the 'ckpt_file_name' is correct.")
    with open(path, "rb") as f:
        blob = _split_crc(f.read(), crc_check, path)

    def wanted(name: str) -> bool:
        prefixes = (lambda p: (p,) if isinstance(p, str) else tuple(p or ()))
        if specify_prefix is not None and not name.startswith(prefixes(specify_prefix)):
            return False
        if filter_prefix is not None and name.startswith(prefixes(filter_prefix)):
            return False
        return choice_func is None or bool(choice_func(name))

    try:
        params = {rec[0]: _decode(*rec) for rec in _records(memoryview(blob))
                  if wanted(rec[0])}
    except (GraphValueError, GraphTypeError) as e:
        raise type(e)(f"For 'load_checkpoint', the checkpoint file {path} cannot be read: "
                      f"{e}.") from None
    if not params:
        raise GraphValueError(f"For 'load_checkpoint', the checkpoint file {path} has no "
                              "parameters to load.")
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def _same_kind(a: np.dtype, b: np.dtype) -> bool:
    return {a.kind, b.kind} <= {"f"} or {a.kind, b.kind} <= {"i"}


def _update(param: Parameter, new: Parameter, strict_load: bool) -> None:
    """Copy ``new``'s data into ``param``: shapes must match; float and int dtypes convert
    within their kind unless ``strict_load``."""
    if param.shape != new.shape:
        raise CheckpointError(f"For 'load_param_into_net', {param.name} in the argument 'net' "
                              "should have the same shape as in the argument "
                              f"'parameter_dict'. But got its shape {param.shape} in the "
                              f"argument 'net' and shape {new.shape} in the argument "
                              "'parameter_dict'.")
    mine, theirs = param.asnumpy().dtype, new.asnumpy().dtype
    if mine != theirs and (strict_load or not _same_kind(mine, theirs)):
        raise CheckpointError(f"For 'load_param_into_net', {param.name} in the argument 'net' "
                              "should have the same type as in the argument 'parameter_dict'. "
                              f"but got its type {param.dtype} in the argument 'net' and type "
                              f"{new.dtype} in the argument 'parameter_dict'.")
    param.set_data(new)


def load_param_into_net(net: Cell, parameter_dict: dict[str, Any], strict_load: bool = False,
                        remove_redundancy: bool = False) -> tuple[list[str], list[str]]:
    """Set each of ``net``'s parameters found by name in ``parameter_dict``; returns (the
    net's parameters not loaded, the dict's names not used). As MindSpore does, names left
    over are retried under the prefix by which the dict's names differ from the net's."""
    if not isinstance(net, Cell):
        raise GraphTypeError("For 'load_param_into_net', the argument 'net' should be a Cell, "
                             f"but got {type(net)}.")
    if not isinstance(parameter_dict, dict):
        raise GraphTypeError("For 'load_param_into_net', the argument 'parameter_dict' should "
                             f"be a dict, but got {type(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str)):
            raise GraphTypeError("For 'parameter_dict', the element in the argument "
                                 "'parameter_dict' should be a 'str' and 'Parameter' , but got "
                                 f"{type(key)} and {type(value)}.")
    params = [p for _, p in net.parameters_and_names()]
    not_loaded, unused = [], list(parameter_dict)
    for param in params:
        new = parameter_dict.get(param.name)
        if isinstance(new, Parameter):
            _update(param, new, strict_load)
            unused.remove(param.name)
        elif new is None:
            not_loaded.append(param.name)
    tried: set[str] = set()
    while not_loaded and not strict_load:
        prefix = next((key[:-len(n)] for n in not_loaded for key in parameter_dict
                       if key.endswith(n) and key != n), None)
        if prefix is None or prefix in tried:
            break
        tried.add(prefix)
        for param in params:
            new = parameter_dict.get(prefix + param.name)
            if param.name in not_loaded and isinstance(new, Parameter):
                _update(param, new, strict_load)
                not_loaded.remove(param.name)
    return not_loaded, unused


# --- export ------------------------------------------------------------------------------

_FORMATS = ("AIR", "ONNX", "MINDIR")


def export(net: Any, *inputs: Any, file_name: str, file_format: str = "ONNX",
           **kwargs: Any) -> str:
    """``mindspore.export``: ``file_format="ONNX"`` writes ``file_name`` + ``.onnx`` (see
    ``msc.onnx.export``, which takes ``kwargs``: input_names, output_names, ...); returns
    the file's path. MINDIR and AIR are MindSpore's own runtimes' formats: msc's own
    deployable form is the artifact ``msc compile`` writes."""
    if file_format not in _FORMATS:
        raise GraphValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, "
                              f"but got {file_format}.")
    if file_format != "ONNX":
        from msc.errors import ExportError

        raise ExportError(f"export(file_format='{file_format}') is not supported by msc: "
                          "use file_format='ONNX', or 'msc compile' for a deployable artifact")
    from msc.onnx import export as onnx_export

    return onnx_export(net, *inputs, file_name=file_name, **kwargs)


__all__.append("export")
