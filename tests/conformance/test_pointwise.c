/* Conformance of every pointwise op of the op table with PyTorch 1.13 (data/pointwise.json,
 * made by scripts/gen-conformance.py): each case's graph (one op on edge values: NaN, ±inf,
 * ±0, denormals, huge, negative, x.5 ties) runs
 * - through the interpreter, i.e. the eager CPU kernels;
 * - for fusible ops on float tensors: fused (FuseGraph, with an identity type_as consumer
 *   since groups grow from consumers), through the CPU fused loop (the
 *   expression evaluator) and, for the first float32 case of each op, through the
 *   generated C backend (one compilation each, to keep the suite fast);
 * and every result is compared with PyTorch's: dtype and NaN positions exactly, infinities
 * and integers exactly, other values within a few float ulps (libm and PyTorch's vectorized
 * math may differ in the last bits). Zeros must carry PyTorch's sign.
 * Usage: test-conformance-pointwise [DATA_JSON] (default: the source tree's). */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "conformance_util.h"
#include "fuser/cpu_codegen.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "runtime/code.h"

static ConfTally tally;
static GHashTable *codegen_done; /* "op dtype" compiled through the C backend once */

static const IrNode *fusion_group(IrGraph *g) {
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      return n;
  }
  return NULL;
}

static void run_backend(const FuserBackend *backend, JsonObject *c, const IrNode *group,
                        RtValue *inputs, guint n) {
  char *why = NULL;
  if (!backend->can_run(backend, group, inputs, n, &why)) {
    g_autofree char *what = g_strdup_printf("backend refused: %s", why ? why : "?");
    conf_report(&tally, backend->name, c, 0, what);
    return;
  }
  RtValue out = rt_none();
  GError *error = NULL;
  if (!backend->run(backend, NULL, group, inputs, n, &out, 1, &error)) {
    conf_report(&tally, backend->name, c, 0, error->message);
    g_error_free(error);
    return;
  }
  conf_compare(&tally, backend->name, c, out.u.tensor);
  rt_value_unref(out);
}

static void run_case(JsonObject *c) {
  const char *ir = json_object_get_string_member(c, "ir");
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(ir, strlen(ir), "case.ir", &error);
  g_assert_no_error(error);
  guint n = 0;
  RtValue *inputs = conf_inputs(c, &n);

  RtCode *code = rt_code_compile(graph, &error);
  g_assert_no_error(error);
  RtValue out = rt_none();
  if (!rt_code_run(code, NULL, inputs, n, &out, &error)) {
    conf_report(&tally, "eager", c, 0, error->message);
    g_clear_error(&error);
  } else {
    conf_compare(&tally, "eager", c, out.u.tensor);
    rt_value_unref(out);
  }
  rt_code_free(code);

  const char *dtype = json_object_get_string_member(c, "dtype");
  bool float_case = strcmp(dtype, "float32") == 0 || strcmp(dtype, "float64") == 0;
  if (float_case && json_object_get_boolean_member(c, "fusible")) {
    const char *fused_ir = json_object_get_string_member(c, "ir_fused");
    ir_graph_free(graph);
    graph = ir_graph_parse(fused_ir, strlen(fused_ir), "case_fused.ir", &error);
    g_assert_no_error(error);
    pass_propagate_input_shapes(graph); /* the fuser takes typed values only */
    pass_fuse_graph(graph);
    const IrNode *group = fusion_group(graph);
    if (!group) {
      conf_report(&tally, "fuse_graph", c, 0, "not fused");
    } else {
      run_backend(fuser_cpu_backend(), c, group, inputs, n);
      char *key = g_strdup_printf("%s %s", json_object_get_string_member(c, "op"), dtype);
      if (strcmp(dtype, "float32") == 0 && !g_hash_table_contains(codegen_done, key)) {
        g_hash_table_add(codegen_done, key);
        run_backend(fuser_cpu_codegen_backend(), c, group, inputs, n);
      } else {
        g_free(key);
      }
    }
  }
  for (guint i = 0; i < n; i++)
    rt_value_unref(inputs[i]);
  g_free(inputs);
  ir_graph_free(graph);
}

static void test_pointwise(gconstpointer path) {
  JsonParser *parser = conf_load(path);
  JsonArray *cases = conf_cases(parser);
  codegen_done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < json_array_get_length(cases); i++)
    run_case(json_array_get_object_element(cases, i));
  g_hash_table_unref(codegen_done);
  g_object_unref(parser);
  g_printerr("%u results checked, %u mismatches\n", tally.checked, tally.failed);
  g_assert_cmpuint(tally.checked, >, 500);
  g_assert_cmpuint(tally.failed, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_autofree char *path = conf_data_path(argc > 1 ? argv[1] : NULL, "pointwise.json");
  g_test_add_data_func("/conformance/pointwise", path, test_pointwise);
  return g_test_run();
}
