"""``from msc import nn``: MindSpore's ``mindspore.nn`` names (Cell, containers, layers,
losses, optimizers, training wrappers, learning-rate schedules).

As in MindSpore, ``Cell`` is in ``cell.py``; the layers in ``layer/``, one module per
family (``activation``, ``basic``, ``container``, ``conv``, ``pooling``,
``normalization``, ``embedding``, ``rnns``, ``rnn_cells``, ``transformer``, ``padding``,
``image``, ``math``); the losses in ``loss/``; the optimizers in ``optim/``, one module
each; ``WithLossCell`` and ``TrainOneStepCell`` in ``wrap/``; the schedules in
``learning_rate_schedule.py`` and ``dynamic_lr.py``; ``Jvp`` and ``Vjp`` in ``grad/``;
``metrics.py`` re-exports ``msc.train.metrics``.

A compile-cache hit needs ``Cell`` but no layer, so this package binds its namespace on
the first lookup of a name (``nn.Dense``), not when ``nn.cell`` is imported.
"""

import importlib

#: The modules whose ``__all__`` make up ``msc.nn``. No name is in two of them.
MODULES = (
    "msc.nn.cell",
    "msc.nn.layer.container",
    "msc.nn.layer.activation",
    "msc.nn.layer.basic",
    "msc.nn.layer.math",
    "msc.nn.layer.conv",
    "msc.nn.layer.pooling",
    "msc.nn.layer.normalization",
    "msc.nn.layer.embedding",
    "msc.nn.layer.rnns",
    "msc.nn.layer.rnn_cells",
    "msc.nn.layer.transformer",
    "msc.nn.layer.padding",
    "msc.nn.layer.image",
    "msc.nn.layer.channel_shuffle",
    "msc.nn.layer.timedistributed",
    "msc.nn.layer.combined",
    "msc.nn.layer.sparse",
    "msc.nn.loss.loss",
    "msc.nn.loss.ctc",
    "msc.nn.optim.optimizer",
    "msc.nn.optim.sgd",
    "msc.nn.optim.momentum",
    "msc.nn.optim.adam",
    "msc.nn.optim.ada_grad",
    "msc.nn.optim.rmsprop",
    "msc.nn.optim.adamax",
    "msc.nn.optim.ftrl",
    "msc.nn.optim.rprop",
    "msc.nn.optim.asgd",
    "msc.nn.optim.lamb",
    "msc.nn.wrap.cell_wrapper",
    "msc.nn.wrap.grad_reducer",
    "msc.nn.wrap.loss_scale",
    "msc.nn.learning_rate_schedule",
    "msc.nn.dynamic_lr",
    "msc.nn.metrics",
    "msc.nn.grad",
)
#: The submodules ``msc.nn`` names as MindSpore's does.
SUBMODULES = ("cell", "dynamic_lr", "grad", "layer", "learning_rate_schedule", "loss", "metrics",
              "optim", "wrap")

_LOADING: list[bool] = []


def _load() -> None:
    """Bind every name of ``MODULES`` here (then later reads are plain attribute reads).
    msc's own modules import from the module that defines a name, never from here: a
    lookup while the namespace loads is a bug, reported as one."""
    if _LOADING:
        raise ImportError("msc.nn is loading: import the name from its own module")
    _LOADING.append(True)
    try:
        names: list[str] = []
        for name in MODULES:
            module = importlib.import_module(name)
            globals().update((n, getattr(module, n)) for n in module.__all__)
            names += module.__all__
        for name in SUBMODULES:
            globals()[name] = importlib.import_module(f"{__name__}.{name}")
        globals()["__all__"] = names
    finally:
        _LOADING.clear()


def __getattr__(name: str) -> object:
    """A name of ``msc.nn``, its namespace loaded on first use; a MindSpore ``nn`` name msc
    lacks raises msc's "not supported yet" error."""
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    if "__all__" not in globals():
        _load()
        if name in globals():
            return globals()[name]
    from msc.api_names import missing_attribute

    raise missing_attribute("msc.nn", ("nn",), name)


def __dir__() -> list[str]:
    if "__all__" not in globals():
        _load()
    return sorted(globals())
