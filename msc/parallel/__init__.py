"""``mindspore.parallel``: the private helpers training cells read
(``mindspore.parallel._utils``, ``mindspore.parallel._auto_parallel_context``), over
msc's auto-parallel context (``msc.context``). msc runs stand-alone or data-parallel."""
