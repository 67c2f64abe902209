/* The corpus through the interpreter at the API level: every case listed in
 * $JITSCOPE_CORPUS_DIR/INDEX is parsed (graph.ir), verified, compiled once, run forward on the
 * case's inputs, and compared with PyTorch's out*.npy within the corpus README's tolerances
 * (per tensor max |ours - ref| / max(1, max |ref|): 1e-4 for float32, 1e-10 for float64).
 * Exits 77 (skipped) when the corpus is absent. */
#include <math.h>
#include <string.h>

#include "interp_test_util.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/npy.h"

static const char *corpus_dir;

/* The string array under `key` in case.json (the corpus writes plain strings there). */
static GPtrArray *json_strings(const char *json, const char *key) {
  char *pattern = g_strdup_printf("\"%s\"", key);
  const char *p = strstr(json, pattern);
  g_free(pattern);
  if (!p)
    g_error("case.json: no \"%s\"", key);
  p = strchr(p, '[');
  if (!p)
    g_error("case.json: \"%s\" is not an array", key);
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  for (p++; *p && *p != ']'; p++) {
    if (*p != '"')
      continue;
    GString *s = g_string_new(NULL);
    for (p++; *p && *p != '"'; p++) {
      if (*p == '\\' && p[1])
        p++;
      g_string_append_c(s, *p);
    }
    g_ptr_array_add(out, g_string_free(s, FALSE));
  }
  return out;
}

static RtValue load_arg(const char *case_dir, const char *arg, const IrType *type) {
  if (g_str_has_suffix(arg, ".npy") || strstr(arg, ".npy:")) {
    char *file = g_strndup(arg, (gsize)(strstr(arg, ".npy") - arg) + 4);
    char *path = g_build_filename(case_dir, file, NULL);
    GError *error = NULL;
    RtTensor *t = rt_npy_load(path, &error);
    g_assert_no_error(error);
    g_free(path);
    g_free(file);
    return rt_tensor(t);
  }
  if (g_ascii_strcasecmp(arg, "none") == 0)
    return rt_none();
  if (g_ascii_strcasecmp(arg, "true") == 0)
    return rt_bool(true);
  if (g_ascii_strcasecmp(arg, "false") == 0)
    return rt_bool(false);
  if (type->kind == IR_TYPE_INT)
    return rt_int(g_ascii_strtoll(arg, NULL, 10));
  return rt_double(g_ascii_strtod(arg, NULL));
}

static void flatten(RtValue v, GPtrArray *out) {
  if (v.tag == RT_TUPLE) {
    for (guint i = 0; i < v.u.seq->len; i++)
      flatten(v.u.seq->items[i], out);
    return;
  }
  g_assert_true(v.tag == RT_TENSOR && v.u.tensor);
  g_ptr_array_add(out, v.u.tensor);
}

static void compare(const char *what, const RtTensor *ours, const RtTensor *ref) {
  g_assert_cmpint(ours->dtype, ==, ref->dtype);
  g_assert_cmpint(ours->ndim, ==, ref->ndim);
  for (int d = 0; d < ref->ndim; d++)
    g_assert_cmpint(ours->sizes[d], ==, ref->sizes[d]);
  double max_diff = 0, max_ref = 0;
  int64_t n = rt_tensor_numel(ref);
  for (int64_t i = 0; i < n; i++) {
    double r = rt_tensor_get(ref, i), o = rt_tensor_get(ours, i);
    max_diff = fmax(max_diff, fabs(o - r));
    if (isnan(o) != isnan(r))
      max_diff = INFINITY;
    max_ref = fmax(max_ref, fabs(r));
  }
  double rel = max_diff / fmax(1.0, max_ref);
  double tol = ref->dtype == IR_DTYPE_FLOAT64 ? 1e-10 : 1e-4;
  if (!(rel <= tol))
    g_error("%s: relative error %.3g above %.0e", what, rel, tol);
}

