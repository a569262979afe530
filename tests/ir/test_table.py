"""The primitive table is complete: every op has a lowering for every target, a vjp
rule or a listed reason for none, a batching rule or a listed reason for none, and an
attribute schema that is the only place its defaults are written."""

from __future__ import annotations

import inspect

import pytest

from msc.ir.primitives import PRIMITIVES, TARGETS
from msc.ir.primitives.base import (
    Alias,
    ArrayExpr,
    Builtin,
    Elementwise,
    LoopNest,
    Primitive,
    Statements,
)
from msc.ir.primitives.exempt import NO_BATCH, NO_VJP

LOWERINGS = (Elementwise, ArrayExpr, LoopNest, Statements, Alias, Builtin)
OPS = sorted(PRIMITIVES)


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_lowering_for_every_target(name: str) -> None:
    prim = PRIMITIVES[name]
    for target in TARGETS:
        assert isinstance(prim.lowering[target], LOWERINGS), (name, target)
    if prim.elementwise:  # fusion needs the expression form on every target
        assert all(isinstance(prim.lowering[t], Elementwise) for t in TARGETS), name


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_vjp_rule_or_a_reason(name: str) -> None:
    prim = PRIMITIVES[name]
    assert (prim.vjp is not None) != (name in NO_VJP), name
    assert prim.vjp is not None or NO_VJP[name].strip()


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_batch_rule_or_a_reason(name: str) -> None:
    prim = PRIMITIVES[name]
    assert (prim.batch is not None) != (name in NO_BATCH), name
    assert prim.batch is not None or NO_BATCH[name].strip()


def test_the_exemption_lists_name_only_real_ops() -> None:
    assert set(NO_VJP) <= set(PRIMITIVES) and set(NO_BATCH) <= set(PRIMITIVES)


@pytest.mark.parametrize("name", OPS)
def test_attribute_defaults_live_in_the_schema_only(name: str) -> None:
    """infer and impl take every attribute as a keyword without a default: the schema
    supplies them once, when a node is built."""
    prim = PRIMITIVES[name]
    schema = {a.name for a in prim.attrs}
    for fn in (prim.infer, prim.impl):
        params = inspect.signature(fn).parameters.values()
        keywords = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
        assert keywords <= schema, (name, fn.__name__, keywords - schema)
        defaults = [p.name for p in params
                    if p.name in schema and p.default is not p.empty]
        assert not defaults, (name, fn.__name__, defaults)


def test_register_refuses_an_op_without_a_lowering_for_every_target() -> None:
    from msc.ir.primitives import register

    half = Primitive("HalfDone", lambda x: x, lambda x: x, {TARGETS[0]: Builtin()})
    with pytest.raises(ValueError, match="no lowering for"):
        register(half)
    assert "HalfDone" not in PRIMITIVES


def test_ops_are_named_by_their_records() -> None:
    from msc.ir.primitives import Op

    assert Op.Add is PRIMITIVES["Add"] and repr(Op.Add) == "Op.Add"
    assert Op.AssignAdd.update is Op.Add and Op.AssignSub.update is Op.Sub
    assert Op.Assign.update is None and Op.Assign.writes and not Op.Load.writes
    with pytest.raises(AttributeError, match="no primitive named 'Addd'"):
        Op.Addd  # noqa: B018
