/* msc's native runtime: the C ABI of msc_model.h over the generated msc_forward and
 * msc_model_desc (model.c). Weights are mapped from one file and checked against the
 * SHA-256 compiled into the library; each concurrent call takes a workspace from the
 * model's pool, so an inference model runs on any number of threads at once. */
#define _GNU_SOURCE
#include "msc_model.h"
#include "msc_native.h"

#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MSC_API __attribute__((visibility("default")))

#ifdef MSC_BLAS
void scipy_openblas_set_num_threads(int n);
#endif

static _Thread_local char msc_error[1024];

static void packs_forget(const char *lo, const char *hi);

static int failf(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(msc_error, sizeof msc_error, format, ap);
    va_end(ap);
    return 1;
}

int msc_fail(const char *message) { return failf("%s", message); }

MSC_API const char *msc_last_error(void) { return msc_error; }

/* --- SHA-256 (FIPS 180-4) ----------------------------------------------------------------- */

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

#if defined(__x86_64__)
#include <immintrin.h>
/* The same blocks with the SHA extensions (x86 since Goldmont and Zen): about 6x faster,
 * so mapping a model's weights costs milliseconds, not a tenth of a second. The state
 * lives as ABEF and CDGH; each group of four rounds adds its constants to four message
 * words, and later words come from sha256msg1/msg2 over the four groups before. */
__attribute__((target("sha,ssse3,sse4.1")))
static void sha256_blocks_ni(uint32_t h[8], const unsigned char *p, uint64_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&h[0]), hgfe = _mm_loadu_si128((const __m128i *)&h[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1), efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8), cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks; blocks--, p += 64) {
        __m128i save0 = abef, save1 = cdgh, w[16];
        for (int g = 0; g < 16; g++) {
            if (g < 4)
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
            else
                w[g] = _mm_sha256msg2_epu32(
                    _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]), _mm_alignr_epi8(w[g - 1], w[g - 2], 4)),
                    w[g - 1]);
            __m128i msg = _mm_add_epi32(w[g], _mm_loadu_si128((const __m128i *)&K256[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));
        }
        abef = _mm_add_epi32(abef, save0);
        cdgh = _mm_add_epi32(cdgh, save1);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* The SHA instructions have legacy SSE encodings only. Where the upper halves of the
 * vector registers hold data (the model's AVX-512 loops leave them so), some Intel cores
 * save and restore that state around every such instruction: 6 s instead of 70 ms to hash
 * 82 MB. vzeroupper first makes the state clean, and VEX-encoded code keeps it so. */
__attribute__((target("avx"))) static void clean_upper_state(void) { _mm256_zeroupper(); }
#endif

static void sha256_hex(const unsigned char *data, uint64_t n, char out[65]) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint64_t whole = n / 64 * 64;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1")) {
        if (__builtin_cpu_supports("avx")) clean_upper_state();
        sha256_blocks_ni(h, data, whole / 64);
    } else
#endif
    for (uint64_t i = 0; i < whole; i += 64) sha256_block(h, data + i);
    unsigned char tail[128] = {0};
    uint64_t rest = n - whole, len = rest + 1 + 8 <= 64 ? 64 : 128;
    memcpy(tail, data + whole, rest);
    tail[rest] = 0x80;
    for (int i = 0; i < 8; i++) tail[len - 1 - i] = (unsigned char)((n * 8) >> (8 * i));
    sha256_block(h, tail);
    if (len == 128) sha256_block(h, tail + 64);
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

/* --- the model ------------------------------------------------------------------------------ */

typedef struct msc_workspace {
    struct msc_workspace *next;
    char *memory;
} msc_workspace;

enum { MSC_MAPPED, MSC_EMBEDDED, MSC_COPIED };  /* where a model's weights are */

struct msc_model {
    char *data;                   /* the weights: mapped, in the library, or a copy */
    size_t bytes;
    int kind;
    char **blocks;                /* each block of the weights */
    pthread_mutex_t lock;         /* the workspace pool; the whole call for a training step */
    msc_workspace *free_list;
};

static const char *dtype_name(int32_t code) {
    static const char *names[] = {"bool", "int8", "uint8", "int16", "float16", "int32",
                                  "float32", "int64", "float64", "uint16", "uint32", "uint64"};
    return code >= 0 && code < (int32_t)(sizeof names / sizeof *names) ? names[code] : "unknown";
}

static int dtype_size(int32_t code) {
    static const int sizes[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};
    return code >= 0 && code < 12 ? sizes[code] : 0;
}

static int64_t info_bytes(const msc_info *info) {
    int64_t n = dtype_size(info->dtype);
    for (int d = 0; d < info->ndim; d++) n *= info->shape[d];
    return n;
}

