"""The Cell containers: ``nn.CellList``, ``nn.SequentialCell`` and ``nn.CellDict``, with
MindSpore 2.10's interfaces; their cells register under the index or key, so parameter
names are ``<attr>.<index>.<name>`` as in MindSpore.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from msc.common.tensor import SymTensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import _OWNERS, Cell

# --- CellDict -----------------------------------------------------------------------------


class CellDict(Cell):
    """Cells by name, in insertion order; parameters are named ``<attr>.<key>.<name>``.
    In ``construct``, ``self.cells['a'](x)`` and ``for key in self.cells`` (or
    ``.keys()``, ``.values()``, ``.items()``) work as in Python: keys are constants.

    Example:
        >>> d = nn.CellDict({'dense': nn.Dense(2, 3), 'act': nn.ReLU()})
        >>> list(d.keys())
        ['dense', 'act']
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(kwargs.pop("auto_prefix", True))
        if len(args) == 1:
            self.update(args[0])

    def _key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise GraphTypeError(f"For 'CellDict', the type of key should be string but got "
                                 f"{type(key).__name__}.", user_loc())
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain \".\", but got key {key}")
        return key

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        if not isinstance(cell, Cell):
            raise GraphTypeError(f"For 'CellDict', the type of cell should be Cell, but got "
                                 f"{type(cell).__name__}.", user_loc())
        if isinstance(cell, (CellDict, _CellSeq)):
            raise GraphTypeError("For 'CellDict', the type of cell can not be CellDict, CellList "
                                 f"or SequentialCell, but got {type(cell).__name__}.", user_loc())
        self.insert_child_to_cell(self._key(key), cell)

    def __delitem__(self, key: str) -> None:
        if key not in self._cells:
            raise KeyError(key)
        self._forget(key)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._cells))

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def keys(self) -> Any:
        return OrderedDict(self._cells).keys()

    def values(self) -> Any:
        return OrderedDict(self._cells).values()

    def items(self) -> Any:
        return OrderedDict(self._cells).items()

    def clear(self) -> None:
        for key in list(self._cells):
            self._forget(key)

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells: Any) -> None:
        """Add (or replace) the cells of a dict, a CellDict or an iterable of pairs."""
        if isinstance(cells, (dict, CellDict)):
            pairs = list(cells.items())
        else:
            try:
                pairs = [tuple(p) for p in cells]
            except TypeError:
                raise GraphTypeError(f"CellDict.update() should be called with an iterable "
                                     f"of key-value pairs, but got "
                                     f"{type(cells).__name__}", user_loc()) from None
            if any(len(p) != 2 for p in pairs):
                raise GraphValueError("CellDict.update(): every element of the iterable "
                                      "must be a (key, cell) pair", user_loc())
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs: Any) -> Any:
        raise NotImplementedError("CellDict holds cells; call its elements instead.")


# --- containers -----------------------------------------------------------------------


