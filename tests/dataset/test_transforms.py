"""``dataset.vision`` and ``dataset.transforms`` against numpy and Pillow written out
here, and the determinism of the random transforms under a seed."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import msc as ms
import msc.dataset as ds
from msc.dataset import transforms, vision


@pytest.fixture
def img():
    return np.random.default_rng(3).integers(0, 256, (28, 30, 3), dtype=np.uint8)


def test_decode_png_and_jpeg_to_rgb_hwc(img):
    for fmt in ("PNG", "JPEG"):
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format=fmt)
        raw = np.frombuffer(buf.getvalue(), np.uint8)
        out = vision.Decode()(raw)
        assert out.shape == (28, 30, 3) and out.dtype == np.uint8
        if fmt == "PNG":
            np.testing.assert_array_equal(out, img)
    gray = io.BytesIO()
    Image.fromarray(img[:, :, 0]).save(gray, format="PNG")
    assert vision.Decode()(gray.getvalue()).shape == (28, 30, 3)
    with pytest.raises(ValueError, match="not an image"):
        vision.Decode()(np.zeros(10, np.uint8))


def test_resize_matches_pillow_per_channel(img):
    out = vision.Resize((14, 15))(img)
    expect = np.asarray(Image.fromarray(img).resize((15, 14), Image.Resampling.BILINEAR))
    assert out.shape == (14, 15, 3) and out.dtype == np.uint8
    assert np.abs(out.astype(int) - expect).max() <= 1
    assert vision.Resize(14)(img).shape == (14, 15, 3)  # shorter side to 14, aspect kept
    assert vision.Resize(14)(img.transpose(1, 0, 2)).shape == (15, 14, 3)
    flt = vision.Resize((56, 60), vision.Inter.NEAREST)(img.astype(np.float32))
    assert flt.dtype == np.float32
    np.testing.assert_array_equal(flt, img.repeat(2, 0).repeat(2, 1).astype(np.float32))
    assert vision.Resize((7, 7))(img[:, :, 0]).shape == (7, 7)


def test_crops_and_flip(img):
    np.testing.assert_array_equal(vision.CenterCrop((25, 27))(img), img[1:26, 1:28])
    np.testing.assert_array_equal(vision.CenterCrop(10)(img), img[9:19, 10:20])
    with pytest.raises(ValueError, match="larger than the image"):
        vision.CenterCrop(40)(img)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(img), img)
    crop = vision.RandomCrop(28, padding=2)(img[:, :28])
    padded = np.pad(img[:, :28], ((2, 2), (2, 2), (0, 0)))
    windows = [padded[y:y + 28, x:x + 28] for y in range(5) for x in range(5)]
    assert crop.shape == (28, 28, 3) and any((w == crop).all() for w in windows)
    edge = vision.RandomCrop(30, padding=1, padding_mode=vision.Border.EDGE)(img[:, :28])
    assert edge.shape == (30, 30, 3)


def test_rescale_normalize_hwc2chw(img):
    out = vision.Rescale(1 / 255, -0.5)(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, img / 255 - 0.5, rtol=1e-6, atol=1e-6)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 5.0]
    norm = vision.Normalize(mean, std)(img)
    np.testing.assert_allclose(norm, (img - np.array(mean)) / np.array(std), rtol=1e-5)
    chw = vision.Normalize(mean, std, is_hwc=False)(img.transpose(2, 0, 1))
    np.testing.assert_allclose(chw, norm.transpose(2, 0, 1), rtol=1e-6)
    np.testing.assert_array_equal(vision.HWC2CHW()(img), img.transpose(2, 0, 1))
    assert vision.HWC2CHW()(img[:, :, 0]).shape == (28, 30)


def test_typecast_onehot_compose():
    assert transforms.TypeCast(ms.int32)(np.array([1.7, 2.2])).tolist() == [1, 2]
    assert transforms.TypeCast(np.float16)(np.array([1, 2])).dtype == np.float16
    hot = transforms.OneHot(4)(np.array([1, 3], np.uint32))
    assert hot.dtype == np.uint32 and hot.tolist() == [[0, 1, 0, 0], [0, 0, 0, 1]]
    smooth = transforms.OneHot(4, 0.1)(np.array(1))
    np.testing.assert_allclose(smooth, [0.025, 0.925, 0.025, 0.025], rtol=1e-6)
    with pytest.raises(ValueError, match=r"labels must be in \[0, 4\)"):
        transforms.OneHot(4)(np.array([4]))
    both = transforms.Compose([vision.Rescale(2.0, 0.0), vision.HWC2CHW()])
    assert both(np.ones((2, 3, 1), np.uint8)).shape == (1, 2, 3)


def test_random_transforms_repeat_under_a_seed_whatever_the_workers(img):
    def run(workers):
        ds.config.set_seed(9)
        d = ds.NumpySlicesDataset({"im": np.stack([img] * 12)}, shuffle=False)
        d = d.map([vision.RandomCrop(20), vision.RandomHorizontalFlip()], "im",
                  num_parallel_workers=workers)
        return np.stack([r[0] for r in d.create_tuple_iterator(output_numpy=True)])

    one = run(1)
    np.testing.assert_array_equal(one, run(3))
    assert len({a.tobytes() for a in one}) > 1  # the rows were cropped differently


def test_random_transforms_of_two_maps_draw_independently(img):
    ds.config.set_seed(3)
    stack = np.stack([img] * 40)
    d = ds.NumpySlicesDataset({"a": stack, "b": stack}, shuffle=False)
    d = d.map(vision.RandomHorizontalFlip(), "a").map(vision.RandomHorizontalFlip(), "b")
    same = [bool((a == b).all()) for a, b in d.create_tuple_iterator(output_numpy=True)]
    assert not all(same) and any(same)