static void shape_text(const int64_t *shape, int ndim, char *out, size_t size) {
    size_t at = (size_t)snprintf(out, size, "[");
    for (int d = 0; d < ndim && at < size; d++)
        at += (size_t)snprintf(out + at, size - at, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (at < size) snprintf(out + at, size - at, "]");
}

static char *library_dir(char *out, size_t size) {
    Dl_info info;
    if (!dladdr((void *)&msc_model_create, &info) || !info.dli_fname) return NULL;
    snprintf(out, size, "%s", info.dli_fname);
    char *slash = strrchr(out, '/');
    if (slash) *slash = 0; else snprintf(out, size, ".");
    return out;
}

/* The weights file at ``path``, mapped: read-only for inference (processes share it),
 * privately writable for a model that writes its Parameters. NULL on failure. */
static char *map_weights(const char *path, size_t bytes, int writable) {
    const msc_desc *d = &msc_model_desc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { failf("%s: cannot open the weights: %s", path, strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fd, &st) != 0) { failf("%s: %s", path, strerror(errno)); close(fd); return NULL; }
    if (st.st_size != d->weights_bytes) {
        failf("%s: the weights file has %lld bytes where this model's has %lld (a truncated or "
              "another model's file)", path, (long long)st.st_size, (long long)d->weights_bytes);
        close(fd);
        return NULL;
    }
    char *mapped = mmap(NULL, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                        MAP_PRIVATE | MAP_POPULATE, fd, 0);  /* (faulted in at once: the check reads it all) */
    close(fd);
    if (mapped == MAP_FAILED) { failf("%s: cannot map the weights: %s", path, strerror(errno)); return NULL; }
    return mapped;
}

MSC_API int msc_model_create(const char *weights_path, msc_model **out) {
    const msc_desc *d = &msc_model_desc;
    char path[4096];
    if (!out) return failf("msc_model_create: out is NULL");
    *out = NULL;
    size_t bytes = d->weights_bytes ? (size_t)d->weights_bytes : 1;
    int kind = MSC_MAPPED;
    char *data;
    if (!weights_path && d->embedded) {  /* --embed-weights: inside the library */
        weights_path = "the weights inside the library";
        kind = d->writes_weights ? MSC_COPIED : MSC_EMBEDDED;
        data = d->writes_weights ? malloc(bytes) : (char *)d->embedded;
        if (!data) return failf("msc_model_create: out of memory");
        if (d->writes_weights) memcpy(data, d->embedded, (size_t)d->weights_bytes);
    } else {
        if (!weights_path) {
            char dir[4000];
            if (!library_dir(dir, sizeof dir)) return failf("msc_model_create: cannot find the library's folder");
            snprintf(path, sizeof path, "%s/weights.bin", dir);
            weights_path = path;
        }
        data = map_weights(weights_path, bytes, d->writes_weights);
        if (!data) return 1;
    }
    msc_model *m = calloc(1, sizeof *m);
    char **blocks = calloc((size_t)d->n_blocks + 1, sizeof *blocks);
    if (!m) {
        free(blocks);
        if (kind == MSC_MAPPED) munmap(data, bytes);
        if (kind == MSC_COPIED) free(data);
        return failf("msc_model_create: out of memory");
    }
    m->data = data;
    m->bytes = bytes;
    m->kind = kind;
    m->blocks = blocks;
    pthread_mutex_init(&m->lock, NULL);
    char digest[65];
    sha256_hex((const unsigned char *)data, (uint64_t)d->weights_bytes, digest);
    if (strcmp(digest, d->weights_sha256) != 0) {
        failf("%s: the weights' SHA-256 is %s where this model's is %s (a damaged or another "
              "model's file)", weights_path, digest, d->weights_sha256);
        msc_model_destroy(m);
        return 1;
    }
    if (!blocks) { msc_model_destroy(m); return failf("msc_model_create: out of memory"); }
    for (int b = 0; b < d->n_blocks; b++) blocks[b] = data + d->blocks[b];
    *out = m;
    return 0;
}

MSC_API void msc_model_destroy(msc_model *m) {
    if (!m) return;
    for (msc_workspace *w = m->free_list, *next; w; w = next) {
        next = w->next;
        free(w->memory);
        free(w);
    }
    /* (weights inside the library are every model's: their packed copies stay for the others) */
    if (m->kind == MSC_MAPPED) packs_forget(m->data, m->data + m->bytes);
    if (m->kind == MSC_MAPPED) munmap(m->data, m->bytes);
    if (m->kind == MSC_COPIED) free(m->data);
    pthread_mutex_destroy(&m->lock);
    free(m->blocks);
    free(m);
}

MSC_API int msc_model_num_inputs(const msc_model *m) { (void)m; return msc_model_desc.n_inputs; }
MSC_API int msc_model_num_outputs(const msc_model *m) { (void)m; return msc_model_desc.n_outputs; }

static int info_of(const msc_info *infos, int n, int i, msc_tensor *info, const char *what) {
    if (!info) return failf("msc_model_%s_info: info is NULL", what);
    if (i < 0 || i >= n) return failf("msc_model_%s_info: the model has %d %ss, not %d", what, n, what, i + 1);
    info->data = NULL;
    info->dtype = infos[i].dtype;
    info->ndim = infos[i].ndim;
    info->shape = infos[i].shape;
    return 0;
}

MSC_API int msc_model_input_info(const msc_model *m, int i, msc_tensor *info) {
    (void)m;
    return info_of(msc_model_desc.inputs, msc_model_desc.n_inputs, i, info, "input");
}

MSC_API int msc_model_output_info(const msc_model *m, int i, msc_tensor *info) {
    (void)m;
    return info_of(msc_model_desc.outputs, msc_model_desc.n_outputs, i, info, "output");
}

static int check(const msc_tensor *t, const msc_info *want, const char *what, int i) {
    char got_shape[256], want_shape[256];
    if (!t->data && info_bytes(want)) return failf("%s %d ('%s'): data is NULL", what, i, want->name);
    int same = t->dtype == want->dtype && t->ndim == want->ndim && (t->ndim == 0 || t->shape);
    for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == want->shape[d];
    if (same) return 0;
    shape_text(want->shape, want->ndim, want_shape, sizeof want_shape);
    if (t->ndim < 0 || t->ndim > MSC_MAX_DIMS || (t->ndim && !t->shape)) snprintf(got_shape, sizeof got_shape, "(ndim %d)", t->ndim);
    else shape_text(t->shape, t->ndim, got_shape, sizeof got_shape);
    return failf("%s %d ('%s') must be %s%s, not %s%s", what, i, want->name,
                 dtype_name(want->dtype), want_shape, dtype_name(t->dtype), got_shape);
}

MSC_API int msc_model_run(msc_model *m, const msc_tensor *inputs, int n_inputs,
                          msc_tensor *outputs, int n_outputs) {
    const msc_desc *d = &msc_model_desc;
    if (!m) return failf("msc_model_run: the model is NULL");
    if (n_inputs != d->n_inputs) return failf("msc_model_run: the model takes %d inputs, %d were given", d->n_inputs, n_inputs);
    if (n_outputs != d->n_outputs) return failf("msc_model_run: the model gives %d outputs, %d were given", d->n_outputs, n_outputs);
    if ((n_inputs && !inputs) || (n_outputs && !outputs)) return failf("msc_model_run: inputs or outputs is NULL");
    void *in[n_inputs + 1], *res[n_outputs + 1];
    for (int i = 0; i < n_inputs; i++) {
        if (check(&inputs[i], &d->inputs[i], "input", i)) return 1;
        in[i] = inputs[i].data;
    }
    for (int i = 0; i < n_outputs; i++) {
        if (check(&outputs[i], &d->outputs[i], "output", i)) return 1;
        res[i] = outputs[i].data;
    }
    pthread_mutex_lock(&m->lock);
    msc_workspace *w = m->free_list;
    if (w) m->free_list = w->next;
    if (!d->writes_weights) pthread_mutex_unlock(&m->lock);
    if (!w) {
        w = calloc(1, sizeof *w);
        size_t bytes = d->workspace_bytes ? (size_t)d->workspace_bytes : 64;
        if (!w || posix_memalign((void **)&w->memory, 64, bytes) != 0) {
            free(w);
            if (d->writes_weights) pthread_mutex_unlock(&m->lock);
            return failf("msc_model_run: cannot allocate the %lld-byte workspace", (long long)bytes);
        }
    }
    int rc = msc_forward(m->blocks, w->memory, in, res);
    if (!d->writes_weights) pthread_mutex_lock(&m->lock);
    w->next = m->free_list;
    m->free_list = w;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

MSC_API int msc_model_num_weights(const msc_model *m) { (void)m; return msc_model_desc.n_weights; }

MSC_API const char *msc_model_weight_name(const msc_model *m, int i) {
    (void)m;
    return i >= 0 && i < msc_model_desc.n_weights ? msc_model_desc.weights[i].name : NULL;
}

static const msc_info *weight_named(const char *name) {
    for (int i = 0; name && i < msc_model_desc.n_weights; i++)
        if (strcmp(msc_model_desc.weights[i].name, name) == 0) return &msc_model_desc.weights[i];
    failf("the model has no weight named '%s'", name ? name : "(null)");
    return NULL;
}

MSC_API int msc_model_get_weight(const msc_model *m, const char *name, msc_tensor *value) {
    const msc_info *w = weight_named(name);
    if (!m || !w || !value) return m && w ? failf("msc_model_get_weight: value is NULL") : 1;
    if (check(value, w, "weight", (int)(w - msc_model_desc.weights))) return 1;
    pthread_mutex_lock((pthread_mutex_t *)&m->lock);
    memcpy(value->data, m->data + w->offset, (size_t)w->nbytes);
    pthread_mutex_unlock((pthread_mutex_t *)&m->lock);
    return 0;
}

MSC_API int msc_model_set_weight(msc_model *m, const char *name, const msc_tensor *value) {
    const msc_info *w = weight_named(name);
    if (!m || !w || !value) return m && w ? failf("msc_model_set_weight: value is NULL") : 1;
    if (!msc_model_desc.writes_weights)
        return failf("msc_model_set_weight: an inference model's weights are read-only (shared "
                     "with every process that maps them); write a new weights file instead");
    if (check(value, w, "weight", (int)(w - msc_model_desc.weights))) return 1;
    pthread_mutex_lock(&m->lock);
    memcpy(m->data + w->offset, value->data, (size_t)w->nbytes);
    pthread_mutex_unlock(&m->lock);
    return 0;
}

/* --- threads -------------------------------------------------------------------------------- */

/* One pool of worker threads per process. A worker that finishes a part, and a caller
   waiting for the others' parts, spin for up to MSC_SPIN_NS before sleeping on a condition
   variable: a forward call starts its parallel loops microseconds apart, and waking a
   sleeping thread costs 30-60 us (more than many parts take), while a thread idle for
   longer gives its CPU back. A call that finds the pool in use (another thread's call, or
   a part's own nested call) runs its parts itself, in order: the same parts, so the same
   bits. The library's OpenBLAS runs on one thread; its products are cut into parts here
   instead. */
#define MSC_SPIN_NS 200000
static struct {
    pthread_mutex_t use;          /* held by the call whose parts the workers run */
    pthread_mutex_t lock;         /* the job below */
    pthread_cond_t go, done;
    int threads;                  /* the thread count: 0 until first read */
    int workers;                  /* started (parts 1 .. workers) */
    pid_t pid;                    /* the process that started them (a forked child starts its own) */
    uint64_t job;                 /* bumped for each job */
    msc_part_fn fn;
    void *ctx;
    int64_t n;
    int parts, pending, failed;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, 0};

typedef struct { int part; uint64_t job; } worker_start;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static bool job_moved(uint64_t seen) {
    return __atomic_load_n(&pool.job, __ATOMIC_ACQUIRE) != seen;
}
static bool parts_done(uint64_t unused) {
    (void)unused;
    return __atomic_load_n(&pool.pending, __ATOMIC_ACQUIRE) == 0;
}

/* Spins (outside the lock) until done(arg), or MSC_SPIN_NS pass; whether done. */
static bool spin_until(bool (*done)(uint64_t), uint64_t arg) {
    int64_t until = now_ns() + MSC_SPIN_NS;
    for (int i = 1; !done(arg); i++) {
#if defined(__x86_64__)
        _mm_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        if (i % 256 == 0 && now_ns() > until) return false;
    }
    return true;
}

static void *pool_worker(void *arg) {
    worker_start start = *(worker_start *)arg;
    free(arg);
    uint64_t seen = start.job;  /* (the job current when it was started is not its) */
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        if (pool.job == seen) {
            pthread_mutex_unlock(&pool.lock);
            spin_until(job_moved, seen);
            pthread_mutex_lock(&pool.lock);
        }
        while (pool.job == seen) pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.job;
        if (start.part >= pool.parts) continue;
        msc_part_fn fn = pool.fn;
        void *ctx = pool.ctx;
        int64_t n = pool.n, parts = pool.parts;
        pthread_mutex_unlock(&pool.lock);
        int failed = fn(ctx, n * start.part / parts, n * (start.part + 1) / parts, start.part);
        pthread_mutex_lock(&pool.lock);
        pool.failed |= failed != 0;
        if (__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_RELEASE) == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static int thread_count(void) {
    int n = __atomic_load_n(&pool.threads, __ATOMIC_ACQUIRE);
    if (n > 0) return n;
    const char *given = getenv("MSC_NUM_THREADS");
    if (given != NULL && atoi(given) > 0) {
        n = atoi(given);
    } else {
        cpu_set_t cpus;
        n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    }
    n = n < 1 ? 1 : (n > MSC_MAX_THREADS ? MSC_MAX_THREADS : n);
#ifdef MSC_BLAS
    scipy_openblas_set_num_threads(1);
#endif
    __atomic_store_n(&pool.threads, n, __ATOMIC_RELEASE);
    return n;
}

MSC_API void msc_set_num_threads(int n) {
    thread_count();  /* (OpenBLAS held at one thread first) */
    n = n < 1 ? 1 : (n > MSC_MAX_THREADS ? MSC_MAX_THREADS : n);
    __atomic_store_n(&pool.threads, n, __ATOMIC_RELEASE);
}

MSC_API int msc_get_num_threads(void) { return thread_count(); }

int msc_parts(int64_t n) {
    int threads = thread_count();
    return n < threads ? (int)(n > 1 ? n : 1) : threads;
}

int msc_parallel_in(msc_part_fn fn, void *ctx, int64_t n, int parts) {
    if (parts <= 1 || pthread_mutex_trylock(&pool.use) != 0)
        return fn(ctx, 0, n, 0) != 0;
    pthread_mutex_lock(&pool.lock);
    if (pool.pid != getpid()) {  /* (a forked child has none of its parent's workers) */
        pool.pid = getpid();
        pool.workers = 0;
    }
    while (pool.workers < parts - 1) {
        worker_start *start = malloc(sizeof *start);
        pthread_t t;
        if (start != NULL) *start = (worker_start){pool.workers + 1, pool.job};
        if (start == NULL || pthread_create(&t, NULL, pool_worker, start) != 0) {
            free(start);
            break;
        }
        pthread_detach(t);
        pool.workers++;
    }
    if (pool.workers < parts - 1) {  /* (no thread could start: the caller runs them all) */
        pthread_mutex_unlock(&pool.lock);
        pthread_mutex_unlock(&pool.use);
        return fn(ctx, 0, n, 0) != 0;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.parts = parts;
    pool.pending = parts - 1;
    pool.failed = 0;
    __atomic_store_n(&pool.job, pool.job + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.lock);
    int failed = fn(ctx, 0, n / parts, 0) != 0;
    spin_until(parts_done, 0);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.lock);
    failed |= pool.failed;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.use);
    return failed;
}

int msc_parallel(msc_part_fn fn, void *ctx, int64_t n) {
    return msc_parallel_in(fn, ctx, n, msc_parts(n));
}

typedef struct {
    char *dst;
    const char *src;
    int size, ndim;
    const int64_t *shape, *ds, *ss;
} copy_job;

/* One row (the last axis) of a copy: n elements of T, ds and ss apart (the common unit and
   2 strides as loops of their own, which the compiler vectorizes) */
#define COPY_ROW(T)                                                                     \
    static void copy_row_##T(T *to, const T *from, int64_t n, int64_t ds, int64_t ss) { \
        if (ds == 1 && ss == 1) memcpy(to, from, (size_t)n * sizeof(T));                \
        else if (ds == 1 && ss == 2) for (int64_t i = 0; i < n; i++) to[i] = from[2 * i]; \
        else for (int64_t i = 0; i < n; i++) to[i * ds] = from[i * ss];                  \
    }
COPY_ROW(uint32_t)
COPY_ROW(uint64_t)

static int copy_rows(void *p, int64_t lo, int64_t hi, int part) {
    const copy_job *j = p;
    int last = j->ndim - 1;
    (void)part;
    for (int64_t r = lo; r < hi; r++) {
        int64_t d = 0, s = 0, rest = r;
        for (int a = last - 1; a >= 0; a--) {
            d += rest % j->shape[a] * j->ds[a];
            s += rest % j->shape[a] * j->ss[a];
            rest /= j->shape[a];
        }
        char *to = j->dst + d * j->size;
        const char *from = j->src + s * j->size;
        if (j->size == 4)
            copy_row_uint32_t((uint32_t *)to, (const uint32_t *)from, j->shape[last], j->ds[last], j->ss[last]);
        else if (j->size == 8)
            copy_row_uint64_t((uint64_t *)to, (const uint64_t *)from, j->shape[last], j->ds[last], j->ss[last]);
        else
            for (int64_t i = 0; i < j->shape[last]; i++)
                memcpy(to + i * j->ds[last] * j->size, from + i * j->ss[last] * j->size, (size_t)j->size);
    }
    return 0;
}

void msc_copy(void *dst, const void *src, int size, int ndim, const int64_t *shape,
              const int64_t *dst_strides, const int64_t *src_strides) {
    int64_t rows = 1;
    for (int a = 0; a < ndim - 1; a++) rows *= shape[a];
    copy_job j = {dst, src, size, ndim, shape, dst_strides, src_strides};
    msc_parallel(copy_rows, &j, rows);
}

/* --- products ------------------------------------------------------------------------------ */

#ifdef MSC_BLAS
/* OpenBLAS as the scipy-openblas32 package builds it: cblas with a scipy_ prefix */
void scipy_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                       int lda, const float *b, int ldb, float beta, float *c, int ldc);
void scipy_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                       int lda, const double *b, int ldb, double beta, double *c, int ldc);

