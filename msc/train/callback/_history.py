"""``mindspore.train.callback._history``: the loss and metrics of every epoch."""

from __future__ import annotations

from msc.train.callback._callback import Callback, RunContext, handle_loss

__all__ = ["History"]


class History(Callback):
    """``history``: name -> one value per epoch (``net_output``: the last step's loss,
    then the metrics of an evaluation in ``Model.fit``); ``epoch``: {"epoch": [numbers]}."""

    def __init__(self) -> None:
        self.history: dict[str, list] = {}
        self.epoch: dict[str, list] | None = None

    def begin(self, run_context: RunContext) -> None:
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        assert self.epoch is not None
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        current = {"net_output": handle_loss(cb_params.net_outputs)}
        current.update(cb_params.get("metrics") or {})
        for key, value in current.items():
            self.history.setdefault(key, []).append(value)
