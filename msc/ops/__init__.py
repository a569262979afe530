"""``from msc import ops``: MindSpore's functional ops (``ops.add``) and primitive classes
(``ops.Add()``) in one namespace, as ``mindspore.ops`` has them.

The functions live in ``functional.py`` (the core ones and those generated from the
primitive table) and ``function/`` (one module per domain: ``math_func``, ``array_func``,
``nn_func``, ``linalg_func``, ...); the primitive classes in ``operations/``
(``math_ops``, ``array_ops``, ``nn_ops``, ...); ``HyperMap``, ``MultitypeFuncGraph`` and
``GradOperation`` in ``composite/``; ``Primitive`` and ``constexpr`` in ``primitive.py``.

``import msc`` loads this package without its namespace (Tensor's methods need only
``functional`` and a few ``function/`` modules): the namespace loads on the first lookup
of a name, so a compile-cache hit does not pay for it.
"""

import importlib

#: The modules whose ``__all__`` make up ``msc.ops``. No name is in two of them.
MODULES = (
    "msc.ops.functional",
    "msc.ops.function.math_func",
    "msc.ops.function.array_func",
    "msc.ops.function.manipulation_func",
    "msc.ops.function.creation_func",
    "msc.ops.function.scatter_func",
    "msc.ops.function.search_func",
    "msc.ops.function.linalg_func",
    "msc.ops.function.nn_func",
    "msc.ops.function.conv_func",
    "msc.ops.function.image_func",
    "msc.ops.function.loss_func",
    "msc.ops.function.clip_func",
    "msc.ops.function.random_func",
    "msc.ops.function.side_effect_func",
    "msc.ops.function.grad_func",
    "msc.ops.function.vmap_func",
    "msc.ops.function.comm_func",
    "msc.ops.function.special_func",
    "msc.ops.function.scalar_func",
    "msc.ops.function.stats_func",
    "msc.ops.function.pooling_func",
    "msc.ops.function.spectral_func",
    "msc.ops.function.bbox_func",
    "msc.ops.function.layer_func",
    "msc.ops.function.patch_func",
    "msc.ops.function.matrix_func",
    "msc.ops.function.extension_func",
    "msc.ops.function.solve_func",
    "msc.ops.function.sampling_func",
    "msc.ops.function.ctc_func",
    "msc.ops.function.sparse_func",
    "msc.ops.function.sparse_unary_func",
    "msc.ops.operations.math_ops",
    "msc.ops.operations.array_ops",
    "msc.ops.operations.nn_ops",
    "msc.ops.operations.random_ops",
    "msc.ops.operations.other_ops",
    "msc.ops.operations.comm_ops",
    "msc.ops.operations.optim_ops",
    "msc.ops.operations.layer_ops",
    "msc.ops.operations.scatter_ops",
    "msc.ops.operations.composed_ops",
    "msc.ops.operations.ctc_ops",
    "msc.ops.operations.loss_ops",
    "msc.ops.operations.image_ops",
    "msc.ops.operations.sparse_ops",
    "msc.ops.composite.base",
    "msc.ops.primitive",
)
#: The submodules ``msc.ops`` names as MindSpore's does (``ops.functional`` is ``F``).
SUBMODULES = ("composite", "function", "functional", "operations", "primitive")


_LOADING: list[bool] = []


def _load() -> None:
    """Bind every name of ``MODULES`` here (then later reads are plain attribute reads).
    msc's own modules import from the module that defines a name, never from here: a
    lookup while the namespace loads is a bug, reported as one."""
    if _LOADING:
        raise ImportError("msc.ops is loading: import the name from its own module")
    _LOADING.append(True)
    try:
        _bind()
    finally:
        _LOADING.clear()


def _bind() -> None:
    names: list[str] = []
    for name in MODULES:
        module = importlib.import_module(name)
        globals().update((n, getattr(module, n)) for n in module.__all__)
        names += module.__all__
    for name in SUBMODULES:
        globals()[name] = importlib.import_module(f"{__name__}.{name}")
    globals()["__all__"] = names + ["composite", "functional"]


def __getattr__(name: str) -> object:
    """A name of ``msc.ops``, its namespace loaded on first use; a MindSpore ``ops`` name
    msc lacks raises msc's "not supported yet" error."""
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

    raise missing_attribute("msc.ops", ("ops_functions", "ops_classes"), name)


def __dir__() -> list[str]:
    if "__all__" not in globals():
        _load()
    return sorted(globals())