static void gemm_whole_f32(int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a,
                           int64_t lda, const float *b, int64_t ldb, double beta, float *c,
                           int64_t ldc) {
    if (k == 0) { for (int64_t i = 0; i < m; i++) for (int64_t j = 0; j < n; j++) c[i * ldc + j] = beta ? (float)(beta * c[i * ldc + j]) : 0; return; }
    scipy_cblas_sgemm(101, ta ? 112 : 111, tb ? 112 : 111, (int)m, (int)n, (int)k, 1.0f, a, (int)lda,
                      b, (int)ldb, (float)beta, c, (int)ldc);
}

static void gemm_whole_f64(int ta, int tb, int64_t m, int64_t n, int64_t k, const double *a,
                           int64_t lda, const double *b, int64_t ldb, double beta, double *c,
                           int64_t ldc) {
    if (k == 0) { for (int64_t i = 0; i < m; i++) for (int64_t j = 0; j < n; j++) c[i * ldc + j] = beta ? beta * c[i * ldc + j] : 0; return; }
    scipy_cblas_dgemm(101, ta ? 112 : 111, tb ? 112 : 111, (int)m, (int)n, (int)k, 1.0, a, (int)lda,
                      b, (int)ldb, beta, c, (int)ldc);
}
#else
/* No BLAS to link: row-by-row products the C compiler vectorizes along the row. */
#define MSC_GEMM(T, S)                                                                          \
    static void gemm_whole_##S(int ta, int tb, int64_t m, int64_t n, int64_t k, const T *a,      \
                               int64_t lda, const T *b, int64_t ldb, double beta, T *c,          \
                               int64_t ldc) {                                                    \
        for (int64_t i = 0; i < m; i++) {                                                        \
            T *row = c + i * ldc;                                                                \
            for (int64_t j = 0; j < n; j++) row[j] = beta ? (T)(beta * row[j]) : 0;              \
            for (int64_t p = 0; p < k; p++) {                                                    \
                T x = ta ? a[p * lda + i] : a[i * lda + p];                                      \
                if (tb) for (int64_t j = 0; j < n; j++) row[j] += x * b[j * ldb + p];            \
                else { const T *brow = b + p * ldb; for (int64_t j = 0; j < n; j++) row[j] += x * brow[j]; } \
            }                                                                                    \
        }                                                                                        \
    }
MSC_GEMM(float, f32)
MSC_GEMM(double, f64)
#endif

/* A large product in a power of two of blocks of its longer side, as numba_rt.py's
   _rt_products cuts a driver's: the same BLAS calls whatever the thread count, so the same
   bits, and the numba target's bits. */
