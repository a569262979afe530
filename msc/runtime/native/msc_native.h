/* What a native model's generated code (model.c) and msc's runtime (msc_native.c) share:
 * the description of the model the generated code exports, and the scalar, row and
 * product helpers its kernels call. The scalar helpers follow the numba target's runtime
 * (msc/runtime/numba_rt.py) so both targets compute the same program. */
#ifndef MSC_NATIVE_H
#define MSC_NATIVE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MSC_MAX_DIMS 8

typedef struct {
    const char *name;
    int32_t dtype;             /* an MSC_* code of msc_model.h */
    int32_t ndim;
    int64_t shape[MSC_MAX_DIMS];
    int64_t offset, nbytes;    /* weights only: where it lies in the weights file */
} msc_info;

typedef struct {
    int n_inputs, n_outputs, n_weights, n_blocks;
    const msc_info *inputs, *outputs, *weights;
    const int64_t *blocks;     /* byte offset in the weights file of each block (arenas, then constants) */
    int64_t weights_bytes;
    const char *weights_sha256;
    int64_t workspace_bytes;
    int writes_weights;        /* a training step: runs one call at a time, on its own copy */
    const char *embedded;      /* --embed-weights: the weights inside the library, else NULL */
} msc_desc;

extern const msc_desc msc_model_desc;
/* The model: blocks[b] is the memory of weights block b, ws the workspace. */
int msc_forward(char *const *blocks, char *ws, void *const *in, void *const *out);
/* Record this thread's error message; returns 1 (the generated code returns it). */
int msc_fail(const char *message);

/* Threads (msc_native.c): fn over [0, n) in one range [lo, hi) per part, the caller's
   thread taking part 0; non-zero where a part returned non-zero. */
#define MSC_MAX_THREADS 64
typedef int (*msc_part_fn)(void *ctx, int64_t lo, int64_t hi, int part);
int msc_parallel(msc_part_fn fn, void *ctx, int64_t n);
/* ... in exactly `parts` parts (or in one, on the caller's thread, where the pool is busy) */
int msc_parallel_in(msc_part_fn fn, void *ctx, int64_t n, int parts);
/* How many parts msc_parallel cuts n into: the thread count, at most n. */
int msc_parts(int64_t n);
/* dst[i] = src[i] over an ndim-dimensional shape, elements of size bytes, strides in
   elements: a copy nested in the function's loops (im2col's chunks), on the threads. */
void msc_copy(void *dst, const void *src, int size, int ndim, const int64_t *shape,
              const int64_t *dst_strides, const int64_t *src_strides);

/* c = op(a) @ op(b) + beta * c, plus bias[j] in each column j where bias is not NULL */
void msc_gemm_f32(int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                  const float *b, int64_t ldb, double beta, float *c, int64_t ldc, const float *bias);
void msc_gemm_f64(int ta, int tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                  const double *b, int64_t ldb, double beta, double *c, int64_t ldc,
                  const double *bias);
/* c = op(a) @ op(b), plus bias, by msc's own kernel (AVX-512; else msc_gemm_f32), b's
   panels packed as the threads go; ..._weights_: a @ op(W), W a weight of the model, packed
   once where the model does not write its weights; c = W @ b by those packed once, else BLAS */
void msc_gemm_packed_f32(int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a,
                         int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                         const float *bias);
void msc_gemm_weights_f32(int tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                          const float *w, int64_t ldw, float *c, int64_t ldc, const float *bias);
void msc_gemm_weights_left_f32(int64_t m, int64_t n, int64_t k, const float *w, int64_t ldw,
                               const float *b, int64_t ldb, float *c, int64_t ldc);
/* A Winograd F(4x4, 3x3) convolution (numba_winograd_rt.py's _rt_wino_conv): the input
   (without its zero border of top rows and left columns, and out to whole tiles on the other
   sides), the filters and the output contiguous float32; the transformed filters, inputs and
   products (rows, 36, columns) with the strides given; weights: the filters are the model's
   (an inference model's never change). 0 where it declined. */
int msc_wino_conv(const float *src, int64_t n, int64_t c_in, int64_t height, int64_t width,
                  int64_t top, int64_t left, const float *w, int64_t k_out, float *u,
                  int64_t u_k, int64_t u_xi, float *v, int64_t v_c, int64_t v_xi, float *m,
                  int64_t m_k, int64_t m_xi, int64_t tiles, float *out, int64_t out_h,
                  int64_t out_w, int weights);

