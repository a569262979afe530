"""The ``msc`` command line: ``msc compile``, ``msc ir``, ``msc run`` and ``msc cache``.

``msc compile model.py [ENTRY] --input f32[32,64] ... -o DIR`` writes an artifact
folder (through the compile cache) and prints a compile report; ``msc ir model.py
[ENTRY] --input ...`` prints the optimized IR; ``msc run -n N script.py`` runs a script
on N ranks (MPI); ``msc cache ls|clear|prune`` manages the compile cache.

ENTRY names a Cell class, a Cell instance, a function returning a Cell, or a ``@jit``
function of the model file. Errors in the user's model (a syntax error, an exception
its code raises, a graph msc refuses) are printed as ``file:line:col: message`` with the
source line and a caret and exit with status 1; a mistake on the command line exits
with 2, Ctrl-C with 130 ("msc: interrupted"). No traceback unless MSC_DEBUG=1. Under
``mpiexec`` only rank 0 prints the report.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import os
import re
import sys
import sysconfig
import traceback
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn, Sequence

from msc._atomic import write_atomic
from msc._version import VERSION
from msc.codegen.render import import_file
from msc.errors import GraphTypeError, Loc, ModelCodeError, ModelSyntaxError, MscError
from msc.ir import dtypes
from msc.ir.types import TensorType
from msc.progress import Ticker, wanted

if TYPE_CHECKING:
    from msc.codegen.library import KernelWatch

_SPEC = re.compile(r"^([a-z0-9]+)\[([0-9, ]*)\]$")


class UsageError(Exception):
    """A mistake on the command line (exit status 2)."""


def parse_input_spec(text: str) -> TensorType:
    """``f32[32,64]`` -> TensorType(float32, (32, 64)); ``f32[]`` is 0-d."""
    m = _SPEC.match(text.strip())
    if not m:
        raise UsageError(f"bad --input '{text}': expected DTYPE[DIMS], e.g. f32[32,64] or f32[]")
    try:
        dt = dtypes.from_short(m.group(1))
    except ValueError as e:
        raise UsageError(f"bad --input '{text}': {e}") from None
    dims = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
    return TensorType(dt, dims)


def load_model_file(path: str) -> ModuleType:
    """Import the user's file as a module (its folder goes on sys.path, as for a script).
    A syntax error, or an exception the file's code raises, is msc's error at the user's
    line rather than importlib's traceback."""
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory: give the Python file that defines the model")
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    if not path.endswith(".py"):
        raise UsageError(f"{path} is not a Python file: the model file's name ends in .py")
    path = os.path.abspath(path)
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(path))
    try:
        return import_file(path, name)
    except SyntaxError as e:  # the file, or a file of the user's it imports
        raise syntax_error(e) from None
    except Exception as e:  # not KeyboardInterrupt or SystemExit: those are the user's
        raise_user_error(e, f"importing {os.path.basename(path)} raised", path, None)


def check_script_syntax(path: str) -> None:
    """``msc run``: a script Python cannot parse is msc's error before any rank starts."""
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise syntax_error(e) from None
    except OSError:
        pass  # the launched interpreter says what it cannot read


def syntax_error(e: SyntaxError) -> ModelSyntaxError:
    """Python's SyntaxError as msc's, with the parser's line, column and span."""
    if isinstance(e, ModelSyntaxError):
        return e
    line = e.lineno or 1
    col = max((e.offset or 1) - 1, 0)
    end = e.end_offset - 1 if e.end_offset and e.end_lineno in (None, line) \
        and e.end_offset > (e.offset or 0) else None
    known = e.filename is not None and os.path.isfile(e.filename)
    err = ModelSyntaxError(e.msg if known else f"{e.filename}:{e.lineno}: {e.msg}",
                           Loc(e.filename, line, col, line, end) if known else None)
    err.filename, err.lineno, err.offset, err.text = e.filename, e.lineno, e.offset, e.text
    return err


def _not_user_folders() -> tuple[str, ...]:
    """msc's package and Python's own and installed libraries: no user's line is there."""
    paths = sysconfig.get_paths()
    folders = {os.path.dirname(os.path.abspath(__file__))}
    folders |= {os.path.abspath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib")
                if k in paths}
    return tuple(f + os.sep for f in folders)


