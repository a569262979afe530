/* Run a model msc compiled with `msc compile --native`, from C alone.
 *
 *   run_model [--threads N] [--repeat R] [--out DIR] INPUT.bin ...
 *
 * Each INPUT.bin holds one input's elements in C order (its dtype and shape are the
 * model's: msc_model_input_info). The outputs are written to DIR/output<k>.bin (with
 * --out) and summarised on stdout. With --threads N, N threads run the one model at once,
 * R times each, and every result must equal the first thread's to the byte. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msc_model.h"

static const int SIZES[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};
static const char *NAMES[] = {"bool", "int8", "uint8", "int16", "float16", "int32",
                              "float32", "int64", "float64", "uint16", "uint32", "uint64"};

static size_t nbytes(const msc_tensor *t) {
    size_t n = (size_t)SIZES[t->dtype];
    for (int d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
    return n;
}

static int die(const char *what) {
    fprintf(stderr, "run_model: %s: %s\n", what, msc_last_error());
    return 1;
}

typedef struct {
    msc_model *model;
    msc_tensor *inputs, *outputs;
    int n_in, n_out, repeat, status;
} job;

static void *work(void *arg) {
    job *j = arg;
    for (int r = 0; r < j->repeat && j->status == 0; r++)
        if (msc_model_run(j->model, j->inputs, j->n_in, j->outputs, j->n_out) != 0) j->status = 1;
    return NULL;
}

static msc_tensor *outputs_of(msc_model *m, int n) {
    msc_tensor *out = calloc((size_t)n, sizeof *out);
    for (int k = 0; k < n; k++) {
        msc_model_output_info(m, k, &out[k]);
        out[k].data = malloc(nbytes(&out[k]) + 1);
    }
    return out;
}

int main(int argc, char **argv) {
    int threads = 1, repeat = 1, a = 1;
    const char *out_dir = NULL;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
        if (a + 1 >= argc) { fprintf(stderr, "run_model: %s needs a value\n", argv[a]); return 2; }
        if (!strcmp(argv[a], "--threads")) threads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--repeat")) repeat = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--out")) out_dir = argv[a + 1];
        else { fprintf(stderr, "run_model: unknown option %s\n", argv[a]); return 2; }
    }
    msc_model *m;
    if (msc_model_create(NULL, &m) != 0) return die("create");
    int n_in = msc_model_num_inputs(m), n_out = msc_model_num_outputs(m);
    if (argc - a != n_in) {
        fprintf(stderr, "run_model: the model takes %d inputs, %d files were given\n", n_in, argc - a);
        return 2;
    }
    msc_tensor *inputs = calloc((size_t)n_in + 1, sizeof *inputs);
    for (int i = 0; i < n_in; i++, a++) {
        msc_model_input_info(m, i, &inputs[i]);
        size_t want = nbytes(&inputs[i]);
        inputs[i].data = malloc(want + 1);
        FILE *f = fopen(argv[a], "rb");
        size_t got = f ? fread(inputs[i].data, 1, want + 1, f) : 0;
        if (f) fclose(f);
        if (got != want) {
            fprintf(stderr, "run_model: %s holds %zu bytes, input %d needs %zu\n", argv[a], got, i, want);
            return 2;
        }
    }
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){m, inputs, outputs_of(m, n_out), n_in, n_out, repeat, 0};
        pthread_create(&ids[t], NULL, work, &jobs[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    for (int t = 0; t < threads; t++)
        if (jobs[t].status) return die("run");
    for (int t = 1; t < threads; t++)
        for (int k = 0; k < n_out; k++)
            if (memcmp(jobs[t].outputs[k].data, jobs[0].outputs[k].data, nbytes(&jobs[0].outputs[k]))) {
                fprintf(stderr, "run_model: thread %d's output %d differs from thread 0's\n", t, k);
                return 3;
            }
    for (int k = 0; k < n_out; k++) {
        msc_tensor *o = &jobs[0].outputs[k];
        printf("output %d: %s[", k, NAMES[o->dtype]);
        for (int d = 0; d < o->ndim; d++) printf(d ? ", %lld" : "%lld", (long long)o->shape[d]);
        printf("]");
        if (o->dtype == MSC_FLOAT32 && nbytes(o) >= 4) printf(" first %g", ((float *)o->data)[0]);
        printf("\n");
        if (out_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/output%d.bin", out_dir, k);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(o->data, 1, nbytes(o), f) != nbytes(o)) { fprintf(stderr, "run_model: cannot write %s\n", path); return 2; }
            fclose(f);
        }
    }
    if (threads > 1) printf("%d threads x %d runs: the same bytes\n", threads, repeat);
    msc_model_destroy(m);
    return 0;
}
