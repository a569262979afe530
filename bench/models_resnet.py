"""The convolutional networks of ``bench_models.py`` written for numpy (float64, the
reference every system's result is checked against) and for JAX: LeNet-5, a ResNet basic
block, and ResNet-18 and -50 (inference and a training step), with the Parameter names
msc and MindSpore give ``tests/e2e/models/resnet.py``'s cells.

This file imports only the standard library at top level: the peer interpreters import it
in their workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

LR, MOMENTUM = 0.01, 0.9
# the JAX ResNets run NHWC activations and HWIO weights: XLA's CPU convolutions are faster
# so (ResNet-18 inference 0.21 s per call against 0.40 s NCHW, ResNet-50 0.48 s against
# 0.65 s, the training step 1.16 s against 1.30 s; one pinned CPU)
JAX_NHWC = True


def conv_ref(x: Any, w: Any, stride: int = 1, pad: int = 0) -> Any:
    """Cross-correlation of NCHW ``x`` with OIHW ``w`` in float64 (windows + tensordot)."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(x, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.tensordot(win, w.astype(np.float64), ((1, 4, 5), (1, 2, 3))).transpose(0, 3, 1, 2)


# --- ResNet-18 and -50, written once for numpy (float64) and JAX ------------------------------

RESNETS = {  # arch -> (block, blocks per stage, stage input channels, stage output channels)
    "resnet18": ("basic", (2, 2, 2, 2), (64, 64, 128, 256), (64, 128, 256, 512)),
    "resnet50": ("bottleneck", (3, 4, 6, 3), (64, 256, 512, 1024), (256, 512, 1024, 2048)),
}
STRIDES, CLASSES, EPS = (1, 2, 2, 2), 10, 1e-5
BN_PARAMS = ("moving_mean", "moving_variance", "gamma", "beta")
Conv = tuple[str, str, int, int, int, int]  # conv name, batch norm name, cin, cout, k, stride

def resnet_blocks(arch: str) -> Iterator[tuple[list[Conv], Conv | None]]:
    """Each block of ``resnet.py``'s ``ResNet``: its main path and its down-sampling
    shortcut (None for the identity), named as msc and MindSpore name the Parameters."""
    kind, counts, cins, couts = RESNETS[arch]
    for s, (count, cin, cout, stride) in enumerate(zip(counts, cins, couts, STRIDES)):
        for i in range(count):
            p, c_in, st = f"layer{s + 1}.{i}", (cin if i == 0 else cout), (stride if i == 0 else 1)
            if kind == "basic":
                main = [(f"{p}.conv1", f"{p}.bn1", c_in, cout, 3, st),
                        (f"{p}.conv2", f"{p}.bn2", cout, cout, 3, 1)]
            else:
                ch = cout // 4
                main = [(f"{p}.conv1", f"{p}.bn1", c_in, ch, 1, 1),
                        (f"{p}.conv2", f"{p}.bn2", ch, ch, 3, st),
                        (f"{p}.conv3", f"{p}.bn3", ch, cout, 1, 1)]
            down = (f"{p}.down_sample_layer.0", f"{p}.down_sample_layer.1", c_in, cout, 1, st) \
                if st != 1 or c_in != cout else None
            yield main, down


def resnet_shapes(arch: str) -> dict[str, tuple[int, ...]]:
    """Every Parameter of the network and its shape."""
    shapes: dict[str, tuple[int, ...]] = {}

    def add(conv: str, bn: str, cin: int, cout: int, k: int, stride: int) -> None:
        shapes[f"{conv}.weight"] = (cout, cin, k, k)
        shapes.update({f"{bn}.{v}": (cout,) for v in BN_PARAMS})

    add("conv1", "bn1", 3, 64, 7, 2)
    for main, down in resnet_blocks(arch):
        for c in main + ([down] if down else []):
            add(*c)
    shapes["end_point.weight"] = (CLASSES, RESNETS[arch][3][-1])
    shapes["end_point.bias"] = (CLASSES,)
    return shapes