/* --- Python's integer and float arithmetic (Numba's) ------------------------------------ */

static inline int64_t msc_floordiv_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t msc_mod_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t msc_fmod_i64(int64_t a, int64_t b) { return b == 0 ? 0 : a % b; }
static inline int64_t msc_pow_i64(int64_t a, int64_t e) {
    if (e < 0) return a == 1 ? 1 : (a == -1 ? ((e & 1) ? -1 : 1) : 0);
    int64_t r = 1;
    while (e) { if (e & 1) r *= a; a *= a; e >>= 1; }
    return r;
}
#define MSC_FLOAT_ARITH(T, S, FMOD, FLOOR, POW, COPYSIGN)                                   \
    static inline T msc_mod_##S(T a, T b) {                                                 \
        T m = FMOD(a, b);                                                                   \
        if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else m = COPYSIGN((T)0, b);         \
        return m;                                                                           \
    }                                                                                       \
    static inline T msc_floordiv_##S(T a, T b) {                                            \
        if (b == 0) return a / b;                                                           \
        T m = FMOD(a, b), d = (a - m) / b;                                                  \
        if (m != 0 && ((b < 0) != (m < 0))) d -= 1;                                         \
        T f = FLOOR(d);                                                                     \
        if (d - f > (T)0.5) f += 1;                                                         \
        return d == 0 ? COPYSIGN((T)0, a / b) : f;                                          \
    }                                                                                       \
    static inline T msc_fmod_##S(T a, T b) { return FMOD(a, b); }                           \
    static inline T msc_pow_##S(T a, T b) { return POW(a, b); }                             \
    static inline T msc_maximum_##S(T a, T b) { return (a > b || a != a) ? a : b; }         \
    static inline T msc_minimum_##S(T a, T b) { return (a < b || a != a) ? a : b; }
MSC_FLOAT_ARITH(float, f32, fmodf, floorf, powf, copysignf)
MSC_FLOAT_ARITH(double, f64, fmod, floor, pow, copysign)

static inline int64_t msc_gcd_i64(int64_t a, int64_t b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) { int64_t r = a % b; a = b; b = r; }
    return a;
}
static inline int64_t msc_lcm_i64(int64_t a, int64_t b) {
    int64_t g = msc_gcd_i64(a, b);
    int64_t l = g ? a / g * b : 0;
    return l < 0 ? -l : l;
}

/* --- float16 as bits (the numba target's uint16 arrays), exact as numpy's casts -------- */

static inline float msc_f16_to_f32(int64_t h) {
    int64_t sign = (h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0 && man != 0) {
        float value = (float)man * 5.9604644775390625e-08f;
        return sign ? -value : value;
    }
    uint32_t bits = (uint32_t)(exp == 0x1F ? (sign | 0x7F800000 | (man << 13))
                                           : exp == 0 ? sign : (sign | ((exp + 112) << 23) | (man << 13)));
    float out;
    memcpy(&out, &bits, sizeof out);
    return out;
}
static inline uint16_t msc_f16_rounded(int64_t sign, int64_t e, int64_t man, int64_t drop) {
    if (e >= 31) return (uint16_t)(sign | 0x7C00);
    int64_t q;
    if (e <= 0) {
        int64_t shift = drop + 1 - e;
        if (shift > drop + 11) return (uint16_t)sign;
        man |= (int64_t)1 << (drop + 10);
        drop = shift;
        q = man >> drop;
    } else {
        q = (e << 10) | (man >> drop);
    }
    int64_t rest = man & (((int64_t)1 << drop) - 1), half = (int64_t)1 << (drop - 1);
    if (rest > half || (rest == half && (q & 1))) q += 1;
    return (uint16_t)(sign | q);
}
static inline uint16_t msc_f16_from_bits(int64_t sign, int64_t exp, int64_t man, int64_t top, int64_t drop) {
    if (exp == top) return (uint16_t)(sign | 0x7C00 | (man ? ((man >> drop) > 1 ? (man >> drop) : 1) : 0));
    return msc_f16_rounded(sign, exp - (top >> 1) + 15, man, drop);
}
/* The float16 nearest x: from its float32 bits when float32 holds it, else its float64's. */
static inline uint16_t msc_f32_to_f16(double x) {
    float f = (float)x;
    double back = (double)f;
    int64_t bx, bb;
    memcpy(&bx, &x, 8);
    memcpy(&bb, &back, 8);
    if (bx == bb) {
        uint32_t u;
        memcpy(&u, &f, 4);
        int64_t b = u;
        float a = fabsf(f);
        if (a >= 6.103515625e-05f && a < 65520.0f) {
            int64_t r = (((b & 0x7FFFFFFF) + 0xFFF + ((b >> 13) & 1)) >> 13) - 0x1C000;
            return (uint16_t)(((b >> 16) & 0x8000) | r);
        }
        return msc_f16_from_bits((b >> 16) & 0x8000, (b >> 23) & 0xFF, b & 0x7FFFFF, 0xFF, 13);
    }
    return msc_f16_from_bits((bx >> 48) & 0x8000, (bx >> 52) & 0x7FF, bx & 0xFFFFFFFFFFFFFLL, 0x7FF, 42);
}
/* x rounded to float16's precision, as a float32: a float16 op's result. */
static inline float msc_f16_round(double x) {
    float f = (float)x;
    if ((double)f == x) {
        float a = fabsf(f);
        if (a < 6.103515625e-05f) return copysignf((a + 0.5f) - 0.5f, f);
        if (a < 65520.0f) {
            uint32_t u;
            memcpy(&u, &f, 4);
            int64_t b = u;
            b = (b + 0xFFF + ((b >> 13) & 1)) & 0xFFFFE000;
            u = (uint32_t)b;
            memcpy(&f, &u, 4);
            return f;
        }
    }
    return msc_f16_to_f32(msc_f32_to_f16(x));
}

