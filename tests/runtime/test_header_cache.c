/* Per-thread header caches: a given-back header is taken again on the same thread, headers
 * cross threads, and a thread's cache is freed when it exits (LeakSanitizer checks that
 * under the sanitizer build); small storages keep their block. */
#include "tensor/header_cache.h"

#include <string.h>

static void test_reuse_on_one_thread(void) {
  RtTensor *t = rt_tensor_header_take();
  RtStorage *s = rt_storage_header_take();
  rt_tensor_header_give(t);
  rt_storage_header_give(s);
  g_assert_true(rt_tensor_header_take() == t);
  g_assert_true(rt_storage_header_take() == s);
  g_free(t); /* headers are g_new blocks */
  g_free(s);
}

/* More headers than a cache keeps: the surplus is freed at once. */
static void test_bounded(void) {
  enum { N = 1000 };
  RtTensor **many = g_new(RtTensor *, N);
  for (int i = 0; i < N; i++)
    many[i] = rt_tensor_header_take();
  for (int i = 0; i < N; i++)
    rt_tensor_header_give(many[i]);
  g_free(many);
}

static gpointer give_and_take(gpointer data) {
  rt_tensor_header_give(data); /* made on the main thread */
  RtTensor *mine = rt_tensor_header_take();
  g_assert_true(mine == data);
  rt_tensor_header_give(mine); /* left in this thread's cache when it exits */
  rt_storage_header_give(rt_storage_header_take());
  return NULL;
}

static void test_threads(void) {
  for (int i = 0; i < 4; i++) {
    GThread *thread = g_thread_new("headers", give_and_take, rt_tensor_header_take());
    g_thread_join(thread);
  }
}

/* A 1-element tensor's storage keeps its 64-byte block in the cache: the next small tensor
 * gets the same block, its padding zeroed again. */
static void test_small_storage_reused(void) {
  int64_t one = 1;
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 1, &one);
  void *block = t->storage->data;
  memset(block, 0xff, RT_SMALL_BLOCK); /* the value and its padding */
  rt_tensor_unref(t);
  RtTensor *u = rt_tensor_new(IR_DTYPE_FLOAT64, 0, NULL);
  g_assert_true(u->storage->data == block);
  g_assert_cmpuint(u->storage->nbytes, ==, 8);
  g_assert_null(u->storage->free_fn);
  for (int i = 8; i < RT_SMALL_BLOCK; i++)
    g_assert_cmpint(((const unsigned char *)block)[i], ==, 0);
  rt_tensor_unref(u);
  /* A larger storage does not take it. */
  int64_t many = 100;
  RtTensor *v = rt_tensor_new(IR_DTYPE_FLOAT32, 1, &many);
  g_assert_true(v->storage->data != block);
  rt_tensor_unref(v);
}

/* More small storages than a cache keeps, freed on another thread and left in its cache at
 * exit: the surplus goes back to the host allocator, the rest at thread exit (LeakSanitizer). */
static gpointer free_small(gpointer data) {
  GPtrArray *tensors = data;
  g_ptr_array_free(tensors, TRUE);
  rt_tensor_unref(rt_tensor_scalar(IR_DTYPE_INT64, 3));
  return NULL;
}

static void test_small_storage_bounded(void) {
  GPtrArray *tensors = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
  for (int i = 0; i < 1000; i++)
    g_ptr_array_add(tensors, rt_tensor_scalar(IR_DTYPE_FLOAT32, i));
  g_thread_join(g_thread_new("small", free_small, tensors));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/header-cache/reuse", test_reuse_on_one_thread);
  g_test_add_func("/runtime/header-cache/bounded", test_bounded);
  g_test_add_func("/runtime/header-cache/threads", test_threads);
  g_test_add_func("/runtime/header-cache/small-storage", test_small_storage_reused);
  g_test_add_func("/runtime/header-cache/small-storage-bounded", test_small_storage_bounded);
  return g_test_run();
}