def user_frame(e: BaseException, model: str) -> Loc | None:
    """Where ``e`` came from in the user's code: the innermost frame of its traceback in
    the model file or another file that is neither msc's nor an installed library's."""
    skip = _not_user_folders()
    found = None
    for frame in traceback.extract_tb(e.__traceback__):
        file = os.path.abspath(frame.filename)
        if file == model or not (frame.filename.startswith("<") or file.startswith(skip)):
            found = frame
    if found is None or found.lineno is None:
        return None
    return Loc(found.filename, found.lineno, found.colno or 0, found.end_lineno,
               found.end_colno)


def definition(obj: Any) -> Loc | None:
    """The line that defines a class or function of the user's."""
    try:
        file = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return None
    return Loc(file, line) if file else None


def raise_user_error(e: Exception, doing: str, model: str, obj: Any) -> NoReturn:
    """Raise msc's error for an exception the user's code raised while msc loaded the model:
    at the user's line it came from (else where ``obj`` is defined); an error msc raised
    on purpose keeps its own message and gains the line if it had none."""
    loc = user_frame(e, model)
    if isinstance(e, MscError):
        raise e.with_loc(loc or definition(obj))
    err = ModelCodeError(f"{doing} {type(e).__name__}: {e}", loc or definition(obj))
    if loc is None and inspect.isclass(obj):
        err.add_note_line("msc constructs a Cell class with no arguments: for others, name a "
                          "Cell instance or a function that returns the Cell")
    raise err from e


ENTRY_KINDS = ("ENTRY must name a Cell class, a Cell instance, a function that returns a "
               "Cell, or a @jit function")


def entries_of(module: ModuleType) -> list[str]:
    """What ENTRY could name in ``module``: its Cell classes, Cell instances, functions
    (factories, if they return a Cell) and @jit functions, each with its kind."""
    from msc.frontend.jit import JitFunction
    from msc.nn.cell import Cell

    found = []
    for n, v in vars(module).items():
        own = getattr(v, "__module__", None) == module.__name__
        if n.startswith("_"):
            continue
        if isinstance(v, JitFunction) and own:
            found.append(f"{n} (@jit function)")
        elif inspect.isclass(v) and issubclass(v, Cell) and own:
            found.append(f"{n} (Cell class)")
        elif isinstance(v, Cell):
            found.append(f"{n} (Cell instance)")
        elif inspect.isfunction(v) and own:
            found.append(f"{n} (function)")
    return found


def no_such_entry(module: ModuleType, name: str) -> UsageError:
    found = entries_of(module)
    names = [f.split(" ")[0] for f in found]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    listed = ", ".join(found) if found else "none"
    return UsageError(f"{module.__file__} has no '{name}'{hint}; entries there: {listed}")


def find_entry(module: ModuleType, name: str | None) -> Any:
    """The Cell instance or ``@jit`` function to compile.

    ENTRY may name a Cell class (constructed with no arguments), a Cell instance (taken
    as it is), a factory function returning a Cell, or a ``@jit`` function; without
    ENTRY the file must define exactly one Cell class or ``@jit`` function.
    """
    from msc.frontend.jit import JitFunction
    from msc.nn.cell import Cell

    if name is None:
        found = [n for n, v in vars(module).items()
                 if (isinstance(v, JitFunction) or (inspect.isclass(v) and issubclass(v, Cell)))
                 and getattr(v, "__module__", None) == module.__name__]
        if len(found) != 1:
            listed = ", ".join(found) or "none"
            raise UsageError(f"{module.__file__}: name the entry to compile "
                             f"(Cell classes and @jit functions found: {listed})")
        name = found[0]
    if not hasattr(module, name):
        raise no_such_entry(module, name)
    obj = getattr(module, name)
    if isinstance(obj, (JitFunction, Cell)):
        return obj
    if inspect.isclass(obj) and not issubclass(obj, Cell):
        raise UsageError(f"'{name}' is the class {obj.__name__}, not a Cell: {ENTRY_KINDS}")
    if not callable(obj):
        raise UsageError(f"'{name}' is a {type(obj).__name__}: {ENTRY_KINDS}")
    try:
        made = obj()
    except Exception as e:
        doing = "constructing the Cell class" if inspect.isclass(obj) else "calling"
        raise_user_error(e, f"{doing} '{name}' (the ENTRY) raised", str(module.__file__), obj)
    if isinstance(made, Cell):
        return made
    raise UsageError(f"'{name}' returned {type(made).__name__}, not a Cell: {ENTRY_KINDS}")


