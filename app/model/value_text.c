/* Text form of values (contract in value_text.h). */
#include "value_text.h"

#include <math.h>

#include "runtime/device.h"

static void append_number(GString *out, IrDtype dtype, double x) {
  if (dtype == IR_DTYPE_BOOL) {
    g_string_append(out, x != 0.0 ? "true" : "false");
  } else if (dtype == IR_DTYPE_INT64) {
    g_string_append_printf(out, "%.0f", x);
  } else if (isnan(x)) {
    g_string_append(out, "nan");
  } else if (isinf(x)) {
    g_string_append(out, x > 0 ? "inf" : "-inf");
  } else {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.7g", x));
  }
}

static void append_tensor(GString *out, const RtTensor *t, int indent) {
  if (t == NULL) {
    g_string_append(out, "undefined tensor");
    return;
  }
  g_autofree char *shape = rt_shape_to_string(t->ndim, t->sizes);
  g_string_append_printf(out, "%s %s", ir_dtype_name(t->dtype), shape);
  if (t->requires_grad)
    g_string_append(out, " requires_grad=1");
  if (t->storage && t->storage->device == IR_DEVICE_CUDA)
    g_string_append(out, " device=cuda");
  /* Device memory is read through a host copy (the host cannot read it in place). */
  RtTensor *host = NULL;
  if (rt_tensor_on_device(t)) {
    g_autoptr(GError) error = NULL;
    host = rt_tensor_to_host((RtTensor *)t, &error);
    if (host == NULL) {
      g_string_append_printf(out, "\n%*s(values not readable: %s)", indent, "", error->message);
      return;
    }
    t = host;
  }
  g_string_append_printf(out, "\n%*s[", indent, "");
  int64_t n = rt_tensor_numel(t);
  int64_t shown = MIN(n, VALUE_TEXT_MAX_ELEMENTS);
  for (int64_t k = 0; k < shown; k++) {
    if (k)
      g_string_append(out, ", ");
    append_number(out, t->dtype, rt_tensor_get(t, k));
  }
  if (n > shown)
    g_string_append_printf(out, ", ... +%" G_GINT64_FORMAT " more", n - shown);
  g_string_append_c(out, ']');
  if (host)
    rt_tensor_unref(host);
}

void value_text_append(GString *out, RtValue v, int indent) {
  switch (v.tag) {
  case RT_TENSOR: append_tensor(out, v.u.tensor, indent); return;
  case RT_INT: g_string_append_printf(out, "int %" G_GINT64_FORMAT, v.u.i); return;
  case RT_DOUBLE:
    g_string_append(out, "float ");
    append_number(out, IR_DTYPE_FLOAT64, v.u.d);
    return;
  case RT_BOOL: g_string_append_printf(out, "bool %s", v.u.b ? "true" : "false"); return;
  case RT_NONE: g_string_append(out, "None"); return;
  case RT_STR:
  case RT_DEVICE:
  case RT_LIST:
  case RT_TUPLE:
  case RT_DICT: rt_value_print(out, v); return;
  }
}