/* --- float64 math that vectorizes (the numba runtime's _rt_exp64 and friends) ---------- */

static inline double msc_poly12(double x, const double *c) {
    double x2 = x * x, x4 = x2 * x2;
    return ((c[0] + x * c[1]) + x2 * (c[2] + x * c[3])) + x4 * ((c[4] + x * c[5]) + x2 * (c[6] + x * c[7]))
           + (x4 * x4) * ((c[8] + x * c[9]) + x2 * (c[10] + x * c[11]));
}
static inline double msc_poly10(double x, const double *c) {
    double x2 = x * x, x4 = x2 * x2;
    return ((c[0] + x * c[1]) + x2 * (c[2] + x * c[3])) + x4 * ((c[4] + x * c[5]) + x2 * (c[6] + x * c[7]))
           + (x4 * x4) * (c[8] + x * c[9]);
}
static inline double msc_exp64(double x) {
    static const double taylor[12] = {1.0, 1.0, 0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                                      1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800,
                                      1.0 / 39916800};
    double y = x != x ? 0.0 : (x < -110.0 ? -110.0 : (x > 90.0 ? 90.0 : x));  /* (no libm call: vectorizes) */
    double k = floor(y * 1.4426950408889634 + 0.5);
    double r = (y - k * 0.6931471803691238) - k * 1.9082149292705877e-10;
    int64_t bits = ((int64_t)k + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    double e = msc_poly12(r, taylor) * scale;
    return x != x ? x : (x < -110.0 ? 0.0 : e);
}
/* e * 2^k for a float k, in two halves: numba_rt.py's _rt_scale32 (a result below the
 * smallest normal rounds once, as a denormal) */
static inline float msc_scale32(float e, float k) {
    int32_t whole = (int32_t)k, half = whole >> 1;
    int32_t b1 = (half + 127) << 23, b2 = (whole - half + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(&s2, &b2, sizeof s2);
    return e * s1 * s2;
}
/* exp of a float in float arithmetic, as numba_rt.py's _rt_exp32 (the same operations in
 * the same order: the same bits) */
static inline float msc_exp32(float x) {
    float y = x != x ? 0.0f : (x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x));
    float k = floorf(y * 0x1.715476p+0f + 0.5f);
    float r = (y - k * 0x1.63p-1f) - k * -0x1.bd0106p-13f;
    float p = ((0x1.a0d2cep-13f * r + 0x1.6e879cp-10f) * r + 0x1.111210p-7f) * r;
    p = ((p + 0x1.555382p-5f) * r + 0x1.555554p-3f) * r + 0.5f;
    float e = msc_scale32((p * (r * r) + r) + 1.0f, k);
    return x != x ? x : (x < -104.0f ? 0.0f : e);
}
/* tanh of a float in float arithmetic, as numba_rt.py's _rt_tanh32 (its polynomial's
 * coefficients are the same floats) */
static inline float msc_tanh32(float x) {
    float a = fabsf(x), x2 = x * x;
    float t = 1.0f - 2.0f / (msc_exp32(a + a) + 1.0f);
    float p = ((((-0x1.75e1a8p-8f * x2 + 0x1.522692p-6f) * x2 + -0x1.b83c58p-5f) * x2
                + 0x1.110726p-3f) * x2 + -0x1.555532p-2f) * x2;
    return a < 0.625f ? x * (1.0f + p) : (x > 0.0f ? t : -t);
}
static inline double msc_sigmoid64(double x) {
    double e = msc_exp64(x);
    return e / (1.0 + e);
}
/* exp(y) for y in [-110.25, 0] and erfc(|x|) as exp(-x*x) times a rational (msc_erfc_p /
 * msc_erfc_q) fitted on [0, 10.5], in fused multiply-adds: numba_rt.py's _rt_exp_tail and _rt_erfc_tail (the
 * same operations in the same order: the same bits) */
static const double msc_erfc_p[5] = {1.0000000061546976, 1.2416222599239983, 0.7349724658179524,
                                     0.23082591881453107, 0.033134376418607454};
static const double msc_erfc_q[6] = {1.0, 2.370002044987551, 2.409223466572314, 1.3316568215789963,
                                     0.4091531501910918, 0.0587285078426736};
static inline double msc_exp_tail(double y) {
    static const double c[7] = {1.0000000005545764, 1.0000000363417723, 0.49999992075111044,
                                0.1666642008359726, 0.04166822625409257, 0.008374823191593094,
                                0.0013836829102364485};
    double k = floor(fma(y, 1.4426950408889634, 0.5));
    double r = fma(k, -0.6931471805599453, y);
    double p = fma(fma(fma(fma(fma(fma(c[6], r, c[5]), r, c[4]), r, c[3]), r, c[2]), r, c[1]), r, c[0]);
    int64_t bits = ((int64_t)k + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}
static inline double msc_erfc_tail(double x) {
    const double *p = msc_erfc_p, *q = msc_erfc_q;
    double a = fabs(x), c = a < 10.5 ? a : 10.5;
    double num = fma(fma(fma(fma(p[4], c, p[3]), c, p[2]), c, p[1]), c, p[0]);
    double den = fma(fma(fma(fma(fma(q[5], c, q[4]), c, q[3]), c, q[2]), c, q[1]), c, q[0]);
    double tail = msc_exp_tail(-(c * c)) * (num / den);
    return a > 10.5 ? 0.0 : (a != a ? a : tail);
}
static inline double msc_erf64(double x) {
    static const double taylor[10] = {1.1283791670955126, -0.37612638903183754, 0.11283791670955126,
                                      -0.026866170645131252, 0.005223977625442188, -0.0008548327023450852,
                                      0.00012055332981789664, -1.492565035840625e-05, 1.6462114365889246e-06,
                                      -1.6365844691234924e-07};
    double small = x * msc_poly10(x * x, taylor), tail = msc_erfc_tail(x);
    return fabs(x) < 0.5 ? small : (x > 0.0 ? 1.0 - tail : tail - 1.0);
}
static inline double msc_erfc64(double x) {
    double tail = msc_erfc_tail(x);
    return x > 0.0 ? tail : 2.0 - tail;
}
/* GeLU by erf in float32 arithmetic: numba_rt.py's _rt_gelu_none32 (the same operations
 * in the same order: the same bits; its constants the float32 roundings of the doubles) */
static inline float msc_gelu_none32(float x) {
    static const double c[6] = {0.5, 0.1666666567325592, 0.04166579619050026, 0.008333452045917511,
                                0.001398199936375022, 0.00019875691214110702};
    const double *p = msc_erfc_p, *q = msc_erfc_q;
    float h = x * x, y = h * -0.5f, rest = fmaf(x, x, -h) * -0.5f;
    int tiny = y < -104.0f;
    y = tiny ? -110.0f : y;
    float k = floorf(fmaf(y, (float)1.4426950408889634, 0.5f));
    float r = fmaf(k, -0.693145751953125f, y);
    r = fmaf(k, (float)-1.4286068617366254e-06, r) + (tiny ? 0.0f : rest);
    float e = fmaf(fmaf(fmaf(fmaf(fmaf((float)c[5], r, (float)c[4]), r, (float)c[3]), r, (float)c[2]), r,
                        (float)c[1]), r, (float)c[0]);
    e = msc_scale32(fmaf(e, r * r, r) + 1.0f, k);
    float a = fabsf(x) * (float)0.7071067811865476;
    a = a < 10.5f ? a : 10.5f;
    float num = fmaf(fmaf(fmaf(fmaf((float)p[4], a, (float)p[3]), a, (float)p[2]), a, (float)p[1]), a, (float)p[0]);
    float den = fmaf(fmaf(fmaf(fmaf(fmaf((float)q[5], a, (float)q[4]), a, (float)q[3]), a, (float)q[2]), a,
                          (float)q[1]), a, (float)q[0]);
    float ratio = num / den, hx = 0.5f * x;
    float v = x > 0.0f ? hx * (2.0f - e * ratio) : (hx * ratio) * e;
    return x != x ? x : v;
}
/* GeLU by tanh for float32 data, as numba_rt.py's _rt_gelu_tanh32 (the same operations in
 * the same order; the selects act on float values only, so GCC vectorizes the loop) */
static inline float msc_gelu_tanh32(float x) {
    double d = x, w = 1.5957691216057308 * (d + 0.044715 * d * d * d);
    float v = (float)w, e = msc_exp32(v);
    e = fmaf(e, (float)(w - (double)v), e);
    float g = x * (e / (1.0f + e));
    return x > 9.0f ? x : (x < -12.0f ? x * 0.0f : g);
}

/* GeLU as the numba runtime's _rt_gelu (double precision) and _rt_gelu_f16 (each
 * operation rounded to float16, as numpy computes it on float16 arrays). */
static inline double msc_gelu(double x, int tanh_form) {
    if (tanh_form) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x / 1.4142135623730951));
}
static inline float msc_gelu_f16(float x, int tanh_form) {
    if (tanh_form) {
        float inner = msc_f16_round(x + msc_f16_round(0.044708251953125f * msc_f16_round(powf(x, 3.0f))));
        float t = msc_f16_round(tanhf(msc_f16_round(0.7978515625f * inner)));
        return msc_f16_round(msc_f16_round(0.5f * x) * msc_f16_round(1.0f + t));
    }
    double e = erf((double)msc_f16_round(x / 1.4140625f));
    return msc_f16_round((double)msc_f16_round(0.5f * x) * (1.0 + e));
}

