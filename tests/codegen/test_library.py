"""The kernel library (``msc/codegen/library.py``): each outlined kernel is a file of its own
in a folder every process shares, so Numba compiles it once per machine. A second process
running another model made of the same blocks compiles nothing; four processes compiling
the same kernels at once leave files and a cache that a fifth loads without compiling,
and two more at once mend a damaged kernel file and cache index.
Real processes, real Numba."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

from msc.codegen.library import intact

MODEL = '''
import sys

import numpy as np
from numba.core.dispatcher import Dispatcher

import msc as ms
import msc.codegen.outline
from msc import nn

msc.codegen.outline.OUTLINE_LINES = 0  # outline however small


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)) + x)


net = nn.SequentialCell([Block() for _ in range(int(sys.argv[1]))])
net.set_train(False)
x = ms.Tensor(np.random.default_rng(0).normal(size=(2, 4, 6, 6)).astype(np.float32))
eager = net(x).asnumpy()
ms.set_context(mode=ms.GRAPH_MODE, jit_tier="numba")
got = net(x).asnumpy()
assert np.allclose(got, eager, rtol=1e-5, atol=1e-6), abs(got - eager).max()
kernels = [d for name, m in list(sys.modules.items()) if name.startswith("_msc_k_")
           for k, d in vars(m).items() if k.startswith("_k_") and isinstance(d, Dispatcher)]
print(len(kernels), sum(len(d.stats.cache_hits) for d in kernels),
      sum(len(d.stats.cache_misses) for d in kernels))
'''


def start(tmp_path, library, depth):
    (tmp_path / "model.py").write_text(MODEL)
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(library)}
    return subprocess.Popen([sys.executable, str(tmp_path / "model.py"), str(depth)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def finish(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return tuple(map(int, out.split()))  # kernels, loaded from the cache, compiled


def test_another_model_of_the_same_blocks_compiles_nothing(tmp_path):
    library = tmp_path / "library"
    kernels, loaded, compiled = finish(start(tmp_path, library, 2))
    # (the first call's helper processes may have compiled some: this one loads them)
    assert kernels >= 2 and loaded + compiled == kernels
    files = sorted(p.name for p in library.glob("*.py"))
    assert any(name.startswith("_msc_rt_") for name in files)  # the helpers' file

    kernels, loaded, compiled = finish(start(tmp_path, library, 5))  # deeper: a new model
    assert (loaded, compiled) == (kernels, 0)
    assert sorted(p.name for p in library.glob("*.py")) == files


def test_the_same_blocks_on_other_lines_of_another_file_compile_nothing(tmp_path):
    """Kernel files are named without the user's line comments: a model written elsewhere
    (here: the same one moved down three lines, in another folder) finds them compiled."""
    library = tmp_path / "library"
    kernels, loaded, compiled = finish(start(tmp_path, library, 2))
    assert loaded + compiled == kernels
    files = sorted(p.name for p in library.glob("*.py"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "model.py").write_text("\n\n\n" + MODEL)
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(library)}
    proc = subprocess.Popen([sys.executable, str(elsewhere / "model.py"), "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    kernels, loaded, compiled = finish(proc)
    assert (loaded, compiled) == (kernels, 0)
    assert sorted(p.name for p in library.glob("*.py")) == files


def test_concurrent_compiles_of_the_same_kernels_leave_one_sound_library(tmp_path):
    library = tmp_path / "library"
    for proc in [start(tmp_path, library, 2) for _ in range(4)]:
        kernels, loaded, compiled = finish(proc)
        assert loaded + compiled == kernels
    assert not list(library.glob("*.tmp"))
    kernels, loaded, compiled = finish(start(tmp_path, library, 2))
    assert (loaded, compiled) == (kernels, 0)
    assert np.all([p.stat().st_size > 0 for p in library.glob("*.py")])
    # a damaged kernel file and a damaged cache index: the next process mends both, while
    # another runs on the same library, and both answer right (the model checks)
    first = sorted(library.glob("_msc_k_*.py"))[0]
    first.write_bytes(first.read_bytes()[:100])
    index = sorted((library / "__pycache__").glob("_msc_k_*.nbi"))[-1]
    index.write_bytes(b"\x80\x05 not a pickle")
    said = ""
    for proc in [start(tmp_path, library, 2) for _ in range(2)]:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        said += err
    assert f"the kernel library {library} was damaged: rewrote {first.name}" in said
    assert intact(first.stem, first.read_text(encoding="utf-8"))
    assert not [p for p in library.rglob("*") if p.suffix in (".tmp", ".damaged")]


@pytest.mark.parametrize("model", ["stack", "convolutions", "halves"])
def test_every_foreseen_call_is_one_the_run_makes(tmp_path, monkeypatch, model):
    """The signatures workers compile ahead (``_SIGNATURES``) are those the first run
    needs."""
    import msc as ms
    from msc.codegen import outline
    from msc.codegen.numba_worker import numba_types
    from msc.compiler import arg_spec, compile_entry
    from tests.codegen.test_outline import Stack

    class Halves(ms.nn.Cell):
        """A split's halves, views of one array, read by a loop: the driver takes the
        items of the split's tuple (no kernel of tuple indexing alone), and the foresight
        types them (layout "A")."""

        def construct(self, x):
            a, b = ms.ops.split(x * 2.0, 4, axis=1)
            return ms.ops.relu(a) * b

    monkeypatch.setattr(outline, "OUTLINE_LINES", 0)
    net = Stack(3) if model == "stack" else Halves() if model == "halves" else \
        ms.nn.SequentialCell([ms.nn.Conv2d(8, 16, 3, stride=2, pad_mode="pad", padding=1),
                              ms.nn.Tanh(),  # a kernel (a ReLU is numpy's call)
                              ms.nn.Conv2d(16, 16, 3, stride=2, pad_mode="pad", padding=1)])
    net.set_train(False)
    x = ms.Tensor(np.random.default_rng(0).normal(size=(2, 4 if model == "stack" else 8, 9, 9))
                  .astype(np.float32))
    compiled = compile_entry(net, [arg_spec(x)], target="numba", store=None)
    np.testing.assert_allclose(compiled.run([x]).asnumpy(), net(x).asnumpy(), rtol=1e-5,
                               atol=1e-5)
    foreseen = compiled.code._SIGNATURES
    assert len({name for name, _, _ in foreseen}) == len(compiled.spec.library)
    assert compiled.spec.foresees_all
    for name, _, args in foreseen:
        assert numba_types(args) in getattr(compiled.code, name).signatures, name
    if model == "halves":
        driver = "\n".join(compiled.spec.kernel.lines)
        assert re.search(r"^(\w+) = \w+\[0\].*\n\w+ = \w+\[1\]", driver, re.M), driver
        assert len(compiled.spec.library) == 1  # the halves' loop (x * 2.0: numpy's call)



UNCACHED = MODEL.split("eager = net(x)")[0] + '''
from msc.codegen.numba_worker import uncached
from msc.compiler import arg_spec, compile_entry

compiled = compile_entry(net, [arg_spec(x)], target="numba", store=None)
compiled.load()
before = len(uncached(compiled.code)), len(compiled.code._SIGNATURES)
compiled.code = None  # the first call imports it again and compiles, with helpers
assert np.allclose(compiled.run([x]).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
print(*before, len(uncached(compiled.code)))
'''


def test_helpers_compile_only_what_no_process_has_compiled(tmp_path):
    """``uncached``: the foreseen calls left to compile ahead (helpers start only for
    them): all of them with an empty library, none once a run compiled them."""
    (tmp_path / "uncached.py").write_text(UNCACHED)
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(tmp_path / "library"),
           "MSC_JIT_TIER": "numba"}
    proc = subprocess.run([sys.executable, str(tmp_path / "uncached.py"), "2"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    uncached_before, foreseen, uncached_after = map(int, proc.stdout.split())
    assert uncached_before == foreseen >= 2 and uncached_after == 0


TWO_DTYPES = '''
import sys

import numpy as np
from numba.core.dispatcher import Dispatcher

import msc as ms
import msc.codegen.outline
from msc import nn

msc.codegen.outline.OUTLINE_LINES = 0  # outline however small


class Block(nn.Cell):
    def __init__(self, dtype):
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1, dtype=dtype)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.conv(x) + x)


class Net(nn.Cell):
    """Ends in a sum over the batch: its kernel adds rows into float64 accumulators at
    either dtype, so both dtypes share it."""

    def __init__(self, dtype):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(dtype) for _ in range(2)])

    def construct(self, x):
        return ms.ops.reduce_sum(self.blocks(x), 0)


def make32():
    return Net(ms.float32)


def make64():
    return Net(ms.float64)


if __name__ == "__main__":  # float32 in this process, through the library itself
    net = make32()
    x = ms.Tensor(np.random.default_rng(0).normal(size=(2, 16, 3, 3)).astype(np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="numba")
    assert np.allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    kernels = [d for name, m in list(sys.modules.items()) if name.startswith("_msc_k_")
               for k, d in vars(m).items() if k.startswith("_k_") and isinstance(d, Dispatcher)]
    print(len(kernels), sum(len(d.stats.cache_hits) for d in kernels),
          sum(len(d.stats.cache_misses) for d in kernels))
'''


def signatures_in(folder):
    """{index file: each signature's array dtypes, "float64,float32"} of a Numba cache
    ("scalars" for a helper of scalars only)."""
    found = {}
    for index in sorted((folder / "__pycache__").glob("*.nbi")):
        with open(index, "rb") as f:
            pickle.load(f)  # Numba's version
            _, overloads = pickle.loads(f.read())
        found[index.name] = {",".join(str(t.dtype) for t in key[0] if hasattr(t, "dtype"))
                             or "scalars" for key in overloads}
    return found


def test_an_artifact_compile_teaches_the_library_new_signatures(tmp_path):
    """A kernel the library compiled for float64 that a float32 artifact needs: the
    artifact's compile adds the float32 signature to the library (its index names a data
    file the library now holds), and a float32 run on the library compiles nothing."""
    library = tmp_path / "library"
    (tmp_path / "model.py").write_text(TWO_DTYPES)
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(library)}
    lines = []  # each compile's progress line: new signatures count as compiled
    for entry, spec in (("make64", "f64[2,16,3,3]"), ("make32", "f32[2,16,3,3]"),
                        ("make32", "f32[2,16,3,3]")):
        done = subprocess.run([sys.executable, "-m", "msc", "compile",
                               str(tmp_path / "model.py"), entry, "--input", spec, "-o",
                               str(tmp_path / entry), "--no-cache"], check=True, env=env,
                              capture_output=True, text=True, timeout=600)
        lines.append(re.search(r"(\d+)/(\d+) library kernels \((\d+) compiled, (\d+) cached\)",
                               done.stdout).groups())
    first, second, third = [tuple(map(int, found)) for found in lines]
    assert first[2] == first[0] == first[1]  # all compiled
    assert second[2] == second[0] and second[3] == 0  # each new for float32, shared or not
    assert third[2] == 0 and third[3] == third[0]  # the library taught: nothing to compile
    learned = signatures_in(library)
    both = [name for name, dtypes in learned.items() if len(dtypes) == 2]
    assert both, learned  # a shared kernel, compiled for float64 first
    for name, dtypes in signatures_in(tmp_path / "make32" / "kernels").items():
        assert dtypes <= learned[name], name
    proc = subprocess.run([sys.executable, str(tmp_path / "model.py")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    kernels, loaded, compiled = map(int, proc.stdout.split())
    assert (loaded, compiled) == (kernels, 0)


RUN_ARTIFACT = '''
import sys

import numpy as np
from numba.core.dispatcher import Dispatcher

from msc.codegen.artifact import load_artifact

x = np.random.default_rng(0).normal(size=(2, 16, 3, 3)).astype(np.float32)
out = load_artifact(sys.argv[1]).forward(x)
kernels = [d for name, m in list(sys.modules.items()) if name.startswith("_msc_k_")
           for k, d in vars(m).items() if k.startswith("_k_") and isinstance(d, Dispatcher)]
np.save(sys.argv[2], np.asarray(out))
print(len(kernels), sum(len(d.stats.cache_misses) for d in kernels))
'''


def test_a_compile_the_library_fully_serves_starts_no_numba(tmp_path):
    """Once the library's record shows every call an artifact makes compiled for this
    machine, ``msc compile`` copies the kernels without importing Numba (no run on zeros),
    and the artifact loads every kernel from its cache. An index changed since the record
    sends the next compile through Numba again."""
    # the model file without TWO_DTYPES's own numba import (its __main__ part)
    (tmp_path / "model.py").write_text(TWO_DTYPES.split("if __name__")[0].replace(
        "from numba.core.dispatcher import Dispatcher\n", ""))
    (tmp_path / "run.py").write_text(RUN_ARTIFACT)
    library = tmp_path / "library"
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(library)}

    def compile_(name):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "msc", "compile",
                               str(tmp_path / "model.py"), "make32", "--input", "f32[2,16,3,3]",
                               "-o", str(tmp_path / name), "--no-cache"], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        numba = any(re.search(r"\|\s+numba$", line.rstrip()) for line in done.stderr.splitlines())
        counts = re.search(r"(\d+)/(\d+) library kernels \((\d+) compiled, (\d+) cached\)",
                           done.stdout).groups()
        return numba, tuple(map(int, counts))

    started, (n, total, compiled, cached) = compile_("cold")
    assert started and compiled == n == total > 0
    assert json.loads((library / "signatures.json").read_text())["files"]
    started, counts = compile_("warm")
    assert not started and counts == (n, n, 0, n)
    outs = []
    for name in ("cold", "warm"):
        run = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path / name),
                              str(tmp_path / f"{name}.npy")], env=env, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        kernels, misses = map(int, run.stdout.split())
        assert kernels > 0 and misses == 0
        outs.append(np.load(tmp_path / f"{name}.npy"))
    np.testing.assert_array_equal(outs[0], outs[1])
    index = next((library / "__pycache__").glob("_msc_k_*.nbi"))
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 10**9))
    started, counts = compile_("again")
    assert started and counts == (n, n, 0, n)
    assert not compile_("served again")[0]  # recorded anew
    source = library / f"{index.name.split('.')[0]}.py"  # rewritten: Numba's entry is stale
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    assert compile_("recompiled")[0]


def test_the_foresight_follows_copies_of_views():
    """``signatures`` types a contiguous copy of an ``as_strided`` view (attention's heads
    permuted) and the views the driver makes of arrays whose strides it follows (a
    filter gradient cut to its kernel, then its axes swapped): each as Numba types the
    array numpy makes, layout included. A view of a parameter, whose strides it cannot
    know, is not foreseen, and it says so."""
    from numba import typeof

    from msc.codegen.library import signatures
    from msc.codegen.numba_worker import numba_types
    from msc.codegen.pyrender import render_stmts
    from msc.codegen.spec import KernelSpec
    from msc.common import dtype as mstype
    from msc.ir import kernel as K
    from msc.ir.kernel import Assign, Eval, Fn, Invoke, Lit, Name, Slice

    def strided(base, shape, order):
        strides = K.Call(Fn.ATTR_STRIDES, (Name(base),))
        return K.Call(Fn.AS_STRIDED, (Name(base), K.shape_of(shape),
                                      K.Tuple(tuple(strides[k] for k in order))))

    every_slice = tuple(Slice(Lit(0), Lit(n), Lit(1)) for n in (3, 8, 3, 3))
    body = (
        Assign(Name("v"), K.empty((2, 3, 4), mstype.float32)),
        Assign(Name("t"), strided("v", (3, 2, 4), (1, 0, 2))),
        Assign(Name("c"), K.reshape(K.contiguous(Name("t")), (6, 4))),
        Assign(Name("g"), K.empty((3, 8, 4, 4), mstype.float32)),
        Assign(Name("cut"), Name("g")[every_slice]),
        Assign(Name("dw"), strided("cut", (8, 3, 3, 3), (1, 0, 2, 3))),
        Assign(Name("one"), K.empty((3, 8, 1, 1), mstype.float32)),
        Assign(Name("dw1"), strided("one", (8, 3, 1, 1), (1, 0, 2, 3))),
        Assign(Name("rows"), Name("g")[Slice(Lit(1), Lit(3))]))
    lines = render_stmts(body)
    calls = (Invoke("_k_a", (Name("c"), Lit(6), Name("x"))),
             Invoke("_k_b", (Name("v"), Lit(12), Lit(1.5))),
             Invoke("_k_c", tuple(Name(n) for n in ("t", "dw", "dw1", "cut", "rows"))),
             Invoke("_k_d", (Name("x")[Slice(Lit(0), Lit(2))],)))
    driver = KernelSpec("d", ("x",), (), "()", body=body + tuple(Eval(c) for c in calls))
    calls, every = signatures(driver, {"x": ("float64", 1, True)})
    arrays: dict = {}
    exec("\n".join(lines), {"np": np}, arrays)
    assert calls[:2] == [("_k_a", (("float32", 2, False), ("int64",), ("float64", 1, True))),
                         ("_k_b", (("float32", 3, False), ("int64",), ("float64",)))]
    (name, args), = calls[2:]
    assert name == "_k_c" and [a[3:] for a in args] == [("A",), ("A",), ("F",), ("A",), ()]
    assert numba_types(args) == tuple(typeof(arrays[n]) for n in ("t", "dw", "dw1", "cut", "rows"))
    assert not every
