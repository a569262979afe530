"""nn.Cell: parameter naming, registry order, traversal, containers, eager calls."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import msc as ms
from msc import nn


def _p(*shape: int, name: str | None = None, requires_grad: bool = True) -> ms.Parameter:
    return ms.Parameter(ms.Tensor(np.ones(shape, np.float32)), name=name,
                        requires_grad=requires_grad)


class Block(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = _p(2, 2)
        self.w2 = _p(2)

    def construct(self, x):
        return x


class ListNet(nn.Cell):
    """Blocks in a CellList, assembled in one of several orders."""

    def __init__(self, order: str) -> None:
        super().__init__()
        if order == "list_literal":
            self.blocks = nn.CellList([Block(), Block()])
        elif order == "append_after_assign":
            self.blocks = nn.CellList()
            self.blocks.append(Block())
            self.blocks.append(Block())
        elif order == "assign_after_append":
            blocks = nn.CellList()
            blocks.append(Block())
            blocks.extend([Block()])
            self.blocks = blocks
        elif order == "insert":
            self.blocks = nn.CellList()
            self.blocks.insert(0, Block())
            self.blocks.insert(1, Block())

    def construct(self, x):
        return x


EXPECTED_LIST_NAMES = ["blocks.0.w1", "blocks.0.w2", "blocks.1.w1", "blocks.1.w2"]
# MindSpore 2.10: cells added to a container that was empty when the top-level cell took
# it are named without the container's prefix (until the model is placed in another cell)
UNPREFIXED_LIST_NAMES = ["0.w1", "0.w2", "1.w1", "1.w2"]


@pytest.mark.parametrize("order, names", [("list_literal", EXPECTED_LIST_NAMES),
                                          ("append_after_assign", UNPREFIXED_LIST_NAMES),
                                          ("assign_after_append", EXPECTED_LIST_NAMES),
                                          ("insert", UNPREFIXED_LIST_NAMES)])
def test_celllist_parameter_names_follow_mindspore_build_order_rules(order, names):
    net = ListNet(order)
    assert [p.name for p in net.trainable_params()] == names
    assert [n for n, _ in net.parameters_and_names()] == EXPECTED_LIST_NAMES


def test_parameter_added_to_a_block_after_it_joined_the_list_keeps_its_name():
    net = ListNet("list_literal")
    net.blocks[1].extra = _p(3)
    assert net.blocks[1].extra.name == "extra"  # as in MindSpore 2.10


def test_nested_model_names_get_every_level():
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = ListNet("append_after_assign")
            self.head = nn.Dense(2, 1)

    names = [p.name for p in Outer().trainable_params()]
    assert names == ["net." + n for n in EXPECTED_LIST_NAMES] + ["head.weight", "head.bias"]


def test_own_parameters_come_before_subcells_whatever_the_attribute_order():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sub = Block()
            self.dense = nn.Dense(2, 2)
            self.scale = _p(1)  # assigned last, listed first

    names = [p.name for p in Net().trainable_params()]
    assert names == ["scale", "sub.w1", "sub.w2", "dense.weight", "dense.bias"]


def test_parameter_names_in_a_subcell_are_attribute_paths():
    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = _p(1, name="kernel")
            self.v = _p(1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

    net = Net()
    # MindSpore 2.10 renames a sub-cell's weights by attribute path, explicit names too
    assert [p.name for p in net.trainable_params()] == ["inner.w", "inner.v"]
    assert [n for n, _ in net.parameters_and_names()] == ["inner.w", "inner.v"]
    assert list(net.parameters_dict()) == ["inner.w", "inner.v"]
    assert Inner().w.name == "kernel"


def test_auto_prefix_false_leaves_child_names_unprefixed():
    class Flat(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.dense = nn.Dense(2, 3)

    assert [p.name for p in Flat().trainable_params()] == ["weight", "bias"]


def test_wrapper_without_auto_prefix_keeps_the_network_names():
    class Wrapper(nn.Cell):
        def __init__(self, net, auto_prefix):
            super().__init__(auto_prefix=auto_prefix)
            self.network = net

    net = ListNet("list_literal")
    Wrapper(net, auto_prefix=False)
    assert [p.name for p in net.trainable_params()] == EXPECTED_LIST_NAMES
    other = ListNet("list_literal")
    kept = Wrapper(other, auto_prefix=True)
    assert [p.name for p in kept.trainable_params()] == ["network." + n
                                                         for n in EXPECTED_LIST_NAMES]


def test_shared_parameter_listed_once_and_keeps_its_owner_name():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(2, 2)
            self.dec = nn.Dense(2, 2)
            self.dec.weight = self.enc.weight

    net = Tied()
    params = net.trainable_params()
    assert [p.name for p in params] == ["enc.weight", "enc.bias", "dec.bias"]
    assert params[0] is net.dec.weight


def test_deep_copied_blocks_get_their_own_names():
    import copy

    block = Block()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([copy.deepcopy(block) for _ in range(2)])

    net = Net()
    assert [p.name for p in net.trainable_params()] == EXPECTED_LIST_NAMES
    assert block.w1.name == "w1"
    assert net.blocks[0].w1 is not net.blocks[1].w1


def test_a_cell_held_twice_is_named_by_its_later_attribute():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.first = Block()
            self.alias = self.first

    net = Net()
    # MindSpore 2.10 renames at each assignment: the later attribute names the weights,
    # while the paths (and cells_and_names) stay the first ones
    assert [p.name for p in net.trainable_params()] == ["alias.w1", "alias.w2"]
    assert [n for n, _ in net.parameters_and_names()] == ["first.w1", "first.w2"]
    assert [n for n, _ in net.cells_and_names()] == ["", "first"]
    del net.first
    assert net.alias.w1.name == "alias.w1"


def test_parameter_tuple_attribute_does_not_rename_network_weights():
    class Opt(nn.Cell):
        def __init__(self, params):
            super().__init__()
            self.parameters = ms.ParameterTuple(params)

    net = ListNet("list_literal")
    opt = Opt(net.trainable_params())
    assert [p.name for p in opt.trainable_params()] == EXPECTED_LIST_NAMES
    assert isinstance(opt.parameters, ms.ParameterTuple)


def test_untrainable_params_are_separate():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = _p(2)
            self.stat = _p(2, requires_grad=False)

    net = Net()
    assert [p.name for p in net.trainable_params()] == ["w"]
    assert [p.name for p in net.untrainable_params()] == ["stat"]
    assert [p.name for p in net.get_parameters()] == ["w", "stat"]


def test_trainable_params_recurse_false_lists_only_own():
    net = ListNet("list_literal")
    net.own = _p(1)
    assert [p.name for p in net.trainable_params(recurse=False)] == ["own"]


def test_cells_and_names_order_and_name_cells():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Block(), Block()])
            self.head = nn.Dense(2, 1)

    net = Net()
    pairs = list(net.cells_and_names())
    assert [n for n, _ in pairs] == ["", "blocks", "blocks.0", "blocks.1", "head"]
    assert pairs[0][1] is net and pairs[2][1] is net.blocks[0]
    assert list(net.name_cells()) == ["blocks", "head"]
    assert list(net.cells()) == [net.blocks, net.head]


def test_set_train_reaches_every_subcell_and_defaults_to_inference():
    net = ListNet("list_literal")
    assert not net.training and not net.blocks[0].training
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())


def test_attribute_registries_getattr_setattr_delattr():
    net = Block()
    assert isinstance(net.w1, ms.Parameter) and "w1" not in net.__dict__
    with pytest.raises(AttributeError, match="The 'Block' object has no attribute 'nope'"):
        _ = net.nope
    old = net.w2
    net.w2 = ms.Tensor(np.full(2, 7, np.float32))  # a Tensor updates the weight in place
    assert net.w2 is old and net.w2.asnumpy().tolist() == [7.0, 7.0]
    with pytest.raises(TypeError, match="must be Parameter"):
        net.w2 = "text"
    del net.w2
    assert [p.name for p in net.trainable_params()] == ["w1"]
    with pytest.raises(AttributeError):
        _ = net.w2


def test_assigning_none_to_a_subcell_removes_it():
    net = ListNet("list_literal")
    net.blocks = None
    assert net.blocks is None
    assert net.trainable_params() == []
    with pytest.raises(TypeError, match="must be Cell"):
        net.blocks = 3


def test_parameter_before_init_is_rejected():
    class Bad(nn.Cell):
        def __init__(self):
            self.w = _p(1)
            super().__init__()

    with pytest.raises(AttributeError, match="before Cell.__init__"):
        Bad()


def test_insert_child_and_param_to_cell():
    net = nn.Cell()
    net.insert_child_to_cell("sub", Block())
    net.insert_param_to_cell("bias", _p(1))
    # MindSpore 2.10: insert_child_to_cell renames nothing (an attribute assignment does)
    assert [p.name for p in net.trainable_params()] == ["bias", "w1", "w2"]
    assert [n for n, _ in net.parameters_and_names()] == ["bias", "sub.w1", "sub.w2"]
    with pytest.raises(KeyError):
        net.insert_child_to_cell("a.b", Block())
    with pytest.raises(TypeError):
        net.insert_child_to_cell("c", 5)


def test_repr_lists_children_and_settings():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 4)
            self.act = nn.ReLU()

    text = repr(Net())
    assert text.startswith("Net<")
    assert "(fc): Dense<input_channels=3, output_channels=4, has_bias=True>" in text
    assert "(act): ReLU<>" in text


def test_cell_without_construct_raises_on_call():
    with pytest.raises(AttributeError):
        nn.Cell()(ms.Tensor([1.0]))


# --- CellList ---------------------------------------------------------------------------


def test_celllist_indexing_slicing_and_errors():
    blocks = [Block(), Block(), Block()]
    cl = nn.CellList(blocks)
    assert len(cl) == 3 and list(cl) == blocks
    assert cl[-1] is blocks[2]
    part = cl[1:]
    assert isinstance(part, nn.CellList) and list(part) == blocks[1:]
    assert blocks[1].w1.name == "0.w1"  # MindSpore 2.10: the slice's new list renames them
    with pytest.raises(IndexError):
        _ = cl[3]
    with pytest.raises(TypeError):
        _ = cl["0"]
    with pytest.raises(TypeError, match="subclass of Cell"):
        cl.append(3)


def test_celllist_delete_insert_and_setitem_rename_by_position():
    net = ListNet("list_literal")
    first, second = net.blocks[0], net.blocks[1]
    del net.blocks[0]
    assert len(net.blocks) == 1 and second.w1.name == "blocks.0.w1"
    net.blocks.insert(0, first)
    assert first.w1.name == "blocks.0.w1" and second.w1.name == "blocks.1.w1"
    fresh = Block()
    net.blocks[1] = fresh
    assert fresh.w1.name == "blocks.1.w1"
    assert [p.name for p in net.trainable_params()] == EXPECTED_LIST_NAMES


# --- SequentialCell ---------------------------------------------------------------------


class AddConst(nn.Cell):
    def __init__(self, c: float):
        super().__init__()
        self.c = c

    def construct(self, x):
        return x + self.c


class MulConst(AddConst):
    def construct(self, x):
        return x * self.c


def test_sequential_applies_cells_in_order():
    seq = nn.SequentialCell([AddConst(1.0), MulConst(3.0), AddConst(-2.0)])
    x = np.array([0.5, -1.0, 2.0], np.float32)
    out = seq(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), (x + 1.0) * 3.0 - 2.0, rtol=1e-6)
    assert out.dtype == ms.float32


def test_sequential_from_ordered_dict_uses_its_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.features = nn.SequentialCell(OrderedDict(
                [("fc1", nn.Dense(2, 3)), ("act", nn.ReLU()), ("fc2", nn.Dense(3, 1))]))

    net = Net()
    assert [p.name for p in net.trainable_params()] == [
        "features.fc1.weight", "features.fc1.bias", "features.fc2.weight", "features.fc2.bias"]
    assert isinstance(net.features[1], nn.ReLU)


def test_sequential_indexing_append_len_and_delete():
    seq = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
    assert len(seq) == 2 and isinstance(seq[-1], nn.ReLU)
    seq.append(nn.Dense(2, 1))
    assert len(seq) == 3 and seq[2].weight.name == "2.weight"
    head = seq[:2]
    assert isinstance(head, nn.SequentialCell) and len(head) == 2
    del seq[0]
    assert isinstance(seq[0], nn.ReLU) and seq[1].weight.name == "1.weight"
    with pytest.raises(TypeError):
        nn.SequentialCell(5)


def test_eager_call_runs_construct_with_kwargs():
    class Affine(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([2.0, 3.0], np.float32)))

        def construct(self, x, shift=0.0):
            return x * self.w + shift

    out = Affine()(ms.Tensor(np.array([1.0, 1.0], np.float32)), shift=1.0)
    np.testing.assert_allclose(out.asnumpy(), [3.0, 4.0])
