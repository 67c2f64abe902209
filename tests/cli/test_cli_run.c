/* CLI tests for `run`: SPEC forms, the seed rule, JSON and text output (a program's
 * prim::Print goes to stderr under --json), and every input error with its message and exit
 * status.
 * Usage: test-cli-run JITSCOPE_BINARY */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "cli_run.h"
#include "runtime/npy.h"

static char *jitscope;
static char *tmpdir;

static char *write_tmp(const char *name, const char *text) {
  char *path = g_build_filename(tmpdir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* Runs `jitscope run GRAPH_FILE ARGS... --json` in tmpdir and returns the parsed document
 * (asserting exit status 0). */
static JsonNode *run_json(const char *graph_file, const char *const *args) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, "run");
  g_ptr_array_add(argv, (gpointer)graph_file);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, "--json");
  g_ptr_array_add(argv, NULL);
  CliRun r = cli_run(jitscope, tmpdir, (const char *const *)argv->pdata);
  if (r.status != 0)
    g_printerr("run failed (status %d, signal %d): %s", r.status, r.signal, r.err);
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  if (!json_parser_load_from_data(parser, r.out, -1, &error))
    g_error("not JSON (%s): %s", error->message, r.out);
  JsonNode *root = json_node_copy(json_parser_get_root(parser));
  g_object_unref(parser);
  cli_run_clear(&r);
  g_ptr_array_unref(argv);
  return root;
}

static JsonArray *member_array(JsonNode *root, const char *name) {
  return json_object_get_array_member(json_node_get_object(root), name);
}

static JsonObject *output(JsonNode *root, guint i) {
  return json_array_get_object_element(member_array(root, "outputs"), i);
}

static double number(JsonNode *n) {
  if (json_node_get_value_type(n) == G_TYPE_STRING) {
    const char *s = json_node_get_string(n);
    if (strcmp(s, "nan") == 0)
      return NAN;
    if (strcmp(s, "inf") == 0)
      return INFINITY;
    g_assert_cmpstr(s, ==, "-inf");
    return -INFINITY;
  }
  return json_node_get_value_type(n) == G_TYPE_INT64 ? (double)json_node_get_int(n)
                                                     : json_node_get_double(n);
}

static void assert_shape(JsonObject *t, const char *dtype, const gint64 *shape, guint ndim) {
  g_assert_cmpstr(json_object_get_string_member(t, "dtype"), ==, dtype);
  JsonArray *s = json_object_get_array_member(t, "shape");
  g_assert_cmpuint(json_array_get_length(s), ==, ndim);
  gint64 numel = 1;
  for (guint d = 0; d < ndim; d++) {
    g_assert_cmpint(json_array_get_int_element(s, d), ==, shape[d]);
    numel *= shape[d];
  }
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(t, "data")), ==, numel);
}

static bool same_data(JsonObject *a, JsonObject *b) {
  JsonArray *x = json_object_get_array_member(a, "data");
  JsonArray *y = json_object_get_array_member(b, "data");
  if (json_array_get_length(x) != json_array_get_length(y))
    return false;
  for (guint k = 0; k < json_array_get_length(x); k++) {
    double u = number(json_array_get_element(x, k)), v = number(json_array_get_element(y, k));
    if (u != v && !(isnan(u) && isnan(v)))
      return false;
  }
  return true;
}

static char *identity2;

static void test_drawn_tensors(void) {
  JsonNode *root = run_json(
      identity2, (const char *[]){"--input", "Float(2, 3)", "Double(4, requires_grad=1)", NULL});
  assert_shape(output(root, 0), "float32", (gint64[]){2, 3}, 2);
  assert_shape(output(root, 1), "float64", (gint64[]){4}, 1);
  /* grads: null for the input without requires_grad; for %y the gradient of the sum of
   * the outputs of an identity graph: ones of %y's shape. Inputs are echoed. */
  JsonArray *grads = member_array(root, "grads");
  g_assert_cmpuint(json_array_get_length(grads), ==, 2);
  g_assert_true(JSON_NODE_HOLDS_NULL(json_array_get_element(grads, 0)));
  JsonObject *grad_y = json_array_get_object_element(grads, 1);
  assert_shape(grad_y, "float64", (gint64[]){4}, 1);
  JsonArray *ones = json_object_get_array_member(grad_y, "data");
  for (guint k = 0; k < 4; k++)
    g_assert_cmpfloat(number(json_array_get_element(ones, k)), ==, 1.0);
  JsonArray *inputs = member_array(root, "inputs");
  g_assert_cmpstr(json_array_get_string_element(inputs, 0), ==, "Float(2, 3)");
  g_assert_cmpstr(json_array_get_string_element(inputs, 1), ==, "Double(4, requires_grad=1)");
  /* Normal(0, 1) draws: not all equal, finite, of moderate size. */
  JsonArray *data = json_object_get_array_member(output(root, 0), "data");
  double first = number(json_array_get_element(data, 0));
  bool varied = false;
  for (guint k = 0; k < json_array_get_length(data); k++) {
    double v = number(json_array_get_element(data, k));
    g_assert_true(isfinite(v) && fabs(v) < 10);
    varied = varied || v != first;
  }
  g_assert_true(varied);
  json_node_unref(root);
}