static void test_case(gconstpointer data) {
  const char *name = data; /* "lstm_cell/case-0" */
  char *fn = g_strndup(name, (gsize)(strchr(name, '/') - name));
  char *graph_path = g_build_filename(corpus_dir, fn, "graph.ir", NULL);
  char *case_dir = g_build_filename(corpus_dir, name, NULL);
  char *json_path = g_build_filename(case_dir, "case.json", NULL);
  char *text, *json;
  gsize len;
  GError *error = NULL;
  g_assert_true(g_file_get_contents(graph_path, &text, &len, &error));
  g_assert_true(g_file_get_contents(json_path, &json, NULL, &error));
  IrGraph *g = ir_graph_parse(text, len, graph_path, &error);
  g_assert_no_error(error);
  g_assert_true(ir_graph_verify(g, &error));

  GPtrArray *args = json_strings(json, "args");
  GPtrArray *out_files = json_strings(json, "outputs");
  GPtrArray *gin = ir_graph_inputs(g);
  g_assert_cmpuint(args->len, ==, gin->len);
  RtValue *ins = g_new0(RtValue, args->len + 1);
  for (guint i = 0; i < args->len; i++)
    ins[i] = load_arg(case_dir, g_ptr_array_index(args, i),
                      ((IrValue *)g_ptr_array_index(gin, i))->type);

  RtCode *code = rt_code_compile(g, &error);
  g_assert_no_error(error);
  guint n_out = rt_code_n_outputs(code);
  RtValue *outs = g_new0(RtValue, n_out + 1);
  /* Twice: compiled code is reusable and a run leaves nothing behind that changes the next. */
  for (int rep = 0; rep < 2; rep++) {
    g_assert_true(rt_code_run(code, NULL, ins, args->len, outs, &error));
    g_assert_no_error(error);
    GPtrArray *flat = g_ptr_array_new();
    for (guint i = 0; i < n_out; i++)
      flatten(outs[i], flat);
    g_assert_cmpuint(flat->len, ==, out_files->len);
    for (guint i = 0; i < flat->len; i++) {
      char *path = g_build_filename(case_dir, (char *)g_ptr_array_index(out_files, i), NULL);
      RtTensor *ref = rt_npy_load(path, &error);
      g_assert_no_error(error);
      char *what = g_strdup_printf("%s output %u", name, i);
      compare(what, g_ptr_array_index(flat, i), ref);
      g_free(what);
      rt_tensor_unref(ref);
      g_free(path);
    }
    g_ptr_array_unref(flat);
    for (guint i = 0; i < n_out; i++)
      rt_value_unref(outs[i]);
  }
  for (guint i = 0; i < args->len; i++)
    rt_value_unref(ins[i]);
  g_free(outs);
  g_free(ins);
  rt_code_free(code);
  ir_graph_free(g);
  g_ptr_array_unref(args);
  g_ptr_array_unref(out_files);
  g_free(text);
  g_free(json);
  g_free(json_path);
  g_free(case_dir);
  g_free(graph_path);
  g_free(fn);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  corpus_dir = g_getenv("JITSCOPE_CORPUS_DIR");
  char *index_path = corpus_dir ? g_build_filename(corpus_dir, "INDEX", NULL) : NULL;
  char *index = NULL;
  if (!index_path || !g_file_get_contents(index_path, &index, NULL, NULL)) {
    g_printerr("corpus not found (JITSCOPE_CORPUS_DIR); skipping\n");
    g_free(index_path);
    return 77;
  }
  char **lines = g_strsplit(index, "\n", -1);
  guint n_cases = 0;
  for (char **l = lines; *l; l++) {
    g_strstrip(*l);
    if (**l == '\0' || **l == '#')
      continue;
    char *path = g_strdup_printf("/interp/corpus/%s", *l);
    g_test_add_data_func(path, *l, test_case);
    g_free(path);
    n_cases++;
  }
  g_assert_cmpuint(n_cases, >, 0);
  int rc = g_test_run();
  g_strfreev(lines);
  g_free(index);
  g_free(index_path);
  return rc;
}
