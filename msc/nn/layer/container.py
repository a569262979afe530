"""The Cell containers: ``nn.CellList``, ``nn.SequentialCell`` and ``nn.CellDict``, with
MindSpore 2.10's interfaces; their cells register under the index or key, so parameter
names are ``<attr>.<index>.<name>`` as in MindSpore. A cell added to a container is
renamed there by ``update_parameters_name``, under the namespace MindSpore 2.10 reads back
from the names the container's children already have (``_prefix_and_index``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from msc.common.tensor import SymTensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import Cell

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
        key = self._key(key)
        if self._auto_prefix:
            cell.update_parameters_name(_prefix_and_index(self._cells)[0] + key + ".")
        self.insert_child_to_cell(key, cell)

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


def _prefix_and_index(cells: OrderedDict[str, Cell]) -> tuple[str, int]:
    """The namespace MindSpore 2.10 gives a cell added to a container, and the position of
    the index in its children's names: read back from the name of the first parameter of
    the first child that has one, at the last place that child's key appears in it, unless
    the second such child's name confirms an earlier place. So cells added to a container
    that was empty when it was placed in the top-level cell get no container prefix
    (``0.weight``), and a second block appended to an empty list whose first block holds a
    child under the key ``0`` is named inside it (``0.token_mix.1.token_mix.0.gamma``),
    both as in MindSpore."""
    firsts = []
    for key, child in cells.items():
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


def _move_names(cell: Cell, prefix: str, at: int, key: str) -> None:
    """Rename a cell that moved to ``key`` by text, as MindSpore does: ``prefix``, the new
    key, then what followed the old key (at position ``at``) in each name."""
    for param in cell.get_parameters():
        param.name = prefix + ".".join([key] + (param.name or "").split(".")[at + 1:])


class _CellSeq(Cell):
    """Children kept in order under keys '0', '1', ... (or a SequentialCell's names). A
    cell added is renamed ``<namespace><key>.``; deleting or inserting re-keys the cells
    after it and renames them by text, as MindSpore 2.10 does."""

    def __init__(self, auto_prefix: bool = True):
        super().__init__(auto_prefix)
        self._fixed: set[str] = set()  # the keys that are names, not positions

    def _check(self, cell: Any) -> Cell:
        if not isinstance(cell, Cell):
            raise GraphTypeError(f"For '{type(self).__name__}', each cell should be subclass "
                                 f"of Cell, but got {type(cell).__name__}.", user_loc())
        return cell

    def _children(self) -> list[Cell]:
        return list(self._cells.values())

    def _add(self, key: str, cell: Cell, prefix: str, fixed: bool = False) -> None:
        if self._auto_prefix:
            cell.update_parameters_name(prefix + key + ".")
        self._cells[key] = cell
        if fixed:
            self._fixed.add(key)

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
        key = list(self._cells)[self._index(index)]
        self._check(cell)
        if self._auto_prefix:
            cell.update_parameters_name(_prefix_and_index(self._cells)[0] + key + ".")
        self._cells[key] = cell

    def __delitem__(self, index: int | slice) -> None:
        keys = list(self._cells)
        positions = range(len(keys))[index] if isinstance(index, slice) \
            else [self._index(index)]
        for i in positions:
            del self._cells[keys[i]]
            self._fixed.discard(keys[i])
        prefix, at = _prefix_and_index(self._cells)
        cells: OrderedDict[str, Cell] = OrderedDict()
        for i, (key, cell) in enumerate(self._cells.items()):
            if key not in self._fixed:
                key = str(i)
                if self._auto_prefix:
                    _move_names(cell, prefix, at, key)
            cells[key] = cell
        object.__setattr__(self, "_cells", cells)

    def append(self, cell: Cell) -> None:
        self._add(str(len(self._cells)), self._check(cell), _prefix_and_index(self._cells)[0])

    def insert(self, index: int, cell: Cell) -> None:
        """``cell`` before position ``index``, in ``[-len, len]`` (MindSpore's
        ``TypeError`` and ``IndexError`` outside, where Python's list would clamp)."""
        n, name = len(self._cells), type(self).__name__
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"For '{name}', the type of 'index' must be int, but got "
                            f"{type(index).__name__}.")
        if not -n <= index <= n:
            raise IndexError(f"For '{name}', the value of 'index' must be a number in range "
                             f"[{-n}, {n}], but got {index}.")
        start = index % n if n and index != n else index
        self._check(cell)
        prefix, at = _prefix_and_index(self._cells)
        items = list(self._cells.items())
        for i in range(n - 1, start - 1, -1):  # MindSpore moves the last cell first
            if self._auto_prefix and items[i][0] not in self._fixed:
                _move_names(items[i][1], prefix, at, str(i + 1))
        if self._auto_prefix:
            cell.update_parameters_name(prefix + str(start) + ".")
        items.insert(start, (str(start), cell))
        object.__setattr__(self, "_cells", OrderedDict(
            (key if key in self._fixed else str(i), c) for i, (key, c) in enumerate(items)))


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
        prefix = _prefix_and_index(self._cells)[0]  # read once, as MindSpore 2.10 does
        for cell in cells:
            self._add(str(len(self._cells)), self._check(cell), prefix)
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
        if len(args) == 1 and isinstance(args[0], dict):
            for key, cell in args[0].items():
                self._add(key, self._check(cell), "", fixed=True)
            return
        if len(args) == 1 and isinstance(args[0], list):
            args = tuple(args[0])
        elif len(args) == 1 and not isinstance(args[0], Cell):
            raise GraphTypeError("For 'SequentialCell', the 'args[0]' should be list or "
                                 f"OrderedDict, but got {type(args[0]).__name__}.", user_loc())
        for i, cell in enumerate(args):
            self._add(str(i), self._check(cell), "")

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
