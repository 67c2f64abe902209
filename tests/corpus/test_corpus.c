/* Corpus test: runs `jitscope run ../graph.ir --input ARGS... --json` (or ../source.py with
 * --program=source.py: the program's TorchScript source) in a case folder of
 * $JITSCOPE_CORPUS_DIR and compares every output with PyTorch's out*.npy and every gradient
 * the case has with ours (a missing one fails), within the corpus tolerance (corpus README):
 * per tensor max|ours - ref| / max(1, max|ref|) <= 1e-4 for float32 (and float16), 1e-10 for
 * float64; integer and bool tensors exactly; NaN where and only where the reference has NaN.
 *
 * A case.json with "seed": N runs with --seed N (its program draws random numbers).
 *
 * Usage: test-corpus JITSCOPE_BINARY [--program=FILE] [CASE...]   (CASE as in INDEX, e.g. lstm_cell/case-0;
 * without CASE every line of INDEX). Exit 0 when all pass, 1 when one fails, 77 when the
 * corpus is missing. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/type.h"
#include "runtime/npy.h"

#include "../cli/cli_run.h"

typedef struct {
  guint outputs_compared;
  guint grads_compared;
  guint grads_available; /* gradients the case has */
} Counts;

static double tolerance(IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT64: return 1e-10;
  case IR_DTYPE_FLOAT32:
  case IR_DTYPE_FLOAT16: return 1e-4;
  default: return 0.0;
  }
}

static bool read_number(JsonNode *n, double *out) {
  if (!JSON_NODE_HOLDS_VALUE(n))
    return false;
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double(n);
  else if (t == G_TYPE_INT64)
    *out = (double)json_node_get_int(n);
  else if (t == G_TYPE_BOOLEAN)
    *out = json_node_get_boolean(n);
  else if (t == G_TYPE_STRING) {
    const char *s = json_node_get_string(n);
    if (strcmp(s, "nan") == 0)
      *out = NAN;
    else if (strcmp(s, "inf") == 0)
      *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
      *out = -INFINITY;
    else
      return false;
  } else
    return false;
  return true;
}

/* Compares our JSON tensor with the reference file; false with a message in *why. */
static bool compare_tensor(JsonNode *ours, const char *ref_path, char **why) {
  GError *error = NULL;
  RtTensor *ref = rt_npy_load(ref_path, &error);
  if (ref == NULL) {
    *why = g_strdup_printf("cannot load %s: %s", ref_path, error->message);
    g_error_free(error);
    return false;
  }
  bool ok = false;
  if (!JSON_NODE_HOLDS_OBJECT(ours)) {
    *why = g_strdup_printf("expected a tensor like %s, got a non-tensor value", ref_path);
    goto out;
  }
  JsonObject *t = json_node_get_object(ours);
  const char *dtype = json_object_get_string_member_with_default(t, "dtype", "?");
  if (strcmp(dtype, ir_dtype_name(ref->dtype)) != 0) {
    *why = g_strdup_printf("dtype %s, reference %s has %s", dtype, ref_path,
                           ir_dtype_name(ref->dtype));
    goto out;
  }
  JsonArray *shape = json_object_get_array_member(t, "shape");
  bool same_shape = shape && json_array_get_length(shape) == (guint)ref->ndim;
  for (int d = 0; same_shape && d < ref->ndim; d++)
    same_shape = json_array_get_int_element(shape, d) == ref->sizes[d];
  if (!same_shape) {
    char *want = rt_shape_to_string(ref->ndim, ref->sizes);
    *why = g_strdup_printf("shape differs from %s %s", ref_path, want);
    g_free(want);
    goto out;
  }
  JsonArray *data = json_object_get_array_member(t, "data");
  int64_t n = rt_tensor_numel(ref);
  if (data == NULL || json_array_get_length(data) != (guint)n) {
    *why = g_strdup_printf("data has the wrong number of elements (reference %" G_GINT64_FORMAT ")",
                           n);
    goto out;
  }
  double max_ref = 0.0, max_diff = 0.0;
  int64_t worst = -1;
  for (int64_t k = 0; k < n; k++) {
    double r = rt_tensor_get(ref, k), o;
    if (!read_number(json_array_get_element(data, (guint)k), &o)) {
      *why = g_strdup_printf("element %" G_GINT64_FORMAT " is not a number", k);
      goto out;
    }
    if (isnan(r) || isnan(o)) {
      if (isnan(r) != isnan(o)) {
        *why = g_strdup_printf("element %" G_GINT64_FORMAT ": %g, reference %g", k, o, r);
        goto out;
      }
      continue;
    }
    if (isinf(r) || isinf(o)) {
      if (r != o) {
        *why = g_strdup_printf("element %" G_GINT64_FORMAT ": %g, reference %g", k, o, r);
        goto out;
      }
      continue;
    }
    max_ref = fmax(max_ref, fabs(r));
    if (fabs(o - r) > max_diff) {
      max_diff = fabs(o - r);
      worst = k;
    }
  }
  double err = max_diff / fmax(1.0, max_ref);
  if (err > tolerance(ref->dtype)) {
    double worst_ours = NAN;
    read_number(json_array_get_element(data, (guint)worst), &worst_ours);
    *why = g_strdup_printf(
        "relative error %.3g > %.0e (worst element %" G_GINT64_FORMAT ": %.9g, reference %.9g)",
        err, tolerance(ref->dtype), worst, worst_ours, rt_tensor_get(ref, worst));
    goto out;
  }
  ok = true;
out:
  rt_tensor_unref(ref);
  return ok;
}

