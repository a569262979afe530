"""``mindspore.communication.management``: starting the collective backend, ranks and
groups.

msc's backend is MPI through ``mpi4py`` (``pip install "msc[distributed]"`` brings it and
the MPICH library): launch N processes with ``msc run -n N script.py`` or ``mpiexec -n N
python script.py``. A group is a name for a list of world ranks; collectives look their
ranks up when a graph is built, so generated code needs no group table at run time.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "get_process_group_ranks", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
#: The names of the group of every rank (MindSpore's per-backend spellings).
WORLD_GROUPS = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)
INSTALL = 'pip install "msc[distributed]" (or: pip install mpi4py mpich)'


class GlobalComm:
    """The communication state MindSpore scripts read: ``WORLD_COMM_GROUP`` (the default
    group of every collective), ``INITED``, ``BACKEND``."""

    BACKEND = "mpi"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


#: group name -> its world ranks, in group-rank order (the world group is added by init)
_groups: dict[str, tuple[int, ...]] = {}
_comms: dict[str, Any] = {}


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError:
        raise ImportError(f"msc's distributed training needs mpi4py and an MPI library: "
                          f"{INSTALL}") from None
    return MPI


def init(backend_name: str | None = None) -> None:
    """Start MPI and join the world group (every process of the ``mpiexec`` job). From now
    on an uncaught exception on any rank aborts every rank, so none waits forever."""
    from msc import context
    from msc.runtime.comm_rt import _rt_abort_on_error

    if backend_name not in (None, "mpi", "hccl", "nccl", "mccl"):
        raise GraphValueError(f"backend_name must be None or 'mpi', but got {backend_name!r}")
    world = _mpi().COMM_WORLD
    _rt_abort_on_error()
    ranks = tuple(range(world.Get_size()))
    for name in WORLD_GROUPS:
        _groups[name] = ranks
    GlobalComm.INITED = True
    context.generation += 1  # compiled calls made before see a new world


def release() -> None:
    """Forget the groups (MPI itself ends with the process)."""
    from msc import context

    _groups.clear()
    _comms.clear()
    GlobalComm.INITED = False
    context.generation += 1


def _check_init() -> None:
    if not GlobalComm.INITED:
        raise RuntimeError("the collective backend is not started: call "
                           "msc.communication.init() first (and launch the script with "
                           "msc run -n N or mpiexec)")


def group_ranks(group: str | None) -> tuple[int, ...]:
    """The world ranks of ``group`` (None: the world)."""
    _check_init()
    name = GlobalComm.WORLD_COMM_GROUP if group is None else group
    if not isinstance(name, str):
        raise GraphTypeError(f"the group must be a str, but got {type(group).__name__}")
    if name not in _groups:
        raise GraphValueError(f"the group '{name}' does not exist: make it with "
                              "create_group first")
    return _groups[name]


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in ``group``."""
    ranks = group_ranks(group)
    world = _mpi().COMM_WORLD.Get_rank()
    if world not in ranks:
        raise GraphValueError(f"rank {world} is not in group '{group}'")
    return ranks.index(world)


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """How many ranks ``group`` has."""
    return len(group_ranks(group))


def _node() -> Any:
    _check_init()
    if "_node" not in _comms:
        MPI = _mpi()
        _comms["_node"] = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
    return _comms["_node"]


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the processes of its machine."""
    group_ranks(group)
    return int(_node().Get_rank())


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """How many processes run on this machine."""
    group_ranks(group)
    return int(_node().Get_size())


def create_group(group: str, rank_ids: list[int], options: Any = None) -> None:
    """Name the world ranks ``rank_ids`` ``group`` (its rank ``i`` is ``rank_ids[i]``).
    Every rank in it must make its groups in the same order as the others."""
    world_ranks = group_ranks(None)
    if not isinstance(group, str) or group in WORLD_GROUPS or group in _groups:
        raise GraphValueError(f"the group name must be a new str, but got {group!r}")
    ids = list(rank_ids) if isinstance(rank_ids, (list, tuple)) else None
    if not ids or len(set(ids)) != len(ids) or \
            any(not isinstance(r, int) or r not in world_ranks for r in ids):
        raise GraphValueError(f"rank_ids must be a list of distinct ranks of the world "
                              f"(0 to {len(world_ranks) - 1}), but got {rank_ids!r}")
    _groups[group] = tuple(ids)  # its communicator is made at its first collective


def destroy_group(group: str) -> None:
    """Forget ``group``."""
    if group in WORLD_GROUPS or group not in _groups:
        raise GraphValueError(f"the group '{group}' cannot be destroyed")
    del _groups[group]


def get_world_rank_from_group_rank(group: str, group_rank_num: int) -> int:
    return group_ranks(group)[group_rank_num]


def get_group_rank_from_world_rank(world_rank_num: int, group: str) -> int:
    ranks = group_ranks(group)
    if world_rank_num not in ranks:
        raise GraphValueError(f"rank {world_rank_num} is not in group '{group}'")
    return ranks.index(world_rank_num)


def get_process_group_ranks(group: str | None = None) -> list[int]:
    return list(group_ranks(group))