def entry_specs(entry: Any, inputs: Sequence[str]) -> tuple[Any, ...]:
    from msc.compiler import arg_spec
    from msc.frontend.jit import JitFunction

    if inputs:
        return tuple(parse_input_spec(s) for s in inputs)
    sig = getattr(entry, "input_signature", None) if isinstance(entry, JitFunction) else None
    if sig is not None:
        return tuple(arg_spec(t) for t in (sig if isinstance(sig, (tuple, list)) else (sig,)))
    return ()


def cmd_ir(args: argparse.Namespace) -> int:
    from msc.compiler import compile_entry
    from msc.ir.printer import print_module

    entry = find_entry(load_model_file(args.model), args.entry)
    compiled = compile_entry(entry, entry_specs(entry, args.input), store=None)  # needs the IR
    if args.format != "text":  # a picture (msc/viz)
        from msc.viz.picture import render

        quiet = args.quiet or args.output is None
        text = render(compiled.module, compiled.report, args.format, args.max_nodes,
                      say=lambda line: None if quiet else print(line, file=sys.stderr))
        if args.output is None:
            sys.stdout.write(text)
        else:
            write_atomic(args.output, text)
        return 0
    if args.kernels:
        print(kernels_text(compiled.module, args.kernels))
        return 0
    print(print_module(compiled.module, locs=not args.no_locs))
    if not args.quiet:
        print(compiled.report.format())
    return 0


def kernels_text(module: Any, target: str) -> str:
    """The kernel IR of each function code generation writes for ``target``: callees
    first, the entry last (before outlining cuts it into the library's kernels)."""
    from msc.codegen.generate import lower_for_target
    from msc.ir.kernel import show_stmts

    spec = lower_for_target(module, target, "")
    out = []
    for kernel in (*spec.callees, spec.kernel):
        out.append(f"# kernel {kernel.name}({', '.join(kernel.params)})")
        out += show_stmts(kernel.body, 1) or ["  (no statements)"]
        out.append(f"  return {kernel.returns}" if kernel.returns else "")
    return "\n".join(out)


def entry_name(entry: Any, given: str | None) -> str:
    """The name the user knows the entry by (what ENTRY would be)."""
    if given:
        return given
    from msc.nn.cell import Cell

    return type(entry).__name__ if isinstance(entry, Cell) else getattr(entry, "__name__", "entry")


