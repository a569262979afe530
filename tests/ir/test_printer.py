"""The printer's text form: exact output for small graphs, constants, calls, regions."""

from __future__ import annotations

import numpy as np

from msc.errors import Loc
from msc.ir import dtypes
from msc.ir.nodes import Const, Graph, Module, Node, Var, make_attrs
from msc.ir.primitives import Primitive, get
from msc.ir.primitives.base import Attr, Builtin, on_all_targets
from msc.ir.printer import format_value, print_graph, print_module
from msc.ir.types import RefType, TupleType
from tests.ir import F32, emit, t  # noqa: F401


def call(nodes: list[Node], graph: Graph, *args: Var) -> Var:
    out = Var(graph.output.type)
    nodes.append(Node(get("Call"), tuple(args), make_attrs({"graph": graph}), out))
    return out


def test_brief_example_prints_exactly() -> None:
    x, w = Var(t(2, 3), "x"), Var(RefType(t(4, 3)), "fc.weight")
    nodes: list[Node] = []
    mm = emit(nodes, "MatMul", x, w, transpose_a=False, transpose_b=True,
              loc=Loc("/somewhere/models/model.py", 12, 14))
    out = emit(nodes, "Add", mm, 1)
    module = Module((Graph("Net_construct", (x, w), tuple(nodes), out),), "Net_construct")
    assert print_module(module) == """\
# IR entry: @Net_construct
# Total subgraphs: 1
# Total params: 2
# Params:
%para1_x : <Tensor[Float32], (2, 3)>
%para2_fc.weight : <Ref[Tensor[Float32]], (4, 3)>  :  has_default

subgraph @Net_construct(%para1_x, %para2_fc.weight) {
  %0 = MatMul(%para1_x, %para2_fc.weight) {transpose_b=True} : <Tensor[Float32], (2, 4)>  \
# model.py:12:15
  %1 = Add(%0, 1) : <Tensor[Float32], (2, 4)>
  Return(%1)
}
"""
    assert "# model.py" not in print_module(module, locs=False)
    assert print_module(module, locs=False).count("\n") == print_module(module).count("\n")


def test_names_are_assigned_at_print_time_and_deterministic() -> None:
    def build() -> Module:
        x = Var(t(3), "x")
        nodes: list[Node] = []
        a = emit(nodes, "Exp", x)
        b = emit(nodes, "Neg", a)
        return Module((Graph("f", (x,), tuple(nodes), b),), "f")

    first, second = print_module(build()), print_module(build())
    assert first == second  # fresh Vars each time: no id() leaks into the text
    assert "%0 = Exp(%para1_x)" in first and "%1 = Neg(%0)" in first


def test_constants_print_inline() -> None:
    assert format_value(1) == "1"
    assert format_value(2.5) == "2.5"
    assert format_value(True) == "True"
    assert format_value(np.array(0, np.int32)) == "Tensor(shape=[], dtype=Int32, value=0)"
    assert format_value(np.array([[1, 2], [3, 4]], np.int64)) == \
        "Tensor(shape=[2, 2], dtype=Int64, value=[[1, 2], [3, 4]])"
    assert format_value(np.array([0.1, -2.0], np.float32)) == \
        "Tensor(shape=[2], dtype=Float32, value=[0.1, -2.0])"
    assert format_value(np.array([True, False])) == \
        "Tensor(shape=[2], dtype=Bool, value=[True, False])"
    assert format_value(np.zeros(9, np.float16)) == \
        "Tensor(shape=[9], dtype=Float16, value=...)"
    assert format_value(np.zeros(8, np.float16)).endswith("value=[0.0, 0.0, 0.0, 0.0, "
                                                          "0.0, 0.0, 0.0, 0.0])")
    assert format_value((1, 2)) == "(1, 2)"
    assert format_value((3,)) == "(3,)"
    assert format_value(()) == "()"
    assert format_value(dtypes.int32) == "Int32"
    assert format_value("tanh") == '"tanh"'
    assert format_value(None) == "None"