/* Runs and checks one case; prints one line; false on failure. */
static bool run_case(const char *jitscope, const char *corpus, const char *program,
                     const char *name, Counts *counts) {
  g_autofree char *program_path = g_strconcat("../", program, NULL);
  g_autofree char *seed = NULL;
  char *dir = g_build_filename(corpus, name, NULL);
  char *case_json = g_build_filename(dir, "case.json", NULL);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  char *why = NULL;
  JsonParser *ours_parser = json_parser_new();
  CliRun r = {0};
  guint outputs_here = 0, grads_here = 0, grads_available_here = 0;

  if (!json_parser_load_from_file(parser, case_json, &error)) {
    why = g_strdup_printf("cannot read %s: %s", case_json, error->message);
    g_error_free(error);
    goto done;
  }
  JsonObject *c = json_node_get_object(json_parser_get_root(parser));
  JsonArray *args = json_object_get_array_member(c, "args");
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, "run");
  g_ptr_array_add(argv, program_path);
  g_ptr_array_add(argv, "--json");
  /* The same cases once more without the fuser (tests/corpus-real runs both). */
  if (g_strcmp0(g_getenv("JITSCOPE_CORPUS_NO_FUSE"), "1") == 0)
    g_ptr_array_add(argv, "--no-fuse");
  /* A case with random ops records the seed PyTorch's run had (torch.manual_seed). */
  if (json_object_has_member(c, "seed")) {
    seed = g_strdup_printf("%" G_GINT64_FORMAT, json_object_get_int_member(c, "seed"));
    g_ptr_array_add(argv, "--seed");
    g_ptr_array_add(argv, seed);
  }
  g_ptr_array_add(argv, "--input");
  for (guint i = 0; i < json_array_get_length(args); i++)
    g_ptr_array_add(argv, (gpointer)json_array_get_string_element(args, i));
  g_ptr_array_add(argv, NULL);
  r = cli_run(jitscope, dir, (const char *const *)argv->pdata);
  g_ptr_array_unref(argv);
  if (r.signal) {
    why = g_strdup_printf("jitscope run was killed by signal %d (%s): %s", r.signal,
                          g_strsignal(r.signal), r.err);
    goto done;
  }
  if (r.status != 0) {
    why = g_strdup_printf("jitscope run exited with %d: %s", r.status, r.err);
    goto done;
  }
  if (!json_parser_load_from_data(ours_parser, r.out, -1, &error)) {
    why = g_strdup_printf("output is not JSON: %s", error->message);
    g_error_free(error);
    goto done;
  }
  JsonObject *ours = json_node_get_object(json_parser_get_root(ours_parser));
  JsonArray *our_outputs = json_object_get_array_member(ours, "outputs");
  JsonArray *ref_outputs = json_object_get_array_member(c, "outputs");
  if (json_array_get_length(our_outputs) != json_array_get_length(ref_outputs)) {
    why = g_strdup_printf("%u outputs, PyTorch has %u", json_array_get_length(our_outputs),
                          json_array_get_length(ref_outputs));
    goto done;
  }
  for (guint i = 0; i < json_array_get_length(ref_outputs); i++) {
    char *ref = g_build_filename(dir, json_array_get_string_element(ref_outputs, i), NULL);
    char *detail = NULL;
    bool ok = compare_tensor(json_array_get_element(our_outputs, i), ref, &detail);
    g_free(ref);
    if (!ok) {
      why = g_strdup_printf("output %u: %s", i, detail);
      g_free(detail);
      goto done;
    }
    outputs_here++;
  }
  JsonArray *ref_grads = json_object_get_array_member(c, "grads");
  JsonArray *our_grads = json_object_get_array_member(ours, "grads");
  for (guint i = 0; ref_grads && i < json_array_get_length(ref_grads); i++) {
    if (JSON_NODE_HOLDS_NULL(json_array_get_element(ref_grads, i)))
      continue;
    grads_available_here++;
    if (our_grads == NULL || i >= json_array_get_length(our_grads) ||
        JSON_NODE_HOLDS_NULL(json_array_get_element(our_grads, i))) {
      why = g_strdup_printf("grad of input %u: PyTorch has one, jitscope printed none", i);
      goto done;
    }
    char *ref = g_build_filename(dir, json_array_get_string_element(ref_grads, i), NULL);
    char *detail = NULL;
    bool ok = compare_tensor(json_array_get_element(our_grads, i), ref, &detail);
    g_free(ref);
    if (!ok) {
      why = g_strdup_printf("grad of input %u: %s", i, detail);
      g_free(detail);
      goto done;
    }
    grads_here++;
  }

