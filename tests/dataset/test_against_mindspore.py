"""The same deterministic pipelines under msc and under MindSpore 2.10 (where it is
installed in ``.peers/ms``): column names, dtypes, shapes and values of every row, for the
sources, the pipeline operations, sharding and the file datasets."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MINDSPORE = ROOT / ".peers" / "ms" / "bin" / "python"

# Written once, run under both: `ds`, `vision`, `transforms` and `DT` (int32) come from
# the framework under test; `mnist` is a folder of idx files.
PIPELINES = textwrap.dedent('''
    class Source:
        def __getitem__(self, i):
            return i, float(i) / 2, np.full((2,), i, np.int32)
        def __len__(self):
            return 7

    def src(**kw):
        return ds.GeneratorDataset(Source(), ["a", "b", "v"], shuffle=False, **kw)

    def gen():
        for i in range(5):
            yield np.arange(i, i + 3, dtype=np.float32), i

    CASES = {
        "source": lambda: src(),
        "iterable": lambda: ds.GeneratorDataset(gen, ["x", "y"]),
        "slices": lambda: ds.NumpySlicesDataset({"p": np.arange(8).reshape(4, 2),
                                                 "q": [1.5, 2.5, 3.5, 4.5]}, shuffle=False),
        "batch": lambda: src().batch(3),
        "batch_drop": lambda: src().batch(3, drop_remainder=True),
        "repeat_take_skip": lambda: src().repeat(2).skip(3).take(8),
        "project_rename": lambda: src().project(["v", "a"]).rename(["a"], ["z"]),
        "concat": lambda: src().take(2) + src().skip(5),
        "zip": lambda: ds.zip((src().project("a"), src().rename("b", "c").project("c"))),
        "map_same": lambda: src().map(lambda b: b * 3, input_columns="b"),
        "map_renamed": lambda: src().map(lambda v, a: (v + 1, a * 2), ["v", "a"], ["w", "c"]),
        "map_more": lambda: src().map(lambda b: (b, b + 1), "b", ["p", "q"]),
        "map_fewer": lambda: src().map(lambda a, b: a + b, ["a", "b"], ["s"]),
        "shard0": lambda: src(num_shards=3, shard_id=0),
        "shard2": lambda: src(num_shards=3, shard_id=2),
        "mnist": lambda: ds.MnistDataset(mnist, usage="all", shuffle=False),
        "mnist_pipeline": lambda: ds.MnistDataset(mnist, usage="train", shuffle=False).map(
            [vision.Rescale(1 / 255, -0.5), vision.Normalize([0.1], [0.3]),
             vision.HWC2CHW()], "image").map(transforms.TypeCast(DT), "label").batch(4),
        "onehot": lambda: ds.MnistDataset(mnist, usage="test", shuffle=False).map(
            transforms.OneHot(10), "label").project("label"),
    }

    def describe(name):
        d = CASES[name]()
        rows = [[(str(c.dtype), list(c.shape), np.asarray(c, np.float64).tolist())
                 for c in row] for row in d.create_tuple_iterator(output_numpy=True)]
        return {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}

    RESULT = {name: describe(name) for name in CASES}
''')


def write_mnist(folder: Path) -> None:
    import struct

    rng = np.random.default_rng(0)
    for prefix, n in (("train", 9), ("t10k", 3)):
        arrays = {"images-idx3": rng.integers(0, 256, (n, 28, 28), dtype=np.uint8),
                  "labels-idx1": rng.integers(0, 10, n).astype(np.uint8)}
        for kind, a in arrays.items():
            head = struct.pack(">I", 0x800 | a.ndim) + struct.pack(f">{a.ndim}I", *a.shape)
            (folder / f"{prefix}-{kind}-ubyte").write_bytes(head + a.tobytes())


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms: "
                    "the pipelines are compared with MindSpore's only where it is")
def test_pipelines_give_mindspores_rows(tmp_path):
    write_mnist(tmp_path)
    script = ("import json, numpy as np, mindspore as ms, mindspore.dataset as ds\n"
              "from mindspore.dataset import transforms, vision\n"
              f"DT, mnist = ms.int32, {str(tmp_path)!r}\n" + PIPELINES +
              "print('RESULT=' + json.dumps(RESULT))\n")
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.split("RESULT=", 1)[1])

    import msc as ms
    import msc.dataset as ds
    from msc.dataset import transforms, vision

    scope = {"np": np, "ds": ds, "vision": vision, "transforms": transforms,
             "DT": ms.int32, "mnist": str(tmp_path)}
    exec(PIPELINES, scope)  # noqa: S102 - the same text MindSpore ran
    mine = json.loads(json.dumps(scope["RESULT"]))
    for name, expect in theirs.items():
        got = mine[name]
        assert (got["columns"], got["size"]) == (expect["columns"], expect["size"]), name
        assert len(got["rows"]) == len(expect["rows"]), name
        for row, want in zip(got["rows"], expect["rows"]):
            assert [c[:2] for c in row] == [c[:2] for c in want], name  # dtypes and shapes
            for c, w in zip(row, want):
                np.testing.assert_allclose(c[2], w[2], rtol=1e-6, atol=1e-6, err_msg=name)