#define MSC_PRODUCT_WORK (1 << 22)  /* _RT_PRODUCT_WORK */
#define MSC_PRODUCT_SIDE 128        /* _RT_PRODUCT_SIDE */
/* where cut c of cuts of side starts (_rt_cut_at): even shares, on multiples of 16 */
static int64_t cut_at(int64_t c, int64_t cuts, int64_t side) {
    return c >= cuts ? side : (c * side / cuts + 8) / 16 * 16;
}
#define MSC_GEMM_SPLIT(T, S)                                                                     \
    typedef struct {                                                                             \
        int ta, tb, rows;                                                                        \
        int64_t m, n, k, lda, ldb, ldc, cuts;                                                    \
        const T *a, *b, *bias;                                                                   \
        T *c;                                                                                    \
        double beta;                                                                             \
    } gemm_job_##S;                                                                              \
    /* a block's bias, added while the block is in cache (one column's value each) */          \
    static void add_bias_##S(T *c, int64_t ldc, int64_t rows, int64_t cols, const T *bias) {    \
        for (int64_t i = 0; i < rows; i++)                                                       \
            for (int64_t j = 0; j < cols; j++) c[i * ldc + j] = c[i * ldc + j] + bias[j];        \
    }                                                                                            \
    static int gemm_units_##S(void *p, int64_t lo, int64_t hi, int part) {                       \
        const gemm_job_##S *g = p;                                                               \
        (void)part;                                                                              \
        for (int64_t u = lo; u < hi; u++) {                                                      \
            int64_t side = g->rows ? g->m : g->n;                                                \
            int64_t s0 = cut_at(u, g->cuts, side), s1 = cut_at(u + 1, g->cuts, side);            \
            int64_t r0 = g->rows ? s0 : 0, r1 = g->rows ? s1 : g->m;                             \
            int64_t c0 = g->rows ? 0 : s0, c1 = g->rows ? g->n : s1;                             \
            gemm_whole_##S(g->ta, g->tb, r1 - r0, c1 - c0, g->k,                                 \
                           g->a + (g->ta ? r0 : r0 * g->lda), g->lda,                            \
                           g->b + (g->tb ? c0 * g->ldb : c0), g->ldb, g->beta,                   \
                           g->c + r0 * g->ldc + c0, g->ldc);                                     \
            if (g->bias) add_bias_##S(g->c + r0 * g->ldc + c0, g->ldc, r1 - r0, c1 - c0,         \
                                      g->bias + c0);                                             \
        }                                                                                        \
        return 0;                                                                                \
    }                                                                                            \
    void msc_gemm_##S(int ta, int tb, int64_t m, int64_t n, int64_t k, const T *a, int64_t lda,  \
                      const T *b, int64_t ldb, double beta, T *c, int64_t ldc, const T *bias) {  \
        int64_t cuts = 1, side = m > n ? m : n;                                                  \
        while (m * n * k >= MSC_PRODUCT_WORK && 2 * cuts * MSC_PRODUCT_SIDE <= side) cuts *= 2;  \
        gemm_job_##S g = {ta, tb, m > n, m, n, k, lda, ldb, ldc, cuts, a, b, bias, c, beta};     \
        if (cuts == 1) gemm_units_##S(&g, 0, 1, 0);                                              \
        else msc_parallel(gemm_units_##S, &g, cuts);                                             \
    }
MSC_GEMM_SPLIT(float, f32)
MSC_GEMM_SPLIT(double, f64)

/* --- float32 products on msc's own kernel ------------------------------------------------
   The kernel reads its right operand in panels of 32 columns, k rows of 32 floats each,
   which each thread packs as it goes. An inference model's weights never change, so each
   weight matrix of a large product is packed once, at its first product, into the layout
   the kernel reads (as onnxruntime packs its weights): a right operand (x @ W.T, x @ W: a
   dense layer) into panels; a left one (W @ x: a convolution's filters by its windows)
   into slivers of 6 rows, k columns of 6 floats each. The kernel keeps 12 rows (a left
   product's: 6) by 32 columns in 24 accumulators, each panel row loaded once for 24 fused
   multiply-adds (with 6 rows, 12: an Intel core's products ran 0.85-0.9x as fast, waiting
   on the panel's loads from L2); each element is one chain of fused multiply-adds over k in
   order, then plus its bias: the same bits whatever rows and columns a thread takes, so
   the threads share a product in any cut (no fixed blocks) and 1, 2 or 3 threads give the
   same bytes. OpenBLAS packs both operands again at every call: 93-106 GFLOP/s on one core
   against 104-117 here on the transformers' and ResNets' shapes. */
#if defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>
#define PACK_COLS 32  /* a panel's columns: two vectors */
#define PACK_ROWS 6   /* a sliver's rows: a left product's kernel's */
#define RIGHT_ROWS 12 /* a right product's kernel's rows */
#define PACK_GROUP 48 /* rows of one unit of work */

enum { PACK_RIGHT, PACK_RIGHT_T, PACK_LEFT };
typedef struct {
    const float *w;
    int form;
    int64_t n, k, ldw;
    float *packed;
} packed_weight;
static packed_weight *packs;
static int64_t n_packs, packs_room;
static pthread_mutex_t pack_lock = PTHREAD_MUTEX_INITIALIZER;

/* W (n rows or columns as the form says, k the sum's length) packed, made at the first
   product by these weights; NULL where memory ran out (the kernel's same sums then read W
   where it lies). */
static const float *packed_of(const float *w, int form, int64_t n, int64_t k, int64_t ldw) {
    pthread_mutex_lock(&pack_lock);
    for (int64_t i = 0; i < n_packs; i++) {
        packed_weight *e = &packs[i];
        if (e->w == w && e->form == form && e->n == n && e->k == k && e->ldw == ldw) {
            pthread_mutex_unlock(&pack_lock);
            return e->packed;
        }
    }
    int64_t width = form == PACK_LEFT ? PACK_ROWS : PACK_COLS, count = (n + width - 1) / width;
    float *packed = NULL;
    if (n_packs == packs_room) {
        int64_t room = packs_room ? 2 * packs_room : 64;
        packed_weight *grown = realloc(packs, (size_t)room * sizeof *grown);
        if (grown) { packs = grown; packs_room = room; }
    }
    if (n_packs < packs_room &&
        posix_memalign((void **)&packed, 64, (size_t)(count * k * width) * sizeof(float)) == 0) {
        for (int64_t p = 0; p < count; p++)
            for (int64_t r = 0; r < k; r++)
                for (int64_t j = 0; j < width; j++) {
                    int64_t at = p * width + j;  /* W's row (left, transposed) or column */
                    packed[(p * k + r) * width + j] =
                        at >= n ? 0.0f : (form == PACK_RIGHT ? w[r * ldw + at] : w[at * ldw + r]);
                }
        packs[n_packs++] = (packed_weight){w, form, n, k, ldw, packed};
    }
    pthread_mutex_unlock(&pack_lock);
    return packed;
}

/* Forgets the packed weights in [lo, hi): a destroyed model's mapping (memory mapped there
   later may hold other weights). */
static void packs_forget(const char *lo, const char *hi) {
    pthread_mutex_lock(&pack_lock);
    for (int64_t i = 0; i < n_packs;) {
        if ((const char *)packs[i].w >= lo && (const char *)packs[i].w < hi) {
            free(packs[i].packed);
            packs[i] = packs[--n_packs];
        } else i++;
    }
    pthread_mutex_unlock(&pack_lock);
}

/* Where c's columns j0 to j0 + cols of a panel of 32 lie: the masks of its two vectors */
static inline __mmask16 pack_mask(int64_t cols, int half) {
    int64_t n = cols - 16 * half;
    return n >= 16 ? 0xFFFF : n <= 0 ? 0 : (__mmask16)((1u << n) - 1);
}

/* R rows by up to 16 V columns of c: each element the chain over r < k of X(i, r) *
   panel[r * 32 + j], plus bias[j]; X(i, r) is x[i * xi + r] (a right product's rows of a),
   x[r * xi + i] (its columns of a stored transposed: a weight gradient's x.T) or
   x[r * 6 + i] (a left one's sliver of weights): strides the compiler sees. A panel's
   last 16 columns, where none is c's, are not computed (V = 1). */
#define PACK_TILE(R, V, X, B)  /* the kernel's body; B: vector v of b's step r */          \
    __m512 acc[R][V];                                                                              \
    _Pragma("GCC unroll 24") for (int i = 0; i < R * V; i++) acc[i / V][i % V] = _mm512_setzero_ps(); \
    for (int64_t r = 0; r < k; r++) {                                                              \
        __m512 b[V];                                                                               \
        _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) b[v] = B;                             \
        _Pragma("GCC unroll 12") for (int i = 0; i < R; i++) {                                    \
            __m512 s = _mm512_set1_ps(X);                                                          \
            _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) acc[i][v] = _mm512_fmadd_ps(s, b[v], acc[i][v]); \
        }                                                                                          \
    }                                                                                              \
    _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) {                                         \
        __mmask16 mask = pack_mask(cols, v);                                                       \
        __m512 z = bias ? _mm512_maskz_loadu_ps(mask, bias + 16 * v) : _mm512_setzero_ps();        \
        _Pragma("GCC unroll 12") for (int i = 0; i < R; i++)                                      \
            _mm512_mask_storeu_ps(c + i * ldc + 16 * v, mask,                                      \
                                  bias ? _mm512_add_ps(acc[i][v], z) : acc[i][v]);                 \
    }
