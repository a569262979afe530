"""The pipeline operations and the user-defined sources of ``msc.dataset``, each against
the rows worked out independently with numpy and plain Python."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
import msc.dataset as ds
from msc.errors import MscError


class Squares:
    """A random-access source: row i is (i, i*i as float, a vector of i)."""

    def __init__(self, n=7):
        self.n = n

    def __getitem__(self, i):
        return i, float(i * i), np.full(3, i, np.int32)

    def __len__(self):
        return self.n


def rows(dataset, **kw):
    return [tuple(c.tolist() for c in r)
            for r in dataset.create_tuple_iterator(output_numpy=True, **kw)]


def firsts(dataset):
    return [r[0] for r in rows(dataset)]


def source(n=7):
    return ds.GeneratorDataset(Squares(n), ["i", "sq", "vec"], shuffle=False)


def test_generator_dataset_rows_dtypes_and_tensors():
    d = source()
    assert d.get_col_names() == ["i", "sq", "vec"] and d.get_dataset_size() == 7
    assert rows(d)[3] == (3, 9.0, [3, 3, 3])
    first = next(iter(d.create_tuple_iterator(output_numpy=True)))
    assert [a.dtype for a in first] == [np.int64, np.float64, np.int32]
    tensors = next(iter(d))
    assert all(isinstance(t, ms.Tensor) for t in tensors)
    assert tensors[2].dtype == ms.int32 and tensors[1].dtype == ms.float64
    as_dict = next(iter(d.create_dict_iterator(output_numpy=True)))
    assert list(as_dict) == ["i", "sq", "vec"] and as_dict["sq"] == 0.0


def test_iterable_and_callable_sources_read_in_order_once_per_epoch():
    def gen():
        for i in range(4):
            yield np.array([i, -i], np.float32), i

    d = ds.GeneratorDataset(gen, ["x", "y"])
    assert rows(d) == [([i, -i], i) for i in range(4)] and d.get_dataset_size() == 4
    one = ds.GeneratorDataset([np.array(5), np.array(6)], "only", shuffle=False)
    assert rows(one) == [(5,), (6,)]
    with pytest.raises(ValueError, match="num_shards is not supported"):
        ds.GeneratorDataset(gen, ["x", "y"], num_shards=2, shard_id=0)


def test_random_access_sources_shuffle_by_default_and_repeat_with_a_seed():
    orders = []
    for _ in range(2):
        ds.config.set_seed(11)
        d = ds.GeneratorDataset(Squares(20), ["i", "sq", "vec"])
        it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
        orders.append([[int(r[0]) for r in it] for _ in range(2)])
    assert orders[0] == orders[1]
    first, second = orders[0]
    assert sorted(first) == list(range(20)) and first != list(range(20)) and first != second
    ms.set_seed(11)  # msc.set_seed seeds the datasets too, as MindSpore's does
    assert ds.config.get_seed() == 11
    assert firsts(ds.GeneratorDataset(Squares(20), ["i", "sq", "vec"])) == first


def test_numpy_slices_columns_and_names():
    d = ds.NumpySlicesDataset({"x": np.arange(6).reshape(3, 2), "y": [1.0, 2.0, 3.0]},
                              shuffle=False)
    assert d.get_col_names() == ["x", "y"] and rows(d) == [([0, 1], 1.0), ([2, 3], 2.0),
                                                           ([4, 5], 3.0)]
    assert ds.NumpySlicesDataset(([1, 2], [3, 4]), shuffle=False).get_col_names() == \
        ["column_0", "column_1"]
    assert rows(ds.NumpySlicesDataset([[1, 2], [3, 4]], ["m"], shuffle=False)) == [([1, 2],),
                                                                                  ([3, 4],)]
    with pytest.raises(ValueError, match="same length"):
        ds.NumpySlicesDataset({"x": [1, 2], "y": [1, 2, 3]})


def test_sharding_pads_from_the_start_and_keeps_shards_disjoint():
    # MindSpore's distributed sampler: indices padded to 9 = [0..6, 0, 1], shard k takes k::3
    expect = {0: [0, 3, 6], 1: [1, 4, 0], 2: [2, 5, 1]}
    for k in range(3):
        d = ds.GeneratorDataset(Squares(), ["i", "sq", "vec"], shuffle=False, num_shards=3,
                                shard_id=k)
        assert firsts(d) == expect[k] and d.get_dataset_size() == 3
    ds.config.set_seed(5)
    shuffled = [firsts(ds.NumpySlicesDataset(np.arange(8), num_shards=2, shard_id=k))
                for k in range(2)]
    assert sorted(shuffled[0] + shuffled[1]) == list(range(8))
    with pytest.raises(ValueError, match="shard_id"):
        ds.NumpySlicesDataset(np.arange(8), num_shards=2, shard_id=2)


def test_batch_stacks_and_drops_the_remainder():
    batches = rows(source().batch(3))
    assert [b[0] for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert batches[0][2] == [[0] * 3, [1] * 3, [2] * 3]
    assert source().batch(3).get_dataset_size() == 3
    dropped = source().batch(3, drop_remainder=True)
    assert dropped.get_dataset_size() == 2 and len(rows(dropped)) == 2
    b = next(iter(source().batch(2).create_tuple_iterator(output_numpy=True)))
    assert [a.dtype for a in b] == [np.int64, np.float64, np.int32]


def test_batch_of_rows_with_different_shapes_names_the_column():
    d = ds.GeneratorDataset(lambda: iter([(np.zeros(2),), (np.zeros(3),)]), ["ragged"])
    with pytest.raises(RuntimeError, match="column 'ragged'") as info:
        rows(d.batch(2))
    assert isinstance(info.value, MscError)


def test_repeat_take_skip_project_rename():
    assert firsts(source().repeat(2).take(9)) == list(range(7)) + [0, 1]
    assert source().repeat(3).get_dataset_size() == 21
    forever = source().repeat()
    assert forever.take(10).get_dataset_size() == 10 and len(firsts(forever.take(10))) == 10
    with pytest.raises(RuntimeError, match="repeated without end"):
        forever.get_dataset_size()
    assert firsts(source().skip(5)) == [5, 6] and source().skip(5).get_dataset_size() == 2
    assert source().take(2).get_dataset_size() == 2
    p = source().project(["vec", "i"])
    assert p.get_col_names() == ["vec", "i"] and rows(p)[2] == ([2, 2, 2], 2)
    r = source().rename(["i"], ["index"])
    assert r.get_col_names() == ["index", "sq", "vec"] and rows(r)[1] == (1, 1.0, [1, 1, 1])
    with pytest.raises(ValueError, match="not in the dataset's columns"):
        source().project(["nope"])


def test_concat_and_zip():
    both = source().take(2) + source().skip(5)
    assert firsts(both) == [0, 1, 5, 6] and both.get_dataset_size() == 4
    z = ds.zip((source().project("i"), source().project("sq").rename("sq", "s").take(3)))
    assert z.get_col_names() == ["i", "s"] and rows(z) == [(0, 0.0), (1, 1.0), (2, 4.0)]
    assert z.get_dataset_size() == 3
    with pytest.raises(ValueError, match="unique"):
        source().zip(source())


def test_map_column_placement():
    """As many outputs as inputs: each takes its input's place; otherwise the outputs come
    first and the untouched columns follow (MindSpore's order)."""
    m = source().map(lambda sq: sq * 10, input_columns=["sq"])
    assert m.get_col_names() == ["i", "sq", "vec"] and rows(m)[2][1] == 40.0
    assert source().map(lambda v: v, "vec", "w").get_col_names() == ["i", "sq", "w"]
    swapped = source().map(lambda v, i: (v, i), ["vec", "i"], ["x", "y"])
    assert swapped.get_col_names() == ["y", "sq", "x"] and rows(swapped)[1] == (1, 1.0, [1] * 3)
    two = source().map(lambda sq: (sq, -sq), input_columns="sq", output_columns=["p", "q"])
    assert two.get_col_names() == ["p", "q", "i", "vec"] and rows(two)[3][:3] == (9.0, -9.0, 3)
    s = source().map(lambda i, sq: i + sq, input_columns=["i", "sq"], output_columns=["s"])
    assert s.get_col_names() == ["s", "vec"] and firsts(s) == [i + i * i for i in range(7)]
    chained = source().map([lambda v: v + 1, lambda v: v * 2], input_columns="vec")
    assert rows(chained)[2][2] == [6, 6, 6]


def test_map_on_worker_threads_keeps_the_order():
    m = source(50).map(lambda v: v.sum(), input_columns="vec", num_parallel_workers=4)
    assert firsts(m.project("vec")) == [3 * i for i in range(50)]


def test_a_failing_map_names_the_operation_the_columns_and_the_sample():
    def explode(i):
        if i == 3:
            raise ValueError("bad sample")
        return i

    for workers in (1, 3):
        d = source().map(explode, input_columns=["i"], num_parallel_workers=workers)
        with pytest.raises(RuntimeError) as info:
            rows(d)
        message = str(info.value)
        assert isinstance(info.value, MscError)
        assert "'explode'" in message and "['i']" in message and "sample index 3" in message
        assert "ValueError: bad sample" in message
    wrong = source().map(lambda i: (i, i), input_columns="i")
    with pytest.raises(RuntimeError, match="returned 2 column"):
        rows(wrong)


def test_shuffle_buffer_is_a_permutation_and_reshuffles_each_epoch():
    ds.config.set_seed(2)
    d = source(30).shuffle(30)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    a, b = ([int(r[0]) for r in it] for _ in range(2))
    assert sorted(a) == sorted(b) == list(range(30)) and a != b
    ds.config.set_seed(2)
    assert firsts(source(30).shuffle(30)) == a
    # with a buffer of 2, output position p can only hold one of the first p + 2 rows
    small = firsts(source(30).shuffle(2))
    assert sorted(small) == list(range(30))
    assert all(value <= pos + 1 for pos, value in enumerate(small)) and small != sorted(small)
    with pytest.raises(ValueError, match="buffer_size"):
        source().shuffle(1)


def test_iterators_run_num_epochs_then_stop():
    it = source(3).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2] and [int(r[0]) for r in it] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="num_epochs=2"):
        list(it)
    forever = source(3).create_tuple_iterator(output_numpy=True)
    assert [len(list(forever)) for _ in range(3)] == [3, 3, 3]
    picked = next(iter(source().create_tuple_iterator(columns=["vec"], output_numpy=True)))
    assert len(picked) == 1 and picked[0].tolist() == [0, 0, 0]


