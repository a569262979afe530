"""Damaged ``.ckpt`` files: truncated, bit-flipped, random or with huge declared lengths,
each either loads or raises msc's own error naming the file, and the reader never holds
much more memory than the file's own size (a declared length is checked against the bytes
that are there before anything is allocated)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.errors import MscError


def _varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _damaged(good: bytes, rng: np.random.Generator):
    """Named damaged versions of ``good``: every kind the issue lists, 300 in all."""
    for i in range(60):
        yield f"cut{i}", good[:int(rng.integers(0, len(good)))]
    for i in range(120):
        blob = bytearray(good)
        for pos in rng.integers(0, len(blob), int(rng.integers(1, 4))):
            blob[pos] ^= 1 << int(rng.integers(0, 8))
        yield f"flip{i}", bytes(blob)
    for i in range(60):
        yield f"random{i}", rng.integers(0, 256, int(rng.integers(1, 400)), np.uint8).tobytes()
    for i in range(60):  # a length-delimited field declaring up to 2**60 bytes
        key = _varint(int(rng.integers(1, 4)) << 3 | 2)
        pos = int(rng.integers(0, len(good)))
        yield f"huge{i}", good[:pos] + key + _varint(1 << int(rng.integers(20, 61))) + good[pos:]


def test_damaged_checkpoints_raise_msc_errors_naming_the_file(tmp_path):
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    good_path = tmp_path / "good.ckpt"
    ms.save_checkpoint(net, str(good_path))
    good = good_path.read_bytes()
    outcomes = {"loaded": 0, "error": 0}
    tracemalloc.start()
    try:
        for name, blob in _damaged(good, np.random.default_rng(0)):
            path = tmp_path / f"{name}.ckpt"
            path.write_bytes(blob)
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            try:
                ms.load_checkpoint(str(path))
                outcomes["loaded"] += 1
            except MscError as e:
                assert path.name in str(e) or "does not exist" in str(e), (name, str(e))
                outcomes["error"] += 1
            except Exception as e:
                pytest.fail(f"{name}: {type(e).__name__}: {e}")
            peak = tracemalloc.get_traced_memory()[1] - base
            assert peak < 4 * len(blob) + (256 << 10), (name, peak, len(blob))
    finally:
        tracemalloc.stop()
    assert outcomes["error"] > 100 and sum(outcomes.values()) == 300


def test_the_error_for_a_truncated_file_names_it_and_says_why(tmp_path):
    path = tmp_path / "cut.ckpt"
    ms.save_checkpoint(nn.Dense(2, 2), str(tmp_path / "whole.ckpt"))
    path.write_bytes((tmp_path / "whole.ckpt").read_bytes()[:-5])
    with pytest.raises(ValueError, match=r"cut\.ckpt cannot be read: truncated checkpoint"):
        ms.load_checkpoint(str(path))
