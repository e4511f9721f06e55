/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* litert_runtime.c: LiteRT loaded with dlopen, compiled models with float
 * host buffers, and the per-model pools (litert_runtime.h). */
#include "litert_runtime.h"
#include "litert_api.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DM_NN_MAX_TENSORS 8
/* XNNPACK reads whole SIMD vectors past a tensor's end: buffers get this
 * much slack and 64-byte alignment. */
#define DM_NN_SLACK 64

static struct
{
#define F(ret, name, args) ret (*name) args;
  DM_LITERT_FUNCTIONS (F)
#undef F
} api;

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static int runtime_state;       /* 0 not tried, 1 loaded, -1 failed */
static char runtime_why[512];
static LiteRtEnvironment environment;

/* LiteRT logs to stderr (accelerator registries, "sparsity tensors may not
 * yet be fully supported") with no exported way to lower its level: while it
 * loads and compiles (tens of milliseconds, once per instance) stderr points
 * at /dev/null, unless DEPTHMATTE_LITERT_LOG is set. Nothing it prints is an
 * error the caller does not also get as a status. */
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;

static int
quiet_begin (void)
{
  int saved = -1, null;
  pthread_mutex_lock (&quiet_lock);
  if (getenv ("DEPTHMATTE_LITERT_LOG"))
    return -1;
  fflush (stderr);
  saved = dup (2);
  null = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved >= 0 && null >= 0)
    dup2 (null, 2);
  if (null >= 0)
    close (null);
  return saved;
}

static void
quiet_end (int saved)
{
  if (saved >= 0) {
    fflush (stderr);
    dup2 (saved, 2);
    close (saved);
  }
  pthread_mutex_unlock (&quiet_lock);
}

static void
say (char *why, size_t why_len, const char *format, ...)
{
  va_list args;
  if (!why || !why_len)
    return;
  va_start (args, format);
  vsnprintf (why, why_len, format, args);
  va_end (args);
}

int
dm_nn_find (const char *name, char *path, size_t path_len, char *why,
    size_t why_len)
{
  const char *env = getenv ("DEPTHMATTE_DATA_DIR");
  const char *xdg = getenv ("XDG_DATA_HOME"), *home = getenv ("HOME");
  char dirs[4][1024];
  size_t n = 0, i, used = 0;

  if (env && *env)
    snprintf (dirs[n++], sizeof dirs[0], "%s", env);
  if (xdg && *xdg)
    snprintf (dirs[n++], sizeof dirs[0], "%s/depthmatte", xdg);
  else if (home && *home)
    snprintf (dirs[n++], sizeof dirs[0], "%s/.local/share/depthmatte", home);
  snprintf (dirs[n++], sizeof dirs[0], "/usr/local/share/depthmatte");
  snprintf (dirs[n++], sizeof dirs[0], "/usr/share/depthmatte");
  for (i = 0; i < n; i++) {
    snprintf (path, path_len, "%s/%s", dirs[i], name);
    if (access (path, R_OK) == 0)
      return 0;
  }
  if (why && why_len) {
    used = (size_t) snprintf (why, why_len, "%s is in none of", name);
    for (i = 0; i < n && used < why_len; i++)
      used += (size_t) snprintf (why + used, why_len - used, "%s %s",
          i ? "," : "", dirs[i]);
  }
  return -1;
}

