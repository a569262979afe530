"""numba runtime helpers: what the numba target's kernels call. Reductions, row-wise
kernels (softmax, layer norm) and integer contractions are loop nests in the kernels
themselves (a long row's maximum or sum is one call of numba_rows_rt.py's helpers); these
are the scalar functions and the matrix products.

``msc.codegen.render`` copies the top-level statements a module needs into it, in this
file's order, so each statement must stand alone on ``math``, ``np`` and ``njit`` (the
generated module's imports) and the statements before it. Float matrix products call
the BLAS that numpy itself bundles, by symbol name (``_rt_find_blas``); where there is
none, loops stand in (chosen once, at import). The two flavours of the matmul helpers are
separate definitions (each flavour defines its own ``_rt_matmul*``), so Numba caches
them apart.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_pow(x, y):
    return x ** y


@njit(cache=True, error_model="numpy")
def _rt_fmod(x, y):
    """C's remainder of two scalars (the sign of ``x``, as ``np.fmod``, whose Numba version
    is wrong for signed integers); an integer divided by zero gives 0, as in numpy."""
    if isinstance(x, (float, np.float32, np.float64)):
        return np.fmod(x, y)
    if y == 0:
        return x - x
    r = x % y  # Python's sign: the divisor's
    if r != 0 and (r < 0) != (x < 0):
        r -= y
    return r


@njit(cache=True, error_model="numpy")
def _rt_gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + math.erf(x / 1.4142135623730951))


# --- float32 transcendentals that vectorize ----------------------------------------------
# libm's exp, tanh and erf are one call per element (tanh and erf 15-20 ns each), and a
# call keeps LLVM from vectorizing the loop around it. For float32 results the numba
# target computes these functions in float64 from arithmetic and selects only (fusion.py
# picks them): within 1 ulp of the correctly rounded float32 value (exp, tanh and the
# tanh GeLU have rounded correctly on every value tried), at 1-4 ns per element.


def _rt_bits_to_float(width):
    """An int -> float reinterpretation of the bits (``width`` 64 or 32), one LLVM bitcast
    (vectorizable, where math.ldexp is a call): 2**k is the float64 of the bits
    (k + 1023) << 52, the float32 of (k + 127) << 23."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    lane, result, bits = (ir.DoubleType(), types.float64, types.int64) if width == 64 else \
        (ir.FloatType(), types.float32, types.int32)

    @intrinsic
    def bits_to_float(typingctx, value):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], lane)
        return result(bits), codegen
    return bits_to_float


_rt_f64_of_bits = _rt_bits_to_float(64)
_rt_f32_of_bits = _rt_bits_to_float(32)