/* --- folds of one row in 16 lanes (numba_rows_rt.py's order: lane l takes the elements
   j % 16 == l of the first n / 16 * 16, lanes combined halves onto halves, then the rest),
   the lanes one vector of the compiler's vector extension (its operations lane by lane, as
   the numba target's LLVM vector) ------------------------------------------------------- */

typedef float msc_lanes_f32 __attribute__((vector_size(64)));
typedef double msc_lanes_f64 __attribute__((vector_size(128)));
typedef int32_t msc_mask_f32 __attribute__((vector_size(64)));
typedef int64_t msc_mask_f64 __attribute__((vector_size(128)));
#define MSC_PICK(kept, v) (((v) > (kept) || (v) != (v)) ? (v) : (kept)) /* a NaN wins */

/* The lanes' maximum of a contiguous float row's first `whole` elements, combined, in
 * *top; false where the row holds a NaN (the caller folds it again lane by lane, so the
 * NaN it returns is the one the numba target returns). The portable fold's compare and
 * select chain takes about 8 cycles a vector, the max instruction 2: a softmax over rows
 * of 197 ran 19% faster. max(v, kept) is MSC_PICK where neither is a NaN (ties and
 * zeros of either sign keep `kept`), lane by lane and in the lanes' combination. */
#if defined(__AVX512F__)
#include <immintrin.h>
static inline bool msc_lanes_max_fast_f32(const float *x, int64_t whole, float *top) {
    __m512 m = _mm512_set1_ps(x[0]);
    __mmask16 nan = 0;
    for (int64_t j = 0; j < whole; j += 16) {
        __m512 v = _mm512_loadu_ps(x + j);
        nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        m = _mm512_max_ps(v, m);
    }
    __m256 h8 = _mm256_max_ps(_mm512_extractf32x8_ps(m, 1), _mm512_castps512_ps256(m));
    __m128 h4 = _mm_max_ps(_mm256_extractf128_ps(h8, 1), _mm256_castps256_ps128(h8));
    __m128 h2 = _mm_max_ps(_mm_movehl_ps(h4, h4), h4);
    *top = _mm_cvtss_f32(_mm_max_ss(_mm_movehdup_ps(h2), h2));
    return nan == 0;
}
#endif
/* (none: the portable fold; float64 rows always take it) */
#define MSC_NO_FAST_MAX(T, S)                                                                \
    static inline bool msc_lanes_max_fast_##S(const T *x, int64_t whole, T *top) {           \
        (void)x; (void)whole; (void)top;                                                     \
        return false;                                                                        \
    }