int
dm_nn_runtime_load (const char *path, char *why, size_t why_len)
{
  int state;
  pthread_mutex_lock (&runtime_lock);
  if (runtime_state == 0) {
    int quiet = quiet_begin ();
    void *lib = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    runtime_state = 1;
    if (!lib) {
      const char *e = dlerror ();
      snprintf (runtime_why, sizeof runtime_why, "cannot load %s: %s", path,
          e ? e : "unknown error");
      runtime_state = -1;
    }
#define F(ret, name, args) \
    if (runtime_state == 1 && !(*(void **) &api.name = dlsym (lib, #name))) { \
      snprintf (runtime_why, sizeof runtime_why, \
          "%s is not the LiteRT runtime this plugin was built for: it has no %s", \
          path, #name); \
      runtime_state = -1; \
    }
    DM_LITERT_FUNCTIONS (F)
#undef F
    if (runtime_state == 1
        && api.LiteRtCreateEnvironment (0, NULL, &environment) != DM_LITERT_OK) {
      snprintf (runtime_why, sizeof runtime_why,
          "the LiteRT runtime at %s could not create its environment", path);
      runtime_state = -1;
    }
    if (runtime_state == -1 && lib)
      dlclose (lib);
    quiet_end (quiet);
  }
  state = runtime_state;
  if (state != 1)
    say (why, why_len, "%s", runtime_why);
  pthread_mutex_unlock (&runtime_lock);
  return state == 1 ? 0 : -1;
}

/* ---- one compiled model ---------------------------------------------------- */

typedef struct
{
  LiteRtTensorBuffer buffer;
  float *data;
  size_t count;
  int rank;
  int32_t dims[DM_LITERT_MAX_RANK];
} DMNNTensor;

struct DMNNModel
{
  LiteRtModel model;
  LiteRtCompiledModel compiled;
  int n_inputs, n_outputs;
  DMNNTensor inputs[DM_NN_MAX_TENSORS], outputs[DM_NN_MAX_TENSORS];
  LiteRtTensorBuffer in_buffers[DM_NN_MAX_TENSORS], out_buffers[DM_NN_MAX_TENSORS];
  DMNNModel *next_free;         /* the pool's free list */
};

/* One signature tensor's float host buffer, sized by the compiled model's
 * requirements. */
static int
make_tensor (DMNNModel * m, LiteRtSignature signature, int input, int index,
    DMNNTensor * t, char *why, size_t why_len)
{
  LiteRtTensor tensor;
  LiteRtRankedTensorType type;
  LiteRtTensorBufferRequirements req;
  size_t size = 0, count = 1;
  int i;
  const char *side = input ? "input" : "output";

  if ((input ? api.LiteRtGetSignatureInputTensorByIndex (signature, index,
              &tensor) : api.LiteRtGetSignatureOutputTensorByIndex (signature,
              index, &tensor)) != DM_LITERT_OK
      || api.LiteRtGetRankedTensorType (tensor, &type) != DM_LITERT_OK) {
    say (why, why_len, "cannot read the type of %s tensor %d", side, index);
    return -1;
  }
  if (type.element_type != DM_LITERT_FLOAT32 || type.layout.rank < 1
      || type.layout.rank > DM_LITERT_MAX_RANK) {
    say (why, why_len, "%s tensor %d is not a float32 tensor of rank 1 to 8 "
        "(element type %d, rank %u)", side, index, type.element_type,
        type.layout.rank);
    return -1;
  }
  t->rank = type.layout.rank;
  for (i = 0; i < t->rank; i++) {
    t->dims[i] = type.layout.dimensions[i];
    if (t->dims[i] <= 0) {
      say (why, why_len, "%s tensor %d has a dynamic size", side, index);
      return -1;
    }
    count *= (size_t) t->dims[i];
  }
  if ((input ? api.LiteRtGetCompiledModelInputBufferRequirements (m->compiled,
              0, index, &req) :
          api.LiteRtGetCompiledModelOutputBufferRequirements (m->compiled, 0,
              index, &req)) != DM_LITERT_OK
      || api.LiteRtGetTensorBufferRequirementsBufferSize (req,
          &size) != DM_LITERT_OK)
    size = count * sizeof (float);
  if (size < count * sizeof (float))
    size = count * sizeof (float);
  if (posix_memalign ((void **) &t->data, 64, size + DM_NN_SLACK) != 0) {
    t->data = NULL;
    say (why, why_len, "out of memory for %s tensor %d", side, index);
    return -1;
  }
  memset (t->data, 0, size + DM_NN_SLACK);
  t->count = count;
  if (api.LiteRtCreateTensorBufferFromHostMemory (&type, t->data, size, NULL,
          &t->buffer) != DM_LITERT_OK) {
    t->buffer = NULL;
    say (why, why_len, "cannot wrap %s tensor %d in a tensor buffer", side,
        index);
    return -1;
  }
  return 0;
}

static DMNNModel *model_new (const char *path, char *why, size_t why_len);

DMNNModel *
dm_nn_model_new (const char *path, char *why, size_t why_len)
{
  int quiet, loaded;
  DMNNModel *m;

  pthread_mutex_lock (&runtime_lock);
  loaded = runtime_state == 1;
  pthread_mutex_unlock (&runtime_lock);
  if (!loaded) {
    say (why, why_len, "the LiteRT runtime is not loaded");
    return NULL;
  }
  quiet = quiet_begin ();
  m = model_new (path, why, why_len);
  quiet_end (quiet);
  return m;
}

static DMNNModel *
model_new (const char *path, char *why, size_t why_len)
{
  DMNNModel *m;
  LiteRtOptions options = NULL;
  LiteRtOpaqueOptions cpu = NULL;
  LiteRtSignature signature;
  LiteRtParamIndex n_in = 0, n_out = 0;
  int i;

  if (access (path, R_OK) != 0) {
    say (why, why_len, "model file %s cannot be read", path);
    return NULL;
  }
  m = calloc (1, sizeof *m);
  if (!m) {
    say (why, why_len, "out of memory");
    return NULL;
  }
  if (api.LiteRtCreateModelFromFile (environment, path,
          &m->model) != DM_LITERT_OK) {
    m->model = NULL;
    say (why, why_len, "%s is not a model LiteRT can read", path);
    goto fail;
  }
  if (api.LiteRtCreateOptions (&options) != DM_LITERT_OK) {
    options = NULL;
    say (why, why_len, "cannot create LiteRT options");
    goto fail;
  }
  api.LiteRtSetOptionsHardwareAccelerators (options, DM_LITERT_CPU);
  /* One thread per instance: the pool gives each core its own instance. */
  {
    char *toml = strdup ("num_threads = 1\n");
    if (toml && api.LiteRtCreateOpaqueOptions ("xnnpack", toml, free,
            &cpu) == DM_LITERT_OK)
      api.LiteRtAddOpaqueOptions (options, cpu);
    else
      free (toml);
  }
  if (api.LiteRtCreateCompiledModel (environment, m->model, options,
          &m->compiled) != DM_LITERT_OK) {
    m->compiled = NULL;
    say (why, why_len, "LiteRT cannot compile %s for the CPU", path);
    goto fail;
  }
  api.LiteRtDestroyOptions (options);
  options = NULL;
  if (api.LiteRtGetModelSignature (m->model, 0, &signature) != DM_LITERT_OK
      || api.LiteRtGetNumSignatureInputs (signature, &n_in) != DM_LITERT_OK
      || api.LiteRtGetNumSignatureOutputs (signature, &n_out) != DM_LITERT_OK
      || n_in < 1 || n_in > DM_NN_MAX_TENSORS || n_out < 1
      || n_out > DM_NN_MAX_TENSORS) {
    say (why, why_len, "%s has no signature of 1 to %d inputs and outputs",
        path, DM_NN_MAX_TENSORS);
    goto fail;
  }
  m->n_inputs = (int) n_in;
  m->n_outputs = (int) n_out;
  for (i = 0; i < m->n_inputs; i++) {
    if (make_tensor (m, signature, 1, i, &m->inputs[i], why, why_len) != 0)
      goto fail;
    m->in_buffers[i] = m->inputs[i].buffer;
  }
  for (i = 0; i < m->n_outputs; i++) {
    if (make_tensor (m, signature, 0, i, &m->outputs[i], why, why_len) != 0)
      goto fail;
    m->out_buffers[i] = m->outputs[i].buffer;
  }
  return m;

fail:
  if (options)
    api.LiteRtDestroyOptions (options);
  dm_nn_model_free (m);
  return NULL;
}

void
dm_nn_model_free (DMNNModel * m)
{
  int i;
  if (!m)
    return;
  for (i = 0; i < DM_NN_MAX_TENSORS; i++) {
    if (m->inputs[i].buffer)
      api.LiteRtDestroyTensorBuffer (m->inputs[i].buffer);
    if (m->outputs[i].buffer)
      api.LiteRtDestroyTensorBuffer (m->outputs[i].buffer);
    free (m->inputs[i].data);
    free (m->outputs[i].data);
  }
  if (m->compiled)
    api.LiteRtDestroyCompiledModel (m->compiled);
  if (m->model)
    api.LiteRtDestroyModel (m->model);
  free (m);
}

int
dm_nn_model_input_count (const DMNNModel * m)
{
  return m ? m->n_inputs : 0;
}

int
dm_nn_model_output_count (const DMNNModel * m)
{
  return m ? m->n_outputs : 0;
}

/* Tensor `index` of `tensors` (`n` of them), or NULL; its count into `count`. */
static DMNNTensor *
tensor_at (DMNNTensor * tensors, int n, int index, size_t *count)
{
  DMNNTensor *t = (tensors && index >= 0 && index < n) ? &tensors[index] : NULL;
  if (count)
    *count = t ? t->count : 0;
  return t;
}

float *
dm_nn_model_input (DMNNModel * m, int index, size_t *count)
{
  DMNNTensor *t = tensor_at (m ? m->inputs : NULL, m ? m->n_inputs : 0, index,
      count);
  return t ? t->data : NULL;
}

const float *
dm_nn_model_output (DMNNModel * m, int index, size_t *count)
{
  DMNNTensor *t = tensor_at (m ? m->outputs : NULL, m ? m->n_outputs : 0,
      index, count);
  return t ? t->data : NULL;
}

static int
shape (const DMNNTensor * t, int32_t dims[8])
{
  int i;
  for (i = 0; i < t->rank; i++)
    dims[i] = t->dims[i];
  return t->rank;
}

int
dm_nn_model_input_shape (const DMNNModel * m, int index, int32_t dims[8])
{
  return (m && index >= 0 && index < m->n_inputs) ?
      shape (&m->inputs[index], dims) : 0;
}

int
dm_nn_model_output_shape (const DMNNModel * m, int index, int32_t dims[8])
{
  return (m && index >= 0 && index < m->n_outputs) ?
      shape (&m->outputs[index], dims) : 0;
}

/* At most one run per online core at a time in the process, whatever the
 * model: each instance runs on one thread, so the streams of a process never
 * ask the cores for more than they have. */
static pthread_mutex_t cores_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cores_free = PTHREAD_COND_INITIALIZER;
static int cores_busy, cores_online;

int
dm_nn_model_run (DMNNModel * m, char *why, size_t why_len)
{
  LiteRtStatus status;
  if (!m)
    return -1;
  pthread_mutex_lock (&cores_lock);
  if (!cores_online) {
    long n = sysconf (_SC_NPROCESSORS_ONLN);
    cores_online = n > 0 ? (int) n : 1;
  }
  while (cores_busy >= cores_online)
    pthread_cond_wait (&cores_free, &cores_lock);
  cores_busy++;
  pthread_mutex_unlock (&cores_lock);
  status = api.LiteRtRunCompiledModel (m->compiled, 0, (size_t) m->n_inputs,
      m->in_buffers, (size_t) m->n_outputs, m->out_buffers);
  pthread_mutex_lock (&cores_lock);
  cores_busy--;
  pthread_cond_signal (&cores_free);
  pthread_mutex_unlock (&cores_lock);
  if (status != DM_LITERT_OK) {
    say (why, why_len, "LiteRT failed to run the model (status %d)", status);
    return -1;
  }
  return 0;
}

/* ---- pools --------------------------------------------------------------------- */

struct DMNNPool
{
  char *path;
  int cap, made, verdict;
  char why[512];
  DMNNModel *free_list;
  pthread_mutex_t lock;
  pthread_cond_t released;
  DMNNPool *next;
};

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static DMNNPool *pools;

DMNNPool *
dm_nn_pool_get (const char *path, int cap)
{
  DMNNPool *p;
  pthread_mutex_lock (&pools_lock);
  for (p = pools; p; p = p->next)
    if (strcmp (p->path, path) == 0)
      break;
  if (!p && (p = calloc (1, sizeof *p)) && (p->path = strdup (path))) {
    long cores = sysconf (_SC_NPROCESSORS_ONLN);
    p->cap = cap > 0 ? cap : (cores > 0 ? (int) cores : 1);
    pthread_mutex_init (&p->lock, NULL);
    pthread_cond_init (&p->released, NULL);
    p->next = pools;
    pools = p;
  } else if (p && !p->path) {
    free (p);
    p = NULL;
  }
  pthread_mutex_unlock (&pools_lock);
  return p;
}

DMNNModel *
dm_nn_pool_acquire (DMNNPool * p, char *why, size_t why_len)
{
  DMNNModel *m = NULL;
  if (!p)
    return NULL;
  pthread_mutex_lock (&p->lock);
  for (;;) {
    if (p->free_list) {
      m = p->free_list;
      p->free_list = m->next_free;
      m->next_free = NULL;
      break;
    }
    if (p->made < p->cap) {
      /* compile outside the lock: it takes tens of milliseconds */
      p->made++;
      pthread_mutex_unlock (&p->lock);
      m = dm_nn_model_new (p->path, why, why_len);
      pthread_mutex_lock (&p->lock);
      if (!m) {
        p->made--;
        pthread_cond_broadcast (&p->released);
        if (p->made == 0)
          break;
        continue;
      }
      break;
    }
    pthread_cond_wait (&p->released, &p->lock);
  }
  pthread_mutex_unlock (&p->lock);
  return m;
}

void
dm_nn_pool_release (DMNNPool * p, DMNNModel * m)
{
  if (!p || !m)
    return;
  pthread_mutex_lock (&p->lock);
  m->next_free = p->free_list;
  p->free_list = m;
  pthread_cond_signal (&p->released);
  pthread_mutex_unlock (&p->lock);
}

int
dm_nn_pool_verdict (DMNNPool * p, char *why, size_t why_len)
{
  int v;
  if (!p)
    return -1;
  pthread_mutex_lock (&p->lock);
  v = p->verdict;
  if (v < 0)
    say (why, why_len, "%s", p->why);
  pthread_mutex_unlock (&p->lock);
  return v;
}

void
dm_nn_pool_set_verdict (DMNNPool * p, int verdict, const char *why)
{
  if (!p)
    return;
  pthread_mutex_lock (&p->lock);
  p->verdict = verdict;
  snprintf (p->why, sizeof p->why, "%s", why ? why : "");
  pthread_mutex_unlock (&p->lock);
}
