"""Compatibility names: the compile orchestrator moved to ``msc.compiler``; this module
re-exports what other code imports from here."""

from msc._version import VERSION
from msc.compiler import (
    COUNTERS,
    Compiled,
    arg_spec,
    compile_entry,
    context_store,
    flatten_tensors,
    to_user,
)

__all__ = ["COUNTERS", "Compiled", "VERSION", "arg_spec", "compile_entry", "context_store",
           "flatten_tensors", "to_user"]
