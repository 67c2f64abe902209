/* SPEC parsing and input values (grammar and drawing rules in input_spec.h). */
#include "input_spec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "app_error.h"
#include "ir/text.h"
#include "runtime/npy.h"
#include "tensor/memory_budget.h"

static void spec_error(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
static void spec_error(GError **error, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *message = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error_literal(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, message);
}

static bool parse_bool_flag(const char *key, const char *value, bool *out, GError **error) {
  if (strcmp(value, "1") == 0 || strcmp(value, "true") == 0 || strcmp(value, "True") == 0) {
    *out = true;
    return true;
  }
  if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0 || strcmp(value, "False") == 0) {
    *out = false;
    return true;
  }
  spec_error(error, "%s must be 0 or 1, not '%s'", key, value);
  return false;
}

static bool parse_device(const char *value, int *out, GError **error) {
  if (strcmp(value, "cpu") == 0) {
    *out = IR_DEVICE_CPU;
    return true;
  }
  if (strcmp(value, "cuda") == 0 || strcmp(value, "cuda:0") == 0) {
    *out = IR_DEVICE_CUDA;
    return true;
  }
  spec_error(error, "device must be cpu or cuda, not '%s'", value);
  return false;
}

/* Moves the text parser's "<type>:1:COL: error: bad type: MESSAGE" to "column COL:
 * MESSAGE", since the SPEC is not a file. Other messages are kept as they are. */
static char *type_parse_message(const char *message) {
  const char *prefix = "<type>:1:";
  if (!g_str_has_prefix(message, prefix))
    return g_strdup(message);
  const char *col = message + strlen(prefix);
  const char *colon = strchr(col, ':');
  if (colon == NULL)
    return g_strdup(message);
  const char *rest = colon + 1;
  while (*rest == ' ')
    rest++;
  if (g_str_has_prefix(rest, "error: "))
    rest += strlen("error: ");
  if (g_str_has_prefix(rest, "bad type: "))
    rest += strlen("bad type: ");
  return g_strdup_printf("column %.*s: %s", (int)(colon - col), col, rest);
}

/* TYPE: parsed by the IR's own type parser, then checked to be a tensor type complete
 * enough to draw values for. */
static bool parse_type(const char *text, InputSpec *spec, GError **error) {
  g_autoptr(GError) local = NULL;
  const IrType *t = ir_type_parse(text, strlen(text), &local);
  if (t == NULL) {
    g_autofree char *message = type_parse_message(local->message);
    spec_error(error, "%s", message);
    return false;
  }
  if (t->kind != IR_TYPE_TENSOR || t->undefined) {
    spec_error(error, "'%s' is not a tensor type with sizes (e.g. 'Float(3, 4)')", text);
    return false;
  }
  if (!t->has_dtype || t->rank < 0) {
    spec_error(error, "a drawn input needs a dtype and sizes (e.g. 'Float(3, 4)')");
    return false;
  }
  spec->dtype = t->dtype;
  spec->ndim = t->rank;
  for (int d = 0; d < t->rank; d++) {
    if (t->sizes == NULL || t->sizes[d] == IR_SIZE_UNKNOWN) {
      spec_error(error, "size %d is '*': a drawn input needs every size", d + 1);
      return false;
    }
    spec->sizes[d] = t->sizes[d];
  }
  guint64 nbytes = 0;
  g_autoptr(GError) shape_error = NULL;
  if (!rt_shape_checked_bytes(t->dtype, t->rank, spec->sizes, &nbytes, &shape_error)) {
    spec_error(error, "%s", shape_error->message);
    return false;
  }
  if (t->strides) {
    int64_t expect = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
      if (spec->sizes[d] != 1 && t->strides[d] != expect) {
        spec_error(error, "only contiguous strides are supported for drawn inputs");
        return false;
      }
      expect *= spec->sizes[d];
    }
  }
  spec->requires_grad = t->requires_grad == IR_YES;
  spec->device = t->device == IR_DEVICE_CUDA ? IR_DEVICE_CUDA : IR_DEVICE_CPU;
  return true;
}

