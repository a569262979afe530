"""The cuda target: host drivers around numba.cuda kernels (see ``lower.py``)."""
