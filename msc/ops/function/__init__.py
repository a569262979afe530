"""``mindspore.ops.function``: msc's functional ops by domain, one module each:
``math_func`` (elementwise math and its reductions), ``array_func`` (sorting, gathers and
scatters, triangles, flips, statistics, creation), ``manipulation_func`` (stacking,
splitting, diagonals), ``creation_func``, ``scatter_func``, ``search_func``,
``linalg_func`` (einsum, products, norms, distances), ``nn_func`` (activations, dropout,
normalisation), ``conv_func`` (convolution and pooling), ``image_func`` (padding,
resizing), ``loss_func``, ``clip_func``, ``random_func``, ``side_effect_func`` (assign,
depend, print), ``grad_func`` and ``vmap_func``; ``arguments`` holds how they read their
arguments. The core ones and those generated from the primitive table are in
``ops/functional.py``.

``import msc`` loads some of these modules (Tensor's methods call them), so this package
imports none of them itself; ``ops.function.<name>`` finds a function of ``msc.ops`` on
first use.
"""


def __getattr__(name: str) -> object:
    """A submodule, or a function of ``msc.ops`` (``ops.function.cdist``), found on use."""
    import importlib

    if name.startswith("__"):
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
    import msc.ops as ops

    value = getattr(ops, name)
    if isinstance(value, type) or name.startswith("_"):
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    return value
