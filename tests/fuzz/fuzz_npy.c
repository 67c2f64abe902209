/* libFuzzer target for the .npy reader (runtime/npy.h). For every input:
 *   rt_npy_load_bytes either fails with a JITSCOPE_RUNTIME_ERROR whose message starts with
 *   the file's name, or returns a tensor whose storage holds all its elements; a loaded tensor
 *   written back with rt_npy_to_bytes and read again gives the same dtype, shape and bytes.
 * Any violation aborts. replay.c runs the same function over the seed corpus in every build. */
#include <string.h>

#include "fuzz_common.h"
#include "runtime/npy.h"

static void check_same(const RtTensor *a, const RtTensor *b) {
  if (a->dtype != b->dtype || a->ndim != b->ndim)
    g_error("fuzz invariant: the reloaded tensor has another dtype or rank");
  for (int d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      g_error("fuzz invariant: the reloaded tensor has another shape");
  size_t nbytes = (size_t)rt_tensor_numel(a) * rt_dtype_size(a->dtype);
  if (a->storage->nbytes < nbytes || memcmp(rt_tensor_data(a), rt_tensor_data(b), nbytes) != 0)
    g_error("fuzz invariant: the reloaded tensor has other bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_setup_once();
  GError *error = NULL;
  RtTensor *t = rt_npy_load_bytes(data, size, "fuzz.npy", &error);
  if (t == NULL) {
    if (error == NULL || error->domain != JITSCOPE_RUNTIME_ERROR ||
        !g_str_has_prefix(error->message, "fuzz.npy: "))
      g_error("fuzz invariant: a failed load must set a runtime error naming the file");
    g_error_free(error);
    return 0;
  }
  if (!rt_tensor_is_contiguous(t))
    g_error("fuzz invariant: loaded tensors are contiguous");
  GBytes *written = rt_npy_to_bytes(t);
  gsize n = 0;
  const guint8 *bytes = g_bytes_get_data(written, &n);
  RtTensor *again = rt_npy_load_bytes(bytes, n, "written.npy", &error);
  if (again == NULL)
    g_error("fuzz invariant: what rt_npy_to_bytes wrote does not load: %s", error->message);
  check_same(t, again);
  rt_tensor_unref(again);
  g_bytes_unref(written);
  rt_tensor_unref(t);
  return 0;
}
