"""The one Jinja2 environment: render a ModuleSpec with its target's template.

Templates only loop and place; every name and expression was decided by ``lower``.
A rendered module must parse before anyone sees it.

A generated module is standalone (it runs where msc is not installed), so the runtime
helpers its kernels call are copied into it as source: ``runtime_source`` takes from the
target's runtime module (``msc/runtime``) the top-level statements defining the
``_rt_*`` names the kernels use, plus whatever those statements name in turn
(``_rt_matmul`` needs ``_rt_matmul_into``, ``_rt_dot_loops`` and the ``_HAVE_BLAS`` probe;
``_rt_print`` needs ``print_text``), in the runtime module's own order, so the output is
deterministic and every name is defined before it is used. Which names a statement binds
and reads is the compiler's answer (``compile`` and ``dis`` on the statement), not a
reading of its text. The runtime file is read, not imported: rendering never imports
Numba.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import hashlib
import importlib.resources
import importlib.util
import json
import os
import pprint
import sys
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any

from msc.codegen.linemap import LineTable, filled
from msc.codegen.targets import target_named
from msc.errors import InternalCompilerError

#: This module's source, part of the key of the runtime snippets kept on disk.
_RENDER_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()

if TYPE_CHECKING:  # NOTE: importing lower is code generation's cost, not a cache hit's
    from msc.codegen.spec import ModuleSpec

#: The runtime name a Numba template reads itself when a kernel calls the matmul helpers
#: (``_rt_jit`` names each kernel's cache after the ``_HAVE_BLAS`` probe).
BLAS_NEEDS = ("_HAVE_BLAS",)
#: The names the target templates import; a runtime module may import nothing else at
#: its top level (an import inside a copied function, like the BLAS probe's, travels with it).
TEMPLATE_IMPORTS = frozenset({"math", "np", "njit", "objmode", "config", "cuda"})
#: Runtime files whose helpers every target's modules may call (the collectives, memory).
SHARED_RUNTIME = ("comm_rt.py", "memory_rt.py")
#: The helpers every module calls when imported, whatever its kernels call.
ON_IMPORT = ("_rt_keep_freed_memory",)

_ENV: list[Any] = []


def environment() -> Any:
    """Made on the first render: a compile-cache hit never imports Jinja2."""
    if not _ENV:
        import jinja2

        env = jinja2.Environment(loader=jinja2.PackageLoader("msc", "templates"),
                                 undefined=jinja2.StrictUndefined, trim_blocks=True,
                                 lstrip_blocks=True, keep_trailing_newline=True,
                                 autoescape=False)
        env.filters["pyrepr"] = lambda v: pprint.pformat(v, width=88, compact=True)
        _ENV.append(env)
    return _ENV[0]


def render(spec: ModuleSpec) -> str:
    template = environment().get_template(f"{spec.target}.py.j2")
    source = template.render(spec=spec, runtime=runtime_source(spec))
    try:  # (the final compile's own check, without keeping its code)
        compile(source, f"<generated {spec.target} module>", "exec", dont_inherit=True)
    except SyntaxError as e:
        raise InternalCompilerError(f"generated {spec.target} module does not parse: {e}") \
            from None
    return source


def line_table(spec: ModuleSpec, source: str) -> LineTable:
    """The user's line behind each line of ``spec``'s kernels in its rendered ``source``
    (each kernel's body follows its ``def`` line, as the templates write it) and in its
    library files (``ModuleSpec.library_lines``). A kernel a template writes otherwise maps
    no line (the table only names the user's line in Numba's errors)."""
    first: dict[str, int] = {}
    for number, row in enumerate(source.split("\n"), 1):
        first.setdefault(row, number)
    module: dict[int, tuple[str, int]] = {}
    device = getattr(spec, "device_kernels", ())  # (cuda's kernels: no return line)
    for k, returns in [(k, True) for k in (*spec.callees, spec.kernel)] + \
            [(k, False) for k in device]:
        start = first.get(f"def {k.name}({', '.join(k.params)}):")
        if start is not None:
            module.update(filled(start + 1, k.locations, returns))
    return {"": module, **{stem: {n: (name, line) for n, name, line in rows}
                           for stem, rows in spec.library_lines}}


# --- runtime helpers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Snippet:
    """One top-level statement of a runtime module: its text, the names it binds, and
    the names (of other snippets) it reads."""

    source: str
    defines: frozenset[str]
    reads: frozenset[str]


#: Lines in column 0 that continue the statement above them rather than start one.
_CONTINUING = ("else", "elif", "except", "finally")


def _statements(text: str, filename: str) -> list[tuple[str, CodeType]]:
    """The runtime file's top-level statements, each its text and its compiled code. A
    statement starts at a line in column 0 once the lines before it compile on their own
    (a decorator, a docstring's text and a closing bracket do not: they belong to the
    statement above); comments and blank lines after a statement are not part of it."""
    done: list[tuple[list[str], CodeType]] = []
    lines: list[str] = []
    for line in text.splitlines() + ["end"]:  # (the last statement ends at "end")
        starts = line[:1] not in ("", " ", "#") and \
            line.split(maxsplit=1)[0].rstrip(":") not in _CONTINUING
        code = _compiled(lines, filename) if starts and lines else None
        if code is not None:
            done.append((lines, code))
            lines = []
        lines.append(line)
    if lines != ["end"]:
        raise InternalCompilerError(f"msc/runtime/{filename} does not compile")
    for statement, _ in done:
        while statement and (not statement[-1].strip() or statement[-1].lstrip()[:1] == "#"):
            statement.pop()
    return [("\n".join(statement), code) for statement, code in done if statement]


def _compiled(lines: list[str], filename: str) -> CodeType | None:
    try:
        return compile("\n".join(lines), filename, "exec", dont_inherit=True)
    except SyntaxError:
        return None


def _names(code: CodeType) -> tuple[set[str], set[str], bool]:
    """(bound, named, imports): the names a compiled top-level statement binds (its own
    instructions say which), every name it and its nested functions use (``co_names``),
    and whether it imports. No source is read."""
    bound, imports = set(), False
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_NAME", "STORE_GLOBAL"):
            bound.add(ins.argval)
        imports |= ins.opname == "IMPORT_NAME"
    named, todo = set(), [code]
    while todo:
        c = todo.pop()
        named.update(c.co_names)
        todo += [k for k in c.co_consts if isinstance(k, CodeType)]
    return bound - {"__doc__"}, named, imports


@functools.lru_cache(maxsize=None)
def runtime_snippets(filename: str, known: frozenset[str] = frozenset()
                     ) -> tuple[Snippet, ...]:
    """The statements of ``msc/runtime/<filename>`` other than its docstring and imports,
    in file order. Its top-level imports must be ones the templates provide. A statement
    reads the names it uses that the file or ``known`` (a file it comes after) binds.
    Kept on disk between processes (``_kept``): compiling the runtime files statement by
    statement took 35 ms of each process's first compile, a third of the tutorial's."""
    text = importlib.resources.files("msc.runtime").joinpath(filename).read_text("utf-8")
    return _kept(text, filename, known)


def _kept(text: str, filename: str, known: frozenset[str]) -> tuple[Snippet, ...]:
    """``snippets(text, filename, known)``, from a JSON file of the compile cache's folder
    keyed by everything they follow from (the text, ``known``, this module's code,
    Python's version) and led by its own SHA-256, written there the first time; computed
    where it cannot be read or written, or its checksum fails."""
    from msc._atomic import write_atomic
    from msc._cache_folder import default_path

    key = hashlib.sha256("\0".join([sys.version, _RENDER_CODE, filename, text, *sorted(known)])
                         .encode()).hexdigest()[:32]
    path = os.path.join(default_path(), "snippets", f"{filename}-{key}.json")
    with contextlib.suppress(OSError, ValueError, TypeError):
        with open(path, encoding="utf-8") as f:
            digest, body = f.read().split("\n", 1)
        if hashlib.sha256(body.encode()).hexdigest() == digest:
            return tuple(Snippet(source, frozenset(defines), frozenset(reads))
                         for source, defines, reads in json.loads(body))
    found = snippets(text, filename, known)
    body = json.dumps([[s.source, sorted(s.defines), sorted(s.reads)] for s in found])
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, f"{hashlib.sha256(body.encode()).hexdigest()}\n{body}")
    return found


def snippets(text: str, filename: str, known: frozenset[str] = frozenset()
             ) -> tuple[Snippet, ...]:
    """``runtime_snippets`` of the runtime file ``filename`` whose source is ``text``."""
    parts: list[tuple[str, set[str], set[str]]] = []
    for source, code in _statements(text, filename):
        bound, read, imports = _names(code)
        if imports:
            if bound - TEMPLATE_IMPORTS:
                raise InternalCompilerError(f"msc/runtime/{filename} imports "
                                            f"{sorted(bound - TEMPLATE_IMPORTS)}, which "
                                            "generated modules do not")
        elif bound:  # (not the docstring)
            parts.append((source, bound, read))
    known = known | {name for _, defines, _ in parts for name in defines}
    return tuple(Snippet(source, frozenset(defines), frozenset((reads & known) - defines))
                 for source, defines, reads in parts)


def called_helpers(spec: ModuleSpec) -> set[str]:
    """The ``_rt_*`` helpers the kernels' statements call (a Print format that mentions
    one is a string, not a call)."""
    called = set().union(*(k.helpers for k in (*spec.callees, spec.kernel)))
    return called | ({"_rt_own_threads"} if spec.owns_threads else set())


@functools.cache  # (every compile asks: one folder listing per process)
def with_companions(filename: str) -> tuple[Snippet, ...]:
    """A runtime file's statements and those of its companions, in name order
    (``numba_special_rt.py`` for ``numba_rt.py``), which may use the file's helpers."""
    folder = importlib.resources.files("msc.runtime")
    stem = filename.removesuffix("_rt.py")
    companions = sorted(f.name for f in folder.iterdir()
                        if f.name != filename and f.name.startswith(f"{stem}_")
                        and f.name.endswith("_rt.py"))
    main = runtime_snippets(filename)
    defined = frozenset(name for s in main for name in s.defines)
    return main + tuple(s for c in companions for s in runtime_snippets(c, defined))


def runtime_source(spec: ModuleSpec) -> str:
    """The runtime statements ``spec``'s kernels need, transitively, in file order."""
    target = target_named(spec.target)
    filename = target.runtime
    snippets = with_companions(filename)
    if target.fallback is not None:  # the host code of a device target's fallback ops
        filename = f"{filename} and {target.fallback}"
        snippets += with_companions(target.fallback)
    for shared in SHARED_RUNTIME:
        snippets += runtime_snippets(shared)
    owner = {name: s for s in snippets for name in s.defines}
    wanted = called_helpers(spec) | set(ON_IMPORT)
    wanted |= set(BLAS_NEEDS if spec.uses_blas and target.numba else ())
    unknown = sorted(wanted - owner.keys())
    if unknown:
        raise InternalCompilerError(f"generated {spec.target} code calls {unknown}, which "
                                    f"msc/runtime/{filename} does not define")
    chosen: set[Snippet] = set()
    todo = [owner[name] for name in sorted(wanted)]
    while todo:
        snippet = todo.pop()
        if snippet not in chosen:
            chosen.add(snippet)
            todo += [owner[name] for name in sorted(snippet.reads)]
    return "\n\n\n".join(s.source for s in snippets if s in chosen)


def import_file(path: str, name: str) -> ModuleType:
    """Import a generated module from ``path``. It is registered in ``sys.modules``
    before it runs: Numba's ``cache=True`` looks the module up while compiling."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
