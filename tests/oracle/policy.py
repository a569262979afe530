"""Where msc deliberately differs from MindSpore 2.10, configuration by configuration.

Each entry names the parts that may differ and why, in one of these classes:
- ``MINDSPORE_WRONG``: msc keeps its answer; the parts are checked against numpy written
  independently (``reference``) instead, and docs/differences.md lists the evidence;
- ``ACCEPTED``: MindSpore raises, msc runs (checked against ``reference`` where given);
- ``OPEN``: msc is wrong or lacks the form and it is not fixed yet: the suite expects the
  difference (so a fix shows) and reports it as open, never as agreeing.
Conventions at points without a derivative and gradients MindSpore defines as zero are
not listed: msc follows MindSpore there, so those configurations simply agree (see
``CONVENTIONS`` for the record of which they are)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

import numpy as np

from tests.oracle.spec import Case, case_inputs, case_seed, weight_for


class Why(Enum):
    MINDSPORE_WRONG = "MindSpore wrong"
    ACCEPTED = "accepted where MindSpore raises"
    OPEN = "open: msc differs, not fixed yet"


@dataclass(frozen=True)
class Policy:
    why: Why
    parts: frozenset[str]
    note: str
    reference: Callable[..., Any] | None = None


def _p(why: Why, parts: str, note: str, reference: Callable[..., Any] | None = None) -> Policy:
    return Policy(why, frozenset(parts.split()), note, reference)


def numpy_reference(forward: Callable[..., np.ndarray], rtol: float = 1e-4,
                    atol: float = 1e-4, step: float = 1e-4) -> Callable[..., str | None]:
    """A reference from numpy written independently: the result is ``forward`` of the
    inputs, the gradient of the weighted sum is its central finite difference in float64."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        want = forward(*[np.asarray(a, np.float64) for a in inputs])
        if not np.allclose(got["out"][0], want, rtol=rtol, atol=atol, equal_nan=True):
            return "the result differs from numpy's"
        if "grad" not in got:
            return None
        w = weight_for(want.shape, "float64", case_seed(case))
        for j, g in enumerate(got["grad"]):
            if g is None:
                continue
            x = [np.asarray(a, np.float64) for a in inputs]
            fd = np.zeros(x[j].shape)
            for idx in np.ndindex(x[j].shape):
                h = step * max(1.0, abs(float(x[j][idx])))
                keep = x[j][idx]
                x[j][idx] = keep + h
                up = float(np.sum(w * forward(*x)))
                x[j][idx] = keep - h
                down = float(np.sum(w * forward(*x)))
                x[j][idx] = keep
                fd[idx] = (up - down) / (2 * h)
            if not np.allclose(g, fd, rtol=1e-3, atol=1e-3):
                return f"the gradient of input {j} differs from finite differences"
        return None

    return check


# (regular expression over configuration ids, policy)
POLICIES: list[tuple[str, Policy]] = []

# Conventions msc follows (documentation: these configurations agree with MindSpore).
CONVENTIONS: dict[str, str] = {}


def policy_for(case: Case) -> Policy | None:
    for pattern, pol in POLICIES:
        if re.fullmatch(pattern, case.id):
            return pol
    return None


def verdict(case: Case, diff: dict[str, str], got: dict[str, Any],
            want: dict[str, Any]) -> tuple[str, str]:
    pol = policy_for(case)
    text = "; ".join(f"{k}: {v}" for k, v in diff.items())
    if pol is None:
        return ("agree", "") if not diff else ("unexplained", text)
    if pol.why is Why.OPEN:
        return ("open", pol.note) if diff else ("unexplained", "listed as open but agrees: "
                                                "remove its policy entry")
    extra = set(diff) - pol.parts
    if extra:
        return "unexplained", text
    if pol.reference is not None and "error" not in got:
        bad = pol.reference(case, case_inputs(case), got)
        if bad:
            return "unexplained", f"differs from the independent reference: {bad}"
    return "policy", pol.note