#define PACK_KERNEL(R, V, NAME, X)                                                              \
    static void NAME(int64_t k, const float *x, int64_t xi, const float *panel, float *c,         \
                     int64_t ldc, int64_t cols, const float *bias) {                              \
        (void)xi;                                                                                  \
        PACK_TILE(R, V, X, _mm512_load_ps(panel + r * PACK_COLS + 16 * v))                         \
    }
#define RIGHT_KERNELS(R)                                                                        \
    PACK_KERNEL(R, 2, pack_right_##R, x[i * xi + r])                                            \
    PACK_KERNEL(R, 1, pack_right_half_##R, x[i * xi + r])                                       \
    PACK_KERNEL(R, 2, pack_right_t_##R, x[r * xi + i])                                          \
    PACK_KERNEL(R, 1, pack_right_t_half_##R, x[r * xi + i])
#define LEFT_KERNELS(R)                                                                         \
    PACK_KERNEL(R, 2, pack_left_##R, x[r * PACK_ROWS + i])                                      \
    PACK_KERNEL(R, 1, pack_left_half_##R, x[r * PACK_ROWS + i])
RIGHT_KERNELS(1) RIGHT_KERNELS(2) RIGHT_KERNELS(3) RIGHT_KERNELS(4) RIGHT_KERNELS(5)
RIGHT_KERNELS(6) RIGHT_KERNELS(7) RIGHT_KERNELS(8) RIGHT_KERNELS(9) RIGHT_KERNELS(10)
RIGHT_KERNELS(11) RIGHT_KERNELS(12)
LEFT_KERNELS(1) LEFT_KERNELS(2) LEFT_KERNELS(3) LEFT_KERNELS(4) LEFT_KERNELS(5) LEFT_KERNELS(6)
typedef void (*pack_kernel)(int64_t, const float *, int64_t, const float *, float *, int64_t,
                            int64_t, const float *);
#define ROWS_1_TO_6(NAME) NULL, NAME##1, NAME##2, NAME##3, NAME##4, NAME##5, NAME##6
#define ROWS_1_TO_12(NAME) ROWS_1_TO_6(NAME), NAME##7, NAME##8, NAME##9, NAME##10, NAME##11, NAME##12
/* [how a is read: rows, packed slivers (left), columns (ta)][half][rows] */
static const pack_kernel pack_kernels[3][2][RIGHT_ROWS + 1] = {
    {{ROWS_1_TO_12(pack_right_)}, {ROWS_1_TO_12(pack_right_half_)}},
    {{ROWS_1_TO_6(pack_left_)}, {ROWS_1_TO_6(pack_left_half_)}},
    {{ROWS_1_TO_12(pack_right_t_)}, {ROWS_1_TO_12(pack_right_t_half_)}}};

typedef struct {
    int form, ta, by_rows;  /* ta: a stored transposed (a right product's); by_rows: units
                               are slivers of rows, each thread's over every panel */
    int64_t m, n, k, lda, ldb, ldc, groups;
    const float *a, *b, *packed, *bias;  /* packed: the weights (b, or a where left) */
    float *c;
} packed_job;

/* c's element (i, j): the chain of a[i][r] * b[r][j] read where they lie (no memory for
   packing: the kernel's sums, one by one) */
static void packed_sums(const packed_job *g, int64_t r0, int64_t r1, int64_t j0, int64_t j1) {
    for (int64_t i = r0; i < r1; i++)
        for (int64_t j = j0; j < j1; j++) {
            float acc = 0.0f;
            for (int64_t r = 0; r < g->k; r++)
                acc = fmaf(g->ta ? g->a[r * g->lda + i] : g->a[i * g->lda + r],
                           g->form == PACK_RIGHT_T ? g->b[j * g->ldb + r] : g->b[r * g->ldb + j], acc);
            g->c[i * g->ldc + j] = g->bias ? acc + g->bias[j] : acc;
        }
}

/* 16 rows of 16 floats transposed in place: pairs of rows interleaved, then pairs of
   pairs, then the four 128-bit lanes of each group of four rows gathered */
static inline void transpose_16(__m512 t[16]) {
    __m512 a[16], b[16];
    for (int i = 0; i < 16; i += 2) {
        a[i] = _mm512_unpacklo_ps(t[i], t[i + 1]);
        a[i + 1] = _mm512_unpackhi_ps(t[i], t[i + 1]);
    }
    for (int i = 0; i < 16; i += 4)
        for (int h = 0; h < 2; h++) {
            __m512d lo = _mm512_castps_pd(a[i + h]), hi = _mm512_castps_pd(a[i + 2 + h]);
            b[i + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo, hi));
            b[i + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo, hi));
        }
    /* b[4g + c]'s lane l: element 4l + c of rows 4g to 4g + 3 */
    for (int c = 0; c < 4; c++) {
        __m512 x = _mm512_shuffle_f32x4(b[c], b[4 + c], 0x44), y = _mm512_shuffle_f32x4(b[c], b[4 + c], 0xEE);
        __m512 z = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0x44), w = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0xEE);
        t[c] = _mm512_shuffle_f32x4(x, z, 0x88);
        t[4 + c] = _mm512_shuffle_f32x4(x, z, 0xDD);
        t[8 + c] = _mm512_shuffle_f32x4(y, w, 0x88);
        t[12 + c] = _mm512_shuffle_f32x4(y, w, 0xDD);
    }
}

/* b's columns j0 to j0 + cols (b^T's rows where transposed) as a panel of 32, zeros after;
   b^T's rows 16 by 16 floats at a time, transposed in registers */
static void pack_panel(const packed_job *g, int64_t j0, int64_t cols, float *panel) {
    if (g->form == PACK_RIGHT_T) {
        for (int half = 0; half < 2; half++)
            for (int64_t r = 0; r < g->k; r += 16) {
                int64_t rows = g->k - r < 16 ? g->k - r : 16;
                __mmask16 mask = (__mmask16)((1u << rows) - 1);
                __m512 t[16];
                for (int64_t j = 0; j < 16; j++)
                    t[j] = 16 * half + j < cols
                               ? _mm512_maskz_loadu_ps(mask, g->b + (j0 + 16 * half + j) * g->ldb + r)
                               : _mm512_setzero_ps();
                transpose_16(t);
                for (int64_t i = 0; i < rows; i++)
                    _mm512_store_ps(panel + (r + i) * PACK_COLS + 16 * half, t[i]);
            }
        return;
    }
    __mmask16 m0 = pack_mask(cols, 0), m1 = pack_mask(cols, 1);
    for (int64_t r = 0; r < g->k; r++) {
        const float *row = g->b + r * g->ldb + j0;
        _mm512_store_ps(panel + r * PACK_COLS, _mm512_maskz_loadu_ps(m0, row));
        _mm512_store_ps(panel + r * PACK_COLS + 16, _mm512_maskz_loadu_ps(m1, row + 16));
    }
}

/* b's 16 floats at row (those of mask, zeros after) stored into the panel at to, and returned */
static inline __m512 pack_vector(const float *row, float *to, __mmask16 mask) {
    __m512 b = _mm512_maskz_loadu_ps(mask, row);
    _mm512_store_ps(to, b);
    return b;
}

/* The 12-row kernels again for a panel's first rows, packing b's panel as they go: each
   step's two vectors of b's row r (columns j0 to j0 + cols, zeros after) are stored into
   the panel as they are multiplied, so the panel costs no pass of its own. */
#define PACKING_KERNEL(NAME, X)                                                                 \
    static void NAME(int64_t k, const float *x, int64_t xi, const float *src, int64_t ldb,       \
                     float *panel, float *c, int64_t ldc, int64_t cols, const float *bias) {     \
        __mmask16 masks[2] = {pack_mask(cols, 0), pack_mask(cols, 1)};                           \
        PACK_TILE(RIGHT_ROWS, 2, X, pack_vector(src + r * ldb + 16 * v,                          \
                                                panel + r * PACK_COLS + 16 * v, masks[v]))       \
    }
PACKING_KERNEL(packing_right, x[i * xi + r])
PACKING_KERNEL(packing_right_t, x[r * xi + i])

/* rows r0 to r1 of c by panels p0 to p1, panel by panel; b's panels packed into panel
   (once for all the rows: *panel_of says which it holds) unless b is packed weights, or
   where panel is NULL the same sums read where the operands lie */
static void packed_block(const packed_job *g, int64_t r0, int64_t r1, int64_t p0, int64_t p1,
                         float *panel, int64_t *panel_of) {
    int left = g->form == PACK_LEFT, own = left || !g->packed;
    for (int64_t p = p0; p < p1; p++) {
        int64_t j0 = p * PACK_COLS, cols = g->n - j0 < PACK_COLS ? g->n - j0 : PACK_COLS;
        if (own && !panel) {
            packed_sums(g, r0, r1, j0, j0 + cols);
            continue;
        }
        int64_t i = r0;
        if (own && *panel_of != p) {
            if (g->form == PACK_RIGHT && r1 - r0 >= RIGHT_ROWS) {  /* (by the first rows' kernel) */
                (g->ta ? packing_right_t : packing_right)(
                    g->k, g->a + (g->ta ? i : i * g->lda), g->lda, g->b + j0, g->ldb, panel,
                    g->c + i * g->ldc + j0, g->ldc, cols, g->bias ? g->bias + j0 : NULL);
                i += RIGHT_ROWS;
            } else pack_panel(g, j0, cols, panel);
            *panel_of = p;
        }
        const float *b = own ? panel : g->packed + j0 * g->k;
        int step = left ? PACK_ROWS : RIGHT_ROWS;
        for (; i < r1; i += step) {
            int rows = r1 - i < step ? (int)(r1 - i) : step;
            pack_kernel kernel = pack_kernels[left ? 1 : 2 * g->ta][cols <= 16][rows];
            if (left)
                kernel(g->k, g->packed + i * g->k, 0, b, g->c + i * g->ldc + j0, g->ldc, cols, NULL);
            else
                kernel(g->k, g->a + (g->ta ? i : i * g->lda), g->lda, b, g->c + i * g->ldc + j0,
                       g->ldc, cols, g->bias ? g->bias + j0 : NULL);
        }
    }
}

/* units lo to hi: each a group of 48 rows by one panel of 32 columns, panel after panel;
   or (by_rows) each 6 rows, over every panel: a thread's share of a left product whose
   weights outweigh its right operand then reads only its own rows of the weights */
static int packed_units(void *p, int64_t lo, int64_t hi, int part) {
    const packed_job *g = p;
    (void)part;
    float *panel = NULL;
    int64_t panel_of = -1, panels = (g->n + PACK_COLS - 1) / PACK_COLS;
    if ((g->form == PACK_LEFT ? g->packed != NULL : g->packed == NULL) &&
        posix_memalign((void **)&panel, 64, (size_t)(g->k * PACK_COLS) * sizeof(float)) != 0)
        panel = NULL;
    if (g->by_rows) {
        packed_block(g, lo * PACK_ROWS, hi * PACK_ROWS < g->m ? hi * PACK_ROWS : g->m, 0, panels,
                     panel, &panel_of);
    } else {
        for (int64_t u = lo; u < hi; u++) {
            int64_t r0 = u % g->groups * PACK_GROUP, p = u / g->groups;
            packed_block(g, r0, r0 + PACK_GROUP < g->m ? r0 + PACK_GROUP : g->m, p, p + 1, panel,
                         &panel_of);
        }
    }
    free(panel);
    return 0;
}

/* c = op(a) @ b (+ bias) over packed: the weights packed in the form given, or NULL (b's
   panels packed as the threads go); op(a) is a.T where ta */
static void packed_product(int form, int ta, int64_t m, int64_t n, int64_t k, const float *a,
                           int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                           const float *bias, const float *packed) {
    int64_t groups = (m + PACK_GROUP - 1) / PACK_GROUP;
    int by_rows = form == PACK_LEFT && m >= n;
    packed_job g = {form, ta, by_rows, m, n, k, lda, ldb, ldc, groups, a, b, packed, bias, c};
    msc_parallel(packed_units, &g, by_rows ? (m + PACK_ROWS - 1) / PACK_ROWS
                                           : groups * ((n + PACK_COLS - 1) / PACK_COLS));
}
#else
static void packs_forget(const char *lo, const char *hi) { (void)lo; (void)hi; }
#endif

void msc_gemm_packed_f32(int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a,
                         int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                         const float *bias) {
#if defined(__AVX512F__) && defined(__FMA__)
    packed_product(tb ? PACK_RIGHT_T : PACK_RIGHT, ta, m, n, k, a, lda, b, ldb, c, ldc, bias, NULL);
#else
    msc_gemm_f32(ta, tb, m, n, k, a, lda, b, ldb, 0.0, c, ldc, bias);
#endif
}

void msc_gemm_weights_f32(int tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                          const float *w, int64_t ldw, float *c, int64_t ldc, const float *bias) {
#if defined(__AVX512F__) && defined(__FMA__)
    int form = tb ? PACK_RIGHT_T : PACK_RIGHT;
    const float *packed = msc_model_desc.writes_weights ? NULL : packed_of(w, form, n, k, ldw);
    packed_product(form, 0, m, n, k, a, lda, w, ldw, c, ldc, bias, packed);
#else
    msc_gemm_f32(0, tb, m, n, k, a, lda, w, ldw, 0.0, c, ldc, bias);
#endif
}

void msc_gemm_weights_left_f32(int64_t m, int64_t n, int64_t k, const float *w, int64_t ldw,
                               const float *b, int64_t ldb, float *c, int64_t ldc) {
#if defined(__AVX512F__) && defined(__FMA__)
    if (!msc_model_desc.writes_weights) {
        packed_product(PACK_LEFT, 0, m, n, k, w, ldw, b, ldb, c, ldc, NULL,
                       packed_of(w, PACK_LEFT, m, k, ldw));
        return;
    }
#endif
    msc_gemm_f32(0, 0, m, n, k, w, ldw, b, ldb, 0.0, c, ldc, NULL);
}

/* --- Winograd F(4x4, 3x3) transforms (the same arithmetic, in the same order, as
   msc/runtime/numba_winograd_rt.py: the two targets' transforms agree to the bit) ----------- */

static inline void wino_bt(float d0, float d1, float d2, float d3, float d4, float d5, float o[6]) {
    o[0] = d0 - 1.5f * d1 - 2.0f * d2 + 1.5f * d3 + d4;
    o[1] = d1 - 2.5f * d2 + 0.5f * d3 + d4;
    o[2] = 0.5f * d2 - d1 + 2.5f * d3 + d4;
    o[3] = 2.0f * d3 - 2.0f * d1 - d2 + d4;
    o[4] = 0.5f * d1 - d2 - 0.5f * d3 + d4;
    o[5] = d1 - 1.5f * d2 - 2.0f * d3 + 1.5f * d4 + d5;
}

static inline void wino_g(double g0, double g1, double g2, double o[6]) {
    o[0] = g0;
    o[1] = (g1 - g0 - g2) * (1.0 / 3.0);
    o[2] = (g0 + g1 + g2) * (1.0 / 3.0);
    o[3] = (16.0 * g0 + 8.0 * g1 + 4.0 * g2) * (-1.0 / 15.0);
    o[4] = (g0 - 2.0 * g1 + 4.0 * g2) * (1.0 / 15.0);
    o[5] = g2;
}

static inline void wino_at(float m0, float m1, float m2, float m3, float m4, float m5, float o[4]) {
    o[0] = m0 + m1 + m2 + m3 + m4;
    o[1] = m2 - m1 + 0.5f * m3 - 2.0f * m4;
    o[2] = m1 + m2 + 0.25f * m3 + 4.0f * m4;
    o[3] = m2 - m1 + 0.125f * m3 - 8.0f * m4 + m5;
}

#define MSC_WINO_LIMIT 1e15f /* numba_winograd_rt.py's _RT_WINO_LIMIT */

static int msc_wino_filters(const float *w, int64_t k0, int64_t k1, int64_t c_in, float *u,
                            int64_t u_k, int64_t u_xi) {
    int fits = 1;
    for (int64_t k = k0; k < k1; k++)
        for (int64_t c = 0; c < c_in; c++) {
            const float *g = w + (k * c_in + c) * 9;
            double a[3][6], row[6];
            for (int b = 0; b < 3; b++) wino_g(g[b], g[3 + b], g[6 + b], a[b]);
            for (int i = 0; i < 6; i++) {
                wino_g(a[0][i], a[1][i], a[2][i], row);
                for (int j = 0; j < 6; j++) {
                    float value = (float)row[j];
                    u[k * u_k + (6 * i + j) * u_xi + c] = value;
                    fits &= fabsf(value) <= MSC_WINO_LIMIT;
                }
            }
        }
    return fits;
}

/* Rows of tiles a transform takes at a time, given the floats one row of tiles puts in each
   of its scratch arrays (on the stack): about 1024 floats an array whatever the image's
   width (the inputs' six arrays of columns, width floats a row; the outputs' 28, cols a
   row, counted six times over: about 19 KB in all). */
static int64_t wino_chunk(int64_t floats_a_row) {
    return floats_a_row >= 1024 ? 1 : 1024 / floats_a_row;
}

/* B^T along rows of tiles: tile t's six inputs d0[t] ... d5[t] to its six values in six
   rows of v, unit stride over the tiles (vectorized); 1 if one is out of range. */
static int wino_bt_rows(const float *restrict d0, const float *restrict d1,
                        const float *restrict d2, const float *restrict d3,
                        const float *restrict d4, const float *restrict d5, int64_t n,
                        float *restrict o0, float *restrict o1, float *restrict o2,
                        float *restrict o3, float *restrict o4, float *restrict o5) {
    int bad = 0;
    for (int64_t t = 0; t < n; t++) {
        float row[6];
        wino_bt(d0[t], d1[t], d2[t], d3[t], d4[t], d5[t], row);
        o0[t] = row[0], o1[t] = row[1], o2[t] = row[2];
        o3[t] = row[3], o4[t] = row[4], o5[t] = row[5];
        for (int j = 0; j < 6; j++) bad |= !(fabsf(row[j]) <= MSC_WINO_LIMIT);
    }
    return bad;
}

/* One Winograd convolution's arrays and sizes, as msc_wino_conv takes them. */
typedef struct {
    const float *src, *w;
    float *u, *v, *m, *out;
    int64_t n, c_in, height, width, top, left, k_out, u_k, u_xi, v_c, v_xi, m_k, m_xi, tiles,
        out_h, out_w;
    int64_t rows, cols, per;            /* rows of tiles per image, tiles per row, rows per block */
    float *own_v[MSC_MAX_THREADS], *own_m[MSC_MAX_THREADS];  /* a part's own blocks; NULL: v, m */
    int64_t block;                      /* the block the split phases work on */
    int fixed;                          /* the filters are an inference model's weights */
} wino_job;

/* Channels c0 to c1 of job j's tiles from row `first` into v: B^T down each column of a
   chunk of rows of tiles (vectorized along the row; tiles overlapping by two columns share
   them), each tile's six columns gathered into six rows d, then B^T along them over the
   chunk's tiles.
   The input (height x width) lies without its zero border of top rows and left columns (out
   to 4 cols + 2 columns and whole rows of tiles on the other sides): a row of tiles copies
   its six rows into s, whose border stays zero. 1, or 0 where a value is out of range. */
static int msc_wino_inputs(const wino_job *j, int64_t c0, int64_t c1, float *v, int64_t first) {
    const float *src = j->src;
    int64_t c_in = j->c_in, height = j->height, width = j->width, top = j->top, left = j->left;
    int64_t cols = j->cols, v_c = j->v_c, v_xi = j->v_xi, per_image = j->rows;
    int64_t wide = 4 * cols + 2, rows = j->tiles / cols, chunk = wino_chunk(wide);
    int bad = 0;
    float a[6][chunk][wide], d[6][chunk * cols], s[6][wide];
    memset(s, 0, sizeof s);
    for (int64_t c = c0; c < c1; c++)
        for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
            int64_t n = rows - r0 < chunk ? rows - r0 : chunk;
            for (int64_t r = 0; r < n; r++) {
                int64_t ex = (first + r0 + r) / per_image;
                int64_t y = (first + r0 + r - ex * per_image) * 4 - top;
                for (int k = 0; k < 6; k++) {
                    if (0 <= y + k && y + k < height)
                        memcpy(s[k] + left, src + ((ex * c_in + c) * height + y + k) * width,
                               (size_t)width * sizeof(float));
                    else
                        memset(s[k] + left, 0, (size_t)width * sizeof(float));
                }
                for (int64_t x = 0; x < wide; x++) {
                    float col[6];
                    wino_bt(s[0][x], s[1][x], s[2][x], s[3][x], s[4][x], s[5][x], col);
                    for (int i = 0; i < 6; i++) a[i][r][x] = col[i];
                }
            }
            for (int i = 0; i < 6; i++) {
                for (int64_t r = 0; r < n; r++)
                    for (int64_t tw = 0; tw < cols; tw++)
                        for (int k = 0; k < 6; k++) d[k][r * cols + tw] = a[i][r][4 * tw + k];
                float *o = v + c * v_c + 6 * i * v_xi + r0 * cols;
                bad |= wino_bt_rows(d[0], d[1], d[2], d[3], d[4], d[5], n * cols, o, o + v_xi,
                                    o + 2 * v_xi, o + 3 * v_xi, o + 4 * v_xi, o + 5 * v_xi);
            }
        }
    return !bad;
}

/* A^T over tiles: tile t's six products m0[t] ... m5[t] to its four values o0[t] ... o3[t]
   (vectorized over the tiles). */
static void wino_at_rows(const float *restrict m0, const float *restrict m1,
                         const float *restrict m2, const float *restrict m3,
                         const float *restrict m4, const float *restrict m5, int64_t n,
                         float *restrict o0, float *restrict o1, float *restrict o2,
                         float *restrict o3) {
    for (int64_t t = 0; t < n; t++) {
        float row[4];
        wino_at(m0[t], m1[t], m2[t], m3[t], m4[t], m5[t], row);
        o0[t] = row[0], o1[t] = row[1], o2[t] = row[2], o3[t] = row[3];
    }
}

/* Out channels k0 to k1 of a block's products m into out, a chunk of rows of tiles at a
   time: A^T down each tile column b (a[b]), then along each tile row i (o), whose four
   values a tile interleaves into its output row (cut at the image's edge). */
static void msc_wino_outputs(const float *m, int64_t m_k, int64_t m_xi, int64_t k0, int64_t k1,
                             int64_t k_out, int64_t tiles, float *out, int64_t height,
                             int64_t width, int64_t first, int64_t per_image) {
    int64_t cols = (width + 3) / 4, rows = tiles / cols, chunk = wino_chunk(6 * cols);
    int64_t whole = width / 4;  /* tiles wholly inside a row */
    float a[6][4][chunk * cols], o[4][chunk * cols];
    for (int64_t k = k0; k < k1; k++)
        for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
            int64_t n = rows - r0 < chunk ? rows - r0 : chunk;
            const float *p = m + k * m_k + r0 * cols;
            for (int b = 0; b < 6; b++)
                wino_at_rows(p + b * m_xi, p + (6 + b) * m_xi, p + (12 + b) * m_xi,
                             p + (18 + b) * m_xi, p + (24 + b) * m_xi, p + (30 + b) * m_xi,
                             n * cols, a[b][0], a[b][1], a[b][2], a[b][3]);
            for (int i = 0; i < 4; i++) {
                wino_at_rows(a[0][i], a[1][i], a[2][i], a[3][i], a[4][i], a[5][i], n * cols,
                             o[0], o[1], o[2], o[3]);
                for (int64_t r = 0; r < n; r++) {
                    int64_t ex = (first + r0 + r) / per_image;
                    int64_t y = (first + r0 + r - ex * per_image) * 4 + i;
                    if (y >= height) continue;
                    float *dst = out + ((ex * k_out + k) * height + y) * width;
                    const float *q0 = o[0] + r * cols, *q1 = o[1] + r * cols,
                                *q2 = o[2] + r * cols, *q3 = o[3] + r * cols;
                    for (int64_t tw = 0; tw < whole; tw++)
                        dst[4 * tw] = q0[tw], dst[4 * tw + 1] = q1[tw], dst[4 * tw + 2] = q2[tw],
                        dst[4 * tw + 3] = q3[tw];
                    for (int64_t x = 4 * whole; x < width; x++)
                        dst[x] = (x % 4 == 0 ? q0 : x % 4 == 1 ? q1 : q2)[whole];
                }
            }
        }
}