def cmd_compile(args: argparse.Namespace) -> int:
    if args.native:
        return compile_native(args)
    from msc.cache import CacheStore, default_path
    from msc.codegen.artifact import export_artifact, write_artifact
    from msc.communication.launch import launcher_rank, on_ranks
    from msc.compiler import compile_entry, library_path

    other_rank = launcher_rank() not in (None, 0)  # under mpiexec, rank 0 reports
    quiet = args.quiet or other_rank
    entry = find_entry(load_model_file(args.model), args.entry)
    specs = entry_specs(entry, args.input)
    name = entry_name(entry, args.entry)
    store = None if args.no_cache else CacheStore(args.cache_dir or default_path())
    say = (lambda text: None) if quiet else print
    say(f"msc compile: {name} from {args.model}, target {args.target}")
    progress = None if quiet else ProgressLine()
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compiled = compile_entry(entry, specs, target=args.target, store=store,
                                     layout=f"artifact:{name}", progress=progress)
    except GraphTypeError as e:
        if not specs:
            e.add_note_line("msc compile: give one --input DTYPE[DIMS] per positional input")
        raise
    except KeyboardInterrupt:
        caught = []  # Ctrl-C: "msc: interrupted" alone
        raise
    finally:
        if progress is not None:
            progress.close()
        for w in () if other_rank else caught:
            print(f"msc: warning: {w.message}", file=sys.stderr)
    if args.explain_cache and not other_rank:
        print(f"cache: {compiled.cache_why}")
    if compiled.module is not None:
        say(describe_graphs(compiled))
        say(compiled.report.format())  # type: ignore[union-attr]
        host_ops = getattr(compiled.spec, "host_ops", ())  # a device target's fallbacks
        if host_ops:
            say(f"on the host (operands copied there and back): {', '.join(host_ops)}")
    else:
        say(f"cache: hit, {compiled.entry_dir}: parse, optimize, codegen and Numba skipped")
    def write(output: str) -> Any:
        if compiled.entry_dir is not None:
            return export_artifact(compiled, output)
        try:
            return write_artifact(compiled, output, entry_name=name, input_specs=specs,
                                  precompile=True, progress=progress, library=library_path())
        finally:
            if progress is not None:
                progress.close()

    info = on_ranks(args.output, write)  # under mpiexec, rank 0 writes the artifact
    if info is None:
        return 0
    say(format_phases(info.timings, args.target))
    if args.report_html:  # the pass report as a chart (msc/viz/report.py)
        from msc.viz.report import report_page

        rows = compiled.report.as_dicts() if compiled.report is not None else \
            compiled.manifest.get("pass_report", [])
        notes = compiled.report.notes if compiled.report is not None else []
        write_atomic(args.report_html, report_page(rows, f"msc compile: {name}", notes))
    say(f"artifact: {info.path}")
    files = (info.module_file, "weights.npz", "manifest.json")
    width = max(map(len, files))
    for file in files:
        say(f"  {file:<{width}}  {(info.path / file).stat().st_size:>10,} bytes")
    kernels = [p for p in (info.path / "kernels").rglob("*") if p.is_file()]
    if kernels:  # the library kernels it uses, with Numba's cache of them
        size = sum(p.stat().st_size for p in kernels)
        say(f"  {'kernels/':<{width}}  {size:>10,} bytes in {len(kernels)} files")
    return 0


def compile_native(args: argparse.Namespace) -> int:
    """``msc compile --native``: the model as a shared library with a C ABI and its weights
    file (``codegen/native``); the compiled library is cached per machine."""
    from msc.codegen.native.build import write_native
    from msc.compiler import build, library_path

    entry = find_entry(load_model_file(args.model), args.entry)
    specs = entry_specs(entry, args.input)
    name = entry_name(entry, args.entry)
    say = (lambda text: None) if args.quiet else print
    say(f"msc compile: {name} from {args.model}, native library"
        + (f" for {args.triple}" if args.triple else ""))
    info = write_native(build(entry, specs), args.output, entry_name=name, input_specs=specs,
                        triple=args.triple, cache=library_path().parent / "native",
                        embed=args.embed_weights)
    say("\n".join(f"{phase:<12} {seconds * 1e3:>10.2f} ms"
                   for phase, seconds in info.timings.items()))
    say(f"artifact: {info.path}")
    for file in info.manifest["files"]:
        say(f"  {file:<24} {(info.path / file).stat().st_size:>12,} bytes")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from msc.communication.launch import run

    check_script_syntax(args.script)
    try:
        return run(args.n, args.script, args.args, args.hostfile)
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None


def cmd_cache(args: argparse.Namespace) -> int:
    """``msc cache ls | clear | prune --max-size SIZE``."""
    import time

    from msc.cache import CacheStore, default_path

    store = CacheStore(args.cache_dir or default_path())
    if args.action == "ls":
        entries = store.entries()
        print(f"{store.root}: {len(entries)} entries, "
              f"{format_size(sum(e.size for e in entries))}")
        if entries:
            print(f"{'key':<12}  {'entry':<32}  {'target':<7}  {'size':>9}  {'age':>7}  "
                  f"{'used':>7}  {'hits':>5}")
        now = time.time()
        for e in entries:
            m = e.manifest
            where = f"{m['entry']['qualname']} ({os.path.basename(m['entry']['file'])})" \
                if m else f"damaged: {e.problem}"
            age = format_age(now - m["created"]) if m else "?"
            print(f"{e.folder.name[:12]:<12}  {where[:32]:<32}  {m.get('target', '?'):<7}  "
                  f"{format_size(e.size):>9}  {age:>7}  {format_age(now - e.last_used):>7}  "
                  f"{e.hits:>5}")
        return 0
    if args.action == "clear":
        removed, freed = store.clear()
    else:
        if args.max_size is None:
            raise UsageError("msc cache prune needs --max-size SIZE (e.g. 500M)")
        removed, freed = store.prune(parse_size(args.max_size))
    print(f"removed {removed} entries, {format_size(freed)} from {store.root}")
    return 0