/* The documented rule: input K under --seed S draws with generator seed S + K. */
static void test_seed_rule(void) {
  JsonNode *a = run_json(identity2, (const char *[]){"--input", "Float(5)", "Float(5)", NULL});
  JsonNode *again = run_json(identity2, (const char *[]){"--input", "Float(5)", "--input",
                                                         "Float(5)", "--seed", "0", NULL});
  JsonNode *b =
      run_json(identity2, (const char *[]){"--seed", "1", "--input", "Float(5)", "Float(5)", NULL});
  g_assert_true(same_data(output(a, 0), output(again, 0)));
  g_assert_true(same_data(output(a, 1), output(again, 1)));
  g_assert_false(same_data(output(a, 0), output(a, 1)));
  g_assert_true(same_data(output(a, 1), output(b, 0)));
  g_assert_false(same_data(output(a, 0), output(b, 0)));
  g_assert_cmpint(json_object_get_int_member(json_node_get_object(b), "seed"), ==, 1);
  json_node_unref(a);
  json_node_unref(again);
  json_node_unref(b);
}

static void test_discrete_tensors(void) {
  JsonNode *root = run_json(identity2, (const char *[]){"--input", "Long(50)", "Bool(3, 4)", NULL});
  assert_shape(output(root, 0), "int64", (gint64[]){50}, 1);
  assert_shape(output(root, 1), "bool", (gint64[]){3, 4}, 2);
  JsonArray *longs = json_object_get_array_member(output(root, 0), "data");
  bool negative = false, positive = false;
  for (guint k = 0; k < json_array_get_length(longs); k++) {
    JsonNode *e = json_array_get_element(longs, k);
    g_assert_true(json_node_get_value_type(e) == G_TYPE_INT64);
    negative = negative || json_node_get_int(e) < 0;
    positive = positive || json_node_get_int(e) > 0;
  }
  g_assert_true(negative && positive);
  JsonArray *bools = json_object_get_array_member(output(root, 1), "data");
  for (guint k = 0; k < json_array_get_length(bools); k++)
    g_assert_true(json_node_get_value_type(json_array_get_element(bools, k)) == G_TYPE_BOOLEAN);
  json_node_unref(root);
}

/* .npy inputs come back exactly, NaN and infinities as strings. */
static void test_npy_round_trip(void) {
  const float values[] = {0.1f, -1e-30f, 3.4028235e38f, NAN, INFINITY, -INFINITY};
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
  memcpy(rt_tensor_data(t), values, sizeof values);
  char *path = g_build_filename(tmpdir, "x.npy", NULL);
  g_assert_true(rt_npy_save(path, t, NULL));
  JsonNode *root =
      run_json(identity2, (const char *[]){"--input", "x.npy:requires_grad=1", "x.npy", NULL});
  JsonObject *o = output(root, 0);
  assert_shape(o, "float32", (gint64[]){2, 3}, 2);
  JsonArray *data = json_object_get_array_member(o, "data");
  for (guint k = 0; k < 3; k++)
    g_assert_cmpfloat(number(json_array_get_element(data, k)), ==, (double)values[k]);
  g_assert_cmpstr(json_array_get_string_element(data, 3), ==, "nan");
  g_assert_cmpstr(json_array_get_string_element(data, 4), ==, "inf");
  g_assert_cmpstr(json_array_get_string_element(data, 5), ==, "-inf");
  g_assert_true(same_data(output(root, 0), output(root, 1)));
  json_node_unref(root);
  rt_tensor_unref(t);
  g_free(path);
}