done:
  counts->outputs_compared += outputs_here;
  counts->grads_compared += grads_here;
  counts->grads_available += grads_available_here;
  if (why)
    printf("FAIL %s: %s\n", name, why);
  else
    printf("ok   %s: %u output%s compared, %u of %u gradients compared\n", name, outputs_here,
           outputs_here == 1 ? "" : "s", grads_here, grads_available_here);
  bool passed = why == NULL;
  g_free(why);
  cli_run_clear(&r);
  g_object_unref(ours_parser);
  g_object_unref(parser);
  g_free(case_json);
  g_free(dir);
  return passed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s JITSCOPE_BINARY [CASE...]\n", argv[0]);
    return 2;
  }
  const char *corpus = g_getenv("JITSCOPE_CORPUS_DIR");
  char *index_path = corpus ? g_build_filename(corpus, "INDEX", NULL) : NULL;
  char *index = NULL;
  if (index_path == NULL || !g_file_get_contents(index_path, &index, NULL, NULL)) {
    printf("SKIP: no corpus (set JITSCOPE_CORPUS_DIR to the folder holding INDEX)\n");
    g_free(index_path);
    return 77;
  }
  GPtrArray *cases = g_ptr_array_new_with_free_func(g_free);
  const char *program = "graph.ir";
  int first_case = 2;
  if (argc > 2 && g_str_has_prefix(argv[2], "--program="))
    program = argv[first_case++] + strlen("--program=");
  if (argc > first_case) {
    for (int i = first_case; i < argc; i++)
      g_ptr_array_add(cases, g_strdup(argv[i]));
  } else {
    char **lines = g_strsplit(index, "\n", -1);
    for (char **l = lines; *l; l++)
      if (*g_strstrip(*l))
        g_ptr_array_add(cases, g_strdup(*l));
    g_strfreev(lines);
  }
  /* Absolute: the binary is started from the case folders. */
  char *jitscope = g_canonicalize_filename(argv[1], NULL);
  Counts counts = {0};
  guint failed = 0;
  for (guint i = 0; i < cases->len; i++)
    failed += !run_case(jitscope, corpus, program, g_ptr_array_index(cases, i), &counts);
  printf("corpus: %u case%s, %u failed; %u outputs compared; %u of %u gradients compared\n",
         cases->len, cases->len == 1 ? "" : "s", failed, counts.outputs_compared,
         counts.grads_compared, counts.grads_available);
  g_ptr_array_unref(cases);
  g_free(jitscope);
  g_free(index);
  g_free(index_path);
  return failed ? 1 : 0;
}
