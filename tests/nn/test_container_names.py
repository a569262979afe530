"""Parameter names of blocks nested in SequentialCell / CellList / CellDict, as MindSpore 2.10
gives them: containers filled by ``append``/``insert`` read their namespace back from their
children's names (MindSpore's ``_get_prefix_and_index``), which for MLP-Mixer-style blocks
holding a SequentialCell under key ``0`` nests later blocks inside the first one's names."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn

# The model classes are run unchanged by MindSpore in the oracle test below.
MODELS = '''
class Mix(nn.Cell):
    """One MLP-Mixer block: nested SequentialCells, as public MLP-Mixer code writes it."""

    def __init__(self):
        super().__init__()
        self.token_mix = nn.SequentialCell(nn.LayerNorm((2,)), nn.ReLU(),
                                           nn.SequentialCell(nn.Dense(2, 2)))
        self.channel_mix = nn.CellList([nn.Dense(2, 2)])

    def construct(self, x):
        return self.channel_mix[0](self.token_mix(x))


class Mixer(nn.Cell):
    def __init__(self, kind, n=3, insert_at=None):
        super().__init__()
        self.blocks = nn.SequentialCell() if kind == "seq" else nn.CellList()
        for _ in range(n):
            self.blocks.append(Mix())
        if insert_at is not None:
            self.blocks.insert(insert_at, Mix())
        self.head = nn.Dense(2, 1)

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class Built(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.blocks = nn.CellList([Mix(), Mix()]) if kind == "list" else \\
            nn.SequentialCell([Mix(), Mix()])
        self.blocks.append(Mix())


class Outer(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.backbone = inner


class Reassigned(nn.Cell):
    """Attributes and CellDict keys assigned again keep their place."""

    def __init__(self):
        super().__init__()
        self.a = nn.Dense(2, 2)
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
        self.b = nn.Dense(2, 2)
        self.d = nn.CellDict({"x": nn.Dense(2, 2), "y": nn.Dense(2, 2)})
        self.a = nn.Dense(2, 3)
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w2")
        self.d.update({"z": nn.Dense(2, 2), "x": nn.Dense(2, 1)})


class Squeeze(nn.Cell):
    """SqueezeNet's head: final_conv is an attribute and item 1 of classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
        self.final_conv = nn.Dense(2, 2)
        self.classifier = nn.SequentialCell([nn.Dropout(p=0.5), self.final_conv, nn.ReLU()])

    def construct(self, x):
        return self.classifier(self.features(x))


class Serial(nn.Cell):
    """CoaT's serial block: holds the model's shared position encoder."""

    def __init__(self, cpe):
        super().__init__()
        self.cpe = cpe
        self.norm = nn.LayerNorm((2,))

    def construct(self, x):
        return self.norm(self.cpe(x))


class Coat(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cpe1 = nn.Dense(2, 2)
        self.blocks1 = nn.CellList([Serial(self.cpe1) for _ in range(2)])
        self.head = nn.Dense(2, 1)

    def construct(self, x):
        for block in self.blocks1:
            x = block(x)
        return self.head(x)


class Holder(nn.Cell):
    def __init__(self, **params):
        super().__init__()
        for key, param in params.items():
            setattr(self, key, param)


class TwoParams(nn.Cell):
    """One Parameter under two attributes, one held by two cells, a cell added to a placed
    cell, and one inserted with insert_child_to_cell (which renames nothing)."""

    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.ones(2, np.float32)))
        self.b = self.a
        w = Parameter(Tensor(np.ones(2, np.float32)))
        self.x = Holder(w=w)
        self.y = Holder(v=w)
        self.inner = Outer(nn.Dense(2, 2))
        self.inner.late = nn.Dense(2, 2)
        self.inner.insert_child_to_cell("kept", nn.Dense(2, 2))


def seq_deleted():
    """A SequentialCell of named cells, two appended, the first deleted: the appended ones
    move down a place and are renamed by text; the named one keeps its key."""
    seq = nn.SequentialCell(OrderedDict([("a", nn.Dense(2, 2)), ("b", nn.Dense(2, 2))]))
    seq.append(nn.Dense(2, 2))
    seq.append(nn.Dense(2, 2))
    del seq[0]
    return seq


def all_names():
    nets = {"seq": Mixer("seq"), "list": Mixer("list"), "list_ins0": Mixer("list", 2, 0),
            "list_ins1": Mixer("list", 3, 1), "list_ins_neg": Mixer("list", 3, -1),
            "built_list": Built("list"),
            "built_seq": Built("seq"), "outer": Outer(Mixer("seq", 2)),
            "dict": nn.CellDict({"a": Mix(), "b": Outer(Mix())}), "again": Reassigned(),
            "squeeze": Squeeze(), "squeeze_wrapped": Outer(Squeeze()), "coat": Coat(),
            "coat_wrapped": Outer(Coat()), "params": TwoParams(), "seq_deleted": seq_deleted()}
    return {key: {"names": [p.name for p in net.get_parameters()],
                  "paths": [n for n, _ in net.parameters_and_names()],
                  "trainable": [p.name for p in net.trainable_params()],
                  "cells": [n for n, _ in net.cells_and_names()]}
            for key, net in nets.items()}