/* Float64 and float16 values at the edges of what JSON numbers can carry come back exactly
 * (the output is strict JSON: cli_run checks every --json output). */
static void test_json_edge_values(void) {
  const double values[] = {-0.0,
                           0.0,
                           4.9406564584124654e-324,
                           2.2250738585072009e-308,
                           1e300,
                           -1e-300,
                           1.7976931348623157e308,
                           2e30,
                           0.1,
                           NAN,
                           INFINITY,
                           -INFINITY};
  const guint n = G_N_ELEMENTS(values);
  RtTensor *wide = rt_tensor_new(IR_DTYPE_FLOAT64, 1, (int64_t[]){n});
  memcpy(rt_tensor_data(wide), values, sizeof values);
  RtTensor *half = rt_tensor_new(IR_DTYPE_FLOAT16, 1, (int64_t[]){n});
  uint16_t *h = rt_tensor_data(half);
  for (guint k = 0; k < n; k++)
    h[k] = rt_float_to_half((float)values[k]); /* 1e300 -> inf, denormal doubles -> ±0 */
  char *wide_path = g_build_filename(tmpdir, "edges64.npy", NULL);
  char *half_path = g_build_filename(tmpdir, "edges16.npy", NULL);
  g_assert_true(rt_npy_save(wide_path, wide, NULL));
  g_assert_true(rt_npy_save(half_path, half, NULL));
  JsonNode *root =
      run_json(identity2, (const char *[]){"--input", "edges64.npy", "edges16.npy", NULL});
  JsonArray *d64 = json_object_get_array_member(output(root, 0), "data");
  JsonArray *d16 = json_object_get_array_member(output(root, 1), "data");
  g_assert_cmpstr(json_object_get_string_member(output(root, 1), "dtype"), ==, "float16");
  for (guint k = 0; k < n; k++) {
    double got = number(json_array_get_element(d64, k));
    double want16 = (double)rt_half_to_float(h[k]);
    double got16 = number(json_array_get_element(d16, k));
    if (isnan(values[k])) {
      g_assert_true(isnan(got) && isnan(got16));
      continue;
    }
    g_assert_cmpfloat(got, ==, values[k]);
    g_assert_cmpint(signbit(got), ==, signbit(values[k]));
    g_assert_cmpfloat(got16, ==, want16);
    g_assert_cmpint(signbit(got16), ==, signbit(want16));
  }
  json_node_unref(root);
  rt_tensor_unref(wide);
  rt_tensor_unref(half);
  g_free(wide_path);
  g_free(half_path);
}

static void test_scalars_and_tuples(void) {
  char *graph = write_tmp("scalars.ir", "graph(%a : int,\n"
                                        "      %b : float,\n"
                                        "      %c : bool,\n"
                                        "      %d : Tensor?,\n"
                                        "      %e : float):\n"
                                        "  %t : (int, float) = prim::TupleConstruct(%a, %b)\n"
                                        "  return (%t, %c, %d, %e)\n");
  JsonNode *root =
      run_json(graph, (const char *[]){"--input", "-2", "2.5", "true", "none", "3", NULL});
  JsonArray *outs = member_array(root, "outputs");
  g_assert_cmpuint(json_array_get_length(outs), ==, 5); /* the tuple is flattened */
  g_assert_cmpint(json_array_get_int_element(outs, 0), ==, -2);
  g_assert_cmpfloat(json_array_get_double_element(outs, 1), ==, 2.5);
  g_assert_true(json_array_get_boolean_element(outs, 2));
  g_assert_true(JSON_NODE_HOLDS_NULL(json_array_get_element(outs, 3)));
  /* An int given for a float input becomes a float. */
  g_assert_true(json_node_get_value_type(json_array_get_element(outs, 4)) == G_TYPE_DOUBLE);
  g_assert_cmpfloat(json_array_get_double_element(outs, 4), ==, 3.0);
  json_node_unref(root);
  g_free(graph);
}

/* A dict output: a JSON object in insertion order (int keys as decimal strings), Python's
 * form in the text output; a list of strs is an array. A missing key is a located error. */
