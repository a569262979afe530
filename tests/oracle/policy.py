"""Where msc deliberately differs from MindSpore 2.10, configuration by configuration.

Each entry names the parts that may differ and why, in one of these classes:
- ``MINDSPORE_WRONG``: msc keeps its answer; the parts are checked against numpy written
  independently (``reference``) instead, and docs/differences.md lists the evidence;
- ``ACCEPTED``: MindSpore raises, msc runs (checked against ``reference`` where given);
- ``UNSPECIFIED``: which of several equal elements an op picks, where MindSpore's kernel
  gives no rule (msc takes the first, and ``reference`` checks its choice is one);
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
    UNSPECIFIED = "an order MindSpore leaves unspecified"
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
                    atol: float = 1e-4, step: float = 1e-4, elementwise: bool = False,
                    grad: bool = True) -> Callable[..., str | None]:
    """A reference from numpy written independently: the result is ``forward`` of the
    inputs, the gradient of the weighted sum is its central finite difference in float64.
    ``elementwise``: a one-input elementwise op, differenced element by element; the
    gradient is compared where the input is finite and away from 0 (the kinks of the
    activations, where a difference quotient averages both sides)."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        def outputs(*xs: np.ndarray) -> tuple[np.ndarray, ...]:
            out = forward(*xs)
            return out if isinstance(out, tuple) else (out,)

        want = outputs(*[np.asarray(a, np.float64) for a in inputs])
        loose = any(g.dtype == np.float16 for g in got["out"])
        tol = (max(rtol, 5e-3), max(atol, 5e-3)) if loose else (rtol, atol)
        for g, w in zip(got["out"], want):
            if not np.allclose(g, w, rtol=tol[0], atol=tol[1], equal_nan=True):
                return "the result differs from numpy's"
        if "grad" not in got or not grad:
            return None
        if elementwise:
            x = np.asarray(inputs[0], np.float64)
            h = step * np.maximum(1.0, np.abs(np.nan_to_num(x)))
            w = weight_for(x.shape, "float64", case_seed(case))
            with np.errstate(all="ignore"):
                fd = w * (forward(x + h) - forward(x - h)) / (2 * h)
            keep = np.isfinite(x) & (np.abs(x) > 2 * h)
            g = got["grad"][0]
            if not np.allclose(g[keep], fd[keep], rtol=10 * tol[0] + 1e-3,
                               atol=10 * tol[1] + 1e-3):
                return "the gradient differs from finite differences"
            return None
        ws = [weight_for(w.shape, "float64", case_seed(case) + k) for k, w in enumerate(want)]

        def loss(*xs: np.ndarray) -> float:
            return float(sum(np.sum(w * o) for w, o in zip(ws, outputs(*xs))))

        for j, g in enumerate(got["grad"]):
            if g is None:
                continue
            x = [np.asarray(a, np.float64) for a in inputs]
            fd = np.zeros(x[j].shape)
            for idx in np.ndindex(x[j].shape):
                h = step * max(1.0, abs(float(x[j][idx])))
                keep = x[j][idx]
                x[j][idx] = keep + h
                up = loss(*x)
                x[j][idx] = keep - h
                down = loss(*x)
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
    for pattern, pol in POLICIES + LAST:
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
    if not diff:  # a pattern may cover configurations MindSpore gets right too
        return "agree", ""
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


