/* Device tensors and the device dispatch of kernels (contract in device.h). */
#include "runtime/device.h"

#include <string.h>

G_DEFINE_QUARK(jitscope - device - declined, rt_device_declined)

#define N_DEVICES 2 /* IrDevice values */

static GMutex registry_lock;
static const RtDeviceBackend *backends[N_DEVICES];
static GPtrArray *notes;  /* of char*, in order */
static GHashTable *noted; /* note text -> itself (in notes) */
static guint round_trips;

void rt_device_register(const RtDeviceBackend *backend) {
  g_assert(backend->device > IR_DEVICE_CPU && backend->device < N_DEVICES &&
           "rt_device_register: a device backend is for a non-CPU device");
  g_mutex_lock(&registry_lock);
  backends[backend->device] = backend;
  g_mutex_unlock(&registry_lock);
}

const RtDeviceBackend *rt_device_backend(int device) {
  if (device <= IR_DEVICE_CPU || device >= N_DEVICES)
    return NULL;
  g_mutex_lock(&registry_lock);
  const RtDeviceBackend *b = backends[device];
  g_mutex_unlock(&registry_lock);
  return b;
}

bool rt_tensor_on_device(const RtTensor *t) {
  return t && t->storage && t->storage->device != IR_DEVICE_CPU && t->storage->free_fn != NULL;
}

int rt_tensor_device(const RtTensor *t) {
  return rt_tensor_on_device(t) ? t->storage->device : IR_DEVICE_CPU;
}

static const RtDeviceBackend *backend_or_error(int device, GError **error) {
  const RtDeviceBackend *b = rt_device_backend(device);
  if (b == NULL)
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "no backend for device %s is loaded",
                ir_device_name(device));
  return b;
}

RtTensor *rt_tensor_to_host(RtTensor *t, GError **error) {
  if (!rt_tensor_on_device(t))
    return rt_tensor_ref(t);
  const RtDeviceBackend *b = backend_or_error(t->storage->device, error);
  RtTensor *h = b ? b->to_host(t, error) : NULL;
  if (h)
    h->requires_grad = t->requires_grad;
  return h;
}

RtTensor *rt_tensor_to_device(RtTensor *t, int device, GError **error) {
  if (device == IR_DEVICE_CPU)
    return rt_tensor_to_host(t, error);
  if (rt_tensor_device(t) == device)
    return rt_tensor_ref(t);
  const RtDeviceBackend *b = backend_or_error(device, error);
  if (b == NULL)
    return NULL;
  RtTensor *host = rt_tensor_to_host(t, error);
  if (host == NULL)
    return NULL;
  RtTensor *d = b->to_device(host, error);
  rt_tensor_unref(host);
  if (d)
    d->requires_grad = t->requires_grad;
  return d;
}

/* Moves every defined tensor of v (recursively) to `device` (IR_DEVICE_CPU: the host). */
static bool move_value(RtValue v, int device, RtValue *out, GError **error) {
  if (v.tag == RT_TENSOR) {
    if (v.u.tensor == NULL) {
      *out = v;
      return true;
    }
    RtTensor *t = rt_tensor_to_device(v.u.tensor, device, error);
    if (t == NULL)
      return false;
    *out = rt_tensor(t);
    return true;
  }
  if (v.tag != RT_LIST && v.tag != RT_TUPLE) {
    *out = rt_value_ref(v);
    return true;
  }
  guint n = v.u.seq->len;
  g_autofree RtValue *items = g_new0(RtValue, n + 1);
  for (guint i = 0; i < n; i++) {
    if (!move_value(v.u.seq->items[i], device, &items[i], error)) {
      for (guint k = 0; k < i; k++)
        rt_value_unref(items[k]);
      return false;
    }
  }
  *out = v.tag == RT_LIST ? rt_list(items, n) : rt_tuple(items, n);
  return true;
}

bool rt_value_to_host(RtValue v, RtValue *out, GError **error) {
  return move_value(v, IR_DEVICE_CPU, out, error);
}

static int value_device(RtValue v) {
  if (v.tag == RT_TENSOR)
    return rt_tensor_device(v.u.tensor);
  if (v.tag == RT_LIST || v.tag == RT_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++) {
      int d = value_device(v.u.seq->items[i]);
      if (d != IR_DEVICE_CPU)
        return d;
    }
  return IR_DEVICE_CPU;
}

/* The first device among the tensor arguments (lists searched too); IR_DEVICE_CPU when every
 * tensor is in host memory. */
static int rt_args_device(const RtValue *args, guint n_args) {
  for (guint i = 0; i < n_args; i++) {
    if (args[i].tag != RT_TENSOR && args[i].tag != RT_LIST)
      continue;
    int d = value_device(args[i]);
    if (d != IR_DEVICE_CPU)
      return d;
  }
  return IR_DEVICE_CPU;
}

static void record_note(char *text) {
  g_mutex_lock(&registry_lock);
  if (notes == NULL) {
    notes = g_ptr_array_new_with_free_func(g_free);
    noted = g_hash_table_new(g_str_hash, g_str_equal);
  }
  round_trips++;
  if (g_hash_table_contains(noted, text)) {
    g_free(text);
  } else {
    g_ptr_array_add(notes, text);
    g_hash_table_add(noted, text);
  }
  g_mutex_unlock(&registry_lock);
}