def _rt_fma_intrinsic(width):
    """``a * b + c`` rounded once (LLVM's llvm.fma: one instruction where the CPU has
    fused multiply-adds, and loops around it still vectorize). The native runtime calls
    C's ``fma`` (``fmaf``) at the same places, so both compute the same bits; operands
    float64 (``width`` 64) or float32."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    lane, t = (ir.DoubleType(), types.float64) if width == 64 else (ir.FloatType(), types.float32)

    @intrinsic
    def fma(typingctx, a, b, c):
        def codegen(context, builder, signature, args):
            args = [context.cast(builder, v, ty, t) for v, ty in zip(args, signature.args)]
            return builder.call(builder.module.declare_intrinsic(
                "llvm.fma", [lane], ir.FunctionType(lane, [lane] * 3)), args)
        return t(a, b, c), codegen
    return fma


_rt_fma = _rt_fma_intrinsic(64)
_rt_fma32 = _rt_fma_intrinsic(32)


# Polynomials by Estrin's scheme: pairs of terms, then pairs of pairs. The chain of
# dependent operations is 4 deep where Horner's is 9-11, so a loop over many elements
# waits on it less (GeLU 1.47 -> 1.05 ms over 786,432 elements); the values differ from
# Horner's in the last bits of their float64, not in the float32 results tried.


@njit(cache=True, error_model="numpy", inline="always")
def _rt_poly10(x, c):
    """c[0] + c[1] x + ... + c[9] x**9."""
    x2 = x * x
    x4 = x2 * x2
    return ((c[0] + x * c[1]) + x2 * (c[2] + x * c[3])) + x4 * (
        (c[4] + x * c[5]) + x2 * (c[6] + x * c[7])) + (x4 * x4) * (c[8] + x * c[9])


@njit(cache=True, error_model="numpy", inline="always")
def _rt_poly12(x, c):
    """c[0] + c[1] x + ... + c[11] x**11."""
    x2 = x * x
    x4 = x2 * x2
    return ((c[0] + x * c[1]) + x2 * (c[2] + x * c[3])) + x4 * (
        (c[4] + x * c[5]) + x2 * (c[6] + x * c[7])) + (x4 * x4) * (
        (c[8] + x * c[9]) + x2 * (c[10] + x * c[11]))


#: exp's Taylor coefficients, 1 / k! for k = 0..11
_rt_exp_taylor = (1.0, 1.0, 0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                  1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800)


@njit(cache=True, error_model="numpy")
def _rt_exp64(x):
    """exp(x), relative error ~1e-15: 2**k times a Taylor polynomial of the remainder
    (|r| <= ln 2 / 2). 0 below -110 and exp(90) above 90, where float32 results are 0 or
    inf anyway (their range is e**-104 .. e**89)."""
    y = 0.0 if x != x else min(max(np.float64(x), -110.0), 90.0)
    k = np.floor(y * 1.4426950408889634 + 0.5)
    r = (y - k * 0.6931471803691238) - k * 1.9082149292705877e-10  # ln 2, high and low
    e = _rt_poly12(r, _rt_exp_taylor) * _rt_f64_of_bits((np.int64(k) + 1023) << 52)
    return np.float64(x) if x != x else (0.0 if x < -110.0 else e)


#: exp(r) - 1 - r over r*r on |r| <= ln 2 / 2, a float32 polynomial (Cephes' expf)
_rt_exp32_poly = (0.5, 0.1666666567325592, 0.04166579619050026, 0.008333452045917511,
                  0.001398199936375022, 0.00019875691214110702)


@njit(cache=True, error_model="numpy", inline="always")
def _rt_scale32(e, k):
    """e * 2**k for a float32 k, in two halves (two bit casts): a result below float32's
    smallest normal rounds once, as a denormal."""
    whole = np.int32(k)
    half = whole >> 1
    return e * _rt_f32_of_bits((half + 127) << 23) * _rt_f32_of_bits((whole - half + 127) << 23)


@njit(cache=True, error_model="numpy", inline="always")
def _rt_exp32(x):
    """exp of a float32 in float32 arithmetic: twice the lanes of ``_rt_exp64`` (0.43 ns
    an element against 1.03), within 1 ulp of the correctly rounded value on every
    float32 (99.6% exact). 2**k by ``_rt_scale32``, so results below float32's smallest
    normal round once, as denormals. Cody-Waite reduction: k * 0.693359375 is
    exact for the k that occur (|k| <= 150)."""
    f, c = np.float32, _rt_exp32_poly
    x = f(x)
    y = f(0.0) if x != x else min(max(x, f(-104.0)), f(89.0))
    k = np.floor(y * f(1.4426950216293335) + f(0.5))
    r = (y - k * f(0.693359375)) - k * f(-0.00021219444170128554)
    p = ((f(c[5]) * r + f(c[4])) * r + f(c[3])) * r
    p = ((p + f(c[2])) * r + f(c[1])) * r + f(c[0])
    e = _rt_scale32((p * (r * r) + r) + f(1.0), k)
    return x if x != x else (f(0.0) if x < f(-104.0) else e)


#: (tanh(x) - x) / x**3 as a polynomial in x*x on |x| < 0.625 (a float32 fit, 4.4e-9)
_rt_tanh32_poly = (-0.3333328068256378, 0.13331441581249237, -0.05373971164226532,
                   0.020639078691601753, -0.005704978480935097)


@njit(cache=True, error_model="numpy")
def _rt_tanh32(x):
    """tanh of a float32 in float32 arithmetic: 1 - 2 / (exp(2|x|) + 1) with x's sign,
    x (1 + x*x P(x*x)) below 0.625 (zeros keep their sign). Within 1 ulp of the correctly
    rounded value on every float32 (99.1% exact), at twice the lanes of float64."""
    f, c = np.float32, _rt_tanh32_poly
    x = f(x)
    a, x2 = abs(x), x * x
    t = f(1.0) - f(2.0) / (_rt_exp32(a + a) + f(1.0))
    p = ((((f(c[4]) * x2 + f(c[3])) * x2 + f(c[2])) * x2 + f(c[1])) * x2 + f(c[0])) * x2
    return x * (f(1.0) + p) if a < f(0.625) else (t if x > f(0.0) else -t)


@njit(cache=True, error_model="numpy")
def _rt_sigmoid64(x):
    """1 / (1 + exp(-x)) as e / (1 + e), e = exp(x): 0 far below 0, 1 far above."""
    e = _rt_exp64(x)
    return e / (1.0 + e)


#: erf's Taylor series in x*x (times x)
_rt_erf_taylor = (1.1283791670955126, -0.37612638903183754, 0.11283791670955126,
                  -0.026866170645131252, 0.005223977625442188, -0.0008548327023450852,
                  0.00012055332981789664, -1.492565035840625e-05, 1.6462114365889246e-06,
                  -1.6365844691234924e-07)
#: exp(r) on |r| <= ln 2 / 2, a minimax polynomial (relative error 1.9e-9); and the
#: rational p(a) / q(a) of erfc(a) exp(a*a) fitted on [0, 10.5] (6.2e-9): enough for
#: float32 results, where the float64 functions' 1e-15 costs 40% more time
_rt_exp_tail_poly = (1.0000000005545764, 1.0000000363417723, 0.49999992075111044,
                     0.1666642008359726, 0.04166822625409257, 0.008374823191593094,
                     0.0013836829102364485)
_rt_erfc_p = (1.0000000061546976, 1.2416222599239983, 0.7349724658179524,
              0.23082591881453107, 0.033134376418607454)
_rt_erfc_q = (1.0, 2.370002044987551, 2.409223466572314, 1.3316568215789963,
              0.4091531501910918, 0.0587285078426736)


@njit(cache=True, error_model="numpy", inline="always")
def _rt_exp_tail(y):
    """exp(y) for y in [-110.25, 0] (erfc's exp(-a*a)), by Horner's rule in fused
    multiply-adds: 2**k times the polynomial of the remainder."""
    c = _rt_exp_tail_poly
    k = np.floor(_rt_fma(y, 1.4426950408889634, 0.5))
    r = _rt_fma(k, -0.6931471805599453, y)
    p = _rt_fma(_rt_fma(_rt_fma(_rt_fma(_rt_fma(_rt_fma(
        c[6], r, c[5]), r, c[4]), r, c[3]), r, c[2]), r, c[1]), r, c[0])
    return p * _rt_f64_of_bits((np.int64(k) + 1023) << 52)


@njit(cache=True, error_model="numpy", inline="always")  # else LLVM keeps it a call
def _rt_erfc_tail(x):
    """erfc(|x|) to a relative error below 1e-8, as exp(-x*x) times the rational: it
    does not cancel anywhere, so erfc needs nothing else (erf near 0 does). Above 10.5
    (NaN and inf too) the parts are computed at 10.5 and the result chosen after."""
    a = abs(np.float64(x))
    c, p, q = (a if a < 10.5 else 10.5), _rt_erfc_p, _rt_erfc_q
    num = _rt_fma(_rt_fma(_rt_fma(_rt_fma(p[4], c, p[3]), c, p[2]), c, p[1]), c, p[0])
    den = _rt_fma(_rt_fma(_rt_fma(_rt_fma(_rt_fma(q[5], c, q[4]), c, q[3]), c, q[2]), c, q[1]),
                  c, q[0])
    tail = _rt_exp_tail(-(c * c)) * (num / den)
    return 0.0 if a > 10.5 else (a if a != a else tail)


@njit(cache=True, error_model="numpy", inline="always")
def _rt_erf64(x):
    """erf: under 0.5 its Taylor series (10 terms), above it 1 - erfc(|x|) with x's sign.
    Every part is computed: no branch."""
    x = np.float64(x)
    small = x * _rt_poly10(x * x, _rt_erf_taylor)
    tail = _rt_erfc_tail(x)
    return small if abs(x) < 0.5 else (1.0 - tail if x > 0.0 else tail - 1.0)


@njit(cache=True, error_model="numpy", inline="always")
def _rt_erfc64(x):
    tail = _rt_erfc_tail(x)
    return tail if x > 0.0 else 2.0 - tail


@njit(cache=True, error_model="numpy", inline="always")
def _rt_gelu_none32(x):
    """GeLU by erf in float32 arithmetic, for float32 data: twice the lanes of a float64
    form (0.71 ns an element against 1.20), within 7 ulp of the correctly rounded value
    on every float32 (99.3% within 1; the rational's float32 Horner chains round 9
    times), where JAX's float32 GeLU is 56 ulp off in [-6, -3].
    x/2 * erfc(-x / sqrt 2) as ``_rt_erfc_tail`` forms it: exp(-x*x/2), its argument
    exact as x*x and the rest a fused multiply-add leaves (2**k by ``_rt_scale32``;
    below -104 k is -159 and 2**k rounds to 0), times the rational; for
    x <= 0 in the order x/2 * rational * exp, so only the result may be subnormal."""
    f, c, p, q = np.float32, _rt_exp32_poly, _rt_erfc_p, _rt_erfc_q
    x = f(x)
    h = x * x
    y, rest = h * f(-0.5), _rt_fma32(x, x, -h) * f(-0.5)
    tiny = y < f(-104.0)
    y = f(-110.0) if tiny else y
    k = np.floor(_rt_fma32(y, f(1.4426950408889634), f(0.5)))
    r = _rt_fma32(k, f(-0.693145751953125), y)  # (ln 2 in 16 bits: exact)
    r = _rt_fma32(k, f(-1.4286068617366254e-06), r) + (f(0.0) if tiny else rest)
    e = _rt_fma32(_rt_fma32(_rt_fma32(_rt_fma32(_rt_fma32(
        f(c[5]), r, f(c[4])), r, f(c[3])), r, f(c[2])), r, f(c[1])), r, f(c[0]))
    e = _rt_scale32(_rt_fma32(e, r * r, r) + f(1.0), k)
    a = abs(x) * f(0.7071067811865476)
    a = a if a < f(10.5) else f(10.5)
    num = _rt_fma32(_rt_fma32(_rt_fma32(_rt_fma32(f(p[4]), a, f(p[3])), a, f(p[2])), a,
                              f(p[1])), a, f(p[0]))
    den = _rt_fma32(_rt_fma32(_rt_fma32(_rt_fma32(_rt_fma32(f(q[5]), a, f(q[4])), a, f(q[3])),
                                        a, f(q[2])), a, f(q[1])), a, f(q[0]))
    ratio, hx = num / den, f(0.5) * x
    v = hx * (f(2.0) - e * ratio) if x > f(0.0) else (hx * ratio) * e
    return x if x != x else v


@njit(cache=True, error_model="numpy")
def _rt_gelu_tanh32(x):
    """GeLU by tanh for float32 data: 0.5 x (1 + tanh u) = x e / (1 + e), e = exp(2u), no
    cancellation for u < 0. 2u is formed in float64 (the cubic in float32 would cost 40
    ulp in [-6, -3]) and enters exp as its float32 value v plus the rest, exp(v) (1 +
    rest); exp and the quotient in float32: 1.26 ns an element against 1.63 in float64,
    within 4 ulp of the correctly rounded value above -6 and 12 below (where exp(2u) is
    subnormal). Above 9 GeLU is x; below -12 it is x * 0 (v may not be finite there)."""
    f = np.float32
    x = f(x)
    d = np.float64(x)
    w = 1.5957691216057308 * (d + 0.044715 * d * d * d)
    v = f(w)
    e = _rt_exp32(v)
    e = _rt_fma32(e, f(w - np.float64(v)), e)
    g = x * (e / (f(1.0) + e))
    return x if x > f(9.0) else (x * f(0.0) if x < f(-12.0) else g)


def _rt_blas_files():
    """The C BLAS libraries numpy's own wheel bundles (OpenBLAS with 64-bit integers, in
    ``numpy.libs`` or ``numpy/.dylibs``), opened: numpy's own copy, as numpy opened it."""
    import ctypes
    import glob
    import os

    root = os.path.dirname(os.path.abspath(np.__file__))
    folders = (os.path.join(os.path.dirname(root), "numpy.libs"), os.path.join(root, ".dylibs"))
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
            try:
                yield ctypes.CDLL(path)  # RTLD_LOCAL: its other symbols stay private
            except OSError:
                continue


