"""Each invariant of ``verify`` has a failing example; errors mark the bad line ``>>``."""

from __future__ import annotations

from typing import Iterator

import pytest

from msc.errors import InternalCompilerError, Loc
from msc.ir import dtypes
from msc.ir.nodes import Graph, Module, Node, Var, make_attrs
from msc.ir.primitives import PRIMITIVES, Primitive, get, register
from msc.ir.primitives.base import Attr, Builtin, on_all_targets
from msc.ir.types import TensorType
from msc.ir.verify import verify
from tests.ir import F32, emit, t  # noqa: F401


def one(graph: Graph, *more: Graph) -> Module:
    return Module((graph,) + more, graph.name)


def failure(module: Module) -> InternalCompilerError:
    with pytest.raises(InternalCompilerError) as info:
        verify(module)
    return info.value


def marked(err: InternalCompilerError) -> list[str]:
    return [line for line in err.message.splitlines() if line.startswith(">> ")]


def chain() -> tuple[Var, list[Node]]:
    """x -> Exp -> Neg -> Abs -> Sqrt, enough lines for a window."""
    x = Var(t(2), "x")
    nodes: list[Node] = []
    v = x
    for op in ("Exp", "Neg", "Abs", "Sqrt"):
        v = emit(nodes, op, v)
    return x, nodes


def test_a_valid_module_passes() -> None:
    x, nodes = chain()
    verify(one(Graph("f", (x,), tuple(nodes), nodes[-1].out)))


def test_use_before_definition_is_marked() -> None:
    x = Var(t(2), "x")
    later = Var(t(2))
    first = Var(t(2))
    nodes = (Node(get("Add"), (x, later), (), first, Loc("model.py", 7, 4)),
             Node(get("Neg"), (x,), (), later))
    err = failure(one(Graph("f", (x,), nodes, first)))
    assert isinstance(err, RuntimeError)
    assert "IR verification failed in @f: the node uses %1 before it is defined" in err.message
    assert marked(err) == [">>   %0 = Add(%para1_x, %1) : <Tensor[Float32], (2)>  # model.py:7:5"]
    assert err.loc == Loc("model.py", 7, 4)
    assert "   subgraph @f(%para1_x) {" in err.message  # the lines around it are shown
    assert "     %1 = Neg(%para1_x)" in err.message


def test_a_value_from_nowhere() -> None:
    x, nodes = chain()
    ghost = Var(t(2), "ghost")
    bad = Var(t(2))
    nodes.insert(2, Node(get("Add"), (nodes[1].out, ghost), (), bad))
    err = failure(one(Graph("f", (x,), tuple(nodes), nodes[-1].out)))
    assert "uses %5 (hint 'ghost'), which @f does not define" in err.message
    assert marked(err) == [">>   %2 = Add(%1, %5) : <Tensor[Float32], (2)>"]
    window = err.message.splitlines()[1:]
    assert len(window) == 7  # three lines each side
    assert window[2] == "     %1 = Neg(%0) : <Tensor[Float32], (2)>"
    assert window[4] == "     %3 = Abs(%1) : <Tensor[Float32], (2)>"


def test_a_var_defined_twice() -> None:
    x = Var(t(2), "x")
    v = Var(t(2))
    nodes = (Node(get("Exp"), (x,), (), v), Node(get("Neg"), (x,), (), v))
    err = failure(one(Graph("f", (x,), nodes, v)))
    assert "%0 is defined twice" in err.message
    assert marked(err)[0].startswith(">>   %0 = Neg(")


def test_a_parameter_shared_by_two_graphs_is_defined_twice() -> None:
    x = Var(t(2), "x")
    err = failure(Module((Graph("f", (x,), (), x), Graph("g", (x,), (), x)), "f"))
    assert "is defined twice" in err.message


def test_unknown_op() -> None:
    x, nodes = chain()
    frobnicate = Primitive("Frobnicate", lambda x: x, lambda x: x, on_all_targets(Builtin()))
    nodes.append(Node(frobnicate, (nodes[-1].out,), (), Var(t(2))))
    err = failure(one(Graph("f", (x,), tuple(nodes), nodes[-1].out)))
    assert "unknown op Op.Frobnicate (not in the primitive table)" in err.message
    assert marked(err) == [">>   %4 = Frobnicate(%3) : <Tensor[Float32], (2)>"]


def test_wrong_type() -> None:
    x = Var(t(2, 3), "x")
    out = Var(t(3, 2))
    err = failure(one(Graph("f", (x,), (Node(get("Exp"), (x,), (), out),), out)))
    assert ("its type <Tensor[Float32], (3, 2)> differs from the type "
            "<Tensor[Float32], (2, 3)> that Exp infers") in err.message
    assert marked(err) == [">>   %0 = Exp(%para1_x) : <Tensor[Float32], (3, 2)>"]


def test_wrong_dtype_of_a_cast() -> None:
    x = Var(t(2), "x")
    out = Var(TensorType(dtypes.float16, (2,)))
    node = Node(get("Cast"), (x,), make_attrs({"dtype": dtypes.int32}), out)
    err = failure(one(Graph("f", (x,), (node,), out)))
    assert "that Cast infers" in err.message and "<Tensor[Int32], (2)>" in err.message