def test_attrs_print_sorted_with_dtype_and_tuple_values() -> None:
    x = Var(t(2, 3), "x")
    nodes: list[Node] = []
    c = emit(nodes, "Cast", x, dtype=dtypes.float16)
    text = print_graph(Graph("g", (x,), tuple(nodes), c))
    assert text == """\
subgraph @g(%para1_x : <Tensor[Float32], (2, 3)>) {
  %0 = Cast(%para1_x) {dtype=Float16} : <Tensor[Float16], (2, 3)>
  Return(%0)
}
"""


def test_calls_and_subgraphs() -> None:
    y = Var(t(2), "y")
    inner: list[Node] = []
    neg = emit(inner, "Neg", y)
    block = Graph("Block_construct", (y,), tuple(inner), neg, frozenset({"reusable"}))
    x = Var(t(2), "x")
    nodes: list[Node] = []
    a = call(nodes, block, x)
    b = call(nodes, block, a)
    out = emit(nodes, "MakeTuple", a, b)
    module = Module((Graph("Net_construct", (x,), tuple(nodes), out), block), "Net_construct")
    assert print_module(module) == """\
# IR entry: @Net_construct
# Total subgraphs: 2
# Total params: 1
# Params:
%para1_x : <Tensor[Float32], (2)>

subgraph @Net_construct(%para1_x) {
  %0 = @Block_construct(%para1_x) : <Tensor[Float32], (2)>
  %1 = @Block_construct(%0) : <Tensor[Float32], (2)>
  %2 = MakeTuple(%0, %1) : <Tuple[Tensor[Float32], (2), Tensor[Float32], (2)]>
  Return(%2)
}

subgraph attr: reusable
subgraph @Block_construct(%para2_y : <Tensor[Float32], (2)>) {
  %0 = Neg(%para2_y) : <Tensor[Float32], (2)>
  Return(%0)
}
"""


def test_a_callee_the_module_does_not_list_is_printed_after_the_entry() -> None:
    y = Var(t(2), "y")
    inner: list[Node] = []
    e = emit(inner, "Exp", y)
    block = Graph("Block", (y,), tuple(inner), e)
    x = Var(t(2), "x")
    nodes: list[Node] = []
    out = call(nodes, block, x)
    text = print_module(Module((Graph("main", (x,), tuple(nodes), out),), "main"))
    assert "# Total subgraphs: 2" in text
    assert text.index("subgraph @main") < text.index("subgraph @Block(%para2_y")


def test_regions_print_nested_after_their_node_and_share_names() -> None:
    x = Var(t(2), "x")
    body: list[Node] = []
    r = emit(body, "Neg", x)  # a region may use the enclosing graph's values
    region = Graph("then_branch", (), tuple(body), r)
    nodes: list[Node] = []
    a = emit(nodes, "Exp", x)
    holder = Var(t(2))
    region_op = Primitive("Region", lambda *_, then: then.output.type, lambda *_, then: None,
                          on_all_targets(Builtin()), attrs=(Attr("then"),))
    nodes.append(Node(region_op, (a,), make_attrs({"then": region}), holder))
    b = emit(nodes, "Abs", holder)
    text = print_module(Module((Graph("f", (x,), tuple(nodes), b),), "f"), locs=False)
    assert text.split("\n\n", 1)[1] == """\
subgraph @f(%para1_x) {
  %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
  %1 = Region(%0) {then=@then_branch} : <Tensor[Float32], (2)>
    region @then_branch() {
      %2 = Neg(%para1_x) : <Tensor[Float32], (2)>
      Return(%2)
    }
  %3 = Abs(%1) : <Tensor[Float32], (2)>
  Return(%3)
}
"""


def test_tuple_typed_constant_output() -> None:
    x = Var(t(2), "x")
    g = Graph("f", (x,), (), Const((1, np.array([1.5], np.float32))))
    assert isinstance(g.output.type, TupleType)
    assert "Return((1, Tensor(shape=[1], dtype=Float32, value=[1.5])))" in print_graph(g)