static const char dict_ir[] = "graph(%x : Tensor,\n"
                              "      %n : int):\n"
                              "  %b : str = prim::Constant[value=\"b\"]()\n"
                              "  %a : str = prim::Constant[value=\"a\"]()\n"
                              "  %q : str = prim::Constant[value=\"q\\\"\"]()\n"
                              "  %d : Dict(str, Tensor) = prim::DictConstruct(%b, %x, %a, %x)\n"
                              "  %e : Dict(int, int) = prim::DictConstruct(%n, %n)\n"
                              "  %k : str[] = prim::ListConstruct(%q)\n"
                              "  return (%d, %e, %k)\n";

static void test_dict_outputs(void) {
  char *graph = write_tmp("dict.ir", dict_ir);
  JsonNode *root = run_json(graph, (const char *[]){"--input", "Float(2)", "7", NULL});
  JsonArray *outs = member_array(root, "outputs");
  g_assert_cmpuint(json_array_get_length(outs), ==, 3);
  JsonObject *d = json_array_get_object_element(outs, 0);
  g_autoptr(GList) names = json_object_get_members(d);
  g_assert_cmpuint(g_list_length(names), ==, 2);
  g_assert_cmpstr(names->data, ==, "b"); /* insertion order */
  g_assert_cmpstr(names->next->data, ==, "a");
  gint64 two[] = {2};
  assert_shape(json_object_get_object_member(d, "a"), "float32", two, 1);
  g_assert_true(
      same_data(json_object_get_object_member(d, "a"), json_object_get_object_member(d, "b")));
  JsonObject *e = json_array_get_object_element(outs, 1);
  g_assert_cmpint(json_object_get_int_member(e, "7"), ==, 7);
  g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(outs, 2), 0), ==,
                  "q\"");
  json_node_unref(root);

  CliRun r =
      cli_run(jitscope, tmpdir, (const char *[]){"run", graph, "--input", "Float(2)", "7", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "  0: {\"b\": Float(2), \"a\": Float(2)}\n"));
  g_assert_nonnull(strstr(r.out, "  1: {7: 7}\n"));
  cli_run_clear(&r);
  g_free(graph);

  graph = write_tmp("missing.ir", "graph(%x : Tensor):\n"
                                  "  %a : str = prim::Constant[value=\"a\"]()\n"
                                  "  %z : str = prim::Constant[value=\"zz\"]()\n"
                                  "  %d : Dict(str, Tensor) = prim::DictConstruct(%a, %x)\n"
                                  "  %y : Tensor = aten::__getitem__(%d, %z) # m.py:4:8\n"
                                  "  return (%y)\n");
  r = cli_run(jitscope, tmpdir, (const char *[]){"run", graph, "--input", "Float(2)", NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "m.py:4:8"));
  g_assert_nonnull(strstr(r.err, "key \"zz\" is not in the dict"));
  cli_run_clear(&r);
  g_free(graph);
}

