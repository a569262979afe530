"""``mindspore.log`` (``from mindspore import log as logger``): MindSpore's logging
functions, on the standard ``logging`` logger named ``msc``. Model-zoo training code logs
through it; MindSpore's environment variables for log files are not read."""

from __future__ import annotations

import logging

_LOGGER = logging.getLogger("msc")

#: MindSpore's levels as ``get_level`` names them ("0" debug ... "3" error).
_LEVELS = {logging.DEBUG: "0", logging.INFO: "1", logging.WARNING: "2", logging.ERROR: "3",
           logging.CRITICAL: "4"}


def debug(msg: object, *args: object, **kwargs: object) -> None:
    _LOGGER.debug(msg, *args, **kwargs)


def info(msg: object, *args: object, **kwargs: object) -> None:
    _LOGGER.info(msg, *args, **kwargs)


def warning(msg: object, *args: object, **kwargs: object) -> None:
    _LOGGER.warning(msg, *args, **kwargs)


def error(msg: object, *args: object, **kwargs: object) -> None:
    _LOGGER.error(msg, *args, **kwargs)


def critical(msg: object, *args: object, **kwargs: object) -> None:
    _LOGGER.critical(msg, *args, **kwargs)


def get_level() -> str:
    """The effective level as MindSpore writes it (MindSpore's default, warning, is "2")."""
    return _LEVELS.get(_LOGGER.getEffectiveLevel(), "2")


def get_log_config() -> dict[str, str]:
    return {"GLOG_v": get_level()}