def _finite_agreement(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """NaN inputs: msc propagates NaN as numpy does. A result of the input's shape (an
    elementwise or row-wise op) must equal MindSpore's where the input is finite and msc's
    result is not NaN, its gradient likewise; any other result where msc's is not NaN, its
    gradient only when no NaN reached a result (there is no derivative at NaN). Index
    results are not compared (msc's point at the first NaN, as numpy's argmax does)."""
    from tests.oracle.compare import expected

    want = expected(case)
    assert want is not None and "out" in want
    x = inputs[0]
    finite = np.isfinite(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
    reached = False
    for g, w in zip(got["out"], want["out"]):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"msc {g.dtype}{g.shape}, MindSpore {w.dtype}{w.shape}"
        if g.dtype.kind != "f":
            continue
        keep = ~np.isnan(g) & (finite if g.shape == x.shape else True)
        reached |= g.shape != x.shape and bool(np.isnan(g).any())
        scale = max(1.0, float(np.max(np.abs(w[keep][np.isfinite(w[keep])]), initial=0.0)))
        if not np.allclose(g[keep], w[keep], rtol=1e-3, atol=1e-3 * scale):
            return "differs from MindSpore where the input is finite and msc's result not NaN"
    if reached or "grad" not in got or "grad" not in want:
        return None
    for g, w in zip(got["grad"], want["grad"]):
        if g is None or w is None:
            continue
        keep = finite & ~np.isnan(g) if g.shape == x.shape else np.ones(g.shape, bool)
        if not np.allclose(g[keep], w[keep], rtol=1e-3, atol=1e-3):
            return "the gradient differs from MindSpore's at finite inputs"
    return None


NAN_NOTE = ("NaN input: msc propagates NaN as numpy and PyTorch do; MindSpore 2.10's CPU "
            "kernels drop it depending on its position (amax of [-1.77, nan, -inf] is "
            "-1.77, of [nan, 2.88, -inf] NaN), turn it into 0 (relu, hardtanh, softmax) or "
            "inf (softplus)")
#: checked after every entry of POLICIES
LAST: list[tuple[str, Policy]] = [
    (r"(ops\.|nn\.|P\.|x\.).*\[nan\]", _p(Why.MINDSPORE_WRONG, "value grad dtype",
                                          NAN_NOTE, _finite_agreement)),
]


def _elementwise(fn: Callable[..., np.ndarray], **kw: Any) -> Callable[..., str | None]:
    return numpy_reference(fn, elementwise=True, **kw)


def _selu(x: np.ndarray) -> np.ndarray:
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _elu(alpha: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _mish(x: np.ndarray) -> np.ndarray:
    return x * np.tanh(np.logaddexp(0, x))


ACCEPTED_NOTE = "MindSpore 2.10 refuses it ({}); msc runs it, checked against numpy"
POLICIES += [
    (r"ops\.elu\(x, 0\.5\)\[nan\]", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "'alpha must be 1.0f'"), _elementwise(_elu(0.5)))),
    (r"ops\.elu\(x, 0\.5\).*", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "'alpha must be 1.0f'"), _elementwise(_elu(0.5)))),
    (r"ops\.hardshrink\(x, 1\.0\)\[float64\]", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "HShrink takes no float64"), _elementwise(lambda x: np.where(np.abs(x) > 1.0, x, 0.0))
    )),
    (r"(ops\.selu\(x\)|nn\.SeLU\(\))\[(ties|normal|big|nan)\]", _p(
        Why.MINDSPORE_WRONG, "grad", "MindSpore 2.10's SeLU gradient at negative inputs is "
        "not the derivative scale * alpha * exp(x) (it is negative there)",
        _elementwise(_selu))),
    (r"(ops\.mish\(x\)|nn\.Mish\(\))\[big\]", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's Mish gives NaN for large inputs "
        "(exp overflows); mish(x) = x tanh(softplus(x)) is about x there", _elementwise(_mish))),
    (r"(ops\.logsigmoid\(x\)|nn\.LogSigmoid\(\))\[big\]", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's LogSigmoid gives -inf (and a NaN "
        "or zero gradient) for large negative inputs; log sigmoid(x) is about x there",
        _elementwise(lambda x: -np.logaddexp(0, -x)))),
    (r"nn\.Tanh\(\)\[big\]", _p(
        Why.MINDSPORE_WRONG, "grad", "MindSpore 2.10's Tanh gradient loses precision where "
        "tanh(x) is near 1 (28% off at x = 4.63)", _elementwise(np.tanh))),
]


