"""``Model.train``/``fit``/``eval`` with callbacks: the hooks and their fields, the loss
lines, checkpoint files and their names, early stopping, learning-rate reduction,
history and the progress display, on a linear model whose SGD steps are written out in
numpy. The train step compiles to the numpy ("python") target: Numba is not the point here.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import msc as ms
import msc.dataset as ds
from msc import Tensor, nn
from msc.train import (Accuracy, Callback, CheckpointConfig, EarlyStopping, History,
                       LambdaCallback, Loss, LossMonitor, Model, ModelCheckpoint,
                       ReduceLROnPlateau, TimeMonitor)
from msc.train.callback import ProgressBar


@pytest.fixture(autouse=True)
def _quiet_and_quick(monkeypatch):
    monkeypatch.setenv("MSC_PROGRESS", "0")
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")


def linear(w0, lr=0.1):
    net = nn.Dense(3, 2, weight_init=Tensor(w0), bias_init="zeros")
    return net, nn.SGD(net.trainable_params(), lr)


def data(rng, n=3):
    return [(rng.standard_normal((4, 3)).astype(np.float32),
             rng.standard_normal((4, 2)).astype(np.float32)) for _ in range(n)]


def sgd_losses(w0, batches, epochs, lr=0.1):
    """The loss of every step and the final weights of SGD on the mean squared error
    (``lr``: one rate, or one per epoch)."""
    w, b, losses = w0.astype(np.float64), np.zeros(2), []
    rates = lr if isinstance(lr, list) else [lr] * epochs
    for lr in rates:
        for x, y in batches:
            err = x @ w.T + b - y
            losses.append(np.mean(err ** 2))
            w, b = w - lr * 2 * err.T @ x / err.size, b - lr * 2 * err.sum(0) / err.size
    return losses, w


class Recorder(Callback):
    def __init__(self):
        self.events = []

    def on_train_begin(self, rc):
        self.events.append(("begin", rc.original_args().epoch_num, rc.original_args().batch_num))

    def on_train_epoch_begin(self, rc):
        self.events.append(("epoch_begin", rc.original_args().cur_epoch_num))

    def on_train_step_end(self, rc):
        p = rc.original_args()
        self.events.append(("step", p.cur_epoch_num, p.cur_step_num,
                            float(p.net_outputs.asnumpy())))

    def on_train_epoch_end(self, rc):
        self.events.append(("epoch_end", rc.original_args().cur_epoch_num))

    def end(self, rc):  # MindSpore's older name, called by on_train_end
        self.events.append(("end",))


def test_hooks_run_in_order_with_the_run_fields(rng):
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    batches = data(rng)
    net, opt = linear(w0)
    rec = Recorder()
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=rec)
    losses, w = sgd_losses(w0, batches, 2)
    steps = [e for e in rec.events if e[0] == "step"]
    assert [e[:3] for e in steps] == [("step", 1 + i // 3, i + 1) for i in range(6)]
    np.testing.assert_allclose([e[3] for e in steps], losses, rtol=1e-5)
    kinds = [e[0] for e in rec.events]
    assert rec.events[0] == ("begin", 2, 3) and kinds[-1] == "end"
    assert kinds[1:6] == ["epoch_begin", "step", "step", "step", "epoch_end"]
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_loss_monitor_lines(rng, capsys):
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    batches = data(rng)
    net, opt = linear(w0)
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=[LossMonitor(2)])
    lines = capsys.readouterr().out.splitlines()
    losses, _ = sgd_losses(w0, batches, 2)
    # steps 2, 4 and 6 overall: step 2 of epoch 1, steps 1 and 3 of epoch 2
    assert [line.split(",")[0] for line in lines] == ["epoch: 1 step: 2", "epoch: 2 step: 1",
                                                      "epoch: 2 step: 3"]
    printed = [float(line.rsplit(" ", 1)[1]) for line in lines]
    np.testing.assert_allclose(printed, [losses[1], losses[3], losses[5]], rtol=1e-5)
    net, opt = linear(np.full((2, 3), np.nan, np.float32))
    with pytest.raises(ValueError, match="loss is NAN or INF"):
        Model(net, nn.MSELoss(), opt).train(1, batches, callbacks=[LossMonitor()])


def test_model_checkpoint_names_intervals_and_keep_max(rng, tmp_path):
    batches = data(rng)
    net, opt = linear(rng.standard_normal((2, 3)).astype(np.float32))
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
    ckpt = ModelCheckpoint("net", str(tmp_path), config)
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=[ckpt])
    # saved at overall steps 2, 4, 6: net-1_2, net-2_1, net-2_3; the oldest is removed
    assert sorted(os.listdir(tmp_path)) == ["net-2_1.ckpt", "net-2_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-2_3.ckpt")
    saved = ms.load_checkpoint(str(tmp_path / "net-2_3.ckpt"))
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    assert {"bias", "learning_rate", "global_step"} <= set(saved)
    again = ModelCheckpoint("net", str(tmp_path), CheckpointConfig(save_checkpoint_steps=5))
    Model(net, nn.MSELoss(), opt).train(1, batches, callbacks=[again])
    assert sorted(os.listdir(tmp_path))[-1] == "net_1-1_3.ckpt"  # a used prefix gets _1
    with pytest.raises(ValueError, match="can't be all None or 0"):
        CheckpointConfig(0, 0, 0, 0)


def test_request_stop_history_and_time_monitor(rng, capsys):
    batches = data(rng)
    net, opt = linear(rng.standard_normal((2, 3)).astype(np.float32))
    stop = LambdaCallback(on_train_step_end=lambda rc: rc.original_args().cur_step_num == 4
                          and rc.request_stop())
    history = History()
    Model(net, nn.MSELoss(), opt).train(5, batches, callbacks=[stop, history, TimeMonitor()])
    assert history.epoch == {"epoch": [1, 2]} and len(history.history["net_output"]) == 2
    out = capsys.readouterr().out
    assert out.count("Train epoch time: ") == 2 and "per step time: " in out


def test_early_stopping_on_a_flat_loss(rng):
    net, opt = linear(rng.standard_normal((2, 3)).astype(np.float32), lr=0.0)
    early = EarlyStopping(monitor="loss", patience=1)
    rec = Recorder()
    Model(net, nn.MSELoss(), opt).train(5, data(rng), callbacks=[early, rec])
    assert early.stopped_epoch == 2
    assert [e[1] for e in rec.events if e[0] == "epoch_end"] == [1, 2]


def test_reduce_lr_on_plateau_changes_the_compiled_steps_rate(rng):
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    batches = data(rng, 2)
    net, opt = linear(w0, lr=0.0)  # a flat loss: every epoch after the first is a plateau
    opt.learning_rate.set_data(Tensor(np.float32(0.0)))
    reduce = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_lr=0.0)
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=[reduce])
    assert float(opt.learning_rate.asnumpy()) == 0.0  # already at min_lr: unchanged
    net, opt = linear(w0, lr=0.1)
    seen = []
    set_rate = LambdaCallback(on_train_epoch_end=lambda rc: (
        seen.append(float(opt.learning_rate.asnumpy())),
        opt.learning_rate.set_data(Tensor(np.float32(0.05)))))
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=[set_rate])
    _, w = sgd_losses(w0, batches, 2, lr=[0.1, 0.05])
    assert seen == pytest.approx([0.1, 0.05])
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-4, atol=1e-5)


def test_reduce_lr_on_plateau_logic():
    from msc.train.callback import RunContext
    from msc.train.callback._callback import InternalCallbackParam

    net, opt = linear(np.zeros((2, 3), np.float32), lr=0.8)
    reduce = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, cooldown=1, min_lr=0.15)
    params = InternalCallbackParam(optimizer=opt, cur_epoch_num=1)
    rc = RunContext(params)
    reduce.on_train_begin(rc)
    rates = []
    for loss in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        params.net_outputs = Tensor(np.float32(loss))
        reduce.on_train_epoch_end(rc)
        rates.append(round(float(opt.learning_rate.asnumpy()), 6))
    # MindSpore's rule: best; wait 1; wait 2 -> halve, cooldown 1; the cooldown epoch ends
    # the cooldown and counts as wait 1; wait 2 -> halve; ...; never below min_lr
    assert rates == [0.8, 0.8, 0.4, 0.4, 0.2, 0.2, 0.15, 0.15]


def test_train_on_a_dataset_pipeline_and_fit_with_validation(rng):
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    x = rng.standard_normal((12, 3)).astype(np.float32)
    y = rng.standard_normal((12, 2)).astype(np.float32)
    pipeline = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    net, opt = linear(w0)
    history = History()
    model = Model(net, nn.MSELoss(), opt, metrics={"loss"})
    model.fit(2, pipeline, valid_dataset=pipeline, callbacks=[history])
    losses, w = sgd_losses(w0, [(x[i:i + 4], y[i:i + 4]) for i in (0, 4, 8)], 2)
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert len(history.history["loss"]) == 2
    final = np.mean([np.mean((x[i:i + 4] @ w.T - y[i:i + 4] + net.bias.asnumpy()) ** 2)
                     for i in (0, 4, 8)])
    assert history.history["loss"][-1] == pytest.approx(final, rel=1e-5)
    early = EarlyStopping(patience=0)  # monitors eval_loss, which fit provides
    model.fit(3, pipeline, valid_dataset=pipeline, callbacks=[early])
    assert early.stopped_epoch == 1


def test_eval_with_metric_objects(rng):
    net, opt = linear(rng.standard_normal((2, 3)).astype(np.float32))
    x = rng.standard_normal((8, 3)).astype(np.float32)
    labels = rng.integers(0, 2, 8).astype(np.int32)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                  metrics={"acc": Accuracy(), "loss": Loss()})
    result = model.eval([(x[:4], labels[:4]), (x[4:], labels[4:])])
    logits = x @ net.weight.asnumpy().T
    assert result["acc"] == pytest.approx(np.mean(logits.argmax(1) == labels))
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = logp[np.arange(8), labels]
    per_batch = [-np.mean(picked[:4]), -np.mean(picked[4:])]
    assert result["loss"] == pytest.approx(np.mean(per_batch), rel=1e-5)


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_and_in_a_log(rng, monkeypatch, capsys):
    batches = data(rng)
    net, opt = linear(rng.standard_normal((2, 3)).astype(np.float32))
    log, tty = io.StringIO(), FakeTerminal()
    Model(net, nn.MSELoss(), opt).train(2, batches, callbacks=[ProgressBar(stream=log)])
    lines = log.getvalue().splitlines()
    assert len(lines) == 2 and lines[1].startswith("epoch 2/2: 3 steps, loss ")
    assert "samples/s" in lines[0]
    Model(net, nn.MSELoss(), opt).train(1, batches,
                                        callbacks=[ProgressBar(stream=tty, interval=0)])
    assert "\repoch 1/1  3/3 [" in tty.getvalue() and "\repoch 1/1  1/3 [" in tty.getvalue()
    monkeypatch.setenv("MSC_PROGRESS", "1")
    Model(net, nn.MSELoss(), opt).train(1, batches)
    assert "epoch 1/1: 3 steps" in capsys.readouterr().err  # the default display
    Model(net, nn.MSELoss(), opt).train(1, batches, callbacks=[ProgressBar(enabled=False)])
    assert capsys.readouterr().err == ""