def _rt_find_blas():
    """Make the C BLAS bundled in numpy's own wheel callable from kernels, by name: its
    ``gemm`` functions are registered with LLVM as ``msc_cblas_sgemm64``/
    ``msc_cblas_dgemm64``, so a kernel holds a symbol name, not a pointer, and Numba can
    cache it. One BLAS, one thread pool (sized by ``OPENBLAS_NUM_THREADS``). True where
    found; False where numpy ships no such library or ``MSC_NUMBA_BLAS=0`` is set: then
    loops stand in. No SciPy involved."""
    import ctypes
    import os

    from llvmlite import binding

    if os.environ.get("MSC_NUMBA_BLAS", "1") == "0":
        return False
    for lib in _rt_blas_files():
        for prefix in ("scipy_cblas_", "cblas_"):  # numpy 2.x, numpy 1.x
            names = [prefix + kind + "gemm64_" for kind in ("s", "d")]
            if all(hasattr(lib, name) for name in names):
                for kind, name in zip(("s", "d"), names):
                    address = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                    binding.add_symbol(f"msc_cblas_{kind}gemm64", address)
                return True
    return False


_HAVE_BLAS = _rt_find_blas()


@njit(cache=True, error_model="numpy", fastmath=True)
def _rt_dot_loops(a, b, out):
    """``out[...] = a @ b`` by loops, in the order that walks ``b`` contiguously."""
    out[:, :] = 0
    if b.flags.f_contiguous:
        bt = b.T
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                acc = out[i, j]
                for p in range(a.shape[1]):
                    acc += a[i, p] * bt[j, p]
                out[i, j] = acc
    else:
        for i in range(a.shape[0]):
            for p in range(a.shape[1]):
                aip = a[i, p]
                for j in range(b.shape[1]):
                    out[i, j] += aip * b[p, j]


