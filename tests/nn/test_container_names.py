"""Parameter names of blocks nested in SequentialCell / CellList / CellDict, as MindSpore 2.10
gives them: containers filled by ``append``/``insert`` read their namespace back from their
children's names (MindSpore's ``_get_prefix_and_index``), which for MLP-Mixer-style blocks
holding a SequentialCell under key ``0`` nests later blocks inside the first one's names."""

from __future__ import annotations

import json
import subprocess
import textwrap
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


def all_names():
    nets = {"seq": Mixer("seq"), "list": Mixer("list"), "list_ins0": Mixer("list", 2, 0),
            "list_ins1": Mixer("list", 3, 1), "built_list": Built("list"),
            "built_seq": Built("seq"), "outer": Outer(Mixer("seq", 2)),
            "dict": nn.CellDict({"a": Mix(), "b": Outer(Mix())}), "again": Reassigned()}
    return {key: {"names": [p.name for p in net.get_parameters()],
                  "paths": [n for n, _ in net.parameters_and_names()],
                  "trainable": [p.name for p in net.trainable_params()],
                  "cells": [n for n, _ in net.cells_and_names()]}
            for key, net in nets.items()}
'''
exec(MODELS)  # noqa: S102 - defines Mix, Mixer, Built, Outer, all_names

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


def test_celldict_refuses_containers_as_mindspore():
    # MindSpore 2.10: TypeError "For 'CellDict', the type of cell can not be CellDict,
    # CellList or SequentialCell, but got SequentialCell."
    with pytest.raises(TypeError, match="can not be CellDict, CellList or SequentialCell"):
        nn.CellDict({"b": nn.SequentialCell(nn.ReLU())})


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the names above are the ones MindSpore 2.10 printed")
def test_every_name_matches_mindspore_itself(tmp_path):
    script = "import json\nimport numpy as np\nfrom mindspore import Parameter, Tensor, nn\n" + \
        MODELS + \
        "\nprint(json.dumps(all_names()))\n"
    proc = subprocess.run([str(MINDSPORE), "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all_names() == json.loads(proc.stdout.strip().splitlines()[-1])
