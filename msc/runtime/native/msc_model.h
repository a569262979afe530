/* The C ABI of a model msc compiled with `msc compile --native`: libmsc_model.so.
 *
 * Tensors are C-ordered arrays the caller owns. Every function returns 0 on success;
 * after a non-zero return, msc_last_error() gives this thread's message. */
#ifndef MSC_MODEL_H
#define MSC_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct msc_model msc_model;

typedef struct {
    void *data;             /* the elements, C order (NULL in *_info results) */
    int32_t dtype;          /* one of the MSC_* codes below */
    int32_t ndim;
    const int64_t *shape;   /* ndim extents */
} msc_tensor;

enum {
    MSC_BOOL, MSC_INT8, MSC_UINT8, MSC_INT16, MSC_FLOAT16, MSC_INT32, MSC_FLOAT32,
    MSC_INT64, MSC_FLOAT64, MSC_UINT16, MSC_UINT32, MSC_UINT64
};

/* Map the weights (NULL: weights.bin beside the library) and check them against the
 * SHA-256 compiled into the library. */
int msc_model_create(const char *weights_path, msc_model **out);
int msc_model_num_inputs(const msc_model *m);
int msc_model_num_outputs(const msc_model *m);
/* dtype, ndim and shape of input/output i; data is NULL. */
int msc_model_input_info(const msc_model *m, int i, msc_tensor *info);
int msc_model_output_info(const msc_model *m, int i, msc_tensor *info);
/* Run the model on the inputs into the caller-allocated outputs. Every input's and
 * output's dtype and shape is checked. An inference model may run on many threads at
 * once; a model that writes its weights (a training step) runs one call at a time. */
int msc_model_run(msc_model *m, const msc_tensor *inputs, int n_inputs,
                  msc_tensor *outputs, int n_outputs);
/* Parameters by name (the names MindSpore's checkpoints use): copy out or in. */
int msc_model_num_weights(const msc_model *m);
const char *msc_model_weight_name(const msc_model *m, int i);
int msc_model_get_weight(const msc_model *m, const char *name, msc_tensor *value);
int msc_model_set_weight(msc_model *m, const char *name, const msc_tensor *value);
/* This thread's message after a non-zero return. */
const char *msc_last_error(void);

/* The threads one call runs on (default: $MSC_NUM_THREADS, else every CPU the process
   may use); the library's own pool, its BLAS held at one thread. */
void msc_set_num_threads(int n);
int msc_get_num_threads(void);
void msc_model_destroy(msc_model *m);

#ifdef __cplusplus
}
#endif
#endif