'''
exec(MODELS)  # noqa: S102 - defines the models above and all_names

BLOCK = ["token_mix.0.gamma", "token_mix.0.beta", "token_mix.2.0.weight", "token_mix.2.0.bias",
         "channel_mix.0.weight", "channel_mix.0.bias"]


def _block(prefix: str) -> list[str]:
    return [prefix + n for n in BLOCK]


def test_mixer_appended_blocks_nest_in_the_first_blocks_names():
    # MindSpore 2.10 printed exactly these for Mixer("seq") and Mixer("list"): the second
    # block's first LayerNorm is '0.token_mix.1.token_mix.0.gamma', not '1.token_mix.0.gamma'
    expected = _block("0.") + _block("0.token_mix.1.") + _block("0.token_mix.2.") + \
        ["head.weight", "head.bias"]
    for kind in ("seq", "list"):
        net = Mixer(kind)
        assert [p.name for p in net.get_parameters()] == expected
        assert [p.name for p in net.trainable_params()] == expected
        # the paths stay the attribute paths
        assert [n for n, _ in net.parameters_and_names()] == \
            [f"blocks.{i}.{n}" for i in range(3) for n in BLOCK] + ["head.weight", "head.bias"]


def test_insert_renames_moved_blocks_by_text_as_mindspore():
    # MindSpore 2.10, Mixer("list", 2, 0): the moved blocks keep what followed the index
    # position (2) of their old names, so the old first block loses its 'token_mix.0.'
    net = Mixer("list", 2, 0)
    assert [p.name for p in net.get_parameters()][:12] == \
        _block("0.token_mix.0.") + ["0.token_mix.1." + n for n in
                                    ("gamma", "beta", "0.weight", "0.bias", "weight", "bias")]


@pytest.mark.parametrize("kind", ["seq", "list"])
def test_insert_outside_the_list_raises_as_mindspore(kind):
    """MindSpore takes an index in [-len, len] (a negative one counts from the end) and
    raises outside it, where Python's list.insert would clamp."""
    net = Mixer(kind, 2)
    with pytest.raises(IndexError, match=r"range \[-2, 2\], but got 3"):
        net.blocks.insert(3, Mix())
    with pytest.raises(IndexError, match=r"but got -3"):
        net.blocks.insert(-3, Mix())
    with pytest.raises(TypeError, match="must be int, but got float"):
        net.blocks.insert(1.0, Mix())
    assert len(net.blocks) == 2
    first = Mix()
    net.blocks.insert(-2, first)  # (before the first; the names: the oracle test's)
    assert len(net.blocks) == 3 and net.blocks[0] is first


def test_lists_built_whole_then_appended_get_index_names():
    # MindSpore 2.10: a list built from a Python list names each block by its index
    for kind in ("list", "seq"):
        net = Built(kind)
        assert [p.name for p in net.get_parameters()] == \
            [f"blocks.{i}.{n}" for i in range(3) for n in BLOCK]


def test_placing_the_model_in_another_cell_names_every_level():
    net = Outer(Mixer("seq", 2))
    expected = [f"backbone.blocks.{i}.{n}" for i in range(2) for n in BLOCK] + \
        ["backbone.head.weight", "backbone.head.bias"]
    assert [p.name for p in net.get_parameters()] == expected
    assert [n for n, _ in net.cells_and_names()][:4] == \
        ["", "backbone", "backbone.blocks", "backbone.blocks.0"]


def test_checkpoint_round_trip_uses_the_mindspore_names(tmp_path):
    net = Mixer("seq")
    rng = np.random.default_rng(0)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32)))
    ms.save_checkpoint(net, str(tmp_path / "m.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "m.ckpt"))
    assert list(loaded) == [p.name for p in net.get_parameters()]
    fresh = Mixer("seq")
    not_loaded, _ = ms.load_param_into_net(fresh, loaded)
    assert not_loaded == []
    for a, b in zip(net.get_parameters(), fresh.get_parameters(), strict=True):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_assigning_again_keeps_the_place():
    # MindSpore 2.10 printed this order (a dict assignment keeps a key's place)
    assert [p.name for p in Reassigned().get_parameters()] == \
        ["w2", "a.weight", "a.bias", "b.weight", "b.bias", "d.x.weight", "d.x.bias",
         "d.y.weight", "d.y.bias", "d.z.weight", "d.z.bias"]


class CompiledSqueeze(Squeeze):  # noqa: F821 - a graph needs construct's source in a file
    def construct(self, x):
        return self.classifier(self.features(x))


SQUEEZE = ["features.0.weight", "features.0.bias", "classifier.1.weight", "classifier.1.bias"]


def test_a_cell_held_twice_is_named_by_the_later_path_as_mindspore():
    # MindSpore 2.10 printed these: each assignment renames, so SqueezeNet's final_conv is
    # named by its place in classifier, assigned later; the paths stay the first ones
    net = Squeeze()
    assert [p.name for p in net.trainable_params()] == SQUEEZE
    assert list(net.parameters_dict()) == SQUEEZE
    assert [n for n, _ in net.parameters_and_names()][2:] == ["final_conv.weight",
                                                              "final_conv.bias"]
    assert "classifier.1" not in [n for n, _ in net.cells_and_names()]
    # CoaT: the shared encoder is renamed by each block that takes it, then by the list
    coat = Coat()
    assert [p.name for p in coat.trainable_params()][:2] == ["blocks1.0.cpe.weight",
                                                             "blocks1.0.cpe.bias"]


def test_placing_the_model_in_another_cell_renames_by_the_first_path():
    # MindSpore 2.10: update_parameters_name walks parameters_and_names, which meets the
    # shared cell first under its attribute
    assert [p.name for p in Outer(Squeeze()).trainable_params()][2:] == \
        ["backbone.final_conv.weight", "backbone.final_conv.bias"]
    assert [p.name for p in Outer(Coat()).trainable_params()][:2] == \
        ["backbone.cpe1.weight", "backbone.cpe1.bias"]


def test_parameters_held_twice_late_cells_and_inserted_children():
    # MindSpore 2.10: a named Parameter keeps its name when assigned again in the same
    # cell; a cell holding it placed later renames it; a cell added to an already placed
    # cell gets its own attribute name only; insert_child_to_cell renames nothing
    net = TwoParams()
    assert [p.name for p in net.trainable_params()] == \
        ["a", "y.v", "inner.backbone.weight", "inner.backbone.bias", "late.weight",
         "late.bias", "weight", "bias"]
    assert net.b is net.a and net.x.w is net.y.v


def test_squeeze_checkpoint_uses_the_later_path_and_loads(tmp_path):
    net = CompiledSqueeze()
    rng = np.random.default_rng(1)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32)))
    ms.save_checkpoint(net, str(tmp_path / "s.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "s.ckpt"))
    assert list(loaded) == SQUEEZE
    fresh = Squeeze()
    not_loaded, unused = ms.load_param_into_net(fresh, loaded)
    assert not_loaded == [] and unused == []
    for a, b in zip(net.get_parameters(), fresh.get_parameters(), strict=True):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    # and the model compiles: a graph reads the weight the checkpoint loaded
    x = Tensor(rng.standard_normal((3, 2)).astype(np.float32))
    net.set_train(False)
    fresh.set_train(False)
    want = fresh(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    try:
        got = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    w, b = (loaded[k].asnumpy() for k in SQUEEZE[:2])
    w2, b2 = (loaded[k].asnumpy() for k in SQUEEZE[2:])
    expected = np.maximum(np.maximum(x.asnumpy() @ w.T + b, 0) @ w2.T + b2, 0)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(want, expected, rtol=1e-5, atol=1e-6)


def test_a_sequential_cell_deleted_from_renames_the_appended_cells_by_text():
    # MindSpore 2.10 printed these: the named cell keeps its key, the appended ones move
    assert [p.name for p in seq_deleted().get_parameters()] == \
        ["b.weight", "b.bias", "1.weight", "1.bias", "2.weight", "2.bias"]


class LateTwice(nn.Cell):
    """Two cells added late under the same attribute: both named ``late.weight``."""

    def __init__(self):
        super().__init__()
        self.a = Outer(nn.Dense(2, 2))  # noqa: F821 (Outer is defined by MODELS)
        self.b = Outer(nn.Dense(2, 2))  # noqa: F821
        self.a.late = nn.Dense(2, 2)
        self.b.late = nn.Dense(2, 2)

    def construct(self, x):
        return self.b.late(self.a.late(x))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_first_call_renames_duplicate_names_by_path(mode):
    # MindSpore 2.10 printed these, in both modes: its first call finds two Parameters
    # named alike and renames every one by its path
    net = LateTwice()
    assert [p.name for p in net.get_parameters()][2:4] == ["late.weight", "late.bias"]
    ms.set_context(mode=mode, jit_target="python")
    try:
        net(Tensor(np.ones((1, 2), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert [p.name for p in net.get_parameters()] == \
        [f"{c}.{k}.{w}" for c in "ab" for k in ("backbone", "late") for w in ("weight", "bias")]


def test_celldict_refuses_containers_as_mindspore():
    # MindSpore 2.10: TypeError "For 'CellDict', the type of cell can not be CellDict,
    # CellList or SequentialCell, but got SequentialCell."
    with pytest.raises(TypeError, match="can not be CellDict, CellList or SequentialCell"):
        nn.CellDict({"b": nn.SequentialCell(nn.ReLU())})


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the names above are the ones MindSpore 2.10 printed")
def test_every_name_matches_mindspore_itself(tmp_path):
    script = "import json\nfrom collections import OrderedDict\nimport numpy as np\n" \
        "from mindspore import Parameter, Tensor, nn\n" + \
        MODELS + \
        "\nprint(json.dumps(all_names()))\n"
    proc = subprocess.run([str(MINDSPORE), "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all_names() == json.loads(proc.stdout.strip().splitlines()[-1])