def parse_size(text: str) -> int:
    """``500M`` -> 524288000; K, M, G and T are powers of 1024, a plain number is bytes."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)i?b?\s*", text.lower())
    if not m:
        raise UsageError(f"bad size '{text}': expected e.g. 500M, 2G or 1048576")
    return int(float(m.group(1)) * 1024 ** " kmgt".index(m.group(2) or " "))


def format_size(n: int) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def format_age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{max(seconds, 0):.0f}s"


class ProgressLine:
    """Numba's compile on one line: the start (flushed at once: it can take a while), on a
    terminal the library kernels compiled so far, then the time; a failure in between
    still ends the line."""

    def __init__(self) -> None:
        self.open = False
        self.ticker: Ticker | None = None

    def __call__(self, kernel: str, seconds: float | None, note: str = "",
                 watch: KernelWatch | None = None) -> None:
        if seconds is None:
            start = f"numba: compiling {kernel} ..."
            print(start, end="", flush=True)
            if watch is not None and wanted(sys.stdout):
                self.ticker = Ticker(sys.stdout, start + " ", watch.summary)
        else:
            self.stop_ticker()
            print(f" {seconds:.2f} s" + (f" ({note})" if note else ""), flush=True)
        self.open = seconds is None

    def stop_ticker(self) -> None:
        if self.ticker is not None:
            self.ticker.stop()
            print(self.ticker.prefix.rstrip(), end="", flush=True)
            self.ticker = None

    def close(self) -> None:
        self.stop_ticker()
        if self.open:  # closed while an exception propagates (a finally clause)
            stopped = sys.exc_info()[0] is KeyboardInterrupt
            print(" interrupted" if stopped else " failed", flush=True)
            self.open = False


def _tensor(t: Any) -> str:
    return f"{t.dtype.np_name}[{','.join(map(str, t.shape))}]"


def describe_graphs(compiled: Any) -> str:
    """One block per graph: inputs, weights (count and size), outputs and node count."""
    from msc.codegen.artifact import describe_output
    from msc.ir.primitives import Op
    from msc.ir.rewrite import walk
    from msc.ir.types import tensor_of

    lines = []
    for graph in compiled.module.graphs:
        ins = ", ".join(f"{p.hint}: {_tensor(t)}" for p in graph.inputs
                        if (t := tensor_of(p.type)) is not None) or "none"
        ws = [t for p in graph.weights if (t := tensor_of(p.type)) is not None]
        sites = sum(1 for g in compiled.module.graphs for n in walk(g)
                    if n.op is Op.Call and n.attr["graph"] is graph)
        shared = f", shared: called from {sites} sites" if sites else ""
        lines.append(f"graph @{graph.name}: {sum(1 for _ in walk(graph))} nodes{shared}")
        lines.append(f"  inputs   {ins}")
        lines.append(f"  weights  {len(ws)} arrays, {sum(t.size for t in ws):,} values")
        lines.append(f"  outputs  {_outputs(describe_output(graph, graph.output))}")
    return "\n".join(lines)


def _outputs(desc: dict[str, Any]) -> str:
    if "tuple" in desc:
        inner = ", ".join(_outputs(d) for d in desc["tuple"])
        return f"({inner},)" if len(desc["tuple"]) == 1 else f"({inner})"
    if "dtype" in desc:
        return f"{desc['dtype']}[{','.join(map(str, desc['shape']))}]"
    if "constant" in desc:
        return f"constant {_as_python(desc['constant'])!r}"
    return str(desc.get("type", "?"))


def _as_python(value: Any) -> Any:
    """JSON lists back to the tuples the model returned."""
    return tuple(_as_python(v) for v in value) if isinstance(value, list) else value


def format_phases(timings: dict[str, float], target: str) -> str:
    """Time per phase; Numba's row says why it is empty for the python target."""
    rows = [("parse", timings.get("parse")), ("optimize", timings.get("optimize")),
            ("codegen", timings.get("codegen")), ("numba", timings.get("numba"))]
    if "cache" in timings:  # a hit: only the lookup ran
        rows = [("cache", timings["cache"])]
    lines = [f"{'phase':<9} {'ms':>10}"]
    for phase, seconds in rows:
        shown = f"{seconds * 1e3:>10.2f}" if seconds is not None else \
            f"{'-':>10}  (target {target} runs without Numba)"
        lines.append(f"{phase:<9} {shown}")
    return "\n".join(lines)


