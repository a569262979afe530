"""``mindspore.train.callback``: the hooks ``Model.train``, ``fit`` and ``eval`` call, and
MindSpore's callbacks built on them; ``ProgressBar`` is msc's progress display."""

from msc.train.callback._callback import Callback, CallbackManager, RunContext
from msc.train.callback._checkpoint import CheckpointConfig, ModelCheckpoint
from msc.train.callback._early_stop import EarlyStopping
from msc.train.callback._history import History
from msc.train.callback._lambda_callback import LambdaCallback
from msc.train.callback._loss_monitor import LossMonitor
from msc.train.callback._progress import ProgressBar
from msc.train.callback._reduce_lr_on_plateau import ReduceLROnPlateau
from msc.train.callback._time_monitor import TimeMonitor

#: MindSpore 2.10's ``mindspore.train.callback`` names.
MINDSPORE_NAMES = frozenset({
    "BackupAndRestore", "Callback", "CheckpointConfig", "EarlyStopping",
    "FlopsUtilizationCollector", "History", "LambdaCallback", "LearningRateScheduler",
    "LossMonitor", "ModelCheckpoint", "OnRequestExit", "ReduceLROnPlateau", "RunContext",
    "SummaryCollector", "SummaryLandscape", "TimeMonitor",
})

__all__ = ["Callback", "CallbackManager", "RunContext", "CheckpointConfig", "ModelCheckpoint",
           "EarlyStopping", "History", "LambdaCallback", "LossMonitor", "ProgressBar",
           "ReduceLROnPlateau", "TimeMonitor"]


def __getattr__(name: str) -> object:
    from msc.api_names import UnsupportedApiError

    if name in MINDSPORE_NAMES:
        raise UnsupportedApiError(f"'msc.train.callback.{name}' (MindSpore 2.10) is not "
                                  "supported by msc yet.")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
