/* The `stages` and `plans` commands' JSON contract (DESIGN.md) through the real binary:
 * argv[1] is the jitscope executable. */
#include <json-glib/json-glib.h>

#include "jitscope-config.h"
#include "json_strict.h"

static const char *jitscope;

static JsonNode *run_json(const char *const *args) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)jitscope);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;
  g_assert_true(g_spawn_sync(JITSCOPE_SOURCE_DIR, (gchar **)argv->pdata, NULL, G_SPAWN_DEFAULT,
                             NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error(error);
  if (!g_spawn_check_wait_status(status, NULL))
    g_error("jitscope failed: %s", err);
  if (!json_strict_check(out, &error))
    g_error("jitscope --json: %s", error->message);
  JsonParser *parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(parser, out, -1, &error));
  g_assert_no_error(error);
  JsonNode *root = json_node_copy(json_parser_get_root(parser));
  g_object_unref(parser);
  g_free(out);
  g_free(err);
  g_ptr_array_free(argv, TRUE);
  return root;
}

static void assert_plan(JsonObject *plan, const char *kind) {
  g_assert_cmpstr(json_object_get_string_member(plan, "kind"), ==, kind);
  g_assert_nonnull(json_object_get_string_member(plan, "graph"));
  g_assert_nonnull(json_object_get_string_member(plan, "spec"));
  JsonArray *stages = json_object_get_array_member(plan, "stages");
  g_assert_cmpuint(json_array_get_length(stages), >, 10);
  for (guint s = 0; s < json_array_get_length(stages); s++) {
    JsonObject *stage = json_array_get_object_element(stages, s);
    g_assert_nonnull(json_object_get_string_member(stage, "name"));
    g_assert_nonnull(json_object_get_string_member(stage, "group"));
    g_assert_true(json_object_has_member(stage, "changed"));
    g_assert_cmpfloat(json_object_get_double_member(stage, "ms"), >=, 0);
    g_assert_true(g_str_has_prefix(json_object_get_string_member(stage, "ir"), "graph("));
  }
}

static void test_stages_json(void) {
  const char *args[] = {"stages",
                        "resources/examples/lstm_cell.ir",
                        "--input",
                        "Float(3, 10)",
                        "Float(3, 20)",
                        "Float(3, 20)",
                        "Float(80, 10, requires_grad=1)",
                        "Float(80, 20, requires_grad=1)",
                        "Float(80, requires_grad=1)",
                        "Float(80, requires_grad=1)",
                        "--json",
                        NULL};
  JsonNode *root = run_json(args);
  JsonArray *plans = json_object_get_array_member(json_node_get_object(root), "plans");
  g_assert_cmpuint(json_array_get_length(plans), ==, 2);
  assert_plan(json_array_get_object_element(plans, 0), "forward");
  assert_plan(json_array_get_object_element(plans, 1), "backward");
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(plans, 1), "graph"),
                  ==, "main/DifferentiableGraph_0/backward");
  json_node_unref(root);
}

/* The seed's three broadcast specs through one executor: one forward plan shared, one new
 * backward plan per spec, with 0, 1 and 1 _grad_sum_to_size nodes (the third spec's two
 * broadcast inputs share one) and the broadcast sizes present as int[]. */
static void test_plans_json(void) {
  const char *args[] = {
      "plans",
      "resources/examples/broadcast_cell.ir",
      "--no-fuse",
      "--spec",
      "Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "--spec",
      "Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "--spec",
      "Float(5, 1, requires_grad=1); Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1)",
      "--json",
      NULL};
  JsonNode *root = run_json(args);
  JsonArray *specs = json_object_get_array_member(json_node_get_object(root), "specs");
  g_assert_cmpuint(json_array_get_length(specs), ==, 3);
  const gint64 sum_to_size[3] = {0, 1, 1}, int_lists[3] = {0, 1, 1};
  const char *forward_spec = NULL;
  for (guint i = 0; i < 3; i++) {
    JsonObject *spec = json_array_get_object_element(specs, i);
    JsonObject *forward = json_object_get_object_member(spec, "forward");
    assert_plan(forward, "forward");
    if (forward_spec)
      g_assert_cmpstr(json_object_get_string_member(forward, "spec"), ==, forward_spec);
    forward_spec = json_object_get_string_member(forward, "spec");
    JsonArray *backward = json_object_get_array_member(spec, "backward");
    g_assert_cmpuint(json_array_get_length(backward), ==, 1);
    assert_plan(json_array_get_object_element(backward, 0), "backward");
    JsonArray *summary = json_object_get_array_member(spec, "summary");
    JsonObject *b = json_array_get_object_element(summary, 1);
    g_assert_cmpint(json_object_get_int_member(b, "grad_sum_to_size"), ==, sum_to_size[i]);
    g_assert_cmpint(json_object_get_int_member(b, "size_inputs_int_list"), ==, int_lists[i]);
  }
  json_node_unref(root);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2)
    g_error("usage: test-cli-plans JITSCOPE");
  jitscope = argv[1];
  g_test_add_func("/cli/stages-json", test_stages_json);
  g_test_add_func("/cli/plans-json", test_plans_json);
  return g_test_run();
}