ENTRY_HELP = "Cell class, Cell instance, Cell factory or @jit function"
SELECT_HELP = "keep every tensor if as a branch (default: cheap ones become Select)"
LOAD_ELIM_HELP = ("where a value loaded from a Parameter is copied before a later write: 0 "
                  "after every load, 1 (default) where a write may precede a use, 2 the fewest "
                  "copies, 3 none (results may be wrong); default $MSC_SIDE_EFFECT_LOAD_ELIM")
REUSE_HELP = ("which Cells compile once and are called from every instance: lazy_inline "
              "(default: @lazy_inline Cells), auto (also any repeated user Cell), off")


def plain(text: str) -> str:
    """A docstring's reStructuredText-ish markup (``code``, `name`) as plain text for
    argparse, which prints it as it is."""
    return re.sub(r"``(.+?)``|`([^`]+)`", lambda m: m.group(1) or m.group(2), text,
                  flags=re.DOTALL)


def build_parser() -> argparse.ArgumentParser:
    head, *rest = (__doc__ or "").strip().split("\n\n")
    parser = argparse.ArgumentParser(
        prog="msc", description=plain(head), epilog=plain("\n\n".join(rest)) + "\n\n"
        "msc COMMAND --help describes a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"msc {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)
    ir = sub.add_parser("ir", help="print the optimized IR of a Cell or @jit function")
    ir.add_argument("model", help="the Python file that defines the model")
    ir.add_argument("entry", nargs="?", help=ENTRY_HELP)
    ir.add_argument("--input", action="append", default=[], metavar="SPEC",
                    help="one per positional input: f32[32,64], i64[], bool[3] ...")
    ir.add_argument("--no-locs", action="store_true", help="omit source locations")
    ir.add_argument("--reuse", choices=("lazy_inline", "auto", "off"),
                    help=REUSE_HELP)
    ir.add_argument("--no-if-to-select", action="store_true", help=SELECT_HELP)
    ir.add_argument("--side-effect-load-elim", type=int, choices=(0, 1, 2, 3),
                    metavar="LEVEL", help=LOAD_ELIM_HELP)
    ir.add_argument("--quiet", action="store_true", help="omit the per-pass table")
    ir.add_argument("--kernels", nargs="?", const="numba", choices=("numba", "python", "cuda"),
                    metavar="TARGET", help="print the kernel IR code generation builds for "
                    "TARGET (default numba): loop nests with their roles, loads, stores, "
                    "each statement's user line")
    ir.add_argument("--format", choices=("text", "dot", "svg", "html"), default="text",
                    help="text (default): the IR as printed; dot, svg: the graph as a picture "
                         "(Graphviz); html: a page with the picture, every node and the "
                         "compile report's chart (self-contained)")
    ir.add_argument("-o", "--output", metavar="FILE", help="write the picture to FILE")
    ir.add_argument("--max-nodes", type=int, default=200, metavar="N",
                    help="pictures: show each graph's first N nodes (default 200; 0: all)")
    ir.set_defaults(run=cmd_ir)
    comp = sub.add_parser("compile", help="compile a Cell or @jit function into an artifact folder")
    comp.add_argument("model", help="the Python file that defines the model")
    comp.add_argument("entry", nargs="?", help=ENTRY_HELP)
    comp.add_argument("--input", action="append", default=[], metavar="SPEC",
                      help="one per positional input: f32[32,64], i64[], bool[3] ... "
                           "(default: the @jit function's input_signature)")
    comp.add_argument("--target", choices=("numba", "python", "cuda"), default="numba",
                      help="numba (default): Numba-compiled kernels; python: numpy only; "
                           "cuda: numba.cuda kernels and a host driver")
    comp.add_argument("--native", action="store_true",
                      help="a shared library with a C ABI (libmsc_model.so, msc_model.h, "
                           "weights.bin): no Python at run time")
    comp.add_argument("--embed-weights", action="store_true",
                      help="with --native: the weights inside the library (one file)")
    comp.add_argument("--triple", metavar="TRIPLE",
                      help="with --native: build for another machine, e.g. "
                           "aarch64-linux-gnu (needs TRIPLE-gcc)")
    comp.add_argument("-o", "--output", required=True, metavar="DIR",
                      help="the artifact folder (replaced if it holds an older artifact)")
    comp.add_argument("--quiet", action="store_true", help="print nothing on success")
    comp.add_argument("--reuse", choices=("lazy_inline", "auto", "off"), help=REUSE_HELP)
    comp.add_argument("--no-if-to-select", action="store_true", help=SELECT_HELP)
    comp.add_argument("--side-effect-load-elim", type=int, choices=(0, 1, 2, 3),
                      metavar="LEVEL", help=LOAD_ELIM_HELP)
    comp.add_argument("--report-html", metavar="FILE",
                      help="also write the compile report (per-pass nodes and times) as a "
                           "self-contained HTML page with a chart")
    comp.add_argument("--no-cache", action="store_true", help="bypass the compile cache")
    comp.add_argument("--explain-cache", action="store_true",
                      help="say whether the compile cache hit, and why not")
    comp.add_argument("--cache-dir", metavar="DIR", help="the compile cache folder "
                      "(default: $MSC_COMPILER_CACHE_PATH, else ~/.cache/msc)")
    comp.set_defaults(run=cmd_compile)
    run = sub.add_parser("run", help="run a script on N ranks through mpiexec (MPI)")
    run.add_argument("-n", type=int, default=1, metavar="N", help="how many ranks")
    run.add_argument("--hostfile", metavar="FILE", help="the machines, one per line "
                     "(mpiexec's -f); default: this machine")
    run.add_argument("script", help="the Python script every rank runs")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    run.set_defaults(run=cmd_run)
    cache = sub.add_parser("cache", help="list, clear or prune the compile cache")
    cache.add_argument("action", choices=("ls", "clear", "prune"))
    cache.add_argument("--max-size", metavar="SIZE", help="prune: keep at most SIZE (500M, 2G)")
    cache.add_argument("--cache-dir", metavar="DIR", help="the compile cache folder")
    cache.set_defaults(run=cmd_cache)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from msc.context import set_context

    if getattr(args, "reuse", None):
        set_context(reuse=args.reuse)
    if getattr(args, "no_if_to_select", False):
        set_context(if_to_select=False)
    if getattr(args, "side_effect_load_elim", None) is not None:
        set_context(side_effect_load_elim=args.side_effect_load_elim)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:  # Ctrl-C: wherever it lands (Numba, LLVM), one line
        return interrupted()
    except UsageError as e:
        print(f"msc: error: {e}", file=sys.stderr)
        return 2
    except MscError as e:
        if os.environ.get("MSC_DEBUG"):
            traceback.print_exc()
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # the user's own raise, reached while building the graph
        from msc.frontend.control import USER_RAISE

        if not getattr(e, USER_RAISE, False) or os.environ.get("MSC_DEBUG"):
            raise
        print(f"{type(e).__name__}: {e}", *getattr(e, "__notes__", ()), sep="\n",
              file=sys.stderr)
        return 1


def interrupted() -> int:
    """Ctrl-C's one line and exit status (128 + SIGINT, as a shell reports it). What was
    being written is a temporary folder or file that is removed or never renamed."""
    sys.stdout.flush()
    print("msc: interrupted", file=sys.stderr, flush=True)
    return 130


if __name__ == "__main__":
    sys.exit(main())
