"""``mindspore.train.callback._early_stop``: stop training when a monitored value stops
improving, and ``ReduceLROnPlateau``'s shared monitoring."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.train.callback._callback import Callback, RunContext, handle_loss

__all__ = ["EarlyStopping", "Monitored"]

_SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity",
                   "mean_surface_distance", "root_mean_square_distance", "eval_loss")


class Monitored(Callback):
    """A value watched at each epoch's end: ``"loss"`` (the last step's), or an entry of
    the evaluation results ``Model.fit`` adds (``"eval_loss"``, ``"acc"``...)."""

    def __init__(self, monitor: str, min_delta: Any, patience: int, mode: str):
        if not isinstance(monitor, str):
            raise GraphTypeError(f"The argument 'monitor' must be str, but got {type(monitor)}.")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise GraphValueError(f"The argument 'patience' must be a non-negative int, but got "
                                  f"{patience!r}.")
        if mode not in ("auto", "min", "max"):
            raise GraphValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        self.monitor, self.min_delta, self.patience, self.mode = \
            monitor, abs(min_delta), patience, mode
        self.smaller_better = mode == "min" or (mode == "auto" and monitor in _SMALLER_BETTER)
        self.best = np.inf if self.smaller_better else -np.inf

    def is_improvement(self, current: float, best: float) -> bool:
        if self.smaller_better:
            return bool(current < best - self.min_delta)
        return bool(current > best + self.min_delta)

    def reset(self) -> None:
        self.best = np.inf if self.smaller_better else -np.inf

    def monitored(self, cb_params: Any) -> float | None:
        if self.monitor == "loss":
            value = handle_loss(cb_params.get("net_outputs"))
        else:
            value = (cb_params.get("eval_results") or {}).get(self.monitor)
        if value is None:
            return None
        value = np.asarray(value)
        if value.shape != ():
            raise GraphValueError(f"{type(self).__name__} only supports scalar monitor now.")
        return float(value)


class EarlyStopping(Monitored):
    def __init__(self, monitor: str = "eval_loss", min_delta: Any = 0, patience: int = 0,
                 verbose: bool = False, mode: str = "auto", baseline: Any = None,
                 restore_best_weights: bool = False):
        super().__init__(monitor, min_delta, patience, mode)
        self.verbose, self.baseline = verbose, baseline
        self.restore_best_weights = restore_best_weights
        self.wait = self.stopped_epoch = 0
        self.best_weights_param_dict: dict[str, Any] | None = None

    def on_train_begin(self, run_context: RunContext) -> None:
        self.wait = self.stopped_epoch = 0
        self.best_weights_param_dict = None
        self.reset()

    def _snapshot(self, cb_params: Any) -> dict[str, Any]:
        return {name: copy.deepcopy(p) for name, p in
                cb_params.train_network.parameters_dict().items()}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        current = self.monitored(cb_params)
        if current is None:
            return
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = self._snapshot(cb_params)
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = self._snapshot(cb_params)
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                from msc.train.serialization import load_param_into_net

                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                load_param_into_net(cb_params.train_network, self.best_weights_param_dict)

    def on_train_end(self, run_context: RunContext) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")
