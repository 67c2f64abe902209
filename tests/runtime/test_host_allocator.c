/* The caching host allocator: size classes, reuse of freed blocks (also through tensors),
 * the bound on cached bytes, trimming of idle blocks, and that the statistics count each of
 * these. The allocator is process-wide, so every test reads stats before and after. */
#include "tensor/host_allocator.h"
#include "tensor/tensor.h"

static RtHostAllocatorStats stats_now(void) {
  RtHostAllocatorStats s;
  rt_host_allocator_stats(&s);
  return s;
}

static void test_size_classes(void) {
  g_assert_cmpuint(rt_host_size_class(0), ==, 64);
  g_assert_cmpuint(rt_host_size_class(1), ==, 64);
  g_assert_cmpuint(rt_host_size_class(65), ==, 128);
  g_assert_cmpuint(rt_host_size_class(257), ==, 320);
  g_assert_cmpuint(rt_host_size_class(1024), ==, 1024);
  g_assert_cmpuint(rt_host_size_class(1025), ==, 1280);
  for (size_t n = 1; n < ((size_t)1 << 30); n = n * 3 / 2 + 7) {
    size_t c = rt_host_size_class(n);
    g_assert_cmpuint(c, >=, n);
    g_assert_cmpuint(c % 64, ==, 0);
    size_t padded = (n + 63) / 64 * 64;
    g_assert_cmpuint(c - padded, <=, padded / 4);   /* at most 25% rounding waste */
    g_assert_cmpuint(rt_host_size_class(c), ==, c); /* a class size is its own class */
  }
  g_assert_cmpuint(rt_host_size_class(SIZE_MAX - 10), ==, 0);
}

static void test_reuse_and_stats(void) {
  rt_host_allocator_trim();
  RtHostAllocatorStats s0 = stats_now();
  void *a = rt_host_alloc(1000);
  g_assert_nonnull(a);
  g_assert_cmpuint((guintptr)a % 64, ==, 0);
  RtHostAllocatorStats s1 = stats_now();
  g_assert_cmpuint(s1.allocations - s0.allocations, ==, 1);
  g_assert_cmpuint(s1.system_allocations - s0.system_allocations, ==, 1);
  g_assert_cmpuint(s1.bytes_in_use - s0.bytes_in_use, ==, 1024);

  rt_host_free(a, 1000);
  RtHostAllocatorStats s2 = stats_now();
  g_assert_cmpuint(s2.bytes_in_use, ==, s0.bytes_in_use);
  g_assert_cmpuint(s2.bytes_cached, ==, 1024);
  g_assert_cmpuint(s2.system_frees, ==, s1.system_frees);

  /* Any size of the same class gets the block back, without the system. */
  void *b = rt_host_alloc(1001);
  g_assert_true(b == a);
  RtHostAllocatorStats s3 = stats_now();
  g_assert_cmpuint(s3.cache_hits - s2.cache_hits, ==, 1);
  g_assert_cmpuint(s3.system_allocations, ==, s2.system_allocations);
  g_assert_cmpuint(s3.bytes_cached, ==, 0);
  g_assert_cmpuint(s3.peak_bytes_in_use, >=, s3.bytes_in_use);

  /* Another class does not take it. */
  rt_host_free(b, 1001);
  void *c = rt_host_alloc(5000);
  g_assert_true(c != a);
  rt_host_free(c, 5000);
  rt_host_allocator_trim();
  RtHostAllocatorStats s4 = stats_now();
  g_assert_cmpuint(s4.bytes_cached, ==, 0);
  g_assert_cmpuint(s4.system_frees - s3.system_frees, ==, 2);
}

static void test_tensor_storage_reused(void) {
  rt_host_allocator_trim();
  int64_t sizes[2] = {64, 512};
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 2, sizes);
  void *data = t->storage->data;
  rt_tensor_unref(t);
  RtHostAllocatorStats s0 = stats_now();
  RtTensor *u = rt_tensor_zeros(IR_DTYPE_FLOAT32, 2, sizes);
  g_assert_true(u->storage->data == data);
  g_assert_cmpfloat(rt_tensor_get(u, 64 * 512 - 1), ==, 0.0);
  RtHostAllocatorStats s1 = stats_now();
  g_assert_cmpuint(s1.system_allocations, ==, s0.system_allocations);
  rt_tensor_unref(u);
}

static void test_limit(void) {
  rt_host_allocator_trim();
  RtHostAllocatorStats s0 = stats_now();
  void *a = rt_host_alloc(4096), *b = rt_host_alloc(4096);
  rt_host_allocator_set_limit(4096);
  rt_host_free(a, 4096);
  rt_host_free(b, 4096); /* over the bound: back to the system */
  RtHostAllocatorStats s1 = stats_now();
  g_assert_cmpuint(s1.bytes_cached, ==, 4096);
  g_assert_cmpuint(s1.cache_limit, ==, 4096);
  g_assert_cmpuint(s1.system_frees - s0.system_frees, ==, 1);
  rt_host_allocator_set_limit(0); /* lowering the bound gives back what is over it */
  RtHostAllocatorStats s2 = stats_now();
  g_assert_cmpuint(s2.bytes_cached, ==, 0);
  g_assert_cmpuint(s2.system_frees - s0.system_frees, ==, 2);
  rt_host_allocator_set_limit(s0.cache_limit);
}

static void test_trim_idle(void) {
  rt_host_allocator_trim();
  void *busy = rt_host_alloc(2048), *idle = rt_host_alloc(8192);
  rt_host_free(busy, 2048);
  rt_host_free(idle, 8192);
  /* Both were cached since the previous call: nothing is idle yet. */
  g_assert_cmpuint(rt_host_allocator_trim_idle(), ==, 0);
  /* One is reused in this interval, the other sits. */
  void *again = rt_host_alloc(2048);
  g_assert_true(again == busy);
  rt_host_free(again, 2048);
  g_assert_cmpuint(rt_host_allocator_trim_idle(), ==, 8192);
  g_assert_cmpuint(stats_now().bytes_cached, ==, 2048);
  g_assert_cmpuint(rt_host_allocator_trim_idle(), ==, 2048);
  g_assert_cmpuint(stats_now().bytes_cached, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/host-allocator/size-classes", test_size_classes);
  g_test_add_func("/runtime/host-allocator/reuse-and-stats", test_reuse_and_stats);
  g_test_add_func("/runtime/host-allocator/tensor-storage-reused", test_tensor_storage_reused);
  g_test_add_func("/runtime/host-allocator/limit", test_limit);
  g_test_add_func("/runtime/host-allocator/trim-idle", test_trim_idle);
  return g_test_run();
}
