/* prim::Print's text against PyTorch 1.13's (data/print.json, made by gen_print_cases.py):
 * tensors of every dtype and format the C++ printer distinguishes, then the scalars.
 * Usage: test-runtime-print [DATA_JSON] (default: the source tree's). */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "runtime/print_op.h"
#include "tensor/tensor.h"

static const char *data_path;

static double number(JsonNode *n) {
  if (json_node_get_value_type(n) == G_TYPE_STRING) {
    const char *s = json_node_get_string(n);
    return strcmp(s, "nan") == 0 ? NAN : strcmp(s, "inf") == 0 ? INFINITY : -INFINITY;
  }
  return json_node_get_double(n);
}

static IrDtype dtype_named(const char *name) {
  if (strcmp(name, "float64") == 0)
    return IR_DTYPE_FLOAT64;
  if (strcmp(name, "int64") == 0)
    return IR_DTYPE_INT64;
  if (strcmp(name, "bool") == 0)
    return IR_DTYPE_BOOL;
  return IR_DTYPE_FLOAT32;
}

static void test_print(void) {
  g_autoptr(JsonParser) parser = json_parser_new();
  GError *error = NULL;
  g_assert_true(json_parser_load_from_file(parser, data_path, &error));
  JsonArray *cases =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "cases");
  guint n_cases = json_array_get_length(cases);
  g_assert_cmpuint(n_cases, >, 0);
  for (guint k = 0; k < n_cases; k++) {
    JsonObject *c = json_array_get_object_element(cases, k);
    JsonArray *shape = json_object_get_array_member(c, "shape");
    JsonArray *values = json_object_get_array_member(c, "values");
    int64_t sizes[RT_MAX_DIMS];
    int nd = (int)json_array_get_length(shape);
    for (int d = 0; d < nd; d++)
      sizes[d] = json_array_get_int_element(shape, d);
    RtTensor *t = rt_tensor_new(dtype_named(json_object_get_string_member(c, "dtype")), nd, sizes);
    for (guint i = 0; i < json_array_get_length(values); i++)
      rt_tensor_set(t, i, number(json_array_get_element(values, i)));
    RtValue args[6] = {rt_tensor(t),  rt_int(3),    rt_double(0.1),
                       rt_bool(true), rt_str("hi"), rt_none()};
    GString *text = g_string_new(NULL);
    rt_print_format(text, args, G_N_ELEMENTS(args));
    g_assert_cmpstr(text->str, ==, json_object_get_string_member(c, "text"));
    g_string_free(text, TRUE);
    for (guint i = 0; i < G_N_ELEMENTS(args); i++)
      rt_value_unref(args[i]);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  data_path = argc > 1 ? argv[1]
                       : g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "tests", "runtime",
                                          "data", "print.json", NULL);
  g_test_add_func("/runtime/print", test_print);
  return g_test_run();
}
