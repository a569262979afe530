"""Primitive classes whose call is one of the composed functions of ``ops/function``
(``ops.HammingWindow()(n)``, ``ops.IOU()(a, b)``, ``ops.Im2Col(2)(x)``, ``ops.Quantile()``,
...): the ``__init__`` arguments are MindSpore's attributes, stored on the instance, and
the call passes them on, so a class runs eagerly and in graphs as its function does.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.common.sparse_rows import mark_sparse_table
from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function import bbox_func as B
from msc.ops.function import layer_func as L
from msc.ops.function import matrix_func as M
from msc.ops.function import patch_func as P
from msc.ops.function import sampling_func as R
from msc.ops.function import scalar_func as Q
from msc.ops.function import scatter_func as S
from msc.ops.function import solve_func as V
from msc.ops.function import spectral_func as W
from msc.ops.function import stats_func as T
from msc.ops.function.arguments import _checking
from msc.ops.function.special_func import mvlgamma
from msc.ops.primitive import Primitive

_REQUIRED = object()


def _lstsq(prim: Any, x: Any, a: Any) -> Any:
    """MindSpore's Lstsq takes only l2_regularizer=0.0 (its check compares the value)."""
    if prim.l2_regularizer != 0.0 or isinstance(prim.l2_regularizer, bool):
        raise GraphTypeError(f"For 'Lstsq', the 'l2_regularizer' should be 0.0, but got "
                             f"'{prim.l2_regularizer}'.")
    return V.lstsq(x, a)


def _prim(name: str, call: Callable[..., Any], params: tuple[tuple[str, Any], ...] = (),
          doc: str = "") -> type:
    """A class ``name(**params)`` whose instances call ``call(self, *inputs)``."""
    names = [p for p, _ in params]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} "
                            f"given)")
        bound = dict(params)
        bound.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in bound:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            bound[key] = value
        missing = [k for k, v in bound.items() if v is _REQUIRED]
        if missing:
            raise TypeError(f"{name}() missing required argument '{missing[0]}'")
        Primitive.__init__(self, **bound)
        self.__dict__.update(bound)

    return type(name, (Primitive,), {"__init__": __init__, "__call__": call,
                                     "__doc__": doc or f"``ops.{name}``.",
                                     "__module__": __name__})


def _im2col(self: Any, x: Any) -> Any:
    """(N, C, kh * kw, L): ``unfold``'s columns with the channel axis apart."""
    cols = P.unfold(x, self.ksizes, self.dilations, self.pads, self.strides)
    return F.reshape(cols, x.shape[:2] + (-1, cols.shape[-1]))


_WINDOWS = {
    "HammingWindow": _prim("HammingWindow", lambda self, length: W.hamming_window(
        length, self.periodic, self.alpha, self.beta, dtype=self.dtype),
        (("periodic", True), ("alpha", 0.54), ("beta", 0.46), ("dtype", dtypes.float32))),
    "BartlettWindow": _prim("BartlettWindow", lambda self, length: W.bartlett_window(
        length, self.periodic, dtype=self.dtype),
        (("periodic", True), ("dtype", dtypes.float32))),
    "BlackmanWindow": _prim("BlackmanWindow", lambda self, length: W.blackman_window(
        length, self.periodic, dtype=self.dtype),
        (("periodic", True), ("dtype", dtypes.float32))),
}


