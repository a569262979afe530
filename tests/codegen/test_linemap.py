"""Generated lines map back to the user's lines, and Numba failing to compile generated
code is reported at the user's line that produced the failing line (real Numba)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re

import numpy as np
import pytest

import msc as ms
from msc.codegen.artifact import precompile_kernel
from msc.codegen.linemap import failing_line, from_json, to_json
from msc.codegen.render import line_table
from msc.compiler import Compiled, arg_spec, compile_entry
from msc.errors import InternalCompilerError

def test_failing_line_is_the_last_one_in_the_generated_file(tmp_path):
    path = tmp_path / "_gen.py"
    message = (f'File "{path}", line 3:\nFile "/elsewhere/user.py", line 40:\n'
               f'File "{path}", line 12:\nFile "/elsewhere/user.py", line 41:')
    assert failing_line(message, path) == 12
    assert failing_line('File "/elsewhere/user.py", line 40:', path) is None


def test_line_table_maps_kernel_lines_to_the_users_lines_and_fills_the_rest():
    """The renderer's record of each line's user line (``render.line_table``) says what the
    line's comment says; a line without one maps to the one before it in its kernel, and
    the module's own functions to nothing. It survives a compile-cache manifest."""
    x, y = inputs()
    compiled = compile_entry(product_plus_exp, (arg_spec(x), arg_spec(y)), target="numba",
                             store=None)
    table = line_table(compiled.spec, compiled.source)
    rows = compiled.source.split("\n")
    commented = {n: (m[1], int(m[2])) for n, row in enumerate(rows, 1)
                 if (m := re.search(r"  # (\S+):(\d+)$", row))}
    assert commented and all(table[""][n] == where for n, where in commented.items())
    body = [n for n in table[""] if n not in commented]
    assert all(table[""][n] == table[""][n - 1] for n in body)  # filled from above
    run = rows.index("def run(*args):") + 1
    assert not {run, run + 1} & set(table[""])
    assert from_json(json.loads(json.dumps(to_json(table)))) == table


# --- end to end -----------------------------------------------------------------------------


def product_plus_exp(x, y):
    z = x * y
    return ops_exp(z) + 1.0


def ops_exp(z):
    return ms.ops.exp(z)


USER_FILE = os.path.basename(__file__)
PRODUCT_LINE = inspect.getsourcelines(product_plus_exp)[1] + 1
EXP_LINE = inspect.getsourcelines(ops_exp)[1] + 1


def inputs():
    return ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.full((2, 3), 2, np.float32))


def compiled_with(target: str, break_line: int, statement: str) -> tuple[Compiled, int]:
    """A real compile whose generated source has the statement on the first kernel line
    commented with ``break_line`` replaced by ``statement`` (its comment kept); with the
    generated line number."""
    x, y = inputs()
    compiled = compile_entry(product_plus_exp, (arg_spec(x), arg_spec(y)), target=target,
                             store=None)
    lines = compiled.source.splitlines()
    marker = f"  # {USER_FILE}:{break_line}"
    number = next(i for i, text in enumerate(lines) if text.endswith(marker))
    indent = re.match(r"\s*", lines[number]).group()
    lines[number] = f"{indent}{statement}{marker}"
    broken = dataclasses.replace(compiled.generated, source="\n".join(lines) + "\n")
    return dataclasses.replace(compiled, generated=broken, code=None), number + 1


@pytest.mark.parametrize("user_line", [PRODUCT_LINE, EXP_LINE])
def test_numba_typing_failure_on_first_call_names_the_users_line(user_line):
    broken, generated_line = compiled_with("numba", user_line, "t = print(open)")
    with pytest.raises(InternalCompilerError) as info:
        broken.run(inputs())
    err = info.value
    assert err.message.startswith("Numba could not compile the generated code: ")
    assert err.loc is not None and err.loc.line == user_line
    assert err.loc.file == __file__  # the full path: the compile read this file
    assert str(err).startswith(f"{__file__}:{user_line}:")
    assert any(f"{broken.code.__file__}:{generated_line}" in n for n in err.notes)
    assert any("open" in n for n in err.notes)  # Numba's reason
    assert err.__cause__ is None and err.__suppress_context__


def test_precompile_failure_names_the_users_line_and_chains_only_when_debugging(
        tmp_path, monkeypatch):
    broken, generated_line = compiled_with("numba", EXP_LINE, "t = print(open)")
    path = tmp_path / "_msc_linemap_broken.py"
    path.write_text(broken.source)
    with pytest.raises(InternalCompilerError) as info:
        precompile_kernel(path, broken.spec, None, list(broken.constants), [__file__])
    assert (info.value.loc.file, info.value.loc.line) == (__file__, EXP_LINE)
    assert info.value.__cause__ is None
    monkeypatch.setenv("MSC_DEBUG", "1")
    path = tmp_path / "_msc_linemap_broken_debug.py"
    path.write_text(broken.source)
    with pytest.raises(InternalCompilerError) as info:
        precompile_kernel(path, broken.spec, None, list(broken.constants), [__file__])
    assert type(info.value.__cause__).__name__ == "TypingError"


@pytest.mark.parametrize("target", ["python", "numba"])
def test_other_exceptions_pass_through_unchanged(target):
    broken, _ = compiled_with(target, PRODUCT_LINE, "raise KeyError('from the kernel')")
    with pytest.raises(KeyError, match="from the kernel") as info:
        broken.run(inputs())
    assert not isinstance(info.value, InternalCompilerError)