/* `KEY=VALUE,...` after `x.npy:`. */
static bool parse_npy_attributes(const char *attrs, InputSpec *spec, GError **error) {
  g_auto(GStrv) items = g_strsplit(attrs, ",", -1);
  bool ok = true;
  for (char **item = items; ok && *item; item++) {
    char *eq = strchr(*item, '=');
    if (eq == NULL) {
      spec_error(error, "expected KEY=VALUE after the .npy path, got '%s'", *item);
      ok = false;
      break;
    }
    *eq = '\0';
    char *key = g_strstrip(*item);
    char *value = g_strstrip(eq + 1);
    if (strcmp(key, "requires_grad") == 0)
      ok = parse_bool_flag(key, value, &spec->requires_grad, error);
    else if (strcmp(key, "device") == 0)
      ok = parse_device(value, &spec->device, error);
    else {
      spec_error(error, "unknown attribute '%s' (expected requires_grad or device)", key);
      ok = false;
    }
  }
  return ok;
}

static bool parse_number(const char *text, InputSpec *spec) {
  char *end = NULL;
  errno = 0;
  gint64 i = g_ascii_strtoll(text, &end, 10);
  if (end != text && *end == '\0' && errno == 0 && g_ascii_isdigit(text[strlen(text) - 1])) {
    spec->kind = INPUT_SPEC_INT;
    spec->i = i;
    return true;
  }
  errno = 0;
  double d = g_ascii_strtod(text, &end);
  if (end != text && *end == '\0' && errno == 0 && !g_ascii_isspace(text[0])) {
    spec->kind = INPUT_SPEC_FLOAT;
    spec->d = d;
    return true;
  }
  return false;
}

InputSpec *input_spec_parse(const char *text, GError **error) {
  InputSpec *spec = g_new0(InputSpec, 1);
  spec->text = g_strdup(text);
  spec->device = IR_DEVICE_CPU;
  if (strcmp(text, "none") == 0 || strcmp(text, "None") == 0) {
    spec->kind = INPUT_SPEC_NONE;
    return spec;
  }
  if (strcmp(text, "true") == 0 || strcmp(text, "True") == 0 || strcmp(text, "false") == 0 ||
      strcmp(text, "False") == 0) {
    spec->kind = INPUT_SPEC_BOOL;
    spec->b = text[0] == 't' || text[0] == 'T';
    return spec;
  }
  if (text[0] != '\0' && parse_number(text, spec))
    return spec;

  /* .npy: the path runs up to the last ".npy" that ends the text or is followed by ':'. */
  const char *npy = NULL;
  for (const char *p = strstr(text, ".npy"); p; p = strstr(p + 1, ".npy"))
    if (p[4] == '\0' || p[4] == ':')
      npy = p;
  if (npy) {
    spec->kind = INPUT_SPEC_NPY;
    spec->path = g_strndup(text, npy + 4 - text);
    if (npy[4] == ':' && !parse_npy_attributes(npy + 5, spec, error)) {
      input_spec_free(spec);
      return NULL;
    }
    return spec;
  }

  /* TYPE: an identifier followed by '('. */
  const char *p = text;
  while (g_ascii_isalnum(*p) || *p == '_')
    p++;
  while (*p == ' ')
    p++;
  if (p == text || *p != '(') {
    spec_error(error,
               "'%s' is not a SPEC: expected a tensor type like 'Float(3, 4)', a file "
               "x.npy[:requires_grad=1], a number, true, false or none",
               text);
    input_spec_free(spec);
    return NULL;
  }
  spec->kind = INPUT_SPEC_TYPE;
  if (!parse_type(text, spec, error)) {
    input_spec_free(spec);
    return NULL;
  }
  if (spec->requires_grad && !ir_type_is_float_dtype(spec->dtype)) {
    spec_error(error, "requires_grad=1 needs a floating-point type, not %s",
               ir_dtype_type_name(spec->dtype));
    input_spec_free(spec);
    return NULL;
  }
  return spec;
}

void input_spec_free(InputSpec *spec) {
  if (spec == NULL)
    return;
  g_free(spec->text);
  g_free(spec->path);
  g_free(spec);
}

guint64 input_spec_seed(guint64 seed, guint index) {
  return seed + index;
}