static void test_text_output(void) {
  char *graph = write_tmp("id1.ir", "graph(%x : Tensor):\n  return (%x)\n");
  CliRun r =
      cli_run(jitscope, tmpdir, (const char *[]){"run", graph, "--input", "Float(30)", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "inputs (seed 0):\n  0: Float(30)\n"));
  g_assert_nonnull(strstr(r.out, "outputs:\n  0: float32 [30]\n     ["));
  g_assert_nonnull(strstr(r.out, ", ... +10 more]\n"));
  /* 20 values shown: 19 ", " separators before the "... +10 more". */
  const char *open = strstr(r.out, "     [");
  guint commas = 0;
  for (const char *p = open; *p && *p != ']'; p++)
    commas += *p == ',';
  g_assert_cmpuint(commas, ==, 20);
  cli_run_clear(&r);

  /* device=cuda is accepted and said to run on the CPU. */
  r = cli_run(jitscope, tmpdir,
              (const char *[]){"run", graph, "--input", "Float(8, device=cuda)", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_str_has_prefix(r.err, "jitscope: note: "));
  cli_run_clear(&r);
  g_free(graph);
}

/* Each bad invocation exits 2 with exactly this message prefix on stderr. */
static void test_input_errors(void) {
  char *typed = write_tmp("typed.ir", "graph(%x : Float(2, 3),\n"
                                      "      %y : float):\n"
                                      "  return (%x, %y)\n");
  char *bcast = write_tmp("bcast.ir", "graph(%a : Tensor,\n"
                                      "      %b : Tensor):\n"
                                      "  %one : int = prim::Constant[value=1]()\n"
                                      "  %c : Tensor = aten::add(%a, %b, %one)\n"
                                      "  return (%c)\n");
  char *bcast_error = g_strdup_printf("jitscope: %s: error: running the graph failed: ", bcast);
  const struct {
    const char *args[8];
    const char *message;
  } cases[] = {
      {{"run", identity2, "--input", "Float(2)", NULL},
       "jitscope: error: the graph has 2 inputs (%x, %y) but 1 --input value was given\n"},
      {{"run", identity2, NULL},
       "jitscope: error: the graph has 2 inputs (%x, %y) but 0 --input values were given\n"},
      {{"run", identity2, "--input", "Flaot(3)", "1", NULL},
       "jitscope: error: --input 1 ('Flaot(3)'): column 1: "},
      {{"run", identity2, "--input", "1", "Float(3, *)", NULL},
       "jitscope: error: --input 2 ('Float(3, *)'): size 2 is '*'"},
      {{"run", identity2, "--input", "1", "Float(3", NULL},
       "jitscope: error: --input 2 ('Float(3'): column 8: "},
      {{"run", identity2, "--input", "Long(2, requires_grad=1)", "1", NULL},
       "jitscope: error: --input 1 ('Long(2, requires_grad=1)'): requires_grad=1 needs a "
       "floating-point type, not Long\n"},
      {{"run", identity2, "--input", "Float(2, device=tpu)", "1", NULL},
       "jitscope: error: --input 1 ('Float(2, device=tpu)'): column "},
      {{"run", identity2, "--input", "Float(2, color=1)", "1", NULL},
       "jitscope: error: --input 1 ('Float(2, color=1)'): column "},
      {{"run", identity2, "--input", "Float(2, 3, strides=[1, 2])", "1", NULL},
       "jitscope: error: --input 1 ('Float(2, 3, strides=[1, 2])'): only contiguous strides"},
      {{"run", identity2, "--input", "int[](2)", "1", NULL},
       "jitscope: error: --input 1 ('int[](2)'): "},
      {{"run", identity2, "--input", "x.npy:requires_grad=2", "1", NULL},
       "jitscope: error: --input 1 ('x.npy:requires_grad=2'): requires_grad must be 0 or 1"},
      {{"run", identity2, "--input", "1", "abc", NULL},
       "jitscope: error: --input 2 ('abc'): 'abc' is not a SPEC"},
      {{"run", identity2, "--input", "nothere.npy", "1", NULL}, "jitscope: error: --input 1: "},
      {{"run", typed, "--input", "Float(3, 2)", "1.5", NULL},
       "jitscope: error: --input 1 is Float(3, 2), which does not fit the graph's input %x : "
       "Float(2, 3)\n"},
      {{"run", typed, "--input", "Double(2, 3)", "1.5", NULL},
       "jitscope: error: --input 1 is Double(2, 3), which does not fit"},
      {{"run", typed, "--input", "Float(2, 3)", "true", NULL},
       "jitscope: error: --input 2 is bool true, which does not fit the graph's input %y : "
       "float\n"},
      {{"run", typed, "--input", "3", "1.5", NULL},
       "jitscope: error: --input 1 is int 3, which does not fit"},
      {{"run", typed, "--input", "Float(2, 3)", "1.5", "--seed", "-1", NULL},
       "jitscope: error: --seed expects a non-negative integer, got '-1'\n"},
      {{"run", typed, "--input", "Float(2, 3)", "1.5", "--seed", NULL},
       "jitscope: error: --seed needs a value"},
      {{"run", bcast, "--input", "Float(2, 3)", "Float(4)", NULL}, bcast_error},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    CliRun r = cli_run(jitscope, tmpdir, cases[i].args);
    if (r.status != 2 || !g_str_has_prefix(r.err, cases[i].message))
      g_printerr("case %u: status %d, stderr: %s", i, r.status, r.err);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_true(g_str_has_prefix(r.err, cases[i].message));
    g_assert_cmpstr(r.out, ==, "");
    cli_run_clear(&r);
  }
  /* The missing .npy file is named. */
  CliRun r = cli_run(jitscope, tmpdir,
                     (const char *[]){"run", identity2, "--input", "nothere.npy", "1", NULL});
  g_assert_nonnull(strstr(r.err, "nothere.npy"));
  cli_run_clear(&r);
  g_free(bcast_error);
  g_free(typed);
  g_free(bcast);
}

/* A file's `# jitscope: --spec` header stands in for a missing --input (the first line) and
 * for plans' missing --spec (every line); --input overrides it; a malformed header is a
 * located error. */
static void test_header_specs(void) {
  char *carrying = write_tmp("header.ir", "# two calls\n"
                                          "# jitscope: --spec 'Float(2, 3); Double(4)'\n"
                                          "# jitscope: --spec 'Float(5); Double(1)'\n"
                                          "graph(%x : Tensor,\n      %y : Tensor):\n"
                                          "  return (%x, %y)\n");
  JsonNode *root = run_json(carrying, (const char *[]){NULL});
  assert_shape(output(root, 0), "float32", (gint64[]){2, 3}, 2);
  assert_shape(output(root, 1), "float64", (gint64[]){4}, 1);
  json_node_unref(root);
  root = run_json(carrying, (const char *[]){"--input", "Long(7)", "Bool(2)", NULL});
  assert_shape(output(root, 0), "int64", (gint64[]){7}, 1);
  json_node_unref(root);
  CliRun r = cli_run(jitscope, tmpdir, (const char *[]){"plans", carrying, "--json", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "\"spec\":\"Float(2, 3); Double(4)\""));
  g_assert_nonnull(strstr(r.out, "\"spec\":\"Float(5); Double(1)\""));
  cli_run_clear(&r);
  char *malformed = write_tmp("malformed.ir", "# jitscope: --spec 'Float(2); Flot(3)'\n"
                                              "graph(%x : Tensor,\n      %y : Tensor):\n"
                                              "  return (%x, %y)\n");
  r = cli_run(jitscope, tmpdir, (const char *[]){"run", malformed, NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_autofree char *expected =
      g_strdup_printf("jitscope: %s:1:31: error: spec 2 'Flot(3)'", malformed);
  g_assert_true(g_str_has_prefix(r.err, expected));
  cli_run_clear(&r);
  g_free(malformed);
  g_free(carrying);
}

/* prim::Print writes to stdout as PyTorch's interpreter does, but with --json to stderr, so
 * that stdout stays one JSON document (cli_run checks that it is). */
static void test_print_keeps_json(void) {
  g_autofree char *path = write_tmp("print.ir", "graph(%x : Tensor):\n"
                                                "  %n : int = prim::Constant[value=7]()\n"
                                                "   = prim::Print(%n)\n"
                                                "  return (%x)\n");
  const char *const text_args[] = {"run", path, "--input", "Float(2)", NULL};
  CliRun r = cli_run(jitscope, tmpdir, text_args);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_str_has_prefix(r.out, "7\n"));
  cli_run_clear(&r);
  const char *const json_args[] = {"run", path, "--input", "Float(2)", "--json", NULL};
  r = cli_run(jitscope, tmpdir, json_args);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_str_has_prefix(r.out, "{"));
  g_assert_nonnull(strstr(r.err, "7\n"));
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr("usage: %s JITSCOPE_BINARY\n", argv[0]);
    return 2;
  }
  /* Absolute: the binary is started from other folders. */
  jitscope = g_canonicalize_filename(argv[1], NULL);
  tmpdir = g_dir_make_tmp("jitscope-cli-run-XXXXXX", NULL);
  g_assert_nonnull(tmpdir);
  identity2 = write_tmp("id2.ir", "graph(%x : Tensor,\n      %y : Tensor):\n  return (%x, %y)\n");
  g_test_add_func("/cli/run/drawn-tensors", test_drawn_tensors);
  g_test_add_func("/cli/run/seed-rule", test_seed_rule);
  g_test_add_func("/cli/run/discrete-tensors", test_discrete_tensors);
  g_test_add_func("/cli/run/npy-round-trip", test_npy_round_trip);
  g_test_add_func("/cli/run/json-edge-values", test_json_edge_values);
  g_test_add_func("/cli/run/scalars-and-tuples", test_scalars_and_tuples);
  g_test_add_func("/cli/run/text-output", test_text_output);
  g_test_add_func("/cli/run/dict-outputs", test_dict_outputs);
  g_test_add_func("/cli/run/input-errors", test_input_errors);
  g_test_add_func("/cli/run/header-specs", test_header_specs);
  g_test_add_func("/cli/run/print-keeps-json", test_print_keeps_json);
  int status = g_test_run();
  char *rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(identity2);
  g_free(tmpdir);
  return status;
}
