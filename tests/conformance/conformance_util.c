/* Conformance helpers (contract in conformance_util.h). */
#include "conformance_util.h"

#include <math.h>
#include <string.h>

#include "ir/type.h"

char *conf_data_path(const char *given, const char *name) {
  if (given)
    return g_strdup(given);
  const char *src = g_getenv("JITSCOPE_SOURCE_DIR");
  g_assert_nonnull(src);
  return g_build_filename(src, "tests", "conformance", "data", name, NULL);
}

JsonParser *conf_load(const char *path) {
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  if (!json_parser_load_from_file(parser, path, &error))
    g_error("%s: %s", path, error->message);
  return parser;
}

JsonArray *conf_cases(JsonParser *parser) {
  return json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "cases");
}

double conf_number(JsonNode *node) {
  GType type = json_node_get_value_type(node);
  if (type == G_TYPE_STRING) {
    const char *s = json_node_get_string(node);
    if (strcmp(s, "nan") == 0)
      return NAN;
    return strcmp(s, "inf") == 0 ? INFINITY : -INFINITY;
  }
  if (type == G_TYPE_BOOLEAN)
    return json_node_get_boolean(node);
  if (type == G_TYPE_INT64)
    return (double)json_node_get_int(node);
  return json_node_get_double(node);
}

static IrDtype dtype_named(const char *name) {
  static const struct {
    const char *name;
    IrDtype dtype;
  } names[] = {{"float32", IR_DTYPE_FLOAT32},
               {"float64", IR_DTYPE_FLOAT64},
               {"int64", IR_DTYPE_INT64},
               {"bool", IR_DTYPE_BOOL}};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(names[i].name, name) == 0)
      return names[i].dtype;
  g_error("conformance data: unknown dtype %s", name);
}

RtValue *conf_inputs(JsonObject *c, guint *n) {
  JsonArray *inputs = json_object_get_array_member(c, "inputs");
  JsonArray *dtypes = json_object_get_array_member(c, "input_dtypes");
  JsonArray *shapes =
      json_object_has_member(c, "shapes") ? json_object_get_array_member(c, "shapes") : NULL;
  *n = json_array_get_length(inputs);
  RtValue *values = g_new(RtValue, *n);
  for (guint a = 0; a < *n; a++) {
    JsonArray *data = json_array_get_array_element(inputs, a);
    int64_t sizes[4] = {json_array_get_length(data)};
    int ndim = 1;
    if (shapes) {
      JsonArray *shape = json_array_get_array_element(shapes, a);
      ndim = (int)json_array_get_length(shape);
      for (int d = 0; d < ndim; d++)
        sizes[d] = json_array_get_int_element(shape, d);
    }
    IrDtype dt = dtype_named(json_array_get_string_element(dtypes, a));
    RtTensor *t = rt_tensor_new(dt, ndim, sizes);
    for (guint k = 0; k < json_array_get_length(data); k++) {
      JsonNode *v = json_array_get_element(data, k);
      if (dt == IR_DTYPE_INT64) /* all 64 bits, not through a double */
        ((int64_t *)rt_tensor_data(t))[k] = json_node_get_int(v);
      else
        rt_tensor_set(t, k, conf_number(v));
    }
    values[a] = rt_tensor(t);
  }
  return values;
}

static bool within(double got, double want, double rtol, double atol) {
  if (isnan(want) || isnan(got))
    return isnan(want) && isnan(got);
  if (isinf(want) || isinf(got))
    return got == want;
  if (want == 0 && got == 0)
    return signbit(want) == signbit(got);
  return fabs(got - want) <= atol + rtol * fabs(want);
}

bool conf_close(double got, double want, IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return within(got, want, 8 * FLT_EPSILON, 1e-37);
  case IR_DTYPE_FLOAT64: return within(got, want, 8 * DBL_EPSILON, 1e-300);
  default: return got == want;
  }
}

bool conf_close_grad(double got, double want, IrDtype dtype) {
  if (want == 0 && got == 0)
    return true; /* the sign of a zero gradient depends on the formula's shape */
  return dtype == IR_DTYPE_FLOAT32 ? within(got, want, 1e-5, 1e-6)
                                   : within(got, want, 1e-10, 1e-12);
}

void conf_report(ConfTally *tally, const char *backend, JsonObject *c, guint k, const char *what) {
  if (tally->failed++ >= 400)
    return;
  g_autoptr(GString) in = g_string_new(NULL);
  JsonArray *inputs = json_object_get_array_member(c, "inputs");
  for (guint a = 0; a < json_array_get_length(inputs); a++) {
    JsonNode *v = json_array_get_element(json_array_get_array_element(inputs, a), k);
    g_autofree char *text = json_to_string(v, FALSE);
    g_string_append_printf(in, "%s%s", a ? ", " : "", text);
  }
  g_printerr("MISMATCH %s [%s] %s at (%s): %s\n", json_object_get_string_member(c, "op"),
             json_object_get_string_member(c, "dtype"), backend, in->str, what);
}

void conf_compare(ConfTally *tally, const char *backend, JsonObject *c, const RtTensor *got) {
  tally->checked++;
  const char *want_dtype = json_object_get_string_member(c, "expected_dtype");
  if (strcmp(ir_dtype_name(got->dtype), want_dtype) != 0) {
    g_autofree char *what =
        g_strdup_printf("dtype %s, PyTorch %s", ir_dtype_name(got->dtype), want_dtype);
    conf_report(tally, backend, c, 0, what);
    return;
  }
  JsonArray *want = json_object_get_array_member(c, "expected");
  g_assert_cmpint(rt_tensor_numel(got), ==, json_array_get_length(want));
  for (guint k = 0; k < json_array_get_length(want); k++) {
    double w = conf_number(json_array_get_element(want, k));
    double g = rt_tensor_get(got, k);
    if (!conf_close(g, w, got->dtype)) {
      g_autofree char *what = g_strdup_printf("got %.17g, PyTorch %.17g", g, w);
      conf_report(tally, backend, c, k, what);
    }
  }
}
