/* The strict JSON checker the CLI tests rely on: it must refuse what lenient parsers take. */
#include "json_strict.h"

static void test_accepts(void) {
  const char *good[] = {"{}",
                        "[]",
                        " {\"a\": [1, -0, 0.5, 1e-300, 2E+30, -1.5e3]} \n",
                        "\"\\u00e9\\n\"",
                        "[true, false, null, \"nan\", {\"x\": {}}]",
                        "0"};
  for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
    GError *error = NULL;
    if (!json_strict_check(good[i], &error))
      g_error("refused %s: %s", good[i], error->message);
  }
}

static void test_refuses(void) {
  const char *bad[] = {"",          "2e+30.0", "NaN",      "[Infinity]", "-inf", "[1,]",
                       "{\"a\" 1}", "01",      "+1",       "1.",         ".5",   "[1] [2]",
                       "\"a\tb\"",  "\"\\x\"", "{'a': 1}", "[1e]",       "tru",  "[\"unclosed]"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    GError *error = NULL;
    if (json_strict_check(bad[i], &error))
      g_error("accepted %s", bad[i]);
    g_assert_nonnull(error);
    g_error_free(error);
  }
}

static void test_depth_bound(void) {
  GString *deep = g_string_new(NULL);
  for (int i = 0; i < 100000; i++)
    g_string_append_c(deep, '[');
  g_assert_false(json_strict_check(deep->str, NULL));
  g_string_free(deep, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/json-strict/accepts", test_accepts);
  g_test_add_func("/json-strict/refuses", test_refuses);
  g_test_add_func("/json-strict/depth-bound", test_depth_bound);
  return g_test_run();
}
