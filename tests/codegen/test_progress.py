"""The progress line of a compile someone waits for: which library kernels Numba has in
its cache (``KernelWatch``), and the line rewritten on a terminal only (``Ticker``)."""

from __future__ import annotations

import dataclasses
import io
import time

from msc.cli import ProgressLine
from msc.codegen.library import KernelWatch
from msc.progress import Ticker, wanted

STEMS = ["_msc_k_" + c * 16 for c in "abc"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def index_file(folder, stem):
    (folder / "__pycache__").mkdir(parents=True, exist_ok=True)
    (folder / "__pycache__" / f"{stem}._k_x__blas-14.py311.nbi").write_bytes(b"")


def until(predicate, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "the progress line never showed"
        time.sleep(0.02)


def test_watch_counts_kernels_compiled_since_it_started_apart_from_cached(tmp_path):
    index_file(tmp_path, STEMS[0])
    index_file(tmp_path, "_msc_k_" + "f" * 16)  # another module's kernel: not counted
    watch = KernelWatch(tmp_path, STEMS)
    assert watch.summary() == "1/3 library kernels (0 compiled, 1 cached)"
    index_file(tmp_path, STEMS[2])
    assert watch.summary() == "2/3 library kernels (1 compiled, 1 cached)"


def test_watch_follows_a_modules_library_kernels_and_folder(tmp_path):
    """A module's watch comes from its spec's library kernels (or, for a compile-cache
    entry's module, the record its manifest keeps), not from reading the module."""
    from msc.codegen.library import kernels
    from msc.codegen.spec import KernelSpec, ModuleSpec

    module, lib = tmp_path / "m.py", tmp_path / "lib"
    spec = ModuleSpec("numba", "", KernelSpec("run", (), (), "()"), (), (), (), "_r",
                      library=(("_k_1", STEMS[1]), ("_k_2", STEMS[1])), library_dir=str(lib))
    watch = KernelWatch.of_spec(spec, module)
    assert watch is not None and watch.folder == lib and watch.stems == [STEMS[1]]
    assert KernelWatch.of_kernels(kernels(spec), module).stems == [STEMS[1]]
    own = dataclasses.replace(spec, library_dir=None)  # an artifact's own kernels/
    assert KernelWatch.of_spec(own, module).folder == tmp_path / "kernels"
    assert KernelWatch.of_spec(dataclasses.replace(spec, library=()), module) is None
    assert KernelWatch.of_kernels(None, module) is None


def test_ticker_rewrites_one_line_and_leaves_it_blank(tmp_path):
    out = Terminal()
    ticker = Ticker(out, "waiting: ", lambda: "2/3", every=0.01)
    until(lambda: "\rwaiting: 2/3, " in out.getvalue())
    ticker.stop()
    text = out.getvalue()
    assert "\n" not in text and text.endswith("\r")
    assert text.rstrip("\r").endswith(" " * len("waiting: 2/3, 0.0 s"))


def test_live_line_only_on_a_terminal_and_not_when_turned_off(monkeypatch):
    assert wanted(Terminal()) and not wanted(io.StringIO())
    monkeypatch.setenv("MSC_PROGRESS", "0")
    assert not wanted(Terminal())


def test_msc_compile_line_counts_up_then_ends_with_the_time(tmp_path, monkeypatch):
    out = Terminal()
    monkeypatch.setattr("sys.stdout", out)
    watch = KernelWatch(tmp_path, STEMS)
    line = ProgressLine()
    line("Net_construct", None, watch=watch)
    index_file(tmp_path, STEMS[0])
    until(lambda: "1/3 library kernels (1 compiled, 0 cached)" in out.getvalue())
    line("Net_construct", 1.5, watch.summary())
    final = out.getvalue().split("\r")[-1]
    assert final == ("numba: compiling Net_construct ... 1.50 s "
                     "(1/3 library kernels (1 compiled, 0 cached))\n")
