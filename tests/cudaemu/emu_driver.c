/* A CUDA driver for tests without a GPU: libcuda.so.1 of the CUDA emulator, which the tests
 * load through JITSCOPE_CUDA_LIBDIR together with emu_nvrtc.c and emu_cublas.c. It exercises
 * everything of ours that talks to CUDA (loading, contexts, stream-ordered memory, copies,
 * module loading, launches with their parameter arrays, cuBLAS) and runs the generated kernels
 * compiled for the host. It is strict where a real driver is, so that our mistakes show:
 *
 * - calls before cuInit fail with CUDA_ERROR_NOT_INITIALIZED, calls that need a context on a
 *   thread where none is current with CUDA_ERROR_INVALID_CONTEXT;
 * - device memory is host memory that is inaccessible (PROT_NONE) except while a kernel, a
 *   copy or a cuBLAS call of the emulator runs: host code that reads a device pointer crashes as
 *   it would with a GPU. Each allocation ends at an inaccessible guard page, so kernels that
 *   write past the end crash too;
 * - copies and frees must name memory of a live allocation (CUDA_ERROR_INVALID_VALUE).
 *
 * Streams are synchronous: every call finishes its work before it returns. */
#include <dlfcn.h>
#include <glib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cudaemu.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_NOT_SUPPORTED = 801,
};

typedef struct {
  CUresult code;
  const char *name, *text;
} ErrorText;

static const ErrorText error_texts[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

/* The one emulated device. */
#define EMU_SM_COUNT 2
#define EMU_CC_MAJOR 9
#define EMU_CC_MINOR 0
#define EMU_MAX_THREADS_PER_BLOCK 1024
#define EMU_MAX_THREADS_PER_SM 2048
#define EMU_TOTAL_MEM ((size_t)1 << 30)
#define EMU_DEVICE_NAME "jitscope cudaemu (host emulation, no GPU)"

typedef struct {
  CUdevice device;
} Context;

typedef struct {
  guint32 magic;
} Handle;

#define STREAM_MAGIC 0x5354524du
#define EVENT_MAGIC 0x4556454eu
#define POOL_MAGIC 0x504f4f4cu

typedef struct {
  Handle h;
} Stream;

typedef struct {
  Handle h;
  gint64 recorded_us; /* -1 until recorded */
} Event;

typedef struct {
  void *dl;
  void (*launch)(void (*kernel)(void **), void **params, unsigned gx, unsigned gy, unsigned gz,
                 unsigned bx, unsigned by, unsigned bz);
  GPtrArray *functions;
} Module;

typedef struct {
  Module *module;
  void (*kernel)(void **params);
} Function;

/* One device allocation: pages [map, map + span) readable while open, then a guard page. */
typedef struct {
  guint8 *map;
  size_t span;
  CUdeviceptr ptr;
  size_t bytes;
} Allocation;

static gboolean initialized;
static Context primary_context;
static Handle default_pool = {POOL_MAGIC};
static __thread Context *current_context;
static GMutex lock;             /* allocations, and the protection of device memory */
static GHashTable *allocations; /* CUdeviceptr -> Allocation* */

static size_t page_size(void) {
  return (size_t)sysconf(_SC_PAGESIZE);
}

static CUresult need_init(void) {
  return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult need_context(void) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return current_context ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static gboolean stream_ok(const Stream *s) {
  return s == NULL || s->h.magic == STREAM_MAGIC;
}

/* The allocation holding [ptr, ptr + bytes), or NULL (lock held). */
static Allocation *allocation_of(CUdeviceptr ptr, size_t bytes) {
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, allocations);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    Allocation *a = value;
    if (ptr >= a->ptr && bytes <= a->bytes && ptr - a->ptr <= a->bytes - bytes)
      return a;
  }
  return NULL;
}

static void protect(Allocation *a, int prot) {
  if (mprotect(a->map, a->span, prot) != 0)
    g_error("cudaemu: mprotect failed");
}

/* Device memory readable and writable by the host while a kernel or a copy runs (lock held). */
static void open_device_memory(void) {
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, allocations);
  while (g_hash_table_iter_next(&it, NULL, &value))
    protect(value, PROT_READ | PROT_WRITE);
}

static void close_device_memory(void) {
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, allocations);
  while (g_hash_table_iter_next(&it, NULL, &value))
    protect(value, PROT_NONE);
}

/* For emu_cublas.c: whether [ptr, ptr + bytes) is device memory, and the bracket of a call that
 * touches device memory from the host. */
gboolean cudaemu_is_device_span(CUdeviceptr ptr, size_t bytes) {
  g_mutex_lock(&lock);
  gboolean ok = allocations && allocation_of(ptr, bytes) != NULL;
  g_mutex_unlock(&lock);
  return ok;
}

void cudaemu_device_memory_begin(void) {
  g_mutex_lock(&lock);
  open_device_memory();
}

void cudaemu_device_memory_end(void) {
  close_device_memory();
  g_mutex_unlock(&lock);
}

CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  g_mutex_lock(&lock);
  if (allocations == NULL)
    allocations = g_hash_table_new(g_int64_hash, g_int64_equal);
  initialized = TRUE;
  g_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  if (version == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *version = CUDAEMU_DRIVER_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  if (need_init())
    return need_init();
  if (count == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (need_init())
    return need_init();
  if (device == NULL || ordinal != 0)
    return ordinal != 0 ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  if (need_init())
    return need_init();
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (name == NULL || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  g_strlcpy(name, EMU_DEVICE_NAME, (gsize)len);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  if (need_init())
    return need_init();
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (value == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case 1: *value = EMU_MAX_THREADS_PER_BLOCK; return CUDA_SUCCESS; /* MAX_THREADS_PER_BLOCK */
  case 16: *value = EMU_SM_COUNT; return CUDA_SUCCESS;             /* MULTIPROCESSOR_COUNT */
  case 39: *value = EMU_MAX_THREADS_PER_SM; return CUDA_SUCCESS;   /* MAX_THREADS_PER_SM */
  case 75: *value = EMU_CC_MAJOR; return CUDA_SUCCESS;             /* COMPUTE_CAPABILITY_MAJOR */
  case 76: *value = EMU_CC_MINOR; return CUDA_SUCCESS;             /* COMPUTE_CAPABILITY_MINOR */
  case 115: *value = 1; return CUDA_SUCCESS;                       /* MEMORY_POOLS_SUPPORTED */
  default: return CUDA_ERROR_INVALID_VALUE; /* an attribute the emulator does not know */
  }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  if (need_init())
    return need_init();
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (bytes == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *bytes = EMU_TOTAL_MEM;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(Context **ctx, CUdevice device) {
  if (need_init())
    return need_init();
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (ctx == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *ctx = &primary_context;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(Context *ctx) {
  if (need_init())
    return need_init();
  if (ctx != NULL && ctx != &primary_context)
    return CUDA_ERROR_INVALID_CONTEXT;
  current_context = ctx;
  return CUDA_SUCCESS;
}

static const ErrorText *error_text(CUresult code) {
  for (guint i = 0; i < G_N_ELEMENTS(error_texts); i++)
    if (error_texts[i].code == code)
      return &error_texts[i];
  return NULL;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  const ErrorText *t = error_text(error);
  if (name == NULL || t == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *name = t->name;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  const ErrorText *t = error_text(error);
  if (text == NULL || t == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *text = t->text;
  return CUDA_SUCCESS;
}

/* --- memory --- */

CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, Stream *stream) {
  if (need_context())
    return need_context();
  if (ptr == NULL || bytes == 0 || !stream_ok(stream))
    return CUDA_ERROR_INVALID_VALUE;
  size_t page = page_size(), used = (bytes + 7) & ~(size_t)7;
  size_t span = (used + page - 1) / page * page;
  guint8 *map = mmap(NULL, span + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return CUDA_ERROR_OUT_OF_MEMORY;
  Allocation *a = g_new0(Allocation, 1);
  a->map = map;
  a->span = span;
  a->ptr = (CUdeviceptr)(guintptr)(map + span - used); /* ends at the guard page */
  a->bytes = bytes;
  g_mutex_lock(&lock);
  g_hash_table_insert(allocations, &a->ptr, a);
  g_mutex_unlock(&lock);
  *ptr = a->ptr;
  return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr ptr, Stream *stream) {
  if (need_context())
    return need_context();
  if (!stream_ok(stream))
    return CUDA_ERROR_INVALID_VALUE;
  g_mutex_lock(&lock);
  Allocation *a = g_hash_table_lookup(allocations, &ptr);
  if (a)
    g_hash_table_remove(allocations, &ptr);
  g_mutex_unlock(&lock);
  if (a == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  munmap(a->map, a->span + page_size());
  g_free(a);
  return CUDA_SUCCESS;
}

/* Copies between device spans (checked) and host memory (taken as given). */
static CUresult copy(void *dst, CUdeviceptr dst_dev, const void *src, CUdeviceptr src_dev,
                     size_t bytes, Stream *stream) {
  if (need_context())
    return need_context();
  if (!stream_ok(stream))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes == 0)
    return CUDA_SUCCESS;
  g_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  if ((dst == NULL && allocation_of(dst_dev, bytes) == NULL) ||
      (src == NULL && allocation_of(src_dev, bytes) == NULL)) {
    r = CUDA_ERROR_INVALID_VALUE;
  } else {
    open_device_memory();
    memmove(dst ? dst : (void *)(guintptr)dst_dev, src ? src : (const void *)(guintptr)src_dev,
            bytes);
    close_device_memory();
  }
  g_mutex_unlock(&lock);
  return r;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, Stream *stream) {
  return src ? copy(NULL, dst, src, 0, bytes, stream) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, Stream *stream) {
  return dst ? copy(dst, 0, NULL, src, bytes, stream) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, Stream *stream) {
  return copy(NULL, dst, NULL, src, bytes, stream);
}

CUresult cuDeviceGetDefaultMemPool(Handle **pool, CUdevice device) {
  if (need_init())
    return need_init();
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  if (pool == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *pool = &default_pool;
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(Handle *pool, int attribute, void *value) {
  if (pool == NULL || pool->magic != POOL_MAGIC || value == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  /* CU_MEMPOOL_ATTR_REUSE_* (1..3) take an int, RELEASE_THRESHOLD (4) a cuuint64_t. */
  return attribute >= 1 && attribute <= 4 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* --- streams and events --- */

CUresult cuStreamCreate(Stream **stream, unsigned int flags) {
  if (need_context())
    return need_context();
  if (stream == NULL || flags > 1)
    return CUDA_ERROR_INVALID_VALUE;
  Stream *s = g_new0(Stream, 1);
  s->h.magic = STREAM_MAGIC;
  *stream = s;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(Stream *stream) {
  if (need_context())
    return need_context();
  if (stream == NULL || stream->h.magic != STREAM_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  stream->h.magic = 0;
  g_free(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(Stream *stream) {
  if (need_context())
    return need_context();
  return stream_ok(stream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventCreate(Event **event, unsigned int flags) {
  if (need_context())
    return need_context();
  if (event == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  Event *e = g_new0(Event, 1);
  e->h.magic = EVENT_MAGIC;
  e->recorded_us = -1;
  *event = e;
  return CUDA_SUCCESS;
}

static gboolean event_ok(const Event *e) {
  return e && e->h.magic == EVENT_MAGIC;
}

CUresult cuEventDestroy_v2(Event *event) {
  if (!event_ok(event))
    return CUDA_ERROR_INVALID_HANDLE;
  event->h.magic = 0;
  g_free(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(Event *event, Stream *stream) {
  if (need_context())
    return need_context();
  if (!event_ok(event) || !stream_ok(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  event->recorded_us = g_get_monotonic_time();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(Event *event) {
  return event_ok(event) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventElapsedTime_v2(float *ms, Event *start, Event *end) {
  if (ms == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (!event_ok(start) || !event_ok(end) || start->recorded_us < 0 || end->recorded_us < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = (float)(end->recorded_us - start->recorded_us) / 1000.0f;
  return CUDA_SUCCESS;
}

/* --- modules and launches --- */

CUresult cuModuleLoadData(Module **module, const void *image) {
  if (need_context())
    return need_context();
  if (module == NULL || image == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  const char *text = image;
  if (!g_str_has_prefix(text, CUDAEMU_IMAGE_MAGIC))
    return CUDA_ERROR_INVALID_IMAGE; /* PTX or cubin of a real nvrtc: nothing to run it */
  char *path = g_strchomp(g_strdup(text + strlen(CUDAEMU_IMAGE_MAGIC)));
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  g_free(path);
  void *launch = dl ? dlsym(dl, "cudaemu_launch") : NULL;
  if (launch == NULL) {
    if (dl)
      dlclose(dl);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  Module *m = g_new0(Module, 1);
  m->dl = dl;
  m->launch = launch;
  m->functions = g_ptr_array_new_with_free_func(g_free);
  *module = m;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(Function **fn, Module *module, const char *name) {
  if (need_context())
    return need_context();
  if (fn == NULL || module == NULL || name == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  char *symbol = g_strconcat("cudaemu_kernel_", name, NULL);
  void *kernel = dlsym(module->dl, symbol);
  g_free(symbol);
  if (kernel == NULL)
    return CUDA_ERROR_NOT_FOUND;
  Function *f = g_new0(Function, 1);
  f->module = module;
  f->kernel = kernel;
  g_ptr_array_add(module->functions, f);
  *fn = f;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(Module *module) {
  if (need_context())
    return need_context();
  if (module == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  /* The host object stays mapped: dlclose would leave the dynamic-TLS entries of the threads
   * that ran its kernels dangling, which LeakSanitizer's scan at exit trips over. */
  g_ptr_array_unref(module->functions);
  g_free(module);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, Function *fn, int block_size,
                                                     size_t dyn_smem) {
  if (need_context())
    return need_context();
  if (blocks == NULL || fn == NULL || block_size <= 0 || block_size > EMU_MAX_THREADS_PER_BLOCK)
    return CUDA_ERROR_INVALID_VALUE;
  *blocks = MIN(32, EMU_MAX_THREADS_PER_SM / block_size);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(Function *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared_bytes, Stream *stream,
                        void **params, void **extra) {
  if (need_context())
    return need_context();
  if (fn == NULL)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!stream_ok(stream) || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      (guint64)bx * by * bz > EMU_MAX_THREADS_PER_BLOCK || extra != NULL || params == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (shared_bytes > 48 * 1024)
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  g_mutex_lock(&lock);
  open_device_memory();
  fn->module->launch(fn->kernel, params, gx, gy, gz, bx, by, bz);
  close_device_memory();
  g_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}
