"""``nn.PSNR``, ``nn.SSIM`` and ``nn.MSSSIM`` against the definitions written out here in
numpy (a Gaussian window slid over each channel, valid positions only), eagerly and
compiled, their gradient against finite differences, and against MindSpore itself where
``.peers/ms`` is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


def _images(shape=(2, 3, 20, 20), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(shape).astype(np.float32)
    b = np.clip(a + 0.1 * rng.standard_normal(shape), 0, 1).astype(np.float32)
    return a, b


def _window(size, sigma):
    r = np.arange(size) - (size - 1) // 2  # an even size has its extra tap after the centre
    g = np.exp(-(r[:, None] ** 2 + r[None] ** 2) / (2 * sigma ** 2))
    return g / g.sum()


def _filter(x, w):
    """Valid 2-D correlation of every (n, c) plane with ``w``."""
    k = w.shape[0]
    h, wd = x.shape[-2] - k + 1, x.shape[-1] - k + 1
    out = np.zeros(x.shape[:2] + (h, wd))
    for i in range(k):
        for j in range(k):
            out += w[i, j] * x[..., i:i + h, j:j + wd]
    return out


def _ssim_terms(a, b, size=11, sigma=1.5, k1=0.01, k2=0.03, top=1.0):
    a, b, w = a.astype(np.float64), b.astype(np.float64), _window(size, sigma)
    c1, c2 = (k1 * top) ** 2, (k2 * top) ** 2
    ma, mb = _filter(a, w), _filter(b, w)
    va, vb = _filter(a * a, w) - ma ** 2, _filter(b * b, w) - mb ** 2
    cov = _filter(a * b, w) - ma * mb
    cs = (2 * cov + c2) / (va + vb + c2)
    return ((2 * ma * mb + c1) / (ma ** 2 + mb ** 2 + c1) * cs).mean((2, 3)), cs.mean((2, 3))


def test_psnr(rng):
    a, b = _images()
    got = nn.PSNR()(Tensor(a), Tensor(b))
    mse = ((a.astype(np.float64) - b) ** 2).mean((1, 2, 3))
    assert got.dtype == ms.float32 and got.shape == (2,)
    np.testing.assert_allclose(got.asnumpy(), 10 * np.log10(1 / mse), rtol=1e-5)
    # uint8 images are scaled by 1/255, and max_val with them
    a8, b8 = (np.round(x * 255).astype(np.uint8) for x in (a, b))
    got8 = nn.PSNR(max_val=255)(Tensor(a8), Tensor(b8)).asnumpy()
    mse8 = ((a8 / 255.0 - b8 / 255.0) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(got8, 10 * np.log10(1 / mse8), rtol=1e-5)
    with pytest.raises(ValueError, match="must be 4d"):
        nn.PSNR()(Tensor(a[0]), Tensor(b[0]))
    with pytest.raises(ValueError, match="greater than 0"):
        nn.PSNR(max_val=0)
    with pytest.raises(TypeError, match="same type and shape"):
        nn.PSNR()(Tensor(a), Tensor(b[:1]))


def test_ssim_and_msssim():
    a, b = _images((2, 3, 36, 36))
    got = nn.SSIM()(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, _ssim_terms(a, b)[0].mean(1), rtol=1e-4)
    even = nn.SSIM(filter_size=4, filter_sigma=0.8, k1=0.02)(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(even, _ssim_terms(a, b, 4, 0.8, 0.02)[0].mean(1), rtol=1e-4)
    factors = (0.2, 0.3, 0.5)
    got_ms = nn.MSSSIM(power_factors=factors, filter_size=5)(Tensor(a), Tensor(b)).asnumpy()
    x, y, parts = a.astype(np.float64), b.astype(np.float64), []
    for level in range(3):
        ssim, cs = _ssim_terms(x, y, 5)
        parts.append(np.maximum(cs if level < 2 else ssim, 0) ** factors[level])
        h, w = x.shape[2] // 2, x.shape[3] // 2  # 2x2 means, an odd last row dropped
        x, y = (z[..., :2 * h, :2 * w].reshape(*z.shape[:2], h, 2, w, 2).mean((3, 5))
                for z in (x, y))
    np.testing.assert_allclose(got_ms, np.prod(parts, 0).mean(1), rtol=1e-4)
    with pytest.raises(TypeError, match="img1"):
        nn.SSIM()(Tensor(a.astype(np.float64)), Tensor(b.astype(np.float64)))
    with pytest.raises(ValueError, match="at least filter_size"):
        nn.SSIM(filter_size=40)(Tensor(a), Tensor(b))
    assert [p.name for p in nn.SSIM().get_parameters()] == ["conv.weight"]


def test_compiled_ssim_and_psnr_match_eager():
    a, b = _images((1, 2, 16, 16))

    class Quality(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ssim, self.psnr = nn.SSIM(filter_size=5), nn.PSNR()

        def construct(self, x, y):
            return self.ssim(x, y), self.psnr(x, y)

    net = Quality()
    eager = [t.asnumpy() for t in net(Tensor(a), Tensor(b))]
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = [t.asnumpy() for t in net(Tensor(a), Tensor(b))]
    for got, want in zip(compiled, eager):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_psnr_gradient_matches_finite_differences():
    a, b = _images((1, 1, 4, 4))
    grad = ops.grad(lambda x, y: nn.PSNR()(x, y).sum())(Tensor(a), Tensor(b)).asnumpy()
    x, y = a.astype(np.float64), b.astype(np.float64)

    def psnr(z):
        return 10 * np.log10(1 / ((z - y) ** 2).mean())

    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[idx] = 1e-5
        fd[idx] = (psnr(x + step) - psnr(x - step)) / 2e-5
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-3)


SCRIPT = r'''
import json, numpy as np
import mindspore as ms
from mindspore import nn, Tensor
ms.set_context(mode=ms.GRAPH_MODE)
a, b = (np.array(x, np.float32) for x in json.load(open("data.json")))
out = {"psnr": nn.PSNR()(Tensor(a), Tensor(b)).asnumpy().tolist(),
       "ssim": nn.SSIM(filter_size=7)(Tensor(a), Tensor(b)).asnumpy().tolist(),
       "msssim": nn.MSSSIM(power_factors=(0.3, 0.7), filter_size=3)(Tensor(a), Tensor(b)).asnumpy().tolist()}
print(json.dumps(out))
'''


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the image measures are checked against numpy above")
def test_image_quality_matches_mindspore_itself(tmp_path):
    a, b = _images((2, 2, 24, 24), seed=3)
    (tmp_path / "data.json").write_text(json.dumps([a.tolist(), b.tolist()]))
    (tmp_path / "run.py").write_text(SCRIPT)
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = {"psnr": nn.PSNR()(Tensor(a), Tensor(b)),
            "ssim": nn.SSIM(filter_size=7)(Tensor(a), Tensor(b)),
            "msssim": nn.MSSSIM(power_factors=(0.3, 0.7), filter_size=3)(Tensor(a), Tensor(b))}
    for name, got in ours.items():
        np.testing.assert_allclose(got.asnumpy(), theirs[name], rtol=1e-5, err_msg=name)
