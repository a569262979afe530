"""numba runtime helpers that fold one row (``Loops.fold``): its maximum, sum or sum of
squared deviations, in four partial results, each taking every fourth element, combined
in a fixed order, then the rest of the row. The chains do not wait on each other, so LLVM
vectorizes them (one chain waits a float add's or compare's latency per element, and
Numba never reassociates). Compiled once per machine for every kernel that calls them;
copied into generated modules with ``numba_rt.py``.
"""

from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_row_max(row):
    """The largest element of a non-empty 1-d row, a NaN winning (numpy's max)."""
    top = m0 = m1 = m2 = m3 = row[0]
    whole = row.shape[0] // 4 * 4
    for j in range(0, whole, 4):
        v0, v1, v2, v3 = row[j], row[j + 1], row[j + 2], row[j + 3]
        m0 = v0 if v0 > m0 or v0 != v0 else m0
        m1 = v1 if v1 > m1 or v1 != v1 else m1
        m2 = v2 if v2 > m2 or v2 != v2 else m2
        m3 = v3 if v3 > m3 or v3 != v3 else m3
    for j in range(whole, row.shape[0]):
        v = row[j]
        m0 = v if v > m0 or v != v else m0
    for v in (m0, m1, m2, m3):
        top = v if v > top or v != v else top
    return top


@njit(cache=True, error_model="numpy")
def _rt_row_sum(row):
    """The float64 sum of a 1-d row."""
    s0 = s1 = s2 = s3 = 0.0
    whole = row.shape[0] // 4 * 4
    for j in range(0, whole, 4):
        s0 += row[j]
        s1 += row[j + 1]
        s2 += row[j + 2]
        s3 += row[j + 3]
    total = (s0 + s1) + (s2 + s3)
    for j in range(whole, row.shape[0]):
        total += row[j]
    return total


@njit(cache=True, error_model="numpy")
def _rt_row_squares(row, around):
    """The float64 sum of ``(x - around) ** 2`` over a 1-d row (a variance's numerator)."""
    s0 = s1 = s2 = s3 = 0.0
    whole = row.shape[0] // 4 * 4
    for j in range(0, whole, 4):
        d0, d1, d2, d3 = row[j] - around, row[j + 1] - around, row[j + 2] - around, \
            row[j + 3] - around
        s0 += d0 * d0
        s1 += d1 * d1
        s2 += d2 * d2
        s3 += d3 * d3
    total = (s0 + s1) + (s2 + s3)
    for j in range(whole, row.shape[0]):
        d = row[j] - around
        total += d * d
    return total
