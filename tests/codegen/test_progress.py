"""The progress line of a compile someone waits for: which library kernels Numba has in
its cache (``KernelWatch``), and the line rewritten on a terminal only (``Ticker``)."""

from __future__ import annotations

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


def test_watch_reads_a_generated_modules_kernels_and_folder(tmp_path):
    module = tmp_path / "m.py"
    lib = tmp_path / "lib"
    module.write_text(f"_KERNELS = {str(lib)!r}\n_LIBRARY = {{{STEMS[1]!r}: '...', "
                      f"'_msc_rt_{'0' * 16}': '...'}}\n")
    watch = KernelWatch.of_module(module)
    assert watch is not None and watch.folder == lib and watch.stems == [STEMS[1]]
    module.write_text(f"_LIBRARY = {{{STEMS[0]!r}: '...'}}\n")  # an artifact's own kernels/
    assert KernelWatch.of_module(module).folder == tmp_path / "kernels"
    module.write_text("def run():\n    return ()\n")
    assert KernelWatch.of_module(module) is None


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
