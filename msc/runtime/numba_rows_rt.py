"""numba runtime helpers that fold one row (``Loops.fold``): its maximum, sum or sum of
squared deviations, in 16 partial results (lane ``l`` takes the elements ``j`` with
``j % 16 == l`` of the row's first ``n // 16 * 16``), combined halves onto halves (lane
``l`` with lane ``l + 8``, then ``l + 4``, ``l + 2``, ``l + 1``), then the rest of the row
in order. The lanes are one LLVM vector (``_rt_lanes``): Numba never reassociates a
float chain, and its LLVM does not vectorize one chain per lane written out (SLP is off),
so four chains ran as scalar code at 1 element a cycle; a vector of 16 runs at memory
speed whatever the machine's vector width, with the same bits on every machine (the
native runtime's ``msc_row_*`` fold in the same order). Compiled once per machine for
every kernel that calls them; copied into generated modules with ``numba_rt.py``.
"""

from numba import njit


def _rt_lanes():
    """``_rt_lanes_max``, ``_rt_lanes_sum``, ``_rt_lanes_squares``: ``f(row, around)`` of
    a 1-d float row, folded in 16 lanes over its first ``n // 16 * 16`` elements and the
    lanes combined (module docstring): the maximum (a NaN winning; the lanes start at
    ``row[0]``, so the row must not be empty), or the float64 sum of the elements or of
    ``(x - around) ** 2``. A contiguous row is read 16 elements a load, another element
    by element."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    lanes = 16

    def folder(kind):
        def codegen(context, builder, signature, args):
            row_type, (row, around) = signature.args[0], args
            ary = context.make_array(row_type)(context, builder, row)
            n, stride = (builder.extract_value(x, 0) for x in (ary.shape, ary.strides))
            item = context.get_data_type(row_type.dtype)
            acc = ir.DoubleType() if kind != "max" else item
            vec = ir.VectorType(acc, lanes)
            size = context.get_abi_sizeof(item)
            i64 = ir.IntType(64)

            def splat(value):
                return builder.shuffle_vector(
                    builder.insert_element(ir.Constant(vec, ir.Undefined), value, i64(0)),
                    ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32),
                                                                              lanes), [0] * lanes))

            def pick(kept, new):  # (new if new > kept or new is NaN, lane by lane)
                wins = builder.or_(builder.fcmp_ordered(">", new, kept),
                                   builder.fcmp_unordered("uno", new, new))
                return builder.select(wins, new, kept)

            around = context.cast(builder, around, signature.args[1], types.float64)
            total = cgutils.alloca_once(builder, vec)
            builder.store(splat(builder.load(ary.data)) if kind == "max"
                          else ir.Constant(vec, None), total)
            whole = builder.mul(builder.udiv(n, i64(lanes)), i64(lanes))
            base = builder.ptrtoint(ary.data, i64)
            packed = builder.icmp_unsigned("==", stride, i64(size))
            with cgutils.for_range_slice(builder, i64(0), whole, i64(lanes)) as (j, _):
                with builder.if_else(packed) as (whole_load, one_by_one):
                    with whole_load:
                        at = builder.gep(ary.data, [j])
                        v_packed = builder.load(builder.bitcast(
                            at, ir.VectorType(item, lanes).as_pointer()), align=size)
                        b_packed = builder.basic_block
                    with one_by_one:
                        v_single = ir.Constant(ir.VectorType(item, lanes), ir.Undefined)
                        for k in range(lanes):
                            offset = builder.mul(builder.add(j, i64(k)), stride)
                            at = builder.inttoptr(builder.add(base, offset), item.as_pointer())
                            v_single = builder.insert_element(v_single, builder.load(at),
                                                              i64(k))
                        b_single = builder.basic_block
                v = builder.phi(ir.VectorType(item, lanes))
                v.add_incoming(v_packed, b_packed)
                v.add_incoming(v_single, b_single)
                now = builder.load(total)
                if kind == "max":
                    now = pick(now, v)
                else:
                    wide = builder.fpext(v, vec) if item != acc else v
                    if kind == "squares":
                        d = builder.fsub(wide, splat(around))
                        wide = builder.fmul(d, d)
                    now = builder.fadd(now, wide)
                builder.store(now, total)
            now, width = builder.load(total), lanes
            while width > 1:  # (lane l with lane l + width / 2)
                half = width // 2
                take = [ir.Constant(ir.VectorType(ir.IntType(32), half), list(range(at, at + half)))
                        for at in (0, half)]
                low, high = (builder.shuffle_vector(now, ir.Constant(now.type, ir.Undefined), t)
                             for t in take)
                now = pick(low, high) if kind == "max" else builder.fadd(low, high)
                width = half
            return builder.extract_element(now, i64(0))

        @intrinsic
        def fold(typingctx, row, around):
            result = row.dtype if kind == "max" else types.float64
            return result(row, around), codegen
        return fold

    return folder("max"), folder("sum"), folder("squares")


_rt_lanes_max, _rt_lanes_sum, _rt_lanes_squares = _rt_lanes()


@njit(cache=True, error_model="numpy")
def _rt_row_max(row):
    """The largest element of a non-empty 1-d row, a NaN winning (numpy's max)."""
    top = _rt_lanes_max(row, 0.0)
    for j in range(row.shape[0] // 16 * 16, row.shape[0]):
        v = row[j]
        top = v if v > top or v != v else top
    return top


@njit(cache=True, error_model="numpy")
def _rt_row_sum(row):
    """The float64 sum of a 1-d row."""
    total = _rt_lanes_sum(row, 0.0)
    for j in range(row.shape[0] // 16 * 16, row.shape[0]):
        total += row[j]
    return total


@njit(cache=True, error_model="numpy")
def _rt_row_squares(row, around):
    """The float64 sum of ``(x - around) ** 2`` over a 1-d row (a variance's numerator)."""
    total = _rt_lanes_squares(row, around)
    for j in range(row.shape[0] // 16 * 16, row.shape[0]):
        d = row[j] - around
        total += d * d
    return total