@njit(cache=True, error_model="numpy", inline="always")
def _rt_add_block(out, r0, r1, c0, c1, row):
    """``out[r0:r1, c0:c1] += row[c0:c1]`` on a whole matrix ``out``: its columns
    indexed unsigned, so LLVM vectorizes the loop (a signed index is checked for wrapping
    around at each element; on a view of the columns, a stride of unknown size is
    multiplied in: either runs 3-5x slower)."""
    first, count = np.uint64(c0), np.uint64(c1 - c0)
    for r in range(r0, r1):
        for c in range(count):
            out[r, first + c] += row[first + c]


def _rt_gemm_intrinsic():
    """``_rt_gemm(a, b, c, trans_a, trans_b, m, n, k, lda, ldb, ldc, beta)``: one row-major
    ``cblas_?gemm`` call, ``c = op(a) @ op(b) + beta * c``, on the float32 or float64
    arrays' data in place (the caller has checked their strides; with beta 0, ``c`` is
    not read). Written as an intrinsic so the arrays themselves are the call's operands
    and stay alive through it."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.core.errors import TypingError
    from numba.extending import intrinsic

    @intrinsic
    def gemm(typingctx, a, b, c, trans_a, trans_b, m, n, k, lda, ldb, ldc, beta):
        if not (a.dtype == b.dtype == c.dtype and a.dtype in (types.float32, types.float64)):
            raise TypingError(f"gemm of {a.dtype}, {b.dtype} into {c.dtype}")
        sig = types.void(a, b, c, types.boolean, types.boolean, *[types.int64] * 6,
                         types.float64)

        def codegen(context, builder, sig, args):
            data = [context.make_array(t)(context, builder, v).data
                    for t, v in zip(sig.args[:3], args[:3])]
            dtype = sig.args[0].dtype
            real = context.get_value_type(dtype)
            i32, i64 = ir.IntType(32), ir.IntType(64)
            ptr = data[0].type
            fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, real, ptr,
                                                   i64, ptr, i64, real, ptr, i64])
            kind = "s" if dtype == types.float32 else "d"
            fn = cgutils.get_or_insert_function(builder.module, fnty,
                                                f"msc_cblas_{kind}gemm64")

            def trans(flag):  # CblasTrans (112) or CblasNoTrans (111)
                return builder.select(flag, i32(112), i32(111))

            m_, n_, k_, lda_, ldb_, ldc_ = args[5:11]
            scale = context.cast(builder, args[11], types.float64, dtype)
            builder.call(fn, [i32(101), trans(args[3]), trans(args[4]), m_, n_, k_,  # RowMajor
                              real(1.0), data[0], lda_, data[1], ldb_, scale, data[2],
                              ldc_])
            return context.get_dummy_value()
        return sig, codegen
    return gemm


if _HAVE_BLAS:
    _rt_gemm = _rt_gemm_intrinsic()

    @njit(cache=True, error_model="numpy")
    def _rt_blas_layout(x):
        """How BLAS reads the matrix ``x`` where it lies: (transposed, leading dimension),
        row-major when its rows are contiguous, transposed when its columns are. The
        leading dimension is 0 when neither is (a copy is needed); a dimension of length
        1 may have any stride."""
        rows, cols = x.shape
        size = x.itemsize
        s0, s1 = x.strides[0], x.strides[1]
        if (cols == 1 or s1 == size) and (rows == 1 or (s0 % size == 0 and s0 >= cols * size)):
            return False, s0 // size if rows > 1 else max(cols, 1)
        if (rows == 1 or s0 == size) and (cols == 1 or (s1 % size == 0 and s1 >= rows * size)):
            return True, s1 // size if cols > 1 else max(rows, 1)
        return False, 0

    @njit(cache=True, error_model="numpy")
    def _rt_gemm_views(a, b, out, beta):
        """``out[...] = a @ b + beta * out`` by one BLAS ``gemm`` call (float32 or float64,
        ``out`` not overlapping ``a`` or ``b``; beta 0 never reads ``out``). Operands are
        read where they lie, transposed and strided views included; only one whose rows
        and columns are both strided is copied first."""
        m, k = a.shape
        n = b.shape[1]
        if m == 0 or n == 0:
            return
        if k == 0:  # (loops, not slice assignments: those cost seconds of compile time)
            if beta == 0:
                for i in range(m):
                    for j in range(n):
                        out[i, j] = 0
            return
        ta, lda = _rt_blas_layout(a)
        if lda == 0:
            a = np.ascontiguousarray(a)
            ta, lda = False, k
        tb, ldb = _rt_blas_layout(b)
        if ldb == 0:
            b = np.ascontiguousarray(b)
            tb, ldb = False, n
        tc, ldc = _rt_blas_layout(out)
        if ldc == 0:  # an output with strided rows and columns: through a buffer
            buffer = np.empty((m, n), out.dtype)
            _rt_gemm(a, b, buffer, ta, tb, m, n, k, lda, ldb, n, 0.0)
            for i in range(m):
                for j in range(n):
                    out[i, j] = buffer[i, j] if beta == 0 else out[i, j] + buffer[i, j]
        elif tc:  # a column-major output: its transpose, b.T @ a.T, is row-major
            _rt_gemm(b, a, out, not tb, not ta, n, m, k, ldb, lda, ldc, beta)
        else:
            _rt_gemm(a, b, out, ta, tb, m, n, k, lda, ldb, ldc, beta)

    @njit(cache=True, error_model="numpy", inline="always")
    def _rt_matmul_into(a, b, out, beta):
        """``_rt_gemm_views`` of any-layout views of the operands, inlined into the kernel:
        the body compiles once per dtype, not once per layout of each operand (0.4-0.7 s
        each, a dozen in a training step)."""
        _rt_gemm_views(a[:, :], b[:, :], out[:, :], beta)

    @njit(cache=True, error_model="numpy", inline="always")
    def _rt_matmul(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        _rt_matmul_into(a, b, out, 0.0)
        return out

    @njit(cache=True, error_model="numpy", inline="always")
    def _rt_matmul_bias(a, b, bias):
        """``a @ b + bias`` (one bias per column), the sum taken in place: one array."""
        out = _rt_matmul(a, b)
        _rt_add_block(out, 0, out.shape[0], 0, out.shape[1], bias)
        return out
else:
    @njit(cache=True, error_model="numpy")
    def _rt_matmul_into(a, b, out, beta):
        if beta == 0:
            _rt_dot_loops(np.ascontiguousarray(a), b, out)
        else:
            part = np.empty(out.shape, out.dtype)
            _rt_dot_loops(np.ascontiguousarray(a), b, part)
            for i in range(out.shape[0]):
                for j in range(out.shape[1]):
                    out[i, j] += part[i, j]

    @njit(cache=True, error_model="numpy")
    def _rt_matmul(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        _rt_matmul_into(a, b, out, 0.0)
        return out

    @njit(cache=True, error_model="numpy")
    def _rt_matmul_bias(a, b, bias):
        out = _rt_matmul(a, b)
        _rt_add_block(out, 0, out.shape[0], 0, out.shape[1], bias)
        return out


def print_text(format, values):  # noqa: A002 - MindSpore's name
    """What ``Print`` writes: the format with each value's numpy text in its field."""
    return format.format(*(str(np.asarray(v)) for v in values))