def _unravel(self: Any, indices: Any, dims: Any) -> Any:
    """(len(dims), N): each flat index of ``indices`` as coordinates in a ``dims`` array."""
    if isinstance(dims, SymTensor):
        with _checking("UnravelIndex"):
            raise GraphValueError("'dims' must be known when the graph is built")
    shape = [int(d) for d in (dims.asnumpy() if isinstance(dims, Tensor) else dims)]
    idx = F.reshape(indices, (-1,))
    rows, step = [], 1
    for n in reversed(shape):
        rows.append((idx // step) % n)
        step *= n
    return F.stack(rows[::-1], 0)


def _dim_map(src: str, dst: str, vector: bool) -> Callable[..., Any]:
    def call(self: Any, x: Any) -> Any:
        if vector:  # out[i] = x[position in src of dst[i]]
            table = [self.src_format.index(c) for c in self.dst_format]
            return F.gather(x, Tensor(np.array(table, np.int64)), 0)
        table = [self.src_format.index(c) for c in self.dst_format]
        inverse = Tensor(np.array(table, np.int32).astype(x.dtype.np))
        return F.gather(inverse, (x % len(table)), 0)
    return call


def _padding(self: Any, x: Any) -> Any:
    if x.shape[-1] != 1 or self.pad_dim_size < 1:
        with _checking("Padding"):
            raise GraphValueError(f"the last dim of the input must be 1 and 'pad_dim_size' "
                                  f"positive, but got {x.shape} and {self.pad_dim_size}")
    return F.concat([x, F.zeros(x.shape[:-1] + (self.pad_dim_size - 1,), x.dtype)], -1)


def _nth(self: Any, input: Any, n: Any) -> Any:  # noqa: A002
    ordered = A.sort(input, -1, bool(self.reverse))[0]
    return ordered[..., int(n)]


def _invert_permutation(self: Any, x: Any) -> Any:
    perm = tuple(x)
    if sorted(perm) != list(range(len(perm))):
        with _checking("InvertPermutation"):
            raise GraphValueError(f"the input must be a permutation of 0 .. {len(perm) - 1}, "
                                  f"but got {perm}")
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


def _fill_v2(self: Any, shape: Any, value: Any) -> Any:
    dims = tuple(int(d) for d in (shape.asnumpy() if isinstance(shape, Tensor) and
                                  not isinstance(shape, SymTensor) else shape))
    return F.broadcast_to(value, dims) if isinstance(value, Tensor) else \
        F.full(dims, value)


def _sparse_gather(params: Any, indices: Any, axis: Any) -> Any:
    """``Gather``, whose table's gradient MindSpore makes a RowTensor (lazy optimizers
    update only its touched rows)."""
    mark_sparse_table(params)
    return F.gather(params, indices, axis)


def _sparse_to_dense(self: Any, indices: Any, values: Any, sparse_shape: Any) -> Any:
    return A.scatter_nd(indices, values, tuple(int(d) for d in sparse_shape))


def _histogram_fixed_width(self: Any, x: Any, range: Any) -> Any:  # noqa: A002
    """Counts in ``nbins`` equal bins over [range[0], range[1]); values below go to the
    first bin, values above to the last."""
    lo, hi = range[0], range[1]
    slot = F.clamp(F.cast(F.floor((x - lo) / (hi - lo) * self.nbins), dtypes.int64), 0,
                   self.nbins - 1)
    hits = F.reshape(slot, (-1, 1)) == Tensor(np.arange(self.nbins, dtype=np.int64))
    return F.cast(F.sum(F.cast(hits, dtypes.int32), 0), dtypes.int32)


def _max_pool_3d(self: Any, x: Any) -> Any:
    from msc.ops.function.conv_func import max_pool

    mode = str(self.pad_mode).upper()
    pad = self.pad_list if mode == "PAD" else 0
    return max_pool(x, 3, self.kernel_size, self.strides, mode, pad, 1,
                    bool(self.ceil_mode), floor="float32")


def _dropout_nd(rank: int) -> Callable[..., Any]:
    def call(self: Any, x: Any) -> Any:
        from msc.ops.function.nn_func import _channel_dropout

        keep = F.ones(x.shape, x.dtype)
        out = _channel_dropout(keep, 1.0 - self.keep_prob, True, rank, type(self).__name__)
        mask = out > 0
        return x * out, mask
    return call


def _depthwise(self: Any, x: Any, w: Any) -> Any:
    """A depthwise convolution: ``w`` (multiplier, C, kh, kw) as C groups of
    ``channel_multiplier`` filters."""
    from msc.ops.function.conv_func import conv2d

    m, c = w.shape[0], w.shape[1]
    kernel = F.reshape(F.transpose(w, (1, 0, 2, 3)), (c * m, 1) + w.shape[2:])
    return conv2d(x, kernel, None, self.stride, self.pad_mode, self.pad, self.dilation, c)


def _fori_loop(self: Any, lower: Any, upper: Any, loop_func: Any, init_val: Any,
               unroll: bool = True) -> Any:
    """``loop_func(i, val)`` for i in [lower, upper): bounds known when the graph is built
    (the loop unrolls into the graph)."""
    bounds = []
    for b in (lower, upper):
        if isinstance(b, SymTensor):
            with _checking("ForiLoop"):
                raise GraphValueError("the bounds must be known when the graph is built")
        bounds.append(int(b.asnumpy()) if isinstance(b, Tensor) else int(b))
    value = init_val
    for i in range(*bounds):
        value = loop_func(i, value)
    return value


def _while_loop(self: Any, cond_func: Any, loop_func: Any, init_val: Any) -> Any:
    """``val = loop_func(val)`` while ``cond_func(val)``: a condition known when the graph
    is built (a tensor condition in a graph is msc's error, as for Python's ``while``)."""
    value = init_val
    while cond_func(value):
        value = loop_func(value)
    return value


def _scan(self: Any, loop_func: Any, init: Any, xs: Any, length: Any = None,
          unroll: bool = True) -> Any:
    """(the final carry, the list of outputs) of ``carry, y = loop_func(carry, x)`` over
    ``xs`` (or ``length`` Nones)."""
    carry, ys = init, []
    for x in (xs if xs is not None else [None] * int(length)):
        carry, y = loop_func(carry, x)
        ys.append(y)
    return carry, ys


def _affine_grid(self: Any, theta: Any, output_size: Any) -> Any:
    from msc.ops.function.layer_func import affine_grid

    return affine_grid(theta, output_size, self.align_corners)


def _tridiagonal(self: Any, superdiag: Any, maindiag: Any, subdiag: Any, rhs: Any) -> Any:
    """The tridiagonal matrix of the three diagonals (..., 1, M) times ``rhs`` (..., M, N):
    row i is main_i rhs_i + super_i rhs_(i+1) + sub_i rhs_(i-1)."""
    zero = F.zeros(rhs.shape[:-2] + (1, rhs.shape[-1]), rhs.dtype)
    below = F.concat([rhs[..., 1:, :], zero], -2)
    above = F.concat([zero, rhs[..., :-1, :]], -2)

    def column(d: Any) -> Any:
        return A.swapaxes(d, -1, -2)

    return column(maindiag) * rhs + column(superdiag) * below + column(subdiag) * above


def _bitpack(self: Any, x: Any, threshold: Any) -> Any:
    """The bits x > threshold, eight to a uint8 along the last axis, the first the most
    significant."""
    if x.shape[-1] % 8:
        with _checking("CompareAndBitpack"):
            raise GraphValueError(f"the last dim must be a multiple of 8, but got {x.shape}")
    bits = F.cast(F.reshape(x > threshold, x.shape[:-1] + (x.shape[-1] // 8, 8)), dtypes.int32)
    weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
    return F.cast(F.sum(bits * weights, -1), dtypes.uint8)


def _resize(mode: str, align: Any) -> Callable[..., Any]:
    def call(self: Any, x: Any, size: Any = None, scales: Any = None) -> Any:
        from msc.ops.function.image_func import interpolate

        if isinstance(size, Tensor) and not isinstance(size, SymTensor):
            size = tuple(int(v) for v in size.asnumpy().reshape(-1))
        corners = align(self) if mode != "nearest" else None
        return interpolate(x, tuple(size) if size is not None else None,
                           tuple(scales) if scales is not None and size is None else None,
                           mode, corners)
    return call


def _padded_perm(self: Any, n: Any) -> Any:
    """A random permutation of 0 .. n - 1 in a vector of ``max_length``, padded with
    ``pad``."""
    perm = R.randperm(n, dtype=self.dtype)
    extra = self.max_length - perm.shape[0]
    if extra < 0:
        with _checking("Randperm"):
            raise GraphValueError(f"'n' must be at most max_length {self.max_length}")
    return F.concat([perm, F.full((extra,), self.pad, dtype=self.dtype)], 0) if extra else perm


def _rgb_to_hsv(self: Any, images: Any) -> Any:
    """(h, s, v) of the last axis's (r, g, b): v the largest, s its spread over v, h the
    hue in [0, 1)."""
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    value = F.maximum(F.maximum(r, g), b)
    delta = value - F.minimum(F.minimum(r, g), b)
    safe = F.select(delta == 0, F.ones(delta.shape, delta.dtype), delta)
    hue = F.select(value == r, (g - b) / safe,
                   F.select(value == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = F.select(delta == 0, F.zeros(hue.shape, hue.dtype), hue) / 6.0
    hue = hue - F.floor(hue)
    sat = F.select(value == 0, F.zeros(value.shape, value.dtype),
                   delta / F.select(value == 0, F.ones(value.shape, value.dtype), value))
    return F.stack([hue, sat, value], -1)


def _hsv_to_rgb(self: Any, images: Any) -> Any:
    """(r, g, b) of (h, s, v) on the last axis of an (N, H, W, 3) batch: channel n is
    v - v s clip(min(k, 4 - k), 0, 1) with k = (n + 6 h) mod 6, n = 5, 3, 1."""
    if images.ndim != 4:
        with _checking("HSVToRGB"):
            raise GraphValueError(f"the dimension of [x] must be equal to 4, but got "
                                  f"{images.ndim}")
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    out = []
    for n in (5.0, 3.0, 1.0):
        k = (h * 6.0 + n) % 6.0
        out.append(v - v * s * F.clamp(F.minimum(k, 4.0 - k), 0.0, 1.0))
    return F.stack(out, -1)


def _no_tuple() -> Any:
    raise GraphTypeError("TensorToTuple needs the tensor's values, which a graph computes "
                         "at run time")


_MORE = {
    "Mvlgamma": _prim("Mvlgamma", lambda self, x: mvlgamma(x, self.p), (("p", _REQUIRED),)),
    "Range": _prim("Range", lambda self, start, end, step: Q.range(start, end, step,
                                                                   self.maxlen),
                   (("maxlen", 1000000),)),
    "ScalarCast": _prim("ScalarCast", lambda self, input_x, input_y:
                        Q.scalar_cast(input_x, input_y)),
    "ScalarToArray": _prim("ScalarToArray", lambda self, x: Q.scalar_to_array(x)),
    "IdentityN": _prim("IdentityN", lambda self, x: tuple(x)),
    "InvertPermutation": _prim("InvertPermutation", _invert_permutation),
    "FillV2": _prim("FillV2", _fill_v2),
    "FillDiagonal": _prim("FillDiagonal", lambda self, x: T.fill_diagonal(
        x, self.fill_value, self.wrap), (("fill_value", _REQUIRED), ("wrap", False))),
    "SelectView": _prim("SelectView", lambda self, x, index, dim: x.select(dim, index)),
    "TransposeView": _prim("TransposeView", lambda self, input, input_perm:
                           F.transpose(input, input_perm)),
    "TransposeExtView": _prim("TransposeExtView", lambda self, input, dim0, dim1:
                              A.swapaxes(input, dim0, dim1)),
    "Padding": _prim("Padding", _padding, (("pad_dim_size", 8),)),
    "DataFormatDimMap": _prim("DataFormatDimMap", _dim_map("NHWC", "NCHW", False),
                              (("src_format", "NHWC"), ("dst_format", "NCHW"))),
    "DataFormatVecPermute": _prim("DataFormatVecPermute", _dim_map("NHWC", "NCHW", True),
                                  (("src_format", "NHWC"), ("dst_format", "NCHW"))),
    "UnravelIndex": _prim("UnravelIndex", _unravel),
    "NthElement": _prim("NthElement", _nth, (("reverse", False),)),
    "Histogram": _prim("Histogram", lambda self, x: T.histc(x, self.bins, self.min, self.max),
                       (("bins", 100), ("min", 0.0), ("max", 0.0))),
    "HistogramFixedWidth": _prim("HistogramFixedWidth", _histogram_fixed_width,
                                 (("nbins", _REQUIRED), ("dtype", "int32"))),
    "Quantile": _prim("Quantile", lambda self, input, q: (
        T.nanquantile if self.ignore_nan else T.quantile)(input, q, self.dim, self.keep_dims),
        (("dim", None), ("keep_dims", False), ("ignore_nan", False))),
    "MaskedScatter": _prim("MaskedScatter", lambda self, input, mask, source:
                           S.masked_scatter(input, mask, source)),
    "IndexPut": _prim("IndexPut", lambda self, x1, x2, indices: S.index_put(
        x1, indices, x2, bool(self.accumulate)), (("accumulate", 0),)),
    "InplaceIndexAdd": _prim("InplaceIndexAdd", lambda self, var, indices, updates:
                             S._store(var, A.index_add(var, indices, updates, self.axis)),
                             (("axis", _REQUIRED),)),
    "ScatterAddWithAxis": _prim("ScatterAddWithAxis", lambda self, input_x, indices, updates:
                                A.tensor_scatter_elements(input_x, indices, updates,
                                                          self.axis, "add"),
                                (("axis", 0),)),
    "LerpScalar": _prim("LerpScalar", lambda self, input, end, weight:
                        input + (end - input) * weight),
    "LogSoftmaxExt": _prim("LogSoftmaxExt", lambda self, input, dim=None, dtype=None:
                           F.log_softmax(input if dtype is None else F.cast(input, dtype),
                                         dim if dim is not None else
                                         (0 if input.ndim in (0, 1, 3) else 1))),
    "IOU": _prim("IOU", lambda self, anchor_boxes, gt_boxes: B.iou(anchor_boxes, gt_boxes,
                                                                   self.mode),
                 (("mode", "iou"),)),
    "CheckValid": _prim("CheckValid", lambda self, bboxes, img_metas:
                        B.check_valid(bboxes, img_metas)),
    "BoundingBoxEncode": _prim("BoundingBoxEncode", lambda self, anchor_box, groundtruth_box:
                               B.bounding_box_encode(anchor_box, groundtruth_box, self.means,
                                                     self.stds),
                               (("means", (0.0,) * 4), ("stds", (1.0,) * 4))),
    "BoundingBoxDecode": _prim("BoundingBoxDecode", lambda self, anchor_box, deltas:
                               B.bounding_box_decode(anchor_box, deltas, self.max_shape,
                                                     self.means, self.stds,
                                                     self.wh_ratio_clip),
                               (("max_shape", _REQUIRED), ("means", (0.0,) * 4),
                                ("stds", (1.0,) * 4), ("wh_ratio_clip", 0.016))),
    "InTopK": _prim("InTopK", lambda self, x1, x2: __import__(
        "msc.ops.function.extension_func", fromlist=["intopk"]).intopk(x1, x2, self.k),
        (("k", _REQUIRED),)),
    "RmsNorm": _prim("RmsNorm", lambda self, x, gamma: L.rms_norm(x, gamma, self.epsilon),
                     (("epsilon", 1e-6),)),
    "Im2Col": _prim("Im2Col", lambda self, x: _im2col(self, x),
        (("ksizes", _REQUIRED), ("strides", 1), ("dilations", 1), ("pads", 0))),
    "Col2Im": _prim("Col2Im", lambda self, x, output_size: P.col2im(
        x, output_size, self.kernel_size, self.dilation, self.padding, self.stride),
        (("kernel_size", _REQUIRED), ("dilation", 1), ("padding", 0), ("stride", 1))),
    "RGBToHSV": _prim("RGBToHSV", _rgb_to_hsv),
    "HSVToRGB": _prim("HSVToRGB", _hsv_to_rgb),
    "ExtractVolumePatches": _prim("ExtractVolumePatches", lambda self, input_x:
                                  P.extract_patches(input_x, self.kernel_size, self.strides,
                                                    None, self.padding,
                                                    "ExtractVolumePatches"),
                                  (("kernel_size", _REQUIRED), ("strides", _REQUIRED),
                                   ("padding", _REQUIRED))),
    "ExtractImagePatches": _prim("ExtractImagePatches", lambda self, input_x:
                                 P.extract_patches(input_x, self.ksizes, self.strides,
                                                   self.rates, self.padding,
                                                   "ExtractImagePatches"),
                                 (("ksizes", _REQUIRED), ("strides", _REQUIRED),
                                  ("rates", _REQUIRED), ("padding", "VALID"))),
    "MaxUnpool2D": _prim("MaxUnpool2D", lambda self, x, argmax: L._max_unpool(
        x, argmax, 2, self.ksize, self.strides or None, self.pads, self.output_shape,
        "MaxUnpool2D"), (("ksize", _REQUIRED), ("strides", 0), ("pads", 0),
                         ("output_shape", ()), ("data_format", "NCHW"))),
    "MaxUnpool3D": _prim("MaxUnpool3D", lambda self, x, argmax: L._max_unpool(
        x, argmax, 3, self.ksize, self.strides or None, self.pads, self.output_shape,
        "MaxUnpool3D"), (("ksize", _REQUIRED), ("strides", 0), ("pads", 0),
                         ("output_shape", ()), ("data_format", "NCDHW"))),
    "MaxPool3D": _prim("MaxPool3D", _max_pool_3d,
                       (("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"),
                        ("pad_list", 0), ("ceil_mode", None), ("data_format", "NCDHW"))),
    "AdaptiveAvgPool3D": _prim("AdaptiveAvgPool3D", lambda self, x: __import__(
        "msc.ops.function.pooling_func", fromlist=["x"]).adaptive_avg_pool3d(
        x, self.output_size), (("output_size", _REQUIRED),)),
    "Dropout2D": _prim("Dropout2D", _dropout_nd(4), (("keep_prob", 0.5),)),
    "Dropout3D": _prim("Dropout3D", _dropout_nd(5), (("keep_prob", 0.5),)),
    "DepthwiseConv2dNative": _prim(
        "DepthwiseConv2dNative", _depthwise,
        (("channel_multiplier", _REQUIRED), ("kernel_size", _REQUIRED), ("mode", 3),
         ("pad_mode", "valid"), ("pad", 0), ("stride", 1), ("dilation", 1), ("group", 1))),
    "MatrixDeterminant": _prim("MatrixDeterminant", lambda self, input: V.det(input)),
    "LogMatrixDeterminant": _prim("LogMatrixDeterminant", lambda self, input: V.slogdet(input)),
    "MatrixInverse": _prim("MatrixInverse", lambda self, x: V.inverse(
        A.swapaxes(x, -1, -2) if self.adjoint else x), (("adjoint", False),)),
    "MatrixSolve": _prim("MatrixSolve", lambda self, matrix, rhs: V.matrix_solve(
        matrix, rhs, self.adjoint), (("adjoint", False),)),
    "Cholesky": _prim("Cholesky", lambda self, input_x: V.cholesky(input_x, self.upper),
                      (("upper", False),)),
    "CholeskySolve": _prim("CholeskySolve", lambda self, x1, x2: V.cholesky_solve(
        x1, x2, self.upper), (("upper", False),)),
    "CholeskyInverse": _prim("CholeskyInverse", lambda self, input_x: V.cholesky_inverse(
        input_x, self.upper), (("upper", False),)),
    Op.Qr.name: _prim(Op.Qr.name, lambda self, x: V.qr(
        x, "complete" if self.full_matrices else "reduced"), (("full_matrices", False),)),
    Op.Svd.name: _prim(Op.Svd.name, lambda self, input: apply(  # (s, u, v) even without uv
        Op.Svd, input, full_matrices=self.full_matrices, compute_uv=self.compute_uv),
        (("full_matrices", False), ("compute_uv", True))),
    "Lstsq": _prim("Lstsq", _lstsq, (("fast", True), ("l2_regularizer", 0.0))),
    "MatrixSolveLs": _prim("MatrixSolveLs", lambda self, matrix, rhs, l2_regularizer:
                           V.matrix_solve_ls(matrix, rhs, l2_regularizer, self.fast),
                           (("fast", True),)),
    Op.MatrixTriangularSolve.name: _prim(
        Op.MatrixTriangularSolve.name, lambda self, matrix, rhs: apply(
            Op.MatrixTriangularSolve, matrix, rhs, lower=self.lower, adjoint=self.adjoint),
        (("lower", True), ("adjoint", False))),
    "LuSolve": _prim("LuSolve", lambda self, x, lu_data, lu_pivots: V.lu_solve(
        x, lu_data, lu_pivots)),
    "LuUnpack": _prim("LuUnpack", lambda self, LU_data, LU_pivots: V.lu_unpack(  # noqa: N803
        LU_data, LU_pivots), (("unpack_data", True), ("unpack_pivots", True))),
    "NuclearNorm": _prim("NuclearNorm", lambda self, x: V.nuclear_norm(x, self.dim, self.keepdim),
                         (("dim", None), ("keepdim", False))),
    "Orgqr": _prim("Orgqr", lambda self, x, tau: V.orgqr(x, tau)),
    "Ormqr": _prim("Ormqr", lambda self, x, tau, other: V.ormqr(x, tau, other, self.left,
                                                                self.transpose),
                   (("left", True), ("transpose", False))),
    "AccumulateNV2": _prim("AccumulateNV2", lambda self, x: F.addn(x)),
    "ParallelConcat": _prim("ParallelConcat", lambda self, values: F.concat(values, 0)),
    "PadV3": _prim("PadV3", lambda self, x, paddings, constant_value=None: __import__(
        "msc.ops.function.image_func", fromlist=["pad"]).pad(
        x, paddings, self.mode, None if constant_value is None else (
            constant_value.asnumpy().item() if isinstance(constant_value, Tensor) and
            not isinstance(constant_value, SymTensor) else constant_value)),
        (("mode", "constant"), ("paddings_contiguous", True))),
    "Partial": _prim("Partial", lambda self, fn, *args: __import__("functools").partial(
        fn, *args)),
    "ForiLoop": _prim("ForiLoop", _fori_loop),
    "WhileLoop": _prim("WhileLoop", _while_loop),
    "Scan": _prim("Scan", _scan),
    "AffineGrid": _prim("AffineGrid", _affine_grid, (("align_corners", False),)),
    "TridiagonalMatMul": _prim("TridiagonalMatMul", _tridiagonal),
    "CompareAndBitpack": _prim("CompareAndBitpack", _bitpack),
    "UpsampleNearest3D": _prim("UpsampleNearest3D", _resize("nearest", lambda s: None)),
    "UpsampleTrilinear3D": _prim("UpsampleTrilinear3D", _resize(
        "trilinear", lambda s: bool(s.align_corners)), (("align_corners", False),)),
    "ResizeLinear1D": _prim("ResizeLinear1D", _resize(
        "linear", lambda s: s.coordinate_transformation_mode == "align_corners"),
        (("coordinate_transformation_mode", "align_corners"),)),
    "MatrixDiagV3": _prim("MatrixDiagV3", lambda self, x, k, num_rows, num_cols,
                          padding_value: M.matrix_diag(x, k, num_rows, num_cols, padding_value,
                                                       self.align),
                          (("align", "RIGHT_LEFT"),)),
    "MatrixDiagPartV3": _prim("MatrixDiagPartV3", lambda self, x, k, padding_value:
                              M.matrix_diag_part(x, k, padding_value, self.align),
                              (("align", "RIGHT_LEFT"),)),
    "MatrixSetDiagV3": _prim("MatrixSetDiagV3", lambda self, x, diagonal, k:
                             M.matrix_set_diag(x, diagonal, k, self.align),
                             (("align", "RIGHT_LEFT"),)),
    "FloatStatus": _prim("FloatStatus", lambda self, x: F.reshape(F.cast(F.logical_not(
        F.all(F.isfinite(x))), dtypes.float32), (1,)),
        doc="``ops.FloatStatus``: 1.0 (shape (1,), float32) where ``x`` holds an inf or "
            "NaN, else 0.0; the model zoo's loss-scaled train cells map it over gradients."),
    "Bernoulli": _prim("Bernoulli", lambda self, x, p: F.cast(
        R._uniform(x.shape) < p, x.dtype), (("seed", -1), ("offset", 0))),
    "Cauchy": _prim("Cauchy", lambda self: F.cast(F.tan(
        (R._uniform(tuple(self.size)) - 0.5) * np.pi) * self.sigma + self.median,
        dtypes.float32), (("size", _REQUIRED), ("median", 0.0), ("sigma", 1.0))),
    "LogNormalReverse": _prim("LogNormalReverse", lambda self, input: F.cast(F.exp(
        R.normal(input.shape, 0.0, 1.0) * self.std + self.mean), input.dtype),
        (("mean", 1.0), ("std", 2.0))),
    "Multinomial": _prim("Multinomial", lambda self, x, num_samples: F.cast(
        R.multinomial(x, int(num_samples)), self.dtype),
        (("seed", 0), ("seed2", 0), ("dtype", dtypes.int32))),
    "RandomCategorical": _prim("RandomCategorical", lambda self, logits, num_sample, seed=0:
                               R.random_categorical(logits, int(num_sample), seed, self.dtype),
                               (("dtype", dtypes.int64),)),
    "Randperm": _prim("Randperm", lambda self, n: _padded_perm(self, n),
                      (("max_length", 1), ("pad", -1), ("dtype", dtypes.int32))),
    "SparseToDense": _prim("SparseToDense", _sparse_to_dense),
    "SparseGatherV2": _prim("SparseGatherV2", lambda self, input_params, input_indices, axis:
                            _sparse_gather(input_params, input_indices, axis)),
    "DynamicShape": _prim("DynamicShape", lambda self, x: Q.dyn_shape(x), (("dtype", 9),)),
    "TensorToTuple": _prim("TensorToTuple", lambda self, x: tuple(
        v.item() for v in x.asnumpy().reshape(-1)) if not isinstance(x, SymTensor) else
        _no_tuple()),
}


globals().update(_WINDOWS)
globals().update(_MORE)

__all__ = [*_WINDOWS, *_MORE]