/* The products of tile elements lo to hi, on the library's kernel (the transformed tiles'
   panels packed as it goes; on OpenBLAS, 64-256 channels by 64-98 tiles ran at 62-75
   GFLOP/s, on the kernel at 75-87) */
static void wino_products(const wino_job *j, float *v, float *m, int64_t lo, int64_t hi) {
    for (int64_t xi = lo; xi < hi; xi++)
        msc_gemm_packed_f32(0, 0, j->k_out, j->tiles, j->c_in, j->u + xi * j->u_xi, j->u_k,
                            v + xi * j->v_xi, j->v_c, m + xi * j->m_xi, j->m_k, NULL);
}

static int wino_filters_part(void *p, int64_t lo, int64_t hi, int part) {
    const wino_job *j = p;
    (void)part;
    return !msc_wino_filters(j->w, lo, hi, j->c_in, j->u, j->u_k, j->u_xi);
}

/* Blocks lo to hi, each through its inputs, 36 products and outputs, in the part's own
   transformed arrays (v and m for part 0 and for a call on one thread). */
static int wino_blocks_part(void *p, int64_t lo, int64_t hi, int part) {
    const wino_job *j = p;
    float *v = j->own_v[part] ? j->own_v[part] : j->v, *m = j->own_m[part] ? j->own_m[part] : j->m;
    for (int64_t b = lo; b < hi; b++) {
        if (!msc_wino_inputs(j, 0, j->c_in, v, b * j->per))
            return 1;
        wino_products(j, v, m, 0, 36);
        msc_wino_outputs(m, j->m_k, j->m_xi, 0, j->k_out, j->k_out, j->tiles, j->out, j->out_h,
                         j->out_w, b * j->per, j->rows);
    }
    return 0;
}

