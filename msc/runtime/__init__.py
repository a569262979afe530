"""The runtime helpers generated code calls (``_rt_*``), written once as real modules.

``numpy_rt`` serves the python target, eager mode and the reference interpreter;
``numba_rt`` serves the numba target. A generated module never imports them (artifacts
run where msc is not installed): ``msc.codegen.render`` copies the source of just the
helpers a module's kernels call into it. So these modules import nothing but numpy,
math and numba, and each helper is a top-level statement that names what it needs.
"""
