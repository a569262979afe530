"""``mindspore.train.callback``: msc's ``Model`` takes no callbacks yet, so this package has
none of MindSpore's callbacks. The module imports (model code imports it before it builds a
callback), and looking one of MindSpore's names up raises msc's "not supported yet" error
(``from msc.train.callback import LossMonitor`` raises ImportError).
"""

#: MindSpore 2.10's ``mindspore.train.callback`` names.
MINDSPORE_NAMES = frozenset({
    "BackupAndRestore", "Callback", "CheckpointConfig", "EarlyStopping",
    "FlopsUtilizationCollector", "History", "LambdaCallback", "LearningRateScheduler",
    "LossMonitor", "ModelCheckpoint", "OnRequestExit", "ReduceLROnPlateau", "RunContext",
    "SummaryCollector", "SummaryLandscape", "TimeMonitor",
})

__all__: list[str] = []


def __getattr__(name: str) -> object:
    from msc.api_names import UnsupportedApiError

    if name in MINDSPORE_NAMES:
        raise UnsupportedApiError(f"'msc.train.callback.{name}' (MindSpore 2.10) is not "
                                  "supported by msc yet: Model.train takes no callbacks.")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