static int wino_inputs_part(void *p, int64_t lo, int64_t hi, int part) {
    const wino_job *j = p;
    (void)part;
    return !msc_wino_inputs(j, lo, hi, j->v, j->block * j->per);
}

static int wino_products_part(void *p, int64_t lo, int64_t hi, int part) {
    (void)part;
    wino_products(p, ((const wino_job *)p)->v, ((const wino_job *)p)->m, lo, hi);
    return 0;
}

static int wino_outputs_part(void *p, int64_t lo, int64_t hi, int part) {
    const wino_job *j = p;
    (void)part;
    msc_wino_outputs(j->m, j->m_k, j->m_xi, lo, hi, j->k_out, j->tiles, j->out, j->out_h, j->out_w,
                     j->block * j->per, j->rows);
    return 0;
}

/* Transformed filters kept between calls (numba_winograd_rt.py's _rt_wino_prepared): by the
   filters' address and sizes, each with a copy of the filters, used while the filters at that
   address hold the same bits (a layer's weights between calls: made at every call, the
   transform, 4x their size, took 5-9% of ResNet's time). A kept transform is never written
   again, and an entry some call reads (users > 0) is not replaced, so calls may share one. */
#define MSC_WINO_KEPT 64
typedef struct {
    const float *w;
    int64_t k_out, c_in, u_k, u_xi;
    float *copy, *u;
    int fits, users;
} wino_kept;
static wino_kept wino_table[MSC_WINO_KEPT];
static pthread_mutex_t wino_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned wino_turn;  /* where the search for an entry to replace starts */