char **rt_device_notes(void) {
  g_mutex_lock(&registry_lock);
  guint n = notes ? notes->len : 0;
  char **out = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++)
    out[i] = g_strdup(g_ptr_array_index(notes, i));
  g_mutex_unlock(&registry_lock);
  return out;
}

guint rt_device_round_trips(void) {
  g_mutex_lock(&registry_lock);
  guint n = round_trips;
  g_mutex_unlock(&registry_lock);
  return n;
}

static void unref_values(RtValue *v, guint n) {
  for (guint i = 0; i < n; i++)
    rt_value_unref(v[i]);
}

/* Moves args to `device`, runs `kernel` on them, and (when `back` is a device) moves the
 * outputs there. */
static bool run_moved(RtKernelFn kernel, const IrSchema *schema, const IrNode *node, RtValue *args,
                      guint n_args, RtValue *outs, guint n_outs, int device, int back,
                      GError **error) {
  RtValue *moved = g_new0(RtValue, n_args + 1);
  guint done = 0;
  bool ok = true;
  for (; done < n_args && ok; done++)
    ok = move_value(args[done], device, &moved[done], error);
  if (!ok) {
    unref_values(moved, done - 1);
    g_free(moved);
    return false;
  }
  RtValue *results = g_new0(RtValue, n_outs + 1);
  ok = kernel(schema, node, moved, n_args, results, n_outs, error);
  unref_values(moved, n_args);
  g_free(moved);
  if (!ok) {
    g_free(results);
    return false;
  }
  guint o = 0;
  for (; o < n_outs && ok; o++) {
    if (back == device) {
      outs[o] = results[o];
      continue;
    }
    ok = move_value(results[o], back, &outs[o], error);
    rt_value_unref(results[o]);
  }
  if (!ok) {
    unref_values(outs, o - 1);
    unref_values(results + o, n_outs - o);
  }
  g_free(results);
  return ok;
}

/* A kernel call with a list among its arguments or a tensor that may be on a device: the
 * host kernel when every tensor is in host memory, else the device kernel, else the host
 * kernel on copies. */
static G_GNUC_NO_INLINE bool call_any_device(RtKernelFn kernel, const IrSchema *schema,
                                             const IrNode *node, RtValue *args, guint n_args,
                                             RtValue *outs, guint n_outs, GError **error) {
  int device = rt_args_device(args, n_args);
  if (device == IR_DEVICE_CPU)
    return kernel(schema, node, args, n_args, outs, n_outs, error);
  const RtDeviceBackend *b = backend_or_error(device, error);
  if (b == NULL)
    return false;
  RtKernelFn dk = b->kernel_for ? b->kernel_for(schema) : NULL;
  g_autofree char *why = NULL;
  if (dk != NULL) {
    g_autoptr(GError) local = NULL;
    if (run_moved(dk, schema, node, args, n_args, outs, n_outs, device, device, &local))
      return true;
    if (local->domain != RT_DEVICE_DECLINED) {
      g_propagate_error(error, g_steal_pointer(&local));
      return false;
    }
    why = g_strdup(local->message);
  }
  record_note(g_strdup_printf("%s on %s: %s; ran on the host (inputs copied from the device, "
                              "results copied back)",
                              schema->text, b->name, why ? why : "no device kernel"));
  return run_moved(kernel, schema, node, args, n_args, outs, n_outs, IR_DEVICE_CPU, device, error);
}

bool rt_kernel_call(RtKernelFn kernel, const IrSchema *schema, const IrNode *node, RtValue *args,
                    guint n_args, RtValue *outs, guint n_outs, GError **error) {
  /* Host tensors and scalars, the common case, in a loop without calls (so without saving
   * registers): every interpreted node comes here. */
  for (guint i = 0; i < n_args; i++) {
    const RtTensor *t = args[i].tag == RT_TENSOR ? args[i].u.tensor : NULL;
    if (args[i].tag == RT_LIST || (t && !(t->storage && (t->storage->device == IR_DEVICE_CPU ||
                                                         t->storage->free_fn == NULL))))
      return call_any_device(kernel, schema, node, args, n_args, outs, n_outs, error);
  }
  return kernel(schema, node, args, n_args, outs, n_outs, error);
}

RtTensor *rt_tensor_sum_to_any(RtTensor *t, int ndim, const int64_t *sizes, GError **error) {
  if (!rt_tensor_on_device(t))
    return rt_tensor_sum_to(t, ndim, sizes, error);
  const RtDeviceBackend *b = backend_or_error(t->storage->device, error);
  if (b == NULL)
    return NULL;
  if (b->sum_to)
    return b->sum_to(t, ndim, sizes, error);
  RtTensor *host = rt_tensor_to_host(t, error);
  if (host == NULL)
    return NULL;
  RtTensor *summed = rt_tensor_sum_to(host, ndim, sizes, error);
  rt_tensor_unref(host);
  if (summed == NULL)
    return NULL;
  RtTensor *d = rt_tensor_to_device(summed, t->storage->device, error);
  rt_tensor_unref(summed);
  return d;
}

RtTensor *rt_tensor_full_like_device(const RtTensor *like, IrDtype dtype, int ndim,
                                     const int64_t *sizes, double value, GError **error) {
  RtTensor *host = rt_tensor_full(dtype, ndim, sizes, value);
  if (!rt_tensor_on_device(like))
    return host;
  RtTensor *d = rt_tensor_to_device(host, like->storage->device, error);
  rt_tensor_unref(host);
  return d;
}
