"""Errors: MindSpore's exception types, the user's file, line and column, a caret."""

import numpy as np
import pytest

import msc as ms
from msc.compiler import arg_spec, compile_entry

from .cases import bad_models as bm


def f32(*shape):
    return ms.Tensor(np.ones(shape, np.float32))


def compile_error(net, *args, expected=ms.MscError):
    with pytest.raises(expected) as info:
        compile_entry(net, tuple(arg_spec(a) for a in args))
    return info.value


def check_location(err, tag, caret_under=None):
    assert err.loc is not None, str(err)
    assert err.loc.file.endswith("bad_models.py")
    assert err.loc.line == bm.marker_line(tag)
    text = str(err)
    assert text.startswith(f"{err.loc.file}:{err.loc.line}:{err.loc.col + 1}: ")
    source_line, caret_line = text.splitlines()[1:3]
    assert f"# ERR:{tag}" in source_line
    assert caret_line.strip().startswith("^")
    if caret_under is not None:
        col = caret_line.index("^")
        assert source_line[col:].startswith(caret_under), (source_line, caret_line)


@pytest.mark.parametrize("cls, tag, what", [
    (bm.TryExcept, "try", "try/except"),
    (bm.Yields, "yield", "yield"),
])
def test_unsupported_syntax_is_runtime_error_with_location(cls, tag, what):
    err = compile_error(cls(), f32(2), expected=RuntimeError)
    assert isinstance(err, ms.UnsupportedSyntaxError)
    assert f"'{what}' is not supported in a graph" in err.message
    check_location(err, tag)


def test_matmul_mismatch_is_value_and_runtime_error():
    err = compile_error(bm.MatmulMismatch(), f32(3, 4), f32(5, 6), expected=RuntimeError)
    assert isinstance(err, ValueError) and isinstance(err, ms.MatmulShapeError)
    assert "MatMul" in err.message and "4" in err.message and "5" in err.message
    assert "(3, 4)" in err.message and "(5, 6)" in err.message
    check_location(err, "matmul", caret_under="ops.matmul(x, y)")


def test_add_mismatch_names_op_types_and_line():
    err = compile_error(bm.AddMismatch(), f32(3, 4), f32(5, 6), expected=ValueError)
    assert "For 'Add'" in err.message
    assert "<Tensor[Float32], (3, 4)>" in err.message and "<Tensor[Float32], (5, 6)>" in err.message
    check_location(err, "add", caret_under="z + y")


def test_impossible_reshape_is_value_error():
    err = compile_error(bm.BadReshape(), f32(3, 4), expected=ValueError)
    assert "Reshape" in err.message
    check_location(err, "reshape")


def test_undefined_name_is_name_error():
    err = compile_error(bm.UsesUndefined(), f32(2), expected=NameError)
    assert "undefined_name" in err.message
    check_location(err, "name", caret_under="undefined_name")


def test_error_inside_helper_points_at_helper_line():
    err = compile_error(bm.CallsHelper(), f32(2), expected=TypeError)
    assert "Select" in err.message and "bool" in err.message
    check_location(err, "select")


def test_branch_type_mismatch_names_the_variable_both_types_and_the_if():
    err = compile_error(bm.TensorIf(), f32(2), expected=TypeError)
    check_location(err, "tensorif")
    assert "variable 'y' has type Float32[2] in the if branch but Float32[] in the else" \
        in err.message


def test_wrong_argument_count_is_type_error_before_compiling():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = bm.TwoInputs()
    with pytest.raises(TypeError) as info:
        net(f32(2))
    err = info.value
    assert isinstance(err, ms.MscError)
    assert "missing a required argument: 'y'" in err.message
    assert err.loc is not None and err.loc.file == __file__
    from msc.frontend.jit import cell_cache
    assert cell_cache(net).compiles == 0


def test_wrong_argument_count_for_jit_function():
    @ms.jit
    def f(x):
        return x

    with pytest.raises(TypeError, match="too many positional arguments"):
        f(f32(1), f32(1))
    assert f.cache.compiles == 0


def test_eager_shape_error_points_at_user_line():
    x, y = f32(3, 4), f32(5, 6)
    with pytest.raises(ValueError) as info:
        x + y  # the failing line
    err = info.value
    assert err.loc.file == __file__
    assert "x + y" in str(err)


def test_cli_reports_error_with_location(tmp_path, capsys):
    from msc.cli import main

    status = main(["ir", bm.__file__, "AddMismatch", "--input", "f32[3,4]", "--input", "f32[5,6]"])
    err = capsys.readouterr().err
    assert status == 1
    assert f"bad_models.py:{bm.marker_line('add')}:" in err
    assert "ShapeError" in err and "^" in err and "Traceback" not in err