def _max_without_axis(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    x = inputs[0]
    big = case.id.startswith("ops.max")
    want = (x.max(), int(np.argmax(x))) if big else (x.min(), int(np.argmin(x)))
    if not (np.isclose(got["out"][0], want[0]) and int(got["out"][1]) == want[1]):
        return f"msc {got['out'][0]}, {got['out'][1]}; numpy {want}"
    return None


def _logsumexp(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    axis, keep = re.search(r"logsumexp\(x, (None|-?\d|\(0, 2\)), (True|False)\)",
                           case.id).groups()
    ax = eval(axis)  # noqa: S307 - one of the literals above
    nan = "[nan]" in case.id
    with np.errstate(all="ignore"):
        return numpy_reference(lambda x: np.log(np.exp(x).sum(axis=ax, keepdims=keep == "True")),
                               grad=not nan)(case, inputs, got)


def _prod_all_kept(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    x = inputs[0]
    want = np.prod(x.astype(np.float64), keepdims=True)
    if got["out"][0].shape != want.shape or not np.allclose(got["out"][0], want,
                                                            equal_nan=True):
        return "differs from numpy's product"
    return None


def _var_ddof1(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    return numpy_reference(lambda x: np.var(x, axis=0, ddof=1, keepdims=True))(
        case, inputs, got)


def _any_float(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    want = np.any(inputs[0], axis=1)
    return None if np.array_equal(got["out"][0], want) else "differs from numpy's any"


POLICIES += [
    (r"ops\.(max|min)\(x\)\[(normal|ties)\]", _p(
        Why.MINDSPORE_WRONG, "value", "without an axis MindSpore 2.10's ops.max/ops.min "
        "return index 0 wherever the extreme is; msc returns its index in the flattened "
        "tensor, what the index means along an axis", _max_without_axis)),
    (r"ops\.logsumexp\(x, None, (True|False)\)\[(normal|ties|nan)\]", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its ReduceMax takes no axis None"),
        _logsumexp)),
    (r"ops\.logsumexp\(x, .*\)\[nan\]", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's logsumexp of a row holding inf "
        "or -inf is NaN (it subtracts the maximum); numpy's is inf or finite. No gradient is "
        "compared (NaN inputs)", _logsumexp)),
    (r"ops\.prod\(x, None, True\)\[.*\]", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("keep_dims with axis None"),
        _prod_all_kept)),
    (r"ops\.var\(x, 0, 1, True\)\[ties\]", _p(
        Why.MINDSPORE_WRONG, "grad", "MindSpore 2.10's variance gradient is NaN for columns "
        "with tied values; the derivative 2 (x - mean) / (n - 1) is finite", _var_ddof1)),
    (r"ops\.any\(x, 1\)\[float\]|x\.any\(1\)\[ties\]", _p(
        Why.MINDSPORE_WRONG, "value", "MindSpore 2.10's ops.any of a float row "
        "[-1, 0.5, 0.5, 1.5] is False", _any_float)),
]


def _topk_ties(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """The values equal MindSpore's; each index points at its value, the first of equal
    values first; the gradient goes to the chosen elements."""
    from tests.oracle.compare import expected

    want = expected(case)
    assert want is not None and "out" in want
    x, (values, index) = inputs[0], got["out"]
    axis = 0 if re.search(r"topk\(x, \d, 0", case.id) else -1
    if not np.array_equal(values, want["out"][0]):
        return "the values differ from MindSpore's"
    if not np.array_equal(np.take_along_axis(x, index.astype(np.int64), axis), values):
        return "an index does not point at its value"
    if "grad" in got:
        w = weight_for(values.shape, values.dtype.name, case_seed(case))
        g = np.zeros(x.shape, np.float64)
        np.put_along_axis(g, index.astype(np.int64), w.astype(np.float64), axis)
        if not np.allclose(got["grad"][0], g, rtol=1e-3, atol=1e-3):
            return "the gradient does not go to the chosen elements"
    return None


POLICIES += [
    (r"(ops\.topk|ops\.top_k|P\.TopK).*\[(ties|int32|float16)\]", _p(
        Why.UNSPECIFIED, "value grad", "MindSpore 2.10's TopK returns equal values in the "
        "order its partial sort meets them (sometimes the later index first); msc takes them "
        "in index order", _topk_ties)),
]


def _sorted_with_nan(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """numpy's order, NaN above every number: the values are numpy's sort (reversed when
    descending, the first k for top-k); each index points at its value; the gradient goes
    to the chosen elements. No gradient is compared where a NaN was chosen."""
    kind, axis, desc, k = case.extra["sort"]
    x = inputs[0]
    want = np.sort(x, axis)
    if desc:
        want = np.flip(want, axis)
    if k:
        want = np.take(want, np.arange(k), axis)
    outs = got["out"]
    index = outs[0] if kind == "argsort" else (outs[1] if len(outs) > 1 else None)
    values = outs[0] if kind != "argsort" else None
    if values is not None and not np.array_equal(values, want, equal_nan=True):
        return "the values differ from numpy's sort"
    if index is not None:
        taken = np.take_along_axis(x, index.astype(np.int64), axis)
        if not np.array_equal(taken, want, equal_nan=True):
            return "an index does not point at its value"
    if "grad" in got and values is not None and index is not None:
        w = weight_for(values.shape, values.dtype.name, case_seed(case)).astype(np.float64)
        g = np.zeros(x.shape, np.float64)
        np.put_along_axis(g, index.astype(np.int64), w, axis)
        keep = np.isfinite(x)
        if not np.allclose(got["grad"][0][keep], g[keep], rtol=1e-3, atol=1e-3):
            return "the gradient does not go to the chosen elements"
    return None


POLICIES += [
    (r".*(sort|topk|top_k|TopK|Sort).*\[nan\]", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's CPU sort places NaN among the "
        "numbers (its comparisons with NaN are false); msc orders NaN above every number, as "
        "numpy and PyTorch do", _sorted_with_nan)),
]


def _cumprod(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    m = re.search(r"cumprod\(x, (?P<a>-?\d)\)|x\.cumprod\((?P<m>-?\d)\)|"
                  r"CumProd\((?P<e>True|False), (?P<r>True|False)\)\(x, (?P<p>\d)\)", case.id)
    assert m is not None
    if m.group("p") is None:
        axis, exclusive, reverse = int(m.group("a") or m.group("m")), False, False
    else:
        axis, exclusive, reverse = int(m.group("p")), m.group("e") == "True", \
            m.group("r") == "True"

    def forward(x: np.ndarray) -> np.ndarray:
        y = np.flip(x, axis) if reverse else x
        out = np.cumprod(y, axis)
        if exclusive:
            out = np.concatenate([np.ones_like(np.take(out, [0], axis)),
                                  np.take(out, np.arange(out.shape[axis] - 1), axis)], axis)
        return np.flip(out, axis) if reverse else out

    return numpy_reference(forward)(case, inputs, got)


def _cum_extreme(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """The values are numpy's running extreme; the gradient of each result goes to the
    element its index names (the indices agree with MindSpore's)."""
    axis = int(re.search(r"\(x, (-?\d)\)", case.id).group(1))
    x = inputs[0]
    acc = np.maximum if "cummax" in case.id else np.minimum
    values, index = got["out"]
    if not np.array_equal(values, acc.accumulate(x, axis)):
        return "the values differ from numpy's running extreme"
    w = weight_for(values.shape, values.dtype.name, case_seed(case)).astype(np.float64)
    g = np.zeros(x.shape)
    moved = np.moveaxis(g, axis, -1)
    for pos in np.ndindex(moved.shape[:-1]):
        for i, j in enumerate(np.moveaxis(index, axis, -1)[pos]):
            moved[pos + (int(j),)] += np.moveaxis(w, axis, -1)[pos + (i,)]
    return None if np.allclose(got["grad"][0], g, rtol=1e-4, atol=1e-4) else \
        "the gradient does not go to the indexed elements"


POLICIES += [
    (r"(ops\.cumprod|P\.CumProd|x\.cumprod).*\[ties\]", _p(
        Why.MINDSPORE_WRONG, "grad", "MindSpore 2.10's cumulative product gradient divides "
        "by the input, NaN through zeros; the derivative (a product of the others) is finite",
        _cumprod)),
    (r"ops\.(cummax|cummin).*\[(normal|ties)\]", _p(
        Why.ACCEPTED, "grad", "MindSpore 2.10's CPU build has no gradient kernel for "
        "cummax/cummin; msc sends each result's to the element its index names",
        _cum_extreme)),
]


def _numpy_values(fn: Callable[..., np.ndarray], dtype: str) -> Callable[..., str | None]:
    """The result has ``dtype`` and numpy's values (integer and bool ops: no gradient)."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        want = fn(*inputs)
        out = got["out"][0]
        if out.dtype != np.dtype(dtype) or not np.array_equal(out, want):
            return f"msc {out.dtype} {out.tolist()}, numpy {want.tolist()}"
        return None

    return check


POLICIES += [
    (r"a \+ b\[bool,bool\]", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "Add takes no bool tensors") + "; bool + bool is their logical or, as in numpy",
        _numpy_values(np.logical_or, "bool"))),
    (r"ops\.sign\(a\)\[(u?int8)\]", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "Sign takes no int8 or uint8"), lambda case, inputs, got: _numpy_values(
            np.sign, inputs[0].dtype.name)(case, inputs, got))),
    (r"ops\.clamp\(a, -1, 2\)\[uint8\]", _p(
        Why.MINDSPORE_WRONG, "value", "MindSpore 2.10 wraps the bound -1 to 255 for a uint8 "
        "tensor, so min > max and every element becomes 2; msc clips to [0, 2]",
        _numpy_values(lambda x: np.clip(x.astype(np.int64), 0, 2).astype(np.uint8), "uint8"))),
]


def _sliced(key: str | None = None) -> Callable[..., str | None]:
    """numpy's basic indexing: ``key`` (the configuration's own subscript by default)."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        sub = key if key is not None else case.call[len("{x0}"):]
        return numpy_reference(lambda x: eval(f"x{sub}"))(case, inputs, got)  # noqa: S307

    return check


def _scatter(kind: str) -> Callable[..., str | None]:
    def forward(x: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> np.ndarray:
        out = x.copy()
        for k, i in enumerate(idx[:, 0].astype(np.int64)):
            out[i] = out[i] * upd[k] if kind == "mul" else out[i] / upd[k]
        return out

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        grads = dict(got)
        grads["grad"] = [got["grad"][0], None, got["grad"][2]]
        return numpy_reference(forward)(case, inputs, grads)

    return check


NEGATIVE_STEP = ("MindSpore 2.10's graph-mode slicing with a negative step raises or gives "
                 "wrong elements (x[1:3, ::-1] of int32, the gradient of x[..., ::-2]); msc "
                 "follows numpy")
POLICIES += [
    (r"x\[.*::?-.*\](\[int32\])?", _p(Why.MINDSPORE_WRONG, "error value grad", NEGATIVE_STEP,
                                      _sliced())),
    (r"x\[0:0\]", _p(Why.ACCEPTED, "error", ACCEPTED_NOTE.format(
        "its StridedSliceGrad reads out of bounds for an empty slice"), _sliced())),
    (r"x\[3:0:-2, \.\.\., 5:0:-4\]", _p(Why.MINDSPORE_WRONG, "error", NEGATIVE_STEP,
                                         _sliced())),
    (r"P\.StridedSlice\(1, 2, 0, 0, 0\).*", _p(
        Why.MINDSPORE_WRONG, "grad", NEGATIVE_STEP, _sliced("[:3, 0::2, 5:0:-2]"))),
    (r"P\.StridedSlice\(0, 0, 1, 0, 2\).*", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its StridedSliceGrad reads out of "
                                                    "bounds"), _sliced("[..., 0, 0:0]"))),
    (r"P\.StridedSlice\(0, 0, 0, 2, 0\).*", _p(
        Why.MINDSPORE_WRONG, "error", NEGATIVE_STEP, _sliced("[0:4:-1, None, 0:6:-2]"))),
    (r"ops\.strided_slice\(x, \(3, 4, 5\).*", _p(
        Why.MINDSPORE_WRONG, "error", NEGATIVE_STEP, _sliced("[3:0:-1, 4:0:-2, 5:0:-3]"))),
    (r"ops\.tensor_scatter_mul\(.*", _p(
        Why.MINDSPORE_WRONG, "grad", "with duplicate indices MindSpore 2.10 gives every "
        "update the same gradient; each update's is the others' product times the input",
        _scatter("mul"))),
    (r"ops\.tensor_scatter_div\(.*", _p(
        Why.MINDSPORE_WRONG, "grad", "with duplicate indices MindSpore 2.10's gradient of "
        "tensor_scatter_div ignores the other updates of the same element", _scatter("div"))),
    (r"ops\.roll\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, lambda case, inputs, got:
                          numpy_reference(lambda x: eval(  # noqa: S307
                              "np.roll(x, " + case.call[len("ops.roll({x0}, "):]))(
                              case, inputs, got))),
]


def _reduce_np(loss: np.ndarray, reduction: str) -> np.ndarray:
    return loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())


def _reduction_of(case: Case) -> str:
    return re.search(r"'(none|mean|sum)'", case.id).group(1)


def _soft_margin(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    r = _reduction_of(case) if "'" in case.id else "mean"
    return numpy_reference(lambda x, y: _reduce_np(np.log1p(np.exp(-y * x)), r))(
        case, inputs, got)


def _triplet(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    r = _reduction_of(case)

    def forward(a: np.ndarray, p: np.ndarray, n: np.ndarray) -> np.ndarray:
        dp = np.sqrt(((a - p + 1e-6) ** 2).sum(1))
        dn = np.sqrt(((a - n + 1e-6) ** 2).sum(1))
        return _reduce_np(np.maximum(dp - dn + 1.0, 0), r)

    return numpy_reference(forward)(case, inputs, got)


def _multi_margin(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    r = _reduction_of(case)

    def forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        t = y.astype(np.int64)
        picked = np.take_along_axis(x, t[:, None], 1)
        hinge = np.maximum(0, 1 - picked + x)
        hinge[np.arange(len(t)), t] = 0
        return _reduce_np(hinge.sum(1) / x.shape[1], r)

    return numpy_reference(forward)(case, inputs, got)


def _softmax_ce(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    r = _reduction_of(case) if "'" in case.id else None

    def forward(z: np.ndarray, y: np.ndarray) -> Any:
        logp = z - np.log(np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)) \
            - z.max(1, keepdims=True)
        loss = -(y * logp).sum(1)
        if r is None:  # the primitive: (loss, softmax - labels)
            return loss, np.exp(logp) - y
        return _reduce_np(loss, r)

    no_labels = {**got, "grad": [got["grad"][0], None]} if "grad" in got else got
    return numpy_reference(forward, atol=1e-3)(case, inputs, no_labels)


POLICIES += [
    (r"(ops\.soft_margin_loss|nn\.SoftMarginLoss|P\.SoftMarginLoss).*", _p(
        Why.ACCEPTED, "error", CPU_MISSING, _soft_margin)),
    (r"ops\.triplet_margin_loss.*", _p(Why.ACCEPTED, "error", CPU_MISSING, _triplet)),
    (r"(ops\.multi_margin_loss|nn\.MultiMarginLoss).*\[\(4, 5\), \(4,\)\]", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its target must be int64") +
        " (int32 targets too, as every other class loss takes)", _multi_margin)),
    (r"(nn\.SoftmaxCrossEntropyWithLogits\(False, .*|P\.SoftmaxCrossEntropyWithLogits\(\).*)",
     _p(Why.MINDSPORE_WRONG, "grad", "MindSpore 2.10's gradient of the dense softmax "
        "cross-entropy is softmax - labels, the derivative only when each row of labels sums "
        "to 1; msc's is the derivative, softmax * sum(labels) - labels", _softmax_ce)),
]


POLICIES += [
    (r"x\[y\]\[\(4, 5\), \(4, 5\)\]|x\[y\]\[\(4, 5, 6\), \(4,\)\]|x\[x > 0\]\[.*", _p(
        Why.OPEN, "error", "a boolean mask as a read index: the result's shape depends on the "
        "data, and msc's graphs have static shapes (msc says so at the user's line and "
        "points to ops.select / ops.masked_select)")),
]


POLICIES += [
    (r"ops\.einsum\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, lambda case, inputs, got:
                            numpy_reference(lambda a, b: np.einsum(
                                case.call.split("'")[1], a, b))(case, inputs, got))),
]


def _numpy_binary(fn: Callable[..., np.ndarray]) -> Callable[..., str | None]:
    """The values are numpy's ``fn`` of the two inputs, NaN where numpy's is (no
    gradient is compared: the inputs hold NaN and infinities)."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        with np.errstate(all="ignore"):
            want = fn(*inputs)
        out = got["out"][0]
        if out.dtype != want.dtype or not np.allclose(out, want, rtol=1e-5, atol=1e-6,
                                                      equal_nan=True):
            return f"msc {out.dtype} {out.ravel().tolist()}, numpy {want.ravel().tolist()}"
        return None

    return check


INFINITE_OPERANDS = (
    "at infinite operands msc follows Python and numpy ({}); MindSpore 2.10 computes "
    "floor(x / y) and x - floor(x / y) * y there, giving infinities or NaN")
POLICIES += [
    (r"ops\.fmod\(a, b\)\[nan\]", _p(
        Why.MINDSPORE_WRONG, "value", "MindSpore 2.10's fmod(x, ±inf) of a finite x is NaN; "
        "C99's fmod (and numpy's) is x, which msc gives", _numpy_binary(np.fmod))),
    (r"(ops\.remainder\(a, b\)|a % b)\[nan\]", _p(
        Why.MINDSPORE_WRONG, "value", INFINITE_OPERANDS.format(
            "x % inf of a finite negative x is inf, x % -inf of a positive one -inf"),
        _numpy_binary(np.remainder))),
    (r"(ops\.floor_divide\(a, b\)|a // b|ops\.div\(a, b, rounding_mode='floor'\))\[nan\]",
     _p(Why.MINDSPORE_WRONG, "value", INFINITE_OPERANDS.format(
         "inf // y is NaN, x // -inf of a positive x is -1, keeping "
         "x == (x // y) * y + x % y"), _numpy_binary(np.floor_divide))),
]


def _as_float_numpy(fn: Callable[..., np.ndarray]) -> Callable[..., str | None]:
    """An integer input MindSpore refuses: the result is a float tensor with numpy's
    values of ``fn`` on the inputs as float64 (no gradient: integer inputs)."""

    def check(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
        with np.errstate(all="ignore"):
            want = fn(*[np.asarray(a, np.float64) for a in inputs])
        out = got["out"][0]
        if out.dtype.kind not in "fi" or not np.allclose(out.astype(np.float64), want,
                                                         rtol=1e-5, atol=1e-6,
                                                         equal_nan=True):
            return f"msc {out.dtype} {out.ravel().tolist()}, numpy {want.ravel().tolist()}"
        return None

    return check


def _logaddexp2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.logaddexp2(a, b)


INT_FORMS = {
    "ops.floor(x)": np.floor, "ops.atan2(a, b)": np.arctan2,
    "ops.xlogy(a, b)": lambda a, b: np.where(a == 0, 0.0, a * np.log(b)),
    "ops.logaddexp(a, b)": np.logaddexp, "ops.logaddexp2(a, b)": _logaddexp2,
    "ops.hypot(a, b)": np.hypot,
    "P.DivNoNan()(a, b)": lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b)),
    "P.Xdivy()(a, b)": lambda a, b: np.where(a == 0, 0.0, a / np.where(b == 0, 1, b)),
}
POLICIES += [
    (re.escape(form) + r"\[int(32|64)\]", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its CPU kernel takes float inputs "
                                                    "only") + "; integers compute as floats",
        _as_float_numpy(fn))) for form, fn in INT_FORMS.items()
]


def _unbroadcast(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    g = g.sum(tuple(range(g.ndim - len(shape))))
    return g.sum(tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)


def _fmin(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """numpy's fmin; the gradient goes to the smaller operand, all of it to the first
    where the two are equal (as MindSpore's fmax gives it to its first)."""
    if "[nan]" in case.id or "[int32]" in case.id:
        return _as_float_numpy(np.fmin)(case, inputs, got) if "[int32]" in case.id else \
            _numpy_binary(np.fmin)(case, inputs, got)
    a, b = inputs
    bad = numpy_reference(np.fmin, grad=False)(case, inputs, got)
    if bad or "grad" not in got:
        return bad
    w = weight_for(got["out"][0].shape, "float64", case_seed(case))
    first = np.broadcast_to(a <= b, w.shape)
    for g, x, pick in ((got["grad"][0], a, first), (got["grad"][1], b, ~first)):
        if not np.allclose(g, _unbroadcast(w * pick, x.shape).reshape(x.shape), rtol=1e-4,
                           atol=1e-5):
            return "the gradient does not go to the smaller operand (the first at ties)"
    return None


def _area_1d(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    out = int(re.search(r"size=\((\d+),\)", case.id).group(1))

    def forward(x: np.ndarray) -> np.ndarray:
        n = x.shape[-1]
        return np.stack([x[..., i * n // out:-(-(i + 1) * n // out)].mean(-1)
                         for i in range(out)], -1)

    return numpy_reference(forward)(case, inputs, got)


def _np_pad(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """numpy's pad of the trailing axes ((left, right) of the last axis first)."""
    flat = [int(v) for v in re.search(r"\), \(([-\d, ]+)\), '", case.id).group(1).split(",")]
    mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[
        re.search(r"'(\w+)'\)", case.id).group(1)]
    x = inputs[0]
    pads = [(0, 0)] * (x.ndim - len(flat) // 2) + [
        (flat[2 * i], flat[2 * i + 1]) for i in reversed(range(len(flat) // 2))]
    return numpy_reference(lambda a: np.pad(a, pads, mode))(case, inputs, got)


POLICIES += [
    (r"ops\.fmin\(.*", _p(Why.ACCEPTED, "error", CPU_MISSING, _fmin)),
    (r"ops\.interpolate\(x\(2, 3, 5\), size=\((9|3|12),\), mode='area'\)", _p(
        Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its 1-d adaptive average pooling wants "
                                                    "the output size to divide the length") +
        "; msc takes windows [floor(i*n/out), ceil((i+1)*n/out)) as its 2-d and 3-d forms "
        "do", _area_1d)),
    (r"ops\.pad\(x\(1, 2, 5, 6\), \(1, 0\), '(reflect|replicate|circular)'\)|"
     r"ops\.pad\(x\(1, 2, 3, 4, 5\), .*, '(reflect|replicate|circular)'\)", _p(
         Why.ACCEPTED, "error", ACCEPTED_NOTE.format("its PadV3 takes reflect padding up to "
                                                     "4-d inputs, and two paddings only for "
                                                     "3-d inputs") +
         "; msc pads the trailing axes of any rank", _np_pad)),
]


def _full(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    return numpy_reference(lambda x: np.full((2, 3), 0.5) * x)(case, inputs, got)


def _argmax_flat(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    out = got["out"][0]
    want = np.argmax(inputs[0])
    return None if out.shape == () and int(out) == int(want) else \
        f"msc {out.tolist()}, numpy's argmax of the flattened tensor {want}"


POLICIES += [
    (r"ops\.full\(\(2, 3\), 0\.5\) \* a\[\(2, 3\)\]", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's ops.full((2, 3), 0.5) without a "
        "dtype is an int64 tensor of zeros (the fill value truncated); numpy's np.full "
        "keeps 0.5 as a float, as msc does", _full)),
    (r"x\.argmax\(\)\[(ties|normal)\]", _p(
        Why.MINDSPORE_WRONG, "shape value", "in graph mode MindSpore 2.10's Tensor.argmax() "
        "without an axis reduces the last axis only; its own eager mode, its documentation "
        "and numpy give the index in the flattened tensor, as msc does", _argmax_flat)),
    (r"x\.type\(ms\.int32\)\[.*\]", _p(
        Why.OPEN, "error", "Tensor.type(dtype) (a cast): msc's Tensor.type is the property "
        "holding the tensor's type, which the compiler reads everywhere")),
]


def _embedding(case: Case, inputs: list[np.ndarray], got: dict[str, Any]) -> str | None:
    """The rows looked up (renormalised to max_norm where their norm exceeds it); the
    weight's gradient adds each looked-up row's weights into its row, none into
    padding_idx's (MindSpore's EmbeddingDenseBackward, which its CPU build lacks)."""
    x, ids = inputs[0].astype(np.float64), inputs[1].astype(np.int64)
    rows = x[ids]
    if "max_norm=1.0" in case.id:
        norm = np.sqrt((rows * rows).sum(-1, keepdims=True))
        rows = rows * np.where(norm > 1.0, 1.0 / (norm + 1e-7), 1.0)
    out = got["out"][0]
    if not np.allclose(out, rows, rtol=1e-5, atol=1e-6):
        return "the rows differ from numpy's"
    if "grad" in got:
        w = weight_for(out.shape, "float64", case_seed(case))
        g = np.zeros(x.shape)
        np.add.at(g, ids.ravel(), w.reshape(-1, x.shape[-1]))
        if "padding_idx=1" in case.id:
            g[1] = 0
        if not np.allclose(got["grad"][0], g, rtol=1e-5, atol=1e-6):
            return "the weight's gradient differs from the looked-up rows' sums"
    return None


POLICIES += [
    (r"ops\.embedding\(i, x(, padding_idx=1)?\)\[.*", _p(
        Why.ACCEPTED, "grad", "MindSpore 2.10's CPU build has no EmbeddingDenseBackward "
        "(no gradient of ops.embedding); msc's adds each row's gradients, none into "
        "padding_idx's row, as its documentation says", _embedding)),
    (r"ops\.embedding\(i, x, max_norm=1\.0\)\[.*", _p(
        Why.MINDSPORE_WRONG, "value grad", "MindSpore 2.10's ops.embedding with max_norm "
        "returns each row's squares over its norm (signs lost) instead of the row over its "
        "norm; msc renormalises as documented (its CPU build has no gradient; msc's is "
        "EmbeddingDenseBackward's)", _embedding)),
]
