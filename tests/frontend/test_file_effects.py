"""A graph does not touch the user's files or start processes while it is compiled
(``msc/frontend/effects.py``): such a call in ``construct`` or a ``@jit`` function is
refused with msc's error at the user's line, before it runs, and the file is untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.errors import UnsupportedSyntaxError

TARGET = {}  # the file each test guards, read by the graphs below


class WriteWith(nn.Cell):
    def construct(self, x):
        with open(TARGET["path"], "w") as f:
            f.write("overwritten")
        return x


class OpenToWrite(nn.Cell):
    def construct(self, x):
        y = x * 2
        f = open(TARGET["path"], "w")
        return y + len(str(f))


@ms.jit
def remove(x):
    os.remove(TARGET["path"])
    return x


@ms.jit
def copy_over(x):
    shutil.copyfile(__file__, TARGET["path"])
    return x


@ms.jit
def run_process(x):
    subprocess.run(["rm", TARGET["path"]])
    return x


@ms.jit
def print_to_file(x):
    print("overwritten", file=open(TARGET["path"], "w"))
    return x


@ms.jit
def path_write(x):
    Path(TARGET["path"]).write_text("overwritten")
    return x


@ms.jit
def rename(x):
    os.rename(TARGET["path"], TARGET["path"] + ".moved")
    return x


CASES = [(WriteWith(), "with open(TARGET[\"path\"], \"w\") as f", "open()"),
         (OpenToWrite(), "f = open(TARGET[\"path\"], \"w\")", "open()"),
         (remove, "os.remove(TARGET[\"path\"])", "os.remove()"),
         (copy_over, "shutil.copyfile(__file__, TARGET[\"path\"])", "shutil.copyfile()"),
         (run_process, "subprocess.run([\"rm\", TARGET[\"path\"]])", "subprocess.run()"),
         (print_to_file, "print(\"overwritten\", file=open(TARGET[\"path\"], \"w\"))",
          "print(..., file=...)"),
         (path_write, "Path(TARGET[\"path\"]).write_text(\"overwritten\")", "Path.write_text()"),
         (rename, "os.rename(TARGET[\"path\"], TARGET[\"path\"] + \".moved\")", "os.rename()")]


@pytest.mark.parametrize("net, call, name", CASES, ids=[c[2] for c in CASES])
def test_a_graph_touching_files_is_refused_at_the_users_line(tmp_path, net, call, name):
    TARGET["path"] = str(tmp_path / "notes.txt")
    Path(TARGET["path"]).write_text("the user's notes")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(UnsupportedSyntaxError) as info:
            net(ms.Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    text = str(info.value)
    assert f"{name} in a graph" in text
    line = next(n for n, s in enumerate(Path(__file__).read_text().splitlines(), 1)
                if call in s)
    assert f"test_file_effects.py:{line}:" in text and call in text and "^" in text, text
    assert os.listdir(tmp_path) == ["notes.txt"]
    assert Path(TARGET["path"]).read_text() == "the user's notes"


def test_print_to_a_file_is_refused_before_its_arguments_run():
    """``print(..., file=sys.stderr)``: the call itself is refused (the stream could be
    any file); a plain print still prints when the graph runs."""
    import sys

    @ms.jit
    def to_stderr(x):
        print("hello", file=sys.stderr)
        return x

    with pytest.raises(UnsupportedSyntaxError, match=r"print\(\.\.\., file=\.\.\.\) in a graph"):
        to_stderr(ms.Tensor(np.ones(2, np.float32)))