class _CellSeq(Cell):
    """Children kept in order under keys '0', '1', ... (or names); every structural
    change re-keys them and renames their parameters (``blocks.1.w`` stays at index 1)."""

    _named = False

    def _check(self, cell: Any) -> Cell:
        if not isinstance(cell, Cell):
            raise GraphTypeError(f"For '{type(self).__name__}', each cell should be subclass "
                                 f"of Cell, but got {type(cell).__name__}.", user_loc())
        return cell

    def _children(self) -> list[Cell]:
        return list(self._cells.values())

    def _reset(self, cells: list[Cell], keys: list[str] | None = None) -> None:
        kept = {id(c) for c in cells}
        for old in self._cells.values():
            if id(old) not in kept:
                _OWNERS.release(old, self)
        if keys is None:
            keys = list(self._cells)[:len(cells)] if self._named else []
            keys += [str(i) for i in range(len(keys), len(cells))]
        before = self._first_keys()
        object.__setattr__(self, "_cells", OrderedDict(zip(keys, cells, strict=True)))
        for cell in cells:
            _OWNERS.claim(cell, self)
        self._rename_children(before)

    def _index(self, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, int):
            raise GraphTypeError(f"For '{type(self).__name__}', the type of 'index' should be "
                                 f"int or slice, but got {type(index).__name__}.", user_loc())
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For '{type(self).__name__}', the value of 'index' should be a "
                             f"number in range [{-n}, {n}), but got {index}.")
        return index % n

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._children())

    def __setitem__(self, index: int, cell: Cell) -> None:
        cells = self._children()
        cells[self._index(index)] = self._check(cell)
        self._reset(cells, list(self._cells))

    def __delitem__(self, index: int | slice) -> None:
        keep = list(zip(self._cells, self._children(), strict=True))
        if isinstance(index, slice):
            del keep[index]
        else:
            del keep[self._index(index)]
        named = [k for k, _ in keep] if self._named else None
        self._reset([c for _, c in keep], named)

    def append(self, cell: Cell) -> None:
        self._extend([self._check(cell)], self._prefix_and_index()[0])

    def _extend(self, cells: list[Cell], prefix: str) -> None:
        """Append ``cells``, each named under ``prefix`` + its index as MindSpore 2.10 does
        (``extend`` reads the prefix once, before the first cell)."""
        for cell in cells:
            self._add_cell(str(len(self._cells)), cell)
            self._rename_from(len(self._cells) - 1, prefix)

    def _prefix_and_index(self) -> tuple[str, int]:
        """The namespace MindSpore 2.10 gives an appended or inserted cell, and the position
        of the index in its children's names: read back from the name of the first
        parameter of the first child that has one, at the last place that child's key
        appears in it, unless the second such child's name confirms an earlier place. So
        cells added to a container that was empty when it was placed in the top-level cell
        get no container prefix (``0.weight``), and a second block appended to an empty
        list whose first block holds a child under the key ``0`` is named inside it
        (``0.token_mix.1.token_mix.0.gamma``), both as in MindSpore."""
        firsts = []
        for key, child in self._cells.items():
            first = next(child.get_parameters(), None) if child is not None else None
            if first is not None:
                firsts.append((key, (first.name or "").split(".")))
                if len(firsts) == 2:
                    break
        prefix, index = "", 0
        if not firsts:
            return prefix, index
        (key, parts), second = firsts[0], firsts[1] if len(firsts) > 1 else None
        for i, part in enumerate(parts):
            if part == key:
                prefix, index = "".join(p + "." for p in parts[:i]), i
                if second is not None and i < len(second[1]) and second[1][i] == second[0]:
                    break
        return prefix, index

    def _rename_from(self, start: int, prefix: str) -> None:
        """Name the children from position ``start`` on under ``prefix`` (from
        ``_prefix_and_index``) where it differs from this container's namespace."""
        if self._auto_prefix and prefix != self._prefix:
            for key, child in list(self._cells.items())[start:]:
                if _OWNERS.get(child) is self:
                    child._rename(prefix + key + ".")

    def insert(self, index: int, cell: Cell) -> None:
        cells, keys = self._children(), list(self._cells)
        prefix, at = self._prefix_and_index()
        start = min(max(index + len(cells) if index < 0 else index, 0), len(cells))
        shifted = [(p, (p.name or "").split(".")[at + 1:]) for c in cells[start:]
                   for p in c.get_parameters()]
        cells.insert(index, self._check(cell))
        keys.insert(index, str(len(keys)))
        self._reset(cells, keys if self._named else None)
        self._rename_from(start, prefix)
        if self._auto_prefix:  # MindSpore renames each moved cell's parameters by text:
            for param, rest in shifted:  # the new index, then what followed the old one
                key = next(k for k, c in self._cells.items()
                           if any(q is param for q in c.get_parameters()))
                param.name = prefix + ".".join([key] + rest)


class CellList(_CellSeq):
    """A list of Cells whose parameters are named ``<attr>.<index>.<name>``. A graph's
    ``for cell in self.cells`` unrolls over it.

    Example:
        >>> layers = nn.CellList([nn.Dense(2, 2), nn.ReLU()])
        >>> layers.append(nn.Dense(2, 1)); len(layers)
        3
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(kwargs.pop("auto_prefix", True))
        if len(args) == 1:
            self.extend(args[0])

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return CellList(self._children()[index])
        if isinstance(index, SymTensor):  # in a graph: chosen at run time (switch_layer)
            return index.builder.calls.choose(index, self._children())
        return self._children()[self._index(index)]

    def extend(self, cells: Any) -> CellList:
        if not isinstance(cells, (list, tuple, CellList)):
            raise GraphTypeError("For 'CellList', the new cells should be list or tuple of "
                                 f"subclass of Cell, but got {type(cells).__name__}.",
                                 user_loc())
        self._extend([self._check(c) for c in cells], self._prefix_and_index()[0])
        return self

    def construct(self, *inputs: Any) -> Any:
        raise NotImplementedError("CellList holds cells; call its elements instead.")


class SequentialCell(_CellSeq):
    """Cells applied one after another: ``SequentialCell([a, b])(x) == b(a(x))``. Takes a
    list, an OrderedDict (whose keys name the children) or cells as arguments.

    Example:
        >>> seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU()])
        >>> seq(ms.Tensor(np.ones((2, 3), np.float32))).shape
        (2, 4)
    """

    def __init__(self, *args: Any):
        super().__init__()
        keys, cells = None, list(args)
        if len(args) == 1 and isinstance(args[0], dict):
            object.__setattr__(self, "_named", True)
            keys, cells = list(args[0].keys()), list(args[0].values())
        elif len(args) == 1 and isinstance(args[0], list):
            cells = list(args[0])
        elif len(args) == 1 and not isinstance(args[0], Cell):
            raise GraphTypeError("For 'SequentialCell', the 'args[0]' should be list or "
                                 f"OrderedDict, but got {type(args[0]).__name__}.", user_loc())
        self._reset([self._check(c) for c in cells], keys)

    @property
    def cell_list(self) -> list[Cell]:
        return self._children()

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return SequentialCell(OrderedDict(list(self._cells.items())[index]))
        return self._children()[self._index(index)]

    def construct(self, input_data: Any) -> Any:
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


__all__ = ["CellList", "SequentialCell", "CellDict"]
