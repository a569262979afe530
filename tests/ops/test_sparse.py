"""COOTensor, CSRTensor and RowTensor (``msc/common/sparse_tensor.py``) and the ops over
them (``msc/ops/function/sparse_func.py``, ``sparse_unary_func.py``, ``sparse_ops.py``):
values against dense numpy written here, in eager mode and in graphs (sparse tensors as
inputs, intermediates and results), gradients through the values, the errors, and
MindSpore itself where ``.peers/ms`` is installed."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import COOTensor, CSRTensor, RowTensor, Tensor, nn, ops
from msc.errors import MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"

# a 3 x 4 matrix with a repeated position (0, 1) and an empty row
IND = np.array([[0, 1], [2, 2], [0, 3], [0, 1]], np.int64)
VAL = np.array([1.5, -2.0, 3.0, 0.5], np.float32)
DENSE = np.zeros((3, 4), np.float32)
np.add.at(DENSE, (IND[:, 0], IND[:, 1]), VAL)  # repeated positions add up


def coo(ind=IND, val=VAL, shape=(3, 4)):
    return COOTensor(Tensor(ind), Tensor(val), shape)


def csr_parts(dense):
    """indptr, columns and values of ``dense`` by row (numpy, written here)."""
    rows, cols = np.nonzero(dense)
    indptr = np.searchsorted(rows, np.arange(dense.shape[0] + 1))
    return indptr.astype(np.int32), cols.astype(np.int32), dense[rows, cols]


MAT = np.array([[0, 2, 0, 1], [0, 0, 0, 0], [4, 0, 5, 0]], np.float32)


def csr(dense=MAT):
    indptr, cols, vals = csr_parts(dense)
    return CSRTensor(Tensor(indptr), Tensor(cols), Tensor(vals), dense.shape)


def test_coo_parts_dense_and_repeated_positions():
    x = coo()
    assert x.shape == (3, 4) and x.ndim == 2 and x.size == 4 and x.itemsize == 4
    assert x.dtype == ms.float32 and x.indices.dtype == ms.int64
    np.testing.assert_array_equal(x.to_dense().asnumpy(), DENSE)
    np.testing.assert_array_equal(ops.coo_tensor_get_values(x).asnumpy(), VAL)
    assert ops.coo_tensor_get_dense_shape(x) == (3, 4)
    copy = COOTensor(coo_tensor=x)
    assert copy.indices is x.indices and copy.shape == x.shape
    back = x.to_csr()  # sorted by row, stably
    np.testing.assert_array_equal(back.indptr.asnumpy(), [0, 3, 3, 4])
    np.testing.assert_array_equal(back.indices.asnumpy(), [1, 3, 1, 2])
    np.testing.assert_array_equal(back.to_dense().asnumpy(), DENSE)


def test_csr_conversions_products_and_reductions():
    x = csr()
    np.testing.assert_array_equal(x.to_dense().asnumpy(), MAT)
    np.testing.assert_array_equal(ops.csr_to_dense(x).asnumpy(), MAT)
    c = ops.csr_to_coo(x)
    assert c.indices.dtype == ms.int32
    np.testing.assert_array_equal(c.indices.asnumpy(), np.stack(np.nonzero(MAT), 1))
    np.testing.assert_array_equal(ops.csr2coo(x.indptr, 4).asnumpy(), [0, 0, 2, 2])
    np.testing.assert_array_equal(ops.coo2csr(Tensor(np.array([0, 0, 2, 2], np.int32)), 3)
                                  .asnumpy(), [0, 2, 2, 4])
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(x.mm(Tensor(b)).asnumpy(), MAT @ b)
    v = np.arange(4, dtype=np.float32).reshape(4, 1)
    out = ops.csr_mv(x, Tensor(v))
    assert out.shape == (3, 1)
    np.testing.assert_allclose(out.asnumpy(), MAT @ v)
    np.testing.assert_allclose(ops.csr_reduce_sum(x, 1).asnumpy(), MAT.sum(1, keepdims=True))
    y = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(ops.csr_mul(x, Tensor(y)).to_dense().asnumpy(), MAT * y)
    np.testing.assert_allclose((x / Tensor(y)).to_dense().asnumpy(), MAT / y)
    row = np.array([[1, 2, 3, 4]], np.float32)  # broadcasts over the rows
    np.testing.assert_allclose((x * Tensor(row)).to_dense().asnumpy(), MAT * row)
    scaled = ops.csr_mul(x, Tensor(2.0))  # MindSpore: a scalar gives the dense values
    np.testing.assert_allclose(scaled.asnumpy(), MAT[MAT != 0] * 2)
    np.testing.assert_allclose(ops.csr_gather(x.indptr, x.indices, Tensor(y), (3, 4))
                               .asnumpy(), y[MAT != 0])


def test_csr_softmax_is_per_row_over_the_stored_values():
    out = ops.csr_softmax(csr(), ms.float32)
    rows = [np.array([2.0, 1.0]), np.array([4.0, 5.0])]
    want = np.concatenate([np.exp(r - r.max()) / np.exp(r - r.max()).sum() for r in rows])
    np.testing.assert_allclose(out.values.asnumpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(out.indptr.asnumpy(), csr().indptr.asnumpy())


UNARY = {"abs": np.abs, "exp": np.exp, "sin": np.sin, "tanh": np.tanh, "square": np.square,
         "neg": np.negative, "floor": np.floor, "relu": lambda v: np.maximum(v, 0),
         "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "isnan": np.isnan}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_elementwise_families_map_the_values_and_keep_the_pattern(name):
    out = getattr(ops, f"coo_{name}")(coo())
    np.testing.assert_allclose(out.values.asnumpy(), UNARY[name](VAL), rtol=1e-6)
    assert out.indices is coo().indices or np.array_equal(out.indices.asnumpy(), IND)
    out = getattr(ops, f"csr_{name}")(csr())
    np.testing.assert_allclose(out.values.asnumpy(), UNARY[name](MAT[MAT != 0]), rtol=1e-6)
    with pytest.raises(TypeError, match=f"Expects CSRTensor for csr_{name}"):
        getattr(ops, f"csr_{name}")(Tensor(MAT))


def test_coo_concat_sorts_row_major_and_coo_add_merges():
    a = coo(np.array([[2, 3], [0, 2], [1, 0]]), np.array([1, 2, 3], np.int32))
    b = coo(np.array([[1, 1], [0, 3], [2, 0]]), np.array([4, 5, 6], np.int32))
    out = ops.coo_concat((a, b), 1)
    assert out.shape == (3, 8)
    want = np.concatenate([a.to_dense().asnumpy(), b.to_dense().asnumpy()], 1)
    np.testing.assert_array_equal(out.to_dense().asnumpy(), want)
    keys = out.indices.asnumpy()
    assert (np.diff(keys[:, 0] * 8 + keys[:, 1]) > 0).all()
    s1 = coo(np.array([[0, 1], [1, 2]]), np.array([1.0, 2.0], np.float32))
    s2 = coo(np.array([[0, 3], [1, 2]]), np.array([3.0, -1.5], np.float32))
    total = ops.coo_add(s1, s2, Tensor(0.6, ms.float32))  # |2 - 1.5| < 0.6 is dropped
    np.testing.assert_array_equal(total.indices.asnumpy(), [[0, 1], [0, 3]])
    np.testing.assert_array_equal(total.values.asnumpy(), [1.0, 3.0])
    with pytest.raises(ValueError, match="input number < 2"):
        ops.coo_concat((a,))


def test_eager_only_ops_and_data_dependent_conversions():
    d = np.array([[0, 1.0, 3], [0, 0, 0], [2, 0, 5]], np.float32)
    c = Tensor(d).to_coo()
    assert c.indices.dtype == ms.int32
    np.testing.assert_array_equal(c.to_dense().asnumpy(), d)
    s = Tensor(d).to_csr()
    np.testing.assert_array_equal(s.indptr.asnumpy(), [0, 2, 2, 4])
    np.testing.assert_array_equal(s.to_dense().asnumpy(), d)
    two = ops.csr_add(s, s, Tensor(1.0), Tensor(2.0))
    np.testing.assert_allclose(two.to_dense().asnumpy(), 3 * d)
    prod = ops.csr_mm(s, s)
    np.testing.assert_allclose(prod.to_dense().asnumpy(), d @ d)
    r = RowTensor(Tensor(np.array([0, 2], np.int32)), Tensor(np.ones((2, 2), np.float32)), (3, 2))
    assert r.dense_shape == (3, 2)
    np.testing.assert_array_equal(r.to_dense().asnumpy(), [[1, 1], [0, 0], [1, 1]])


def test_sparse_primitive_classes_and_layers():
    ind = Tensor(np.array([[0, 1], [1, 2]], np.int32))
    val = Tensor(np.array([1.0, 2.0], np.float32))
    dense = np.zeros((3, 4), np.float32)
    dense[0, 1], dense[1, 2] = 1, 2
    np.testing.assert_array_equal(ops.SparseToDense()(ind, val, (3, 4)).asnumpy(), dense)
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(nn.SparseTensorDenseMatmul()(ind, val, (3, 4), Tensor(m))
                               .asnumpy(), dense @ m)
    adj = ops.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True)
    np.testing.assert_allclose(adj(ind, val, (3, 4), Tensor(m.T[:, :3])).asnumpy(),
                               dense.T @ m[:3])
    shape = Tensor(np.array([3, 4], np.int32))
    ones = Tensor(np.ones((3, 4), np.float32))
    np.testing.assert_allclose(ops.SparseTensorDenseAdd()(ind, val, shape, ones).asnumpy(),
                               dense + 1)
    np.testing.assert_array_equal(nn.SparseToDense()(COOTensor(ind, val, (3, 4))).asnumpy(),
                                  dense)


def test_constructor_errors_name_the_part():
    with pytest.raises(TypeError, match="'indices' must be one of"):
        COOTensor(Tensor(IND.astype(np.float32)), Tensor(VAL), (3, 4))
    with pytest.raises(TypeError, match="'shape' must be tuple"):
        COOTensor(Tensor(IND), Tensor(VAL), [3, 4])
    with pytest.raises(ValueError, match=r"'indices.shape\[0\]' must be equal"):
        COOTensor(Tensor(IND), Tensor(VAL[:2]), (3, 4))
    with pytest.raises(ValueError, match="the length of 'shape' must be 2"):
        COOTensor(Tensor(IND), Tensor(VAL), (3, 4, 1))
    with pytest.raises(ValueError, match=r"indptr must have length \(1 \+ shape\[0\]\)"):
        CSRTensor(Tensor(np.array([0, 1], np.int32)), Tensor(np.array([0], np.int32)),
                  Tensor(np.ones(1, np.float32)), (2, 2))
    with pytest.raises(ValueError, match="`axis` should be 1"):
        ops.csr_reduce_sum(csr(), 0)
    with pytest.raises(ValueError, match="dense vector must have shape"):
        ops.csr_mv(csr(), Tensor(np.ones(4, np.float32)))


def test_gradient_of_csr_mm_and_coo_to_dense_through_the_values():
    x = csr()
    b = np.array([[1.0, -1], [2, 0.5], [0, 3], [1, 1]], np.float32)
    w = np.array([[1.0, 2], [3, 4], [5, 6]], np.float32)

    def loss(values):
        m = CSRTensor(x.indptr, x.indices, values, x.shape).mm(Tensor(b))
        return (m * Tensor(w)).sum()

    grad = ops.grad(loss)(x.values).asnumpy()
    rows, cols = np.nonzero(MAT)
    want = np.array([w[r] @ b[c] for r, c in zip(rows, cols)])  # d/dv_k of sum(w * A b)
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    dense_grad = ops.grad(lambda v: (COOTensor(Tensor(IND), v, (3, 4)).to_dense() ** 2).sum())

    def squares(values):  # numpy: sum of squares of the dense matrix
        d = np.zeros((3, 4))
        np.add.at(d, (IND[:, 0], IND[:, 1]), values)
        return (d ** 2).sum()

    eps, base = 1e-3, VAL.astype(np.float64)
    fd = [(squares(base + eps * e) - squares(base - eps * e)) / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(dense_grad(Tensor(VAL)).asnumpy(), fd, rtol=1e-3)


def test_graphs_take_build_and_return_sparse_tensors():
    @ms.jit
    def step(x, dense, v):
        s = x.to_csr()
        return ops.coo_relu(x), s.mv(v), ops.csr_cos(s), s.mm(dense), x.to_dense()

    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    v = np.arange(4, dtype=np.float32).reshape(4, 1)
    eager = step.fn(coo(), Tensor(b), Tensor(v))
    out = step(coo(), Tensor(b), Tensor(v))
    assert isinstance(out[0], COOTensor) and isinstance(out[2], CSRTensor)
    assert out[0].shape == (3, 4) and out[2].shape == (3, 4)
    np.testing.assert_allclose(out[0].values.asnumpy(), np.maximum(VAL, 0))
    np.testing.assert_allclose(out[1].asnumpy(), DENSE @ v, rtol=1e-6)
    np.testing.assert_allclose(out[3].asnumpy(), DENSE @ b, rtol=1e-6)
    for got, want in zip(out[2].to_tuple(), eager[2].to_tuple()):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    np.testing.assert_array_equal(out[4].asnumpy(), DENSE)


def test_eager_only_ops_raise_msc_error_in_a_graph():
    @ms.jit
    def merged(x):
        return ops.coo_add(x, x, Tensor(0.0))

    with pytest.raises(MscError, match="depends on the data") as info:
        merged(coo())
    assert "test_sparse.py" in str(info.value)


SCRIPT = """
import json, numpy as np, mindspore as ms
from mindspore import Tensor, COOTensor, CSRTensor, ops
ind, val = np.array(json.load(open('ind.json')), np.int64), np.array(json.load(open('val.json')), np.float32)
c = COOTensor(Tensor(ind), Tensor(val), (3, 4))
out = {'dense': c.to_dense().asnumpy().tolist(),
       'relu': ops.coo_relu(c).values.asnumpy().tolist(),
       'sqrt': ops.coo_sqrt(c).values.asnumpy().tolist(),
       'concat': [ops.coo_concat((c, c), 1).indices.asnumpy().tolist(),
                  ops.coo_concat((c, c), 1).values.asnumpy().tolist()],
       'add': [ops.coo_add(c, c, Tensor(0.0, ms.float32)).indices.asnumpy().tolist(),
               ops.coo_add(c, c, Tensor(0.0, ms.float32)).values.asnumpy().tolist()],
       'to_coo': Tensor(np.array([[0, 1.0], [2, 0]], np.float32)).to_coo().indices.asnumpy().tolist()}
