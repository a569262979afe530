"""``nn.Cell``: the parameter and sub-cell registries, names, and ``__call__`` dispatch
(the containers ``CellList``, ``SequentialCell`` and ``CellDict`` are in
``layer/container.py``).

A Parameter's name is a plain string, renamed at the moments MindSpore 2.10 renames it:
assigning a cell to an attribute of a cell with ``auto_prefix`` (and putting it in a
container) renames every Parameter the cell reaches by ``<attribute>.<path>``, the path
being the first one ``parameters_and_names`` finds. So a cell held in two places is named
by the later assignment (``classifier.1.weight`` for SqueezeNet's ``final_conv``), until
the model is itself placed in another cell, which renames by the first path again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from msc.common.tensor import Parameter, ParameterTuple, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.hooks import register_cell
from msc.frontend.jit import call_cell
from msc.frontend.source import user_loc

_REGISTRIES = ("_params", "_cells", "_param_tuples")


@register_cell  # the front end and ``jit`` tell a Cell by it, without importing msc.nn
class Cell:
    """Base class of every network and layer (``mindspore.nn.Cell``).

    Args:
        auto_prefix: prefix the parameter names of sub-cells with the attribute name
            they are assigned to (``dense1.weight``). Default: True.
        flags: extra attributes for the cell (see ``add_flags``).

    Example:
        >>> class Net(nn.Cell):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.dense = nn.Dense(3, 4)
        ...     def construct(self, x):
        ...         return self.dense(x)
        >>> [p.name for p in Net().trainable_params()]
        ['dense.weight', 'dense.bias']
    """

    _amp_scope = None  # the mixed-precision scope of ``to_float`` (``common/amp_scope.py``)

    def __init__(self, auto_prefix: bool = True, flags: dict[str, Any] | None = None):
        set_ = object.__setattr__
        for reg in _REGISTRIES:
            set_(self, reg, OrderedDict())
        set_(self, "_auto_prefix", bool(auto_prefix))
        set_(self, "_flags", {})
        self.training = False
        self.requires_grad = False
        if flags:
            self.add_flags(**flags)

    # --- attribute registries -----------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        registered = (Parameter, Cell, ParameterTuple)
        if isinstance(value, registered) and "_params" not in self.__dict__:
            kind = "child cells" if isinstance(value, Cell) else "params"
            raise AttributeError(f"Can not assign {kind} before Cell.__init__() call.")
        if isinstance(value, Parameter):
            if self._params.get(name) is not value:
                self._replace(name, lambda: self._add_param(name, value))
        elif isinstance(value, Cell):
            if self._auto_prefix:  # MindSpore renames at every assignment, a repeated one too
                value.update_parameters_name(name + ".")
            if self._cells.get(name) is not value:
                self._replace(name, lambda: self._cells.__setitem__(name, value))
        elif isinstance(value, ParameterTuple):
            self._forget(name)
            self._param_tuples[name] = value
        elif "_params" in self.__dict__ and name in self._params:
            self._set_param_attr(name, value)
        elif "_cells" in self.__dict__ and name in self._cells:
            if value is not None:
                raise GraphTypeError(f"For 'Cell', the type of {name} must be Cell, but got "
                                     f"{type(value).__name__}.", user_loc())
            self._replace(name, lambda: self._cells.__setitem__(name, None))
        else:
            if "_param_tuples" in self.__dict__:
                self._param_tuples.pop(name, None)
            object.__setattr__(self, name, value)

    def _set_param_attr(self, name: str, value: Any) -> None:
        current = self._params[name]
        if isinstance(value, Tensor) and current is not None:
            current.set_data(value)  # MindSpore: assigning a Tensor updates the weight's data
        elif value is None:
            self._replace(name, lambda: self._params.__setitem__(name, None))
        else:
            raise GraphTypeError(f"For 'Cell', the type of {name} must be Parameter or "
                                 f"ParameterTuple, but got {type(value).__name__}.", user_loc())

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for reg in _REGISTRIES:
            table = d.get(reg)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __delattr__(self, name: str) -> None:
        if name in self._params or name in self._cells or name in self._param_tuples:
            self._forget(name)
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._params) | set(self._cells)
                      | set(self._param_tuples))

    def _replace(self, name: str, register: Any) -> None:
        """Forget what ``name`` held, then ``register()`` its new value; a name already
        registered keeps its place, so the order of parameters and cells is MindSpore's."""
        orders = [(table, list(table)) for table in (self._params, self._cells)]
        self._forget(name)
        register()
        for table, order in orders:
            if name in order and name in table:
                items = dict(table)
                table.clear()
                table.update((k, items.pop(k)) for k in order if k in items)
                table.update(items)

    def _forget(self, name: str) -> None:
        """Drop ``name`` from every registry; names already given stay (as in MindSpore)."""
        for table in (self._params, self._cells, self._param_tuples):
            table.pop(name, None)
        self.__dict__.pop(name, None)

    def _add_param(self, name: str, param: Parameter) -> None:
        if param.name is None:  # an unnamed Parameter takes the attribute's name; a named
            param.name = name   # one keeps its own until its cell is placed in another
        self._params[name] = param

    def insert_param_to_cell(self, param_name: str, param: Parameter,
                             check_name_contain_dot: bool = True) -> None:
        """Register ``param`` under ``param_name`` (what ``self.<name> = param`` does)."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError("For 'insert_param_to_cell', the name must be a non-empty str.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the name '{param_name}' can not "
                           "contain '.'.")
        if not isinstance(param, Parameter):
            raise GraphTypeError("For 'insert_param_to_cell', the param must be a Parameter, "
                                 f"but got {type(param).__name__}.", user_loc())
        self._replace(param_name, lambda: self._add_param(param_name, param))

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        """Register ``child_cell`` under ``child_name``. Unlike ``self.<name> = cell`` it
        renames nothing, as in MindSpore."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"Child cell name '{child_name}' must be a non-empty str without "
                           "'.'.")
        if not isinstance(child_cell, Cell) and child_cell is not None:
            raise GraphTypeError(f"Child cell type must be Cell, but got "
                                 f"{type(child_cell).__name__}.", user_loc())
        if child_name in self.__dict__ and child_name not in self._cells:
            raise KeyError(f"Duplicate child name '{child_name}'.")
        self._replace(child_name, lambda: self._cells.__setitem__(child_name, child_cell))

    def _replace_child(self, name: str, make: Any) -> Cell:
        """Put ``make(child)`` where the child ``name`` is, in the same place of the
        order; nothing is renamed, so its Parameters keep their names."""
        new = make(self._cells[name])
        self._cells[name] = new
        return new

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Name every Parameter this cell reaches ``prefix`` + its path here (the first
        path ``parameters_and_names`` gives it). Those reached first through a
        ParameterTuple (an optimizer's) keep their names."""
        for path, param, in_tuple in self._params_and_paths("", recurse):
            if not in_tuple:
                param.name = prefix + path

    # --- traversal ----------------------------------------------------------------

    def cells_and_names(self, cell: set[int] | None = None,
                        name_prefix: str = "") -> Iterator[tuple[str, Cell]]:
        """(path, cell) for this cell and every sub-cell, pre-order, each cell once."""
        seen = cell if cell is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, child in self._cells.items():
            if child is not None:
                path = f"{name_prefix}.{name}" if name_prefix else name
                yield from child.cells_and_names(seen, path)

    def name_cells(self) -> OrderedDict[str, Cell]:
        """The direct sub-cells by attribute name."""
        out: OrderedDict[str, Cell] = OrderedDict()
        seen: set[int] = set()
        for name, child in self._cells.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                out[name] = child
        return out

    def cells(self) -> Any:
        return self.name_cells().values()

    def _params_and_paths(self, name_prefix: str,
                          expand: bool) -> Iterator[tuple[str, Parameter, bool]]:
        """(path, Parameter, whether held by a ParameterTuple): each cell's own parameters
        before its sub-cells', each once."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand \
            else iter([(name_prefix, self)])
        seen: set[int] = set()
        for cell_name, cell in cells:
            own = [(name, p, False) for name, p in cell._params.items() if p is not None]
            own += [(p.name or "", p, True) for tup in cell._param_tuples.values() for p in tup]
            for name, param, in_tuple in own:
                if id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{cell_name}.{name}" if cell_name else name), param, in_tuple

    def parameters_and_names(self, name_prefix: str = "",
                             expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(path, Parameter): each cell's own parameters before its sub-cells', each once."""
        for path, param, _ in self._params_and_paths(name_prefix, expand):
            yield path, param

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict[str, Parameter]:
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict[Parameter, Parameter]:
        """{param: its initialised Parameter}: msc's weights hold data from the start, so
        each maps to itself."""
        return {p: p.init_data() for p in self.get_parameters()}

    def to_float(self, dst_type: Any) -> Cell:
        """Run this cell and every sub-cell in ``dst_type`` (float16 or float32): while
        one runs, the floating inputs of each op are cast to it (``common/amp_scope.py``),
        as in MindSpore's PyNative mode; the Parameters keep their own type. Sets the flags
        ``fp16``/``fp32``/``bf16``; returns the cell."""
        from msc.common.amp_scope import ATTR, Scope
        from msc.ir import dtypes

        dtype = dtypes.coerce(dst_type)
        if dtype not in (dtypes.float16, dtypes.float32):
            raise GraphValueError("For 'to_float', the argument 'dst_type' must be "
                                  "mstype.float32, mstype.float16 or mstype.bfloat16, but got "
                                  f"type: {type(dst_type)} and value: {dst_type}.")
        self.add_flags_recursive(fp16=dtype == dtypes.float16, fp32=dtype == dtypes.float32,
                                 bf16=False)
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, ATTR, Scope(dtype))
        return self

    # --- modes and flags ----------------------------------------------------------

    def set_train(self, mode: bool = True) -> Cell:
        """Training (True) or inference (False) for this cell and every sub-cell."""
        for _, cell in self.cells_and_names():
            cell.training = bool(mode)
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        self.requires_grad = requires_grad
        return self

    def add_flags(self, **flags: Any) -> Cell:
        self._flags.update(flags)
        for key, value in flags.items():
            object.__setattr__(self, key, value)
        return self

    def add_flags_recursive(self, **flags: Any) -> Cell:
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict[str, Any]:
        return dict(self._flags)

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    # --- calling ------------------------------------------------------------------

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise AttributeError("For 'Cell', the method 'construct' is not defined.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "_names_checked" not in self.__dict__:
            self._refresh_duplicate_names()
        return call_cell(self, args, kwargs)

    def _refresh_duplicate_names(self) -> None:
        """MindSpore 2.10 checks a cell's names on its first call: where two of its
        Parameters share a name (two cells added late under the same attribute), all of
        them are renamed by their paths."""
        object.__setattr__(self, "_names_checked", True)
        names = [p.name for p in self.get_parameters()]
        if len(set(names)) < len(names):
            self.update_parameters_name()

    # --- printing -----------------------------------------------------------------

    def extend_repr(self) -> str:
        """Extra text inside ``Name<...>``; layers list their settings here."""
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        if not self._cells:
            return f"{type(self).__name__}<{extra}>"
        lines = [extra] if extra else []
        lines += [f"({key}): {child!r}" for key, child in self._cells.items()]
        body = "\n".join(lines).replace("\n", "\n  ")
        return f"{type(self).__name__}<\n  {body}\n  >"


__all__ = ["Cell"]