def _rt_print(format, *values):  # noqa: A002
    """``Print``: kernels call it inside ``with objmode():``, so it runs as Python."""
    print(print_text(format, values))


@njit(cache=True, error_model="numpy")
def _rt_cumsum(x, axis, exclusive, reverse):
    """Running sums along ``axis`` in x's dtype, as numpy's ``cumsum`` (see numpy_rt)."""
    shape = x.shape
    before, after = 1, 1
    for d in range(axis):
        before *= shape[d]
    for d in range(axis + 1, len(shape)):
        after *= shape[d]
    n = shape[axis]
    a = np.ascontiguousarray(x).reshape((before, n, after))
    out = np.empty_like(a)
    for i in range(before):
        for k in range(after):
            total = a.dtype.type(0)
            for step in range(n):
                j = n - 1 - step if reverse else step
                if exclusive:
                    out[i, j, k] = total
                    total += a[i, j, k]
                else:
                    total += a[i, j, k]
                    out[i, j, k] = total
    return out.reshape(shape)


# --- float16 ---
# Numba has no float16: kernels hold float16 tensors as uint16 arrays of their bit patterns,
# load them as float32, round every float16 result to float16's precision and store bits,
# computing as numpy computes float16 (see msc/codegen/half.py). The conversions are
# bit-exact: round half to even, subnormals, overflow to inf, NaN payloads as numpy casts.


@njit(cache=True, error_model="numpy")
def _rt_f16_to_f32(h):
    """The float32 equal to the float16 whose bits are ``h`` (NaN payloads kept)."""
    h = np.int64(h)
    sign = (h & 0x8000) << 16
    exp = (h >> 10) & 0x1F
    man = h & 0x3FF
    if exp == 0 and man != 0:  # subnormal: man * 2**-24, exact in float32
        value = np.float32(man) * np.float32(5.9604644775390625e-08)
        return -value if sign else value
    if exp == 0x1F:  # inf and NaN
        bits = sign | 0x7F800000 | (man << 13)
    elif exp == 0:
        bits = sign
    else:
        bits = sign | ((exp + 112) << 23) | (man << 13)
    return np.uint32(bits).view(np.float32)


@njit(cache=True, error_model="numpy")
def _rt_f16_rounded(sign, e, man, drop):
    """The float16 bits of ``sign`` (0 or 0x8000) and 1.``man`` * 2**(e - 15), where ``man``
    has ``drop`` bits more than float16's 10: rounded half to even, to a subnormal when
    e <= 0, to inf when it overflows."""
    if e >= 31:
        return np.uint16(sign | 0x7C00)
    if e <= 0:  # the implicit bit joins ``man``, and 1 - e more bits go
        shift = drop + 1 - e
        if shift > drop + 11:  # below half the smallest subnormal
            return np.uint16(sign)
        man |= np.int64(1) << (drop + 10)
        drop = shift
        q = man >> drop
    else:
        q = (e << 10) | (man >> drop)
    rest = man & ((np.int64(1) << drop) - 1)
    half = np.int64(1) << (drop - 1)
    if rest > half or (rest == half and q & 1):
        q += 1  # a carry into the exponent is right, up to inf
    return np.uint16(sign | q)


