"""A save killed at any moment leaves a checkpoint that loads: the old one or the new one
(``msc/_atomic.py``: a temporary file beside it, fsync, rename). Real processes, SIGKILL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

import msc as ms
from msc._atomic import atomic_open, write_atomic
from msc.train import CheckpointConfig, ModelCheckpoint

SAVER = '''
import sys

import numpy as np

from msc import Parameter, Tensor
from msc.train.serialization import save_checkpoint

path = sys.argv[1]  # holds the checkpoint of 1.0s a run keeps
new = [{"name": f"w{i}", "data": Tensor(np.full(N, 2.0, np.float32))} for i in range(4)]
print("ready", flush=True)
sys.stdin.readline()
save_checkpoint(new, path)
print("saved", flush=True)
'''


N = 1 << 21  # 4 float32 weights of 8 MB: a 32 MB file


def _watch(folder):
    """What the folder looks like: each entry's size and time."""
    seen = {}
    for name in os.listdir(folder):
        try:
            stat = os.stat(folder / name)
        except FileNotFoundError:  # (renamed while we look)
            continue
        seen[name] = (stat.st_size, stat.st_mtime_ns)
    return seen


def test_a_save_killed_at_any_moment_leaves_a_checkpoint_that_loads(tmp_path):
    """Killed when the folder first changes, and at a few moments into the save (the new
    file's write, its fsync, the rename), the name holds the old checkpoint or the new
    one; a save left alone ends with the new one."""
    (tmp_path / "saver.py").write_text(SAVER.replace("(N,", f"({N},"))
    ms.save_checkpoint([{"name": f"w{i}", "data": ms.Tensor(np.full(N, 1.0, np.float32))}
                        for i in range(4)], str(tmp_path / "old.ckpt"))
    delays = ["first change", 0.03, 0.1, None]  # None: not killed
    procs = []
    for k in range(len(delays)):  # started together: their imports overlap
        folder = tmp_path / f"run{k}"
        folder.mkdir()
        shutil.copy(tmp_path / "old.ckpt", folder / "net.ckpt")
        procs.append(subprocess.Popen([sys.executable, str(tmp_path / "saver.py"),
                                       str(folder / "net.ckpt")], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True))
    seen = set()
    for k, (proc, delay) in enumerate(zip(procs, delays)):
        folder = tmp_path / f"run{k}"
        assert proc.stdout.readline() == "ready\n"
        before = _watch(folder)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        if delay == "first change":
            deadline = time.monotonic() + 30
            while _watch(folder) == before and time.monotonic() < deadline:
                pass
            proc.send_signal(signal.SIGKILL)
        elif delay is not None:
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        assert delay is not None or proc.stdout.read() == "saved\n"
        loaded = ms.load_checkpoint(str(folder / "net.ckpt"))
        assert sorted(loaded) == ["w0", "w1", "w2", "w3"]
        values = {float(f(p.asnumpy())) for p in loaded.values() for f in (np.min, np.max)}
        assert values in ({1.0}, {2.0}), (delay, values)
        seen |= values
        if delay is None:
            assert values == {2.0}
        # only the checkpoint is left behind, or a temporary file beside it (a hidden name)
        assert all(n == "net.ckpt" or n.startswith(".net.ckpt.") for n in os.listdir(folder))
    assert 1.0 in seen  # (some kill came before the rename)


def test_an_interrupted_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "report.html"
    write_atomic(path, "old")
    os.chmod(path, 0o640)
    with pytest.raises(KeyboardInterrupt), atomic_open(path, "w", encoding="utf-8") as f:
        f.write("half of the new")
        raise KeyboardInterrupt
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["report.html"]
    write_atomic(path, "new")
    assert path.read_text() == "new" and os.stat(path).st_mode & 0o777 == 0o640


def test_model_checkpoint_removes_an_old_file_only_after_the_new_one_is_whole(
        tmp_path, monkeypatch):
    """keep_checkpoint_max=2: a third save that fails (a kill, a full disk) leaves both
    earlier checkpoints; one that succeeds removes the oldest."""
    import msc.train.serialization as serialization

    net = ms.nn.Dense(2, 2)
    ckpt = ModelCheckpoint("net", str(tmp_path), CheckpointConfig(keep_checkpoint_max=2))
    run = SimpleNamespace(batch_num=10, cur_epoch_num=1, train_network=net, cur_step_num=0)
    for step in (1, 2):
        run.cur_step_num = step
        ckpt.step_end(SimpleNamespace(original_args=lambda: run))
    assert sorted(os.listdir(tmp_path)) == ["net-1_1.ckpt", "net-1_2.ckpt"]

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    real = serialization.save_checkpoint
    monkeypatch.setattr(serialization, "save_checkpoint", full_disk)
    run.cur_step_num = 3
    with pytest.raises(OSError):
        ckpt.step_end(SimpleNamespace(original_args=lambda: run))
    assert sorted(os.listdir(tmp_path)) == ["net-1_1.ckpt", "net-1_2.ckpt"]
    monkeypatch.setattr(serialization, "save_checkpoint", real)
    run.cur_step_num = 4
    ckpt.step_end(SimpleNamespace(original_args=lambda: run))
    assert sorted(os.listdir(tmp_path)) == ["net-1_2.ckpt", "net-1_4.ckpt"]