def test_inputs_the_primitive_rejects() -> None:
    x, y = Var(t(2, 3), "x"), Var(t(4), "y")
    out = Var(t(2, 3))
    err = failure(one(Graph("f", (x, y), (Node(get("Add"), (x, y), (), out),), out)))
    assert "its inputs are invalid: For 'Add', shapes (2, 3) and (4,) cannot broadcast" \
        in err.message


def test_undefined_output_marks_the_return_line() -> None:
    x, nodes = chain()
    err = failure(one(Graph("f", (x,), tuple(nodes), Var(t(2), "lost"))))
    assert "the output uses %4 (hint 'lost'), which @f does not define" in err.message
    assert marked(err) == [">>   Return(%4)"]


def test_missing_entry_and_duplicate_names() -> None:
    x = Var(t(2), "x")
    assert "entry graph @main is not in the module" in \
        failure(Module((Graph("f", (x,), (), x),), "main")).message
    y = Var(t(2), "y")
    assert "two graphs named @f" in \
        failure(Module((Graph("f", (x,), (), x), Graph("f", (y,), (), y)), "f")).message


def block() -> Graph:
    y = Var(t(2), "y")
    nodes: list[Node] = []
    neg = emit(nodes, "Neg", y)
    return Graph("Block", (y,), tuple(nodes), neg)


def test_calls_are_checked_against_the_callee() -> None:
    callee = block()
    x = Var(t(2), "x")
    out = Var(t(2))
    good = Node(get("Call"), (x,), make_attrs({"graph": callee}), out)
    verify(Module((Graph("main", (x,), (good,), out), callee), "main"))

    z = Var(TensorType(dtypes.int32, (2,)), "z")
    bad_arg = Node(get("Call"), (z,), make_attrs({"graph": callee}), out)
    err = failure(Module((Graph("main", (z,), (bad_arg,), out), callee), "main"))
    assert "argument types do not match @Block's parameters (<Tensor[Float32], (2)>)" \
        in err.message

    wrong = Var(t(3))
    bad_out = Node(get("Call"), (x,), make_attrs({"graph": callee}), wrong)
    err = failure(Module((Graph("main", (x,), (bad_out,), wrong), callee), "main"))
    assert "differs from @Block's output type <Tensor[Float32], (2)>" in err.message
    assert marked(err) == [">>   %0 = @Block(%para1_x) : <Tensor[Float32], (3)>"]


def test_a_call_of_a_stale_copy_of_a_module_graph() -> None:
    listed, stale = block(), block()
    x = Var(t(2), "x")
    out = Var(t(2))
    node = Node(get("Call"), (x,), make_attrs({"graph": stale}), out)
    err = failure(Module((Graph("main", (x,), (node,), out), listed), "main"))
    assert "calls a graph @Block that is not the module's @Block" in err.message


@pytest.fixture
def region_op() -> Iterator[str]:
    """A test-only op that runs its ``body`` region and returns the body's output."""
    prim = Primitive("TestRegion", lambda *_, body: body.output.type,
                     lambda *_, body: None, on_all_targets(Builtin()), attrs=(Attr("body"),))
    register(prim)
    yield prim.name
    del PRIMITIVES[prim.name]


def test_regions_see_enclosing_values_but_not_the_reverse(region_op: str) -> None:
    x = Var(t(2), "x")
    inner = Var(t(2))
    region = Graph("body", (), (Node(get("Neg"), (x,), (), inner),), inner)
    holder = Var(t(2))
    node = Node(get(region_op), (), make_attrs({"body": region}), holder)
    verify(one(Graph("f", (x,), (node,), holder)))

    leak = Var(t(2))
    node = Node(get(region_op), (), make_attrs({"body": region}), Var(t(2)))
    after = Node(get("Exp"), (inner,), (), leak)
    err = failure(one(Graph("f", (x,), (node, after), leak)))
    assert "uses %1, which @f does not define" in err.message
    assert marked(err) == [">>   %2 = Exp(%1) : <Tensor[Float32], (2)>"]


def test_a_region_cannot_use_a_later_value(region_op: str) -> None:
    x = Var(t(2), "x")
    later = Var(t(2))
    inner = Var(t(2))
    region = Graph("body", (), (Node(get("Add"), (x, later), (), inner),), inner)
    holder = Var(t(2))
    nodes = (Node(get(region_op), (), make_attrs({"body": region}), holder),
             Node(get("Neg"), (x,), (), later))
    err = failure(one(Graph("f", (x,), nodes, holder)))
    assert "IR verification failed in @body: the node uses %2 before it is defined" \
        in err.message


def test_a_recurse_naming_a_graph_the_module_lacks_fails() -> None:
    x = Var(t(2), "x")
    nodes: list[Node] = []
    emit(nodes, "Recurse", x, graph="g", result=t(2))
    err = failure(one(Graph("f", (x,), tuple(nodes), nodes[-1].out)))
    assert "it recurses into @g, which the module does not hold" in err.message
    verify(one(Graph("g", (x,), tuple(nodes), nodes[-1].out)))  # its own name: valid