#if !defined(__AVX512F__)
MSC_NO_FAST_MAX(float, f32)
#endif
MSC_NO_FAST_MAX(double, f64)
#define MSC_ROWS(T, S)                                                                       \
    /* elements j to j + 15, s apart (through a pointer: a vector return would change the  \
       ABI between builds with and without AVX-512) */                                       \
    static inline void msc_lanes_load_##S(msc_lanes_##S *v, const T *x, int64_t j, int64_t s) { \
        if (s == 1) memcpy(v, x + j, sizeof *v);                                             \
        else for (int l = 0; l < 16; l++) (*v)[l] = x[(j + l) * s];                          \
    }                                                                                        \
    static inline T msc_row_max_##S(const T *x, int64_t n, int64_t s) {                     \
        int64_t whole = n / 16 * 16;                                                         \
        T top;                                                                               \
        if (s != 1 || !msc_lanes_max_fast_##S(x, whole, &top)) {                             \
            msc_lanes_##S m;                                                                 \
            for (int l = 0; l < 16; l++) m[l] = x[0];                                        \
            for (int64_t j = 0; j < whole; j += 16) {                                        \
                msc_lanes_##S v;                                                             \
                msc_lanes_load_##S(&v, x, j, s);                                             \
                msc_mask_##S take = (v > m) | (v != v);                                      \
                m = (msc_lanes_##S)(((msc_mask_##S)v & take) | ((msc_mask_##S)m & ~take));   \
            }                                                                                \
            for (int h = 8; h >= 1; h /= 2)                                                  \
                for (int l = 0; l < h; l++) m[l] = MSC_PICK(m[l], m[l + h]);                 \
            top = m[0];                                                                      \
        }                                                                                    \
        for (int64_t j = whole; j < n; j++) top = MSC_PICK(top, x[j * s]);                   \
        return top;                                                                          \
    }                                                                                        \
    static inline double msc_row_sum_##S(const T *x, int64_t n, int64_t s) {                \
        msc_lanes_f64 acc = {0};                                                             \
        int64_t whole = n / 16 * 16;                                                         \
        for (int64_t j = 0; j < whole; j += 16) {                                            \
            msc_lanes_##S v;                                                                 \
            msc_lanes_load_##S(&v, x, j, s);                                                 \
            acc += __builtin_convertvector(v, msc_lanes_f64);                                \
        }                                                                                    \
        for (int h = 8; h >= 1; h /= 2)                                                      \
            for (int l = 0; l < h; l++) acc[l] += acc[l + h];                                \
        double total = acc[0];                                                               \
        for (int64_t j = whole; j < n; j++) total += x[j * s];                               \
        return total;                                                                        \
    }                                                                                        \
    static inline double msc_row_squares_##S(const T *x, int64_t n, int64_t s, double c) {   \
        msc_lanes_f64 acc = {0};                                                             \
        int64_t whole = n / 16 * 16;                                                         \
        for (int64_t j = 0; j < whole; j += 16) {                                            \
            msc_lanes_##S v;                                                                 \
            msc_lanes_load_##S(&v, x, j, s);                                                 \
            msc_lanes_f64 d = __builtin_convertvector(v, msc_lanes_f64) - c;                 \
            acc += d * d;                                                                    \
        }                                                                                    \
        for (int h = 8; h >= 1; h /= 2)                                                      \
            for (int l = 0; l < h; l++) acc[l] += acc[l + h];                                \
        double total = acc[0];                                                               \
        for (int64_t j = whole; j < n; j++) { double d = x[j * s] - c; total += d * d; }     \
        return total;                                                                        \
    }
MSC_ROWS(float, f32)
MSC_ROWS(double, f64)

#endif