try:
    COOTensor(Tensor(ind.astype(np.float32)), Tensor(val), (3, 4))
except TypeError as e:
    out['error'] = type(e).__name__
print(json.dumps(out))
"""


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the comparison with MindSpore itself needs it")
def test_against_mindspore_itself(tmp_path):
    (tmp_path / "ind.json").write_text(json.dumps(IND.tolist()))
    (tmp_path / "val.json").write_text(json.dumps(VAL.tolist()))
    (tmp_path / "run.py").write_text(SCRIPT)
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    c = coo()
    np.testing.assert_array_equal(c.to_dense().asnumpy(), theirs["dense"])
    np.testing.assert_array_equal(ops.coo_relu(c).values.asnumpy(), theirs["relu"])
    np.testing.assert_allclose(ops.coo_sqrt(c).values.asnumpy(), theirs["sqrt"], rtol=1e-6)
    cat = ops.coo_concat((c, c), 1)
    np.testing.assert_array_equal(cat.indices.asnumpy(), theirs["concat"][0])
    np.testing.assert_array_equal(cat.values.asnumpy(), theirs["concat"][1])
    total = ops.coo_add(c, c, Tensor(0.0, ms.float32))
    np.testing.assert_array_equal(total.indices.asnumpy(), theirs["add"][0])
    np.testing.assert_array_equal(total.values.asnumpy(), theirs["add"][1])
    np.testing.assert_array_equal(Tensor(np.array([[0, 1.0], [2, 0]], np.float32)).to_coo()
                                  .indices.asnumpy(), theirs["to_coo"])
    assert theirs["error"] == "TypeError"
