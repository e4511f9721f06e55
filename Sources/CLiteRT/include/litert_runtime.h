/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* litert_runtime.h: the LiteRT inference runtime (libLiteRt.so from the
 * pinned ai-edge-litert wheel, loaded with dlopen at first use), as the few
 * calls the learned elements need: a compiled model with float host buffers,
 * and a process-wide pool of them per model file.
 *
 * A model instance runs on one CPU thread and owns its input and output
 * buffers (nothing is allocated per run). The pool lends at most `cap`
 * instances of one model at a time (one per core), so every stream of a
 * process shares the cores instead of oversubscribing them; a caller that
 * finds them all busy waits for one.
 *
 * Error reporting: functions that can fail take `why` (a buffer of
 * `why_len` bytes) and write one line saying why. */
#ifndef DM_LITERT_RUNTIME_H
#define DM_LITERT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime library's file name inside a data folder. */
#define DM_NN_RUNTIME_FILE "libLiteRt.so"

/* The data folder's file `name` (the runtime, or models/NAME.tflite): the
 * first readable one of $DEPTHMATTE_DATA_DIR/name,
 * ${XDG_DATA_HOME:-~/.local/share}/depthmatte/name,
 * /usr/local/share/depthmatte/name and /usr/share/depthmatte/name, into
 * `path`. 0, or -1 with the places searched in `why`. */
int dm_nn_find(const char *name, char *path, size_t path_len, char *why,
    size_t why_len);

/* Load the runtime from `path` (once per process; later calls return the
 * first call's result). 0 on success. */
int dm_nn_runtime_load(const char *path, char *why, size_t why_len);

typedef struct DMNNModel DMNNModel;

/* Compile the .tflite file at `path` for one CPU thread. NULL on failure. */
DMNNModel *dm_nn_model_new(const char *path, char *why, size_t why_len);
void dm_nn_model_free(DMNNModel *model);

int dm_nn_model_input_count(const DMNNModel *model);
int dm_nn_model_output_count(const DMNNModel *model);
/* A float32 tensor's host memory, its element count and its shape (`dims`
 * gets up to 8 sizes; the rank is returned). NULL / 0 for a bad index. */
float *dm_nn_model_input(DMNNModel *model, int index, size_t *count);
const float *dm_nn_model_output(DMNNModel *model, int index, size_t *count);
int dm_nn_model_input_shape(const DMNNModel *model, int index, int32_t dims[8]);
int dm_nn_model_output_shape(const DMNNModel *model, int index, int32_t dims[8]);

/* Run the model on its input buffers, waiting while every online core runs
 * one already (process-wide). 0 on success. */
int dm_nn_model_run(DMNNModel *model, char *why, size_t why_len);

typedef struct DMNNPool DMNNPool;

/* The process-wide pool of the model file at `path`, made at the first call
 * with at most `cap` instances (cap <= 0: the number of online cores). */
DMNNPool *dm_nn_pool_get(const char *path, int cap);
/* An instance for the caller alone until released: a free one, a new one
 * while fewer than `cap` exist, else the next one released. NULL when a new
 * one cannot be compiled (and none exists to wait for). */
DMNNModel *dm_nn_pool_acquire(DMNNPool *pool, char *why, size_t why_len);
void dm_nn_pool_release(DMNNPool *pool, DMNNModel *model);
/* The result of the pool's start-up self-test: 0 not run yet, 1 passed,
 * -1 failed (then `why` holds the reason, if given). */
int dm_nn_pool_verdict(DMNNPool *pool, char *why, size_t why_len);
void dm_nn_pool_set_verdict(DMNNPool *pool, int verdict, const char *why);

#ifdef __cplusplus
}
#endif
#endif
