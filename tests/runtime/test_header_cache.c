/* Per-thread header caches: a given-back header is taken again on the same thread, headers
 * cross threads, and a thread's cache is freed when it exits (LeakSanitizer checks that
 * under the sanitizer build). */
#include "tensor/header_cache.h"

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

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/header-cache/reuse", test_reuse_on_one_thread);
  g_test_add_func("/runtime/header-cache/bounded", test_bounded);
  g_test_add_func("/runtime/header-cache/threads", test_threads);
  return g_test_run();
}
