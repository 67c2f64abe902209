/* The host memory budget (contract in memory_budget.h). */
#include "tensor/memory_budget.h"

#include <stdatomic.h>
#include <unistd.h>

static _Atomic uint64_t budget_bytes; /* 0: not set, use the default */
static _Atomic int64_t in_use_bytes;

/* Read once: sysconf(_SC_PHYS_PAGES) is a system call, and every checked allocation asks. */
static guint64 default_budget(void) {
  static gsize once = 0;
  static guint64 bytes;
  if (g_once_init_enter(&once)) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    bytes = pages <= 0 || page_size <= 0
                ? G_GUINT64_CONSTANT(4) << 30 /* physical memory unknown: 4 GiB */
                : (guint64)pages * (guint64)page_size / 2;
    g_once_init_leave(&once, 1);
  }
  return bytes;
}

void rt_memory_budget_set(guint64 bytes) {
  atomic_store(&budget_bytes, bytes);
}

static guint64 rt_memory_budget(void) {
  guint64 bytes = atomic_load(&budget_bytes);
  return bytes ? bytes : default_budget();
}

/* Bytes of host storage alive now. */
static guint64 rt_memory_in_use(void) {
  int64_t n = atomic_load(&in_use_bytes);
  return n > 0 ? (guint64)n : 0;
}

void rt_memory_note_alloc(size_t nbytes) {
  atomic_fetch_add(&in_use_bytes, (int64_t)nbytes);
}

void rt_memory_note_free(size_t nbytes) {
  atomic_fetch_sub(&in_use_bytes, (int64_t)nbytes);
}

/* "37.3 GiB" with an ASCII space (g_format_size writes a no-break space, which the C locale
 * prints as '?'). */
static char *format_bytes(guint64 n) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (n < 1024)
    return g_strdup_printf("%" G_GUINT64_FORMAT " bytes", n);
  double v = (double)n;
  guint u = 0;
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS(units)) {
    v /= 1024.0;
    u++;
  }
  return g_strdup_printf("%.1f %s", v, units[u]);
}

bool rt_memory_check(guint64 nbytes, GError **error) {
  guint64 budget = rt_memory_budget(), in_use = rt_memory_in_use();
  if (nbytes <= budget && in_use <= budget - nbytes)
    return true;
  g_autofree char *need = format_bytes(nbytes);
  g_autofree char *limit = format_bytes(budget);
  g_autofree char *used = format_bytes(in_use);
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_MEMORY,
              "out of memory budget: needs %s with %s in use, the budget is %s (--max-memory)",
              need, used, limit);
  return false;
}

bool rt_shape_checked_bytes(IrDtype dtype, int ndim, const int64_t *sizes, guint64 *nbytes,
                            GError **error) {
  if (ndim < 0 || ndim > RT_MAX_DIMS) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE, "rank %d outside [0, %d]", ndim,
                RT_MAX_DIMS);
    return false;
  }
  int64_t numel = 1, extent = 1; /* extent: the product with 0 counted as 1 */
  for (int d = 0; d < ndim; d++) {
    if (sizes[d] < 0 || (sizes[d] > 1 && extent > INT64_MAX / sizes[d])) {
      g_autofree char *shape = rt_shape_to_string(ndim, sizes);
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                  sizes[d] < 0 ? "shape %s has a negative size"
                               : "shape %s is too large (its element count overflows int64)",
                  shape);
      return false;
    }
    if (sizes[d] > 1)
      extent *= sizes[d];
    numel = sizes[d] == 0 ? 0 : numel * sizes[d];
  }
  guint64 es = rt_dtype_size(dtype);
  if ((guint64)numel > G_MAXSIZE / es) {
    g_autofree char *shape = rt_shape_to_string(ndim, sizes);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "shape %s is too large (its byte size overflows)", shape);
    return false;
  }
  *nbytes = (guint64)numel * es;
  return true;
}

static bool shape_fits_budget(IrDtype dtype, int ndim, const int64_t *sizes, GError **error) {
  guint64 nbytes = 0;
  return rt_shape_checked_bytes(dtype, ndim, sizes, &nbytes, error) &&
         rt_memory_check(nbytes, error);
}

RtTensor *rt_tensor_new_checked(IrDtype dtype, int ndim, const int64_t *sizes, GError **error) {
  return shape_fits_budget(dtype, ndim, sizes, error) ? rt_tensor_new(dtype, ndim, sizes) : NULL;
}

RtTensor *rt_tensor_zeros_checked(IrDtype dtype, int ndim, const int64_t *sizes, GError **error) {
  return shape_fits_budget(dtype, ndim, sizes, error) ? rt_tensor_zeros(dtype, ndim, sizes) : NULL;
}

RtTensor *rt_tensor_full_checked(IrDtype dtype, int ndim, const int64_t *sizes, double value,
                                 GError **error) {
  return shape_fits_budget(dtype, ndim, sizes, error) ? rt_tensor_full(dtype, ndim, sizes, value)
                                                      : NULL;
}