def resnet_forward(o: Any, p: dict[str, Any], x: Any, arch: str, train: bool,
                   stats: dict[str, Any]) -> Any:
    """The logits, with the ops of ``o`` (numpy in float64, or JAX); in training, batch norm
    uses the batch's statistics and puts (mean, unbiased variance) per layer in ``stats``."""
    def cbr(h: Any, conv: str, bn: str, cin: int, cout: int, k: int, stride: int,
            relu: bool = True) -> Any:
        h = o.bn(o.conv(h, p[f"{conv}.weight"], stride, k // 2), p, bn, train, stats)
        return o.relu(h) if relu else h

    h = o.maxpool(cbr(x, "conv1", "bn1", 3, 64, 7, 2))
    for main, down in resnet_blocks(arch):
        out = h
        for i, c in enumerate(main):
            out = cbr(out, *c, relu=i < len(main) - 1)
        h = o.relu(out + (cbr(h, *down, relu=False) if down else h))
    h = o.spatial_mean(h)
    return h @ o.f(p["end_point.weight"]).T + o.f(p["end_point.bias"])


class NumpyOps:
    """``resnet_forward``'s ops in float64 numpy."""

    @staticmethod
    def f(a: Any) -> Any:
        import numpy as np

        return np.asarray(a, np.float64)

    @staticmethod
    def conv(x: Any, w: Any, stride: int, pad: int) -> Any:
        return conv_ref(x, w, stride, pad)

    @staticmethod
    def relu(x: Any) -> Any:
        import numpy as np

        return np.maximum(x, 0)

    @staticmethod
    def bn(x: Any, p: dict[str, Any], name: str, train: bool, stats: dict[str, Any]) -> Any:
        import numpy as np

        c = lambda v: NumpyOps.f(p[f"{name}.{v}"])[None, :, None, None]  # noqa: E731
        if train:
            mean, var = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
        else:
            mean, var = c("moving_mean"), c("moving_variance")
        return (x - mean) / np.sqrt(var + EPS) * c("gamma") + c("beta")

    @staticmethod
    def spatial_mean(x: Any) -> Any:
        return x.mean((2, 3))

    @staticmethod
    def maxpool(x: Any) -> Any:
        """3x3, stride 2, MindSpore's pad_mode="same": ceil(n / 2) outputs, the odd unit of
        padding after the input."""
        import numpy as np
        from numpy.lib.stride_tricks import sliding_window_view

        pads = []
        for n in x.shape[2:]:
            need = max(0, (-(-n // 2) - 1) * 2 + 3 - n)
            pads.append((need // 2, need - need // 2))
        x = np.pad(x, ((0, 0), (0, 0), *pads), constant_values=-np.inf)
        return sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max((4, 5))


def cross_entropy_ref(logits: Any, y: Any) -> float:
    import numpy as np

    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())



def lenet_ref(x: Any, w: dict[str, Any]) -> Any:
    """``lenet.py``'s LeNet5 in float64."""
    import numpy as np

    def pool(t: Any) -> Any:
        n, c, h, wd = t.shape
        return t.reshape(n, c, h // 2, 2, wd // 2, 2).max((3, 5))

    h = pool(np.maximum(conv_ref(x, w["conv1.weight"]), 0))
    h = pool(np.maximum(conv_ref(h, w["conv2.weight"]), 0)).reshape(x.shape[0], -1)
    for i, name in enumerate(("fc1", "fc2", "fc3")):
        h = h @ w[f"{name}.weight"].T.astype(np.float64) + w[f"{name}.bias"]
        h = np.maximum(h, 0) if i < 2 else h
    return h


def block_ref(x: Any, w: dict[str, Any]) -> Any:
    """``resnet_block.py``'s BasicBlock (stride 1, identity shortcut) in float64."""
    import numpy as np

    def bn(t: Any, name: str) -> Any:
        return NumpyOps.bn(t, w, name, False, {})

    out = np.maximum(bn(conv_ref(x, w["conv1.weight"], 1, 1), "bn1"), 0)
    out = bn(conv_ref(out, w["conv2.weight"], 1, 1), "bn2")
    return np.maximum(out + x, 0)


# --- the same networks in JAX -------------------------------------------------------------------


def jax_forward(net: str, jax: Any, jnp: Any) -> Callable[[dict[str, Any], Any], Any]:
    """``net`` ("lenet", "resblock" or a ``RESNETS`` arch) written for JAX."""
    lax = jax.lax

    def conv(x: Any, w: Any, pad: int = 0, stride: int = 1) -> Any:
        return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def lenet(p: dict[str, Any], x: Any) -> Any:
        def pool(t: Any) -> Any:
            return lax.reduce_window(t, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        h = pool(jax.nn.relu(conv(x, p["conv1.weight"])))
        h = pool(jax.nn.relu(conv(h, p["conv2.weight"]))).reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ p["fc1.weight"].T + p["fc1.bias"])
        h = jax.nn.relu(h @ p["fc2.weight"].T + p["fc2.bias"])
        return h @ p["fc3.weight"].T + p["fc3.bias"]

    def block(p: dict[str, Any], x: Any) -> Any:
        def bn(t: Any, name: str) -> Any:
            c = lambda v: p[f"{name}.{v}"][None, :, None, None]  # noqa: E731
            return (t - c("moving_mean")) * lax.rsqrt(c("moving_variance") + 1e-5) \
                * c("gamma") + c("beta")

        out = jax.nn.relu(bn(conv(x, p["conv1.weight"], 1), "bn1"))
        return jax.nn.relu(bn(conv(out, p["conv2.weight"], 1), "bn2") + x)

    if net in RESNETS:
        ops = jax_ops(jax, jnp, JAX_NHWC)
        return lambda p, x: resnet_forward(ops, p, x.transpose(0, 2, 3, 1) if JAX_NHWC else x,
                                           net, False, {})
    return lenet if net == "lenet" else block


def jax_ops(jax: Any, jnp: Any, nhwc: bool) -> Any:
    """``resnet_forward``'s ops in JAX (float32), on NCHW activations and OIHW weights or,
    with ``nhwc``, on NHWC activations and HWIO weights (see ``to_jax_layout``)."""
    lax = jax.lax
    dims = ("NHWC", "HWIO", "NHWC") if nhwc else ("NCHW", "OIHW", "NCHW")
    spatial, window = ((1, 2), (1, 3, 3, 1)) if nhwc else ((2, 3), (1, 1, 3, 3))

    class JaxOps:
        f = staticmethod(lambda a: a)
        relu = staticmethod(jax.nn.relu)

        @staticmethod
        def conv(x: Any, w: Any, stride: int, pad: int) -> Any:
            return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                            dimension_numbers=dims)

        @staticmethod
        def bn(x: Any, p: dict[str, Any], name: str, train: bool,
               stats: dict[str, Any]) -> Any:
            axes = (0, *spatial)
            shape = (1, 1, 1, -1) if nhwc else (1, -1, 1, 1)
            c = lambda v: p[f"{name}.{v}"].reshape(shape)  # noqa: E731
            if train:
                mean, var = x.mean(axes), x.var(axes)
                n = x.size // mean.size
                stats[name] = (mean, var * (n / (n - 1)))
                mean, var = mean.reshape(shape), var.reshape(shape)
            else:
                mean, var = c("moving_mean"), c("moving_variance")
            return (x - mean) * lax.rsqrt(var + EPS) * c("gamma") + c("beta")

        @staticmethod
        def spatial_mean(x: Any) -> Any:
            return x.mean(spatial)

        @staticmethod
        def maxpool(x: Any) -> Any:  # XLA's "SAME" is MindSpore's pad_mode="same"
            return lax.reduce_window(x, -jnp.inf, lax.max, window, (1, 2, 2, 1) if nhwc
                                     else (1, 1, 2, 2), "SAME")
    return JaxOps


def to_jax_layout(w: dict[str, Any], nhwc: bool) -> dict[str, Any]:
    """The weights as the JAX network takes them: OIHW convolution weights become HWIO
    with ``nhwc`` (done once, outside the timed calls)."""
    if not nhwc:
        return dict(w)
    return {k: v.transpose(2, 3, 1, 0).copy() if v.ndim == 4 else v for k, v in w.items()}


def jax_param_shapes(net: str) -> dict[str, tuple[int, ...]]:
    """The Parameters of ``net`` ("lenet", "resblock" or a ``RESNETS`` arch)."""
    if net in RESNETS:
        return resnet_shapes(net)
    if net == "lenet":
        return {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
                "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
                "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)}
    shapes: dict[str, tuple[int, ...]] = {}
    for i in (1, 2):
        shapes[f"conv{i}.weight"] = (64, 64, 3, 3)
        shapes.update({f"bn{i}.{v}": (64,) for v in ("moving_mean", "moving_variance",
                                                     "gamma", "beta")})
    return shapes


def jax_train_step(arch: str, jax: Any, jnp: Any, w: dict[str, Any], x: Any,
                   y: Any) -> Callable[[], Any]:
    """One jitted step: loss and gradients of the trainable Parameters, MindSpore's
    Momentum update, and the batch norms' moving statistics moved towards the batch's
    (weight 0.1, unbiased variance) as msc and MindSpore do. Returns the step (it returns
    the loss)."""
    ops = jax_ops(jax, jnp, JAX_NHWC)
    moving = {k for k in w if k.rsplit(".", 1)[-1] in ("moving_mean", "moving_variance")}

    def loss_fn(train_p: dict[str, Any], frozen: dict[str, Any], x: Any, y: Any) -> Any:
        stats: dict[str, Any] = {}
        x = x.transpose(0, 2, 3, 1) if JAX_NHWC else x
        logits = resnet_forward(ops, {**train_p, **frozen}, x, arch, True, stats)
        logp = jax.nn.log_softmax(logits, -1)
        return -jnp.take_along_axis(logp, y[:, None], 1).mean(), stats

    @jax.jit
    def step(train_p: Any, frozen: Any, v: Any, x: Any, y: Any) -> Any:
        (loss, stats), g = jax.value_and_grad(loss_fn, has_aux=True)(train_p, frozen, x, y)
        v = jax.tree_util.tree_map(lambda m, d: MOMENTUM * m + d, v, g)
        train_p = jax.tree_util.tree_map(lambda p, m: p - LR * m, train_p, v)
        frozen = dict(frozen)
        for bn, (mean, var) in stats.items():
            for key, batch in (("moving_mean", mean), ("moving_variance", var)):
                frozen[f"{bn}.{key}"] = 0.9 * frozen[f"{bn}.{key}"] + 0.1 * batch
        return loss, train_p, frozen, v

    w = to_jax_layout(w, JAX_NHWC)
    state = [{k: jnp.asarray(v) for k, v in w.items() if k not in moving},
             {k: jnp.asarray(v) for k, v in w.items() if k in moving}]
    state.append(jax.tree_util.tree_map(jnp.zeros_like, state[0]))
    x, y = jnp.asarray(x), jnp.asarray(y)

    def run() -> Any:
        loss, state[0], state[1], state[2] = step(state[0], state[1], state[2], x, y)
        return jax.block_until_ready(loss)
    return run