def test_uint32_columns_become_uint32_tensors_and_unsupported_ones_need_a_cast():
    """MNIST's labels are uint32: a uint32 Tensor, as in MindSpore 2.10. A column msc
    Tensors cannot hold (complex) names itself and the way out."""
    d = ds.NumpySlicesDataset({"label": np.array([1, 2], np.uint32)}, shuffle=False)
    assert next(iter(d))[0].dtype == ms.uint32
    cast = d.map(ds.transforms.TypeCast(ms.int32), "label")
    assert next(iter(cast))[0].dtype == ms.int32
    z = ds.NumpySlicesDataset({"z": np.array([1 + 2j, 3j])}, shuffle=False)
    with pytest.raises(RuntimeError, match="'z' holds complex128.*TypeCast"):
        next(iter(z))
    assert next(z.create_tuple_iterator(output_numpy=True))[0].dtype == np.complex128


def test_source_errors_name_the_sample():
    class Broken(Squares):
        def __getitem__(self, i):
            if i == 2:
                raise KeyError("missing")
            return super().__getitem__(i)

    with pytest.raises(RuntimeError, match="sample index 2.*KeyError"):
        rows(ds.GeneratorDataset(Broken(), ["i", "sq", "vec"], shuffle=False))
    with pytest.raises(RuntimeError, match="gave 1 value"):
        rows(ds.GeneratorDataset(lambda: iter([(1,)]), ["a", "b"]))


def test_the_default_number_of_map_workers_is_the_configs():
    import threading

    seen = set()

    def where(i):
        seen.add(threading.get_ident())
        return i

    assert ds.config.get_num_parallel_workers() == 1
    firsts(source(30).map(where, "i"))
    assert seen == {threading.get_ident()}  # one worker: the consumer's own thread
    try:
        ds.config.set_num_parallel_workers(3)
        seen.clear()
        assert firsts(source(30).map(where, "i")) == list(range(30))
        assert threading.get_ident() not in seen
    finally:
        ds.config.set_num_parallel_workers(1)
