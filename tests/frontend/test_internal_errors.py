"""msc's own bugs are ``InternalCompilerError``s at the user's line, never disguised as
the user's ``TypeError``: a bug planted in a type rule shows it, in graph mode and
eagerly, while the user's own type errors stay ``TypeError``s."""

from __future__ import annotations

import inspect
from typing import Any, Iterator

import numpy as np
import pytest

import msc as ms
from msc import ops
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphTypeError, InternalCompilerError
from msc.ir.primitives import Op


@pytest.fixture
def broken_exp() -> Iterator[None]:
    """``Exp``'s type rule with a bug in it (a KeyError, as a typo in a table lookup)."""
    original = Op.Exp.infer

    def infer(input: Any) -> Any:
        return {}["no such key"]

    object.__setattr__(Op.Exp, "infer", infer)  # the record is frozen: plant it anyway
    yield
    object.__setattr__(Op.Exp, "infer", original)


def net(x: Any) -> Any:
    y = x + 1
    return ops.exp(y)  # the planted bug's line


def line_of(text: str) -> int:
    lines, first = inspect.getsourcelines(net)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_bug_in_a_type_rule_is_internal_and_names_the_users_line(broken_exp: None) -> None:
    x = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(InternalCompilerError) as info:
        compile_entry(net, (arg_spec(x),))
    err = info.value
    assert not isinstance(err, TypeError)
    assert err.loc is not None and err.loc.file == __file__
    assert err.loc.line == line_of("ops.exp(y)")
    assert "the type rule of 'Exp' failed" in err.message and "KeyError" in err.message


def test_the_same_bug_eagerly_is_internal_too(broken_exp: None) -> None:
    with pytest.raises(InternalCompilerError, match="the type rule of 'Exp' failed"):
        net(ms.Tensor(np.ones(3, np.float32)))


def test_the_users_own_type_error_stays_a_type_error() -> None:
    def bad(x: Any) -> Any:
        return ops.exp(x) + ms.Tensor(np.ones((4, 5), np.float32))

    x = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError) as info:  # a ShapeError: MindSpore raises ValueError
        compile_entry(bad, (arg_spec(x),))
    assert not isinstance(info.value, InternalCompilerError)
    with pytest.raises(GraphTypeError, match="must not be a bool Tensor"):
        ops.neg(ms.Tensor(np.ones(3, np.bool_)))


def test_an_operand_of_the_wrong_kind_is_the_users_type_error_in_both_modes() -> None:
    def add_text(x: Any) -> Any:
        return x + "abc"  # the user's mistake

    x = ms.Tensor(np.ones(3, np.float32))
    lines, first = inspect.getsourcelines(add_text)
    line = first + next(i for i, text in enumerate(lines) if '"abc"' in text)
    with pytest.raises(GraphTypeError, match="expected a Tensor or a number, but got str") as g:
        compile_entry(add_text, (arg_spec(x),))
    with pytest.raises(GraphTypeError, match="expected a Tensor or a number, but got str") as e:
        add_text(x)
    for err in (g.value, e.value):
        assert not isinstance(err, InternalCompilerError)
        assert err.loc is not None and (err.loc.file, err.loc.line) == (__file__, line)