/* Long and Bool values from Normal(0, 1) draws (rule in input_spec.h). */
static RtTensor *draw_discrete(const InputSpec *spec, guint64 seed) {
  RtTensor *normal = rt_tensor_randn(IR_DTYPE_FLOAT64, spec->ndim, spec->sizes, seed);
  RtTensor *t = rt_tensor_new(spec->dtype, spec->ndim, spec->sizes);
  int64_t n = rt_tensor_numel(t);
  for (int64_t k = 0; k < n; k++) {
    double x = rt_tensor_get(normal, k);
    rt_tensor_set(t, k, spec->dtype == IR_DTYPE_BOOL ? (x > 0 ? 1.0 : 0.0) : round(3.0 * x));
  }
  rt_tensor_unref(normal);
  return t;
}

bool input_spec_make_value(const InputSpec *spec, guint64 seed, guint index, RtValue *out,
                           GError **error) {
  RtTensor *t = NULL;
  switch (spec->kind) {
  case INPUT_SPEC_NONE: *out = rt_none(); return true;
  case INPUT_SPEC_INT: *out = rt_int(spec->i); return true;
  case INPUT_SPEC_FLOAT: *out = rt_double(spec->d); return true;
  case INPUT_SPEC_BOOL: *out = rt_bool(spec->b); return true;
  case INPUT_SPEC_TYPE: {
    /* Drawing takes the tensor and a float64 or float32 draw beside it at most. */
    guint64 nbytes = 0, draw_bytes = 0;
    if (!rt_shape_checked_bytes(spec->dtype, spec->ndim, spec->sizes, &nbytes, error) ||
        !rt_shape_checked_bytes(IR_DTYPE_FLOAT64, spec->ndim, spec->sizes, &draw_bytes, error) ||
        !rt_memory_check(nbytes + draw_bytes, error))
      return false;
    guint64 s = input_spec_seed(seed, index);
    if (spec->dtype == IR_DTYPE_FLOAT32 || spec->dtype == IR_DTYPE_FLOAT64) {
      t = rt_tensor_randn(spec->dtype, spec->ndim, spec->sizes, s);
    } else if (spec->dtype == IR_DTYPE_FLOAT16) {
      RtTensor *f = rt_tensor_randn(IR_DTYPE_FLOAT32, spec->ndim, spec->sizes, s);
      t = rt_tensor_to_dtype(f, IR_DTYPE_FLOAT16);
      rt_tensor_unref(f);
    } else {
      t = draw_discrete(spec, s);
    }
    break;
  }
  case INPUT_SPEC_NPY:
    t = rt_npy_load(spec->path, error);
    if (t == NULL)
      return false;
    if (spec->requires_grad && !ir_type_is_float_dtype(t->dtype)) {
      spec_error(error, "requires_grad=1 needs a floating-point tensor, but %s holds %s",
                 spec->path, ir_dtype_name(t->dtype));
      rt_tensor_unref(t);
      return false;
    }
    break;
  }
  t->requires_grad = spec->requires_grad;
  *out = rt_tensor(t);
  return true;
}

char *input_spec_describe(const InputSpec *spec, RtValue value) {
  switch (spec->kind) {
  case INPUT_SPEC_NONE: return g_strdup("None");
  case INPUT_SPEC_INT: return g_strdup_printf("int %" G_GINT64_FORMAT, spec->i);
  case INPUT_SPEC_FLOAT: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup_printf("float %s", g_ascii_dtostr(buf, sizeof buf, spec->d));
  }
  case INPUT_SPEC_BOOL: return g_strdup_printf("bool %s", spec->b ? "true" : "false");
  case INPUT_SPEC_TYPE:
  case INPUT_SPEC_NPY: break;
  }
  IrDtype dtype = spec->dtype;
  int ndim = spec->ndim;
  const int64_t *sizes = spec->sizes;
  if (value.tag == RT_TENSOR && value.u.tensor) {
    dtype = value.u.tensor->dtype;
    ndim = value.u.tensor->ndim;
    sizes = value.u.tensor->sizes;
  }
  GString *out = g_string_new(ir_dtype_type_name(dtype));
  g_string_append_c(out, '(');
  for (int d = 0; d < ndim; d++)
    g_string_append_printf(out, "%s%" G_GINT64_FORMAT, d ? ", " : "", sizes[d]);
  if (spec->requires_grad)
    g_string_append_printf(out, "%srequires_grad=1", ndim ? ", " : "");
  if (spec->device == IR_DEVICE_CUDA)
    g_string_append_printf(out, "%sdevice=cuda", ndim || spec->requires_grad ? ", " : "");
  g_string_append_c(out, ')');
  return g_string_free(out, FALSE);
}