@njit(cache=True, error_model="numpy")
def _rt_f16_from_bits(sign, exp, man, top, drop):
    """The float16 bits of a float's ``sign`` (0 or 0x8000), biased exponent ``exp`` (``top``
    for inf and NaN) and mantissa ``man`` of 10 + ``drop`` bits. A NaN keeps the top of its
    payload and stays a NaN, as in numpy's casts."""
    if exp == top:
        return np.uint16(sign | 0x7C00 | (max(man >> drop, 1) if man else 0))
    return _rt_f16_rounded(sign, exp - (top >> 1) + 15, man, drop)


@njit(cache=True, error_model="numpy")
def _rt_f32_to_f16(x):
    """The bits of the float16 nearest ``x`` (float32, float64, int or bool), as numpy's
    ``astype(np.float16)``: a value float32 holds exactly is rounded from its float32 bits,
    any other from its float64 bits, once (never float64 -> float32 -> float16)."""
    f = np.float32(x)
    if np.float64(f).view(np.int64) == np.float64(x).view(np.int64):
        b = np.int64(f.view(np.uint32))
        if 6.103515625e-05 <= abs(f) < 65520:  # a normal float16: round the bits, rebias
            r = (((b & 0x7FFFFFFF) + 0xFFF + ((b >> 13) & 1)) >> 13) - 0x1C000
            return np.uint16(((b >> 16) & 0x8000) | r)
        return _rt_f16_from_bits((b >> 16) & 0x8000, (b >> 23) & 0xFF, b & 0x7FFFFF, 0xFF, 13)
    b = np.float64(x).view(np.int64)
    return _rt_f16_from_bits((b >> 48) & 0x8000, (b >> 52) & 0x7FF, b & 0xFFFFFFFFFFFFF,
                             0x7FF, 42)


@njit(cache=True, error_model="numpy")
def _rt_f16_round(x):
    """``x`` rounded to float16's precision, as a float32: a float16 op's result. Values
    float32 holds, in float16's range, round in float32 arithmetic: to a multiple of 2**-24
    by adding and taking away 0.5 (subnormals), else to 10 mantissa bits on the bits."""
    f = np.float32(x)
    if f == x:
        a = abs(f)
        if a < 6.103515625e-05:
            return np.float32(math.copysign((a + np.float32(0.5)) - np.float32(0.5), f))
        if a < 65520:
            b = np.int64(f.view(np.uint32))
            b = (b + 0xFFF + ((b >> 13) & 1)) & 0xFFFFE000
            return np.uint32(b).view(np.float32)
    return _rt_f16_to_f32(_rt_f32_to_f16(x))  # NaN, inf, overflow, other float64 values


@njit(cache=True, error_model="numpy")
def _rt_f16_widen(a):
    """A new float32 array of the float16 values whose bits the uint16 array ``a`` holds."""
    out = np.empty(a.shape, np.float32)
    flat = out.reshape(out.size)
    src = np.ascontiguousarray(a).reshape(a.size)
    for i in range(a.size):
        flat[i] = _rt_f16_to_f32(src[i])
    return out


@njit(cache=True, error_model="numpy")
def _rt_f16_narrow_into(a, out):
    """Write into the uint16 array ``out`` the float16 bits of the values of ``a``."""
    flat = out.reshape(out.size)
    src = np.ascontiguousarray(a).reshape(a.size)
    for i in range(a.size):
        flat[i] = _rt_f32_to_f16(src[i])


@njit(cache=True, error_model="numpy")
def _rt_f16_narrow(a):
    """A new uint16 array of the float16 bits of the values of ``a`` (float32 or float64,
    an array or a number)."""
    a = np.asarray(a)
    out = np.empty(a.shape, np.uint16)
    _rt_f16_narrow_into(a, out)
    return out


@njit(cache=True, error_model="numpy")
def _rt_gelu_f16(x, approximate):
    """``_rt_gelu`` of the float16 value ``x`` (held in float32) as numpy computes it on
    float16 arrays: each operation rounded to float16, the constants float16 too; erf is
    computed in float64 and its product rounded once, as ``_rt_erf`` gives float64."""
    r = _rt_f16_round
    if approximate == "tanh":
        inner = r(x + r(np.float32(0.044708251953125) * r(x ** np.float32(3.0))))
        t = r(np.tanh(r(np.float32(0.7978515625) * inner)))
        return r(r(np.float32(0.5) * x) * r(np.float32(1.0) + t))
    e = math.erf(np.float64(r(x / np.float32(1.4140625))))
    return r(np.float64(r(np.float32(0.5) * x)) * (1.0 + e))


def _rt_uniform_real(size, seed, offset, _streams={}):  # noqa: B006 - the module's streams
    """``UniformReal``: kernels call it inside ``with objmode(...)`` (see numpy_rt)."""
    stream = _streams.get((seed, offset))
    if stream is None:
        stream = _streams[(seed, offset)] = np.random.default_rng((seed, offset))
    return stream.random(size, dtype=np.float32)


# --- threads: a kernel's range, or a Winograd convolution's blocks, in parts at once ------

_RT_WORKERS = {"pid": 0, "queues": []}  # this process's worker threads' job queues
_RT_BLAS_THREADS = []  # numpy's OpenBLAS's (set, get) thread-count functions, or None


def _rt_thread_count():
    """The threads a call of generated code may use (the calling one included):
    ``MSC_NUM_THREADS``, else every CPU this process may run on."""
    import os

    wanted = os.environ.get("MSC_NUM_THREADS", "").strip()
    if wanted:
        try:
            return max(1, int(wanted))
        except ValueError:
            raise ValueError(f"MSC_NUM_THREADS must be a whole number, not {wanted!r}") from None
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (no affinity on this system)
        return os.cpu_count() or 1


