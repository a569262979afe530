"""``from msc.ops import operations as P`` (``mindspore.ops.operations``): the primitive
classes of ``msc.ops`` (``P.Add()(x, y)``, ``P.Conv2D(...)``), every one it has.

They are defined by domain, as MindSpore's are: ``math_ops``, ``array_ops``, ``nn_ops``,
``random_ops`` and ``other_ops`` (the side-effect ops). This package loads whenever one of
those does, so its namespace is built from ``msc.ops``'s on first use.
"""


def __getattr__(name: str) -> object:
    """A primitive class of ``msc.ops`` (or ``__all__``: all of them), found on first use."""
    import importlib

    import msc.ops as ops

    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    if name != "__all__":
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    names = [n for n in ops.__all__ if isinstance(getattr(ops, n), type)]
    globals().update((n, getattr(ops, n)) for n in names)
    globals()["__all__"] = names
    if name in globals():
        return globals()[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})  # type: ignore[misc]