def _avg_pool_divisor(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    from tests.ops.test_pooling_reference import ref_pool

    k, s, p, ceil, div = re.search(r"k=(\d+),s=(\d+),pad=(\d+),ceil=(\w+),inc=\w+,div=(\d+)",
                                   case.id).groups()
    k, s, p = int(k), int(s), int(p)
    forward = lambda x: ref_pool(x, "avg", (k, k), (s, s), (p, p), (p, p), ceil == "True",
                                 include=False, divisor=int(div))  # noqa: E731
    return numpy_reference(forward)(case, inputs, got)


POLICIES += [
    (r"nn\.AvgPool2d\(.*inc=False,div=5\)", _p(
        Why.MINDSPORE_WRONG, "grad",
        "MindSpore 2.10's gradient of average pooling with divisor_override and "
        "count_include_pad=False is not the adjoint of its forward (sum over the divisor): "
        "it scales border windows by the kernel's size over the positions inside",
        _avg_pool_divisor)),
]


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, begin: int,
                eps: float) -> np.ndarray:
    axes = tuple(range(begin, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _ops_layer_norm(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    eps = float(re.search(r"eps=([0-9.e-]+),", case.id).group(1))
    nd = inputs[1].ndim
    return numpy_reference(lambda x, w, b: _layer_norm(x, w, b, x.ndim - nd, eps),
                           step=1e-7)(case, inputs, got)


def _instance_norm(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    def forward(x: np.ndarray) -> np.ndarray:
        axes = tuple(range(2, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-5)

    return numpy_reference(forward)(case, inputs, got)


def _l2_normalize(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    axis, eps = re.search(r"axis=(-?\d+),eps=([0-9.e-]+),", case.id).groups()
    return numpy_reference(lambda x: x / np.sqrt(np.maximum(
        (x * x).sum(axis=int(axis), keepdims=True), float(eps))))(case, inputs, got)


def _adaptive_avg_1d(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    out = int(re.search(r"\((\d+)\)", case.id).group(1))

    def forward(x: np.ndarray) -> np.ndarray:
        n = x.shape[-1]
        return np.stack([x[..., i * n // out:-(-(i + 1) * n // out)].mean(-1)
                         for i in range(out)], -1)

    return numpy_reference(forward)(case, inputs, got)


CPU_MISSING = ("MindSpore 2.10's CPU build has no kernel for it ('Unsupported op ... on CPU'); "
               "msc runs it, checked against numpy and finite differences")
POLICIES += [
    (r"ops\.layer_norm\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, _ops_layer_norm)),
    (r"nn\.InstanceNorm[12]d\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, _instance_norm)),
    (r"P\.L2Normalize\(.*const:0\.0\)", _p(
        Why.MINDSPORE_WRONG, "grad",
        "MindSpore 2.10's L2NormalizeGrad divides by epsilon where the squared norm is below "
        "it; the forward x / sqrt(max(sum(x^2), epsilon)) has 1 / sqrt(epsilon) there",
        _l2_normalize)),
    (r"nn\.AdaptiveAvgPool1d\(3\)", _p(
        Why.ACCEPTED, "error", "MindSpore requires the output size to divide the length; msc "
        "takes windows [floor(i*n/out), ceil((i+1)*n/out)) as its 2-d and 3-d forms do",
        _adaptive_avg_1d)),
]


def _conv2d_pads(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    from tests.oracle import references

    s, d, g = (int(v) for v in re.search(r",s=(\d),d=(\d),g=(\d)", case.id).groups())
    return numpy_reference(lambda x, w, *b: references.conv2d(x, w, s, (0, 1, 2, 1), d, g)
                           + (b[0][:, None, None] if b else 0))(case, inputs, got)


def _conv_transpose2d(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    from tests.oracle import references

    s, p, op, d = (int(v) for v in re.search(r"s=(\d),p=(\d),op=(\d),d=(\d)", case.id).groups())
    return numpy_reference(lambda x, w: references.conv_transpose2d(x, w, s, p, op, d))(
        case, inputs, got)


POLICIES += [
    (r"ops\.conv2d\(pad,p=\(0, 1, 2, 1\),.*", _p(
        Why.ACCEPTED, "error", "MindSpore's ops.conv2d takes 2 paddings; msc also takes "
        "(top, bottom, left, right), as nn.Conv2d and P.Conv2D do", _conv2d_pads)),
    (r"ops\.conv_transpose2d\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, _conv_transpose2d)),
]