static void wino_release(wino_kept *e) {
    pthread_mutex_lock(&wino_lock);
    e->users--;
    pthread_mutex_unlock(&wino_lock);
}

static int wino_same_key(const wino_kept *t, const wino_job *j) {
    return t->u != NULL && t->w == j->w && t->k_out == j->k_out && t->c_in == j->c_in &&
           t->u_k == j->u_k && t->u_xi == j->u_xi;
}

/* the entry kept for this job's filters, its users counted, if it holds their bits (an
   inference model's weights: always, they never change and any model of this library maps
   the same bytes); or NULL */
static wino_kept *wino_find(const wino_job *j) {
    wino_kept *e = NULL;
    pthread_mutex_lock(&wino_lock);
    for (int i = 0; i < MSC_WINO_KEPT && e == NULL; i++)
        if (wino_same_key(&wino_table[i], j)) e = &wino_table[i];
    if (e != NULL) e->users++;
    pthread_mutex_unlock(&wino_lock);
    if (e != NULL && !j->fixed &&
        memcmp(e->copy, j->w, (size_t)j->k_out * j->c_in * 9 * sizeof(float)) != 0) {
        wino_release(e);
        e = NULL;
    }
    return e;
}

/* Keeps j->u, the malloc'd transform of this job's filters, with a copy of them, in this key's
   entry if no call reads it, else (no entry for the key) in a free one or one no call reads:
   the entry, its users counted, or NULL (j->u not kept). */
static wino_kept *wino_keep(const wino_job *j, int fits) {
    size_t size = (size_t)j->k_out * j->c_in * 9 * sizeof(float);
    float *copy = malloc(size);
    if (copy == NULL) return NULL;
    memcpy(copy, j->w, size);
    wino_kept *e = NULL, *same = NULL;
    pthread_mutex_lock(&wino_lock);
    for (int i = 0; i < MSC_WINO_KEPT && same == NULL; i++)
        if (wino_same_key(&wino_table[i], j)) same = &wino_table[i];
    if (same != NULL) {
        e = same->users == 0 ? same : NULL;
    } else {
        for (int i = 0; i < MSC_WINO_KEPT && e == NULL; i++) {
            wino_kept *t = &wino_table[(wino_turn + i) % MSC_WINO_KEPT];
            if (t->users == 0) e = t;
        }
        wino_turn++;
    }
    if (e != NULL) {
        free(e->copy);
        free(e->u);
        *e = (wino_kept){j->w, j->k_out, j->c_in, j->u_k, j->u_xi, copy, j->u, fits, 1};
    }
    pthread_mutex_unlock(&wino_lock);
    if (e == NULL) free(copy);
    return e;
}

/* The blocks of a Winograd convolution whose filters are transformed (msc_wino_conv): 1, or 0
   where a transformed input is out of range. */
static int wino_run(wino_job j, int64_t blocks) {
    int64_t c_in = j.c_in, k_out = j.k_out;
    int threads = msc_parts(36);  /* (36 products a block) */
    int64_t whole = threads > 1 ? blocks / threads * threads : blocks;
    for (j.block = whole; j.block < blocks; j.block++) {  /* (what does not share out evenly) */
        if (msc_parallel(wino_inputs_part, &j, c_in)) return 0;
        msc_parallel(wino_products_part, &j, 36);
        msc_parallel(wino_outputs_part, &j, k_out);
    }
    if (whole == 0) return 1;
    int parts = msc_parts(whole);
    float *own = NULL;
    if (parts > 1) {  /* (rows as long as v's and m's, for the same products) */
        size_t each_v = (size_t)c_in * j.v_c, each_m = (size_t)k_out * j.m_k;
        own = malloc((size_t)(parts - 1) * (each_v + each_m) * sizeof(float));
        if (own == NULL) parts = 1;
        for (int p = 1; p < parts; p++) {
            j.own_v[p] = own + (size_t)(p - 1) * (each_v + each_m);
            j.own_m[p] = j.own_v[p] + each_v;
        }
    }
    int declined = parts > 1 ? msc_parallel_in(wino_blocks_part, &j, whole, parts)
                             : wino_blocks_part(&j, 0, whole, 0);
    free(own);
    return !declined;
}

/* 0 (out unfinished) where a transformed filter or input is not finite or too large:
   numba_winograd_rt.py's _rt_wino_conv says why, and the caller computes directly. On
   several threads as _rt_wino_threaded: the filters by out channels (or their transform
   kept from an earlier call, wino_find), then the blocks in
   one range per thread, each thread with transformed arrays of its own; the blocks left
   over where they do not share out evenly, block after block its inputs (by channels),
   products (by tile element) and outputs (by out channels). The same bits on any number. */
int msc_wino_conv(const float *src, int64_t n, int64_t c_in, int64_t height, int64_t width,
                  int64_t top, int64_t left, const float *w, int64_t k_out, float *u,
                  int64_t u_k, int64_t u_xi, float *v, int64_t v_c, int64_t v_xi, float *m,
                  int64_t m_k, int64_t m_xi, int64_t tiles, float *out, int64_t out_h,
                  int64_t out_w, int weights) {
    int64_t cols = (out_w + 3) / 4;
    wino_job j = {src, w, u, v, m, out, n, c_in, height, width, top, left, k_out, u_k, u_xi, v_c,
                  v_xi, m_k, m_xi, tiles, out_h, out_w, (out_h + 3) / 4, cols, tiles / cols,
                  {NULL}, {NULL}, 0, weights && !msc_model_desc.writes_weights};
    int64_t blocks = n * j.rows / j.per;
    wino_kept *kept = wino_find(&j);
    float *mine = NULL;  /* this call's transform, not kept */
    if (kept == NULL) {
        float *made = malloc((size_t)k_out * u_k * sizeof(float));
        if (made != NULL) j.u = made;
        int fits = !msc_parallel(wino_filters_part, &j, k_out);
        kept = made != NULL ? wino_keep(&j, fits) : NULL;
        if (kept == NULL) mine = made;
        if (!fits) {
            if (kept != NULL) wino_release(kept);
            free(mine);
            return 0;
        }
    } else if (!kept->fits) {
        wino_release(kept);
        return 0;
    } else {
        j.u = kept->u;
    }
    int done = wino_run(j, blocks);
    if (kept != NULL) wino_release(kept);
    free(mine);
    return done;
}