def _rt_blas_threads():
    """numpy's OpenBLAS's functions setting and reading its thread count, or None."""
    if not _RT_BLAS_THREADS:
        found = None
        for lib in _rt_blas_files():
            for prefix in ("scipy_openblas_", "openblas_"):  # numpy 2.x, numpy 1.x
                names = (prefix + "set_num_threads64_", prefix + "get_num_threads64_")
                if found is None and all(hasattr(lib, n) for n in names):
                    found = tuple(getattr(lib, n) for n in names)
        _RT_BLAS_THREADS.append(found)
    return _RT_BLAS_THREADS[0]


def _rt_atomics():
    """``_rt_load(flags, i)``, an atomic (acquire) read of an int64 array's element, which
    LLVM may not hoist out of a loop waiting for another thread to change it, and
    ``_rt_bump(flags, i)``, an atomic increment."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def at(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return cgutils.get_item_pointer(context, builder, signature.args[0], ary, [args[1]])

    @intrinsic
    def load(typingctx, flags, i):
        def codegen(context, builder, signature, args):
            return builder.load_atomic(at(context, builder, signature, args), "acquire", 8)
        return types.int64(flags, types.intp), codegen

    @intrinsic
    def bump(typingctx, flags, i):
        def codegen(context, builder, signature, args):
            one = context.get_constant(types.int64, 1)
            return builder.atomic_rmw("add", at(context, builder, signature, args), one,
                                      "acq_rel")
        return types.int64(flags, types.intp), codegen
    return load, bump


_rt_load, _rt_bump = _rt_atomics()
#: How long a thread waiting for parts, or for its next part, spins (loads of a counter,
#: about 200 us) before it sleeps: a forward call starts its parallel loops microseconds
#: apart, and waking a sleeping thread costs 10-60 us here.
_RT_SPIN = 200_000
#: [parts handed out, parts finished]: hints for spinning threads (the queues stay the
#: truth: a missed hint only means sleeping sooner)
_RT_SIGNALS = np.zeros(2, np.int64)


@njit(cache=True, nogil=True)
def _rt_spin(flags, bump, i, value, budget):
    """Without the GIL: counts one more at ``flags[bump]`` (none if negative), then spins
    until ``flags[i] != value`` (True) or ``budget`` loads pass (False)."""
    if bump >= 0:
        _rt_bump(flags, bump)
    for _ in range(budget):
        if _rt_load(flags, i) != value:
            return True
    return False


def _rt_work(jobs):
    """A worker thread: runs each (function, arguments, index, answers) it is handed and
    answers (index, result, None) or (index, None, the exception raised). It counts each
    part it finishes, and spins while no part is handed out, without the GIL (so the
    caller, spinning too, takes the GIL back at once)."""
    signals, count = _RT_SIGNALS, -1  # (count: 1 once a part is done, until counted)
    while True:
        seen, idle = signals[0], jobs.empty()
        if idle or count >= 0:
            _rt_spin(signals, count, 0, seen, _RT_SPIN if idle else 0)
        fn, args, k, answers = jobs.get()
        try:
            answers.put((k, fn(*args), None))
        except BaseException as e:  # (handed to the caller, which raises it)
            answers.put((k, None, e))
        count = 1


def _rt_run_parts(calls):
    """The results of the calls ``(function, arguments)``, the first made on this
    thread and each other on a worker thread of its own (functions compiled without the
    GIL, and numpy's products and copies, run at once). Raises the first part's
    exception that any raised, once every part is done."""
    import os
    import queue
    import threading

    if _RT_WORKERS["pid"] != os.getpid():  # (a forked child has none of its parent's)
        _RT_WORKERS["pid"], _RT_WORKERS["queues"] = os.getpid(), []
    workers = _RT_WORKERS["queues"]
    while len(workers) < len(calls) - 1:
        jobs = queue.SimpleQueue()
        threading.Thread(target=_rt_work, args=(jobs,), name=f"msc-worker-{len(workers)}",
                         daemon=True).start()
        workers.append(jobs)
    answers, signals = queue.SimpleQueue(), _RT_SIGNALS
    for k in range(1, len(calls)):
        workers[k - 1].put((calls[k][0], calls[k][1], k, answers))
    _rt_spin(signals, 0, 0, 0, 0)  # (parts handed out)
    results, errors = [None] * len(calls), [None] * len(calls)
    try:
        results[0] = calls[0][0](*calls[0][1])
    except BaseException as e:  # (the other parts still finish before it is raised)
        errors[0] = e
    for _ in range(1, len(calls)):
        finished = signals[1]
        if answers.empty():
            _rt_spin(signals, -1, 1, finished, _RT_SPIN)
        k, results[k], errors[k] = answers.get()
    for e in errors:
        if e is not None:
            raise e
    return results


def _rt_threaded(kernel, n, *args):
    """``kernel(*args, lo, hi)`` over ``[0, n)`` in one part per thread
    (``codegen/threads.py``): every element is computed as on one thread."""
    parts = min(_rt_thread_count(), n)
    if parts <= 1:
        return kernel(*args, 0, n)
    _rt_run_parts([(kernel, (*args, n * k // parts, n * (k + 1) // parts))
                   for k in range(parts)])
    return ()


#: The fewest multiply-adds of a driver's product that ``_rt_products`` cuts into parts
#: (about 50 us on one core); smaller ones are one numpy product.
_RT_PRODUCT_WORK = 1 << 22
#: The fewest rows (or columns) of a part: each part packs the whole other operand again
#: (0.065 ms a cut of a 394 x 768 x 192 product, 5%), so a product is cut into the
#: largest power of two of parts this long: an even count shares out evenly on 2, 4, 8
#: threads (three parts of 394 rows kept one of two threads waiting a third of the time).
_RT_PRODUCT_SIDE = 128


@njit(cache=True, error_model="numpy", inline="always")
def _rt_cut_at(c, cuts, side):
    """Where cut ``c`` of ``cuts`` of ``side`` rows (or columns) starts: even shares, on
    multiples of 16 (whole vectors of the BLAS kernels) but the ends."""
    return side if c >= cuts else (c * side // cuts + 8) // 16 * 16


@njit(cache=True, error_model="numpy", nogil=True)
def _rt_product_units(a, b, out, cuts, rows, bias, lo, hi):
    """Units ``lo`` to ``hi`` of ``out = a @ b + bias`` (4-d: two stack axes of
    matrices; ``bias`` one per column, or empty for none): each matrix in ``cuts`` units,
    of its rows where ``rows`` else of its columns, numbered matrix by matrix. A unit
    adds its bias while its block is in cache, on its own thread."""
    inner, m, n = out.shape[1], out.shape[2], out.shape[3]
    side = m if rows else n
    for u in range(lo, hi):
        i, j, c = u // cuts // inner, u // cuts % inner, u % cuts
        s0, s1 = _rt_cut_at(c, cuts, side), _rt_cut_at(c + 1, cuts, side)
        if rows:
            _rt_matmul_into(a[i, j, s0:s1], b[i, j], out[i, j, s0:s1], 0.0)
            if bias.size:
                _rt_add_block(out[i, j], s0, s1, 0, n, bias)
        else:
            _rt_matmul_into(a[i, j], b[i, j, :, s0:s1], out[i, j, :, s0:s1], 0.0)
            if bias.size:
                _rt_add_block(out[i, j], 0, m, s0, s1, bias)


def _rt_plus(out, bias):
    """``out += bias`` where there is one (numpy's broadcasting); ``out``."""
    if bias is not None:
        out += bias
    return out


def _rt_products(a, b, out=None, bias=None):
    """``np.matmul(a, b, out=out)`` (a new array for None), plus ``bias`` where given (in
    place), a driver's product. A large one of float matrices (or of stacks of them along
    one or two axes: attention's batch and heads) is cut along its longer side into a
    power of two of parts at least ``_RT_PRODUCT_SIDE`` long, one BLAS call each, shared
    among threads, each adding its part of a bias of one value per column: the same calls
    whatever the thread count, so the same bits (numpy's BLAS runs on one thread
    meanwhile: ``_rt_own_threads``)."""
    if a.ndim < 2 or b.ndim < 2 or a.dtype != b.dtype or \
            a.dtype not in (np.float32, np.float64):
        return _rt_plus(np.matmul(a, b, out=out), bias)
    stack = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if out is None:
        out = np.empty(stack + (a.shape[-2], b.shape[-1]), a.dtype)
    if len(stack) > 2 or out.size * a.shape[-1] < _RT_PRODUCT_WORK or out.dtype != a.dtype:
        return _rt_plus(np.matmul(a, b, out=out), bias)
    if bias is not None and (bias.shape != out.shape[-1:] or bias.dtype != out.dtype):
        return _rt_plus(_rt_products(a, b, out), bias)
    m, n = out.shape[-2], out.shape[-1]
    cuts = 1  # (a matrix too small to cut alone is one unit, as the native target's)
    if m * n * a.shape[-1] >= _RT_PRODUCT_WORK:
        while 2 * cuts * _RT_PRODUCT_SIDE <= max(m, n):
            cuts *= 2
    full = (1,) * (2 - len(stack)) + stack

    def four(x):  # (a 4-d view, a matrix or stack repeated by strides of 0: no copy)
        if x.shape[:-2] == stack:  # (unit axes added: a view, and faster than as_strided)
            return x.reshape(full + x.shape[-2:])
        shape, strides = (1,) * (4 - x.ndim) + x.shape, (0,) * (4 - x.ndim) + x.strides
        strides = tuple(0 if k == 1 else s for k, s in zip(shape[:2], strides)) + strides[2:]
        return np.lib.stride_tricks.as_strided(x, full + x.shape[-2:], strides)

    units = full[0] * full[1] * cuts
    args = (four(a), four(b), four(out), cuts, m > n,
            np.empty(0, out.dtype) if bias is None else bias)  # (empty: no bias)
    parts = min(_rt_thread_count(), units)
    if parts <= 1:
        _rt_product_units(*args, 0, units)
    else:
        _rt_run_parts([(_rt_product_units, (*args, units * p // parts,
                                            units * (p + 1) // parts)) for p in range(parts)])
    return out


#: The fewest elements of a driver's copy that ``_rt_copy`` spreads over threads.
_RT_COPY_SIZE = 1 << 18


def _rt_copy_part(dst, src, axis, lo, hi):
    at = (slice(None),) * axis + (slice(lo, hi),)
    dst[at] = src[at]


def _rt_copy(dst, src):
    """``dst[...] = src``, a driver's copy (an input into its zero border, a convolution's
    windows into columns): a large one of two arrays of one shape in one part per thread
    along its first axis with a part for each (numpy copies without the GIL)."""
    parts = _rt_thread_count()
    if parts > 1 and dst.size >= _RT_COPY_SIZE and np.shape(src) == dst.shape:
        axis = next((k for k, n in enumerate(dst.shape) if n >= parts), None)
        if axis is not None:
            n = dst.shape[axis]
            _rt_run_parts([(_rt_copy_part, (dst, src, axis, n * p // parts,
                                            n * (p + 1) // parts)) for p in range(parts)])
            return
    dst[...] = src


class _rt_own_threads:
    """numpy's BLAS on one thread while an outlined driver runs (``with
    _rt_own_threads():``), as it was after: the driver's products and loops are spread
    over msc's threads, and BLAS threads woken by one product would spin, after it, on
    the CPUs the next loop's parts need."""

    def __enter__(self):
        blas = _rt_blas_threads()
        self.before = blas[1]() if blas is not None else 1
        if self.before != 1:
            blas[0](1)

    def __exit__(self, *failure):
        if self.before != 1:
            _rt_blas_threads()[0](self.before)
