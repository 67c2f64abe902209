/* Kernels on TorchScript strings: rt_kernel_str (aten::format, aten::str, len.str, find,
 * add.str, warn) and rt_kernel_unchecked_cast.
 *
 * Values are written as c10::IValue's operator<< writes them, which format and str use: ints
 * in decimal, a float with an integral value below 1e10 as "3." and any other as "%.17g"
 * ("0.10000000000000001", "inf", "nan"), True/False, None, a device by its name, strings
 * as they are (also inside lists), lists "[a, b]" and tuples "(a, b)" / "(a,)". Tensors and
 * dicts are not written (an error names them). */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool write_value(GString *out, RtValue v, GError **error) {
  switch (v.tag) {
  case RT_NONE: g_string_append(out, "None"); return true;
  case RT_INT: g_string_append_printf(out, "%" G_GINT64_FORMAT, v.u.i); return true;
  case RT_DOUBLE: {
    double d = v.u.d;
    int c = fpclassify(d);
    if ((c == FP_NORMAL || c == FP_ZERO) && fabs(d) < 1e10 && (double)(gint64)d == d) {
      g_string_append_printf(out, "%" G_GINT64_FORMAT ".", (gint64)d);
      return true;
    }
    g_string_append_printf(out, "%.17g", d);
    return true;
  }
  case RT_BOOL: g_string_append(out, v.u.b ? "True" : "False"); return true;
  case RT_STR: g_string_append(out, v.u.s->text); return true;
  case RT_DEVICE: g_string_append(out, ir_device_name(v.u.device)); return true;
  case RT_LIST:
  case RT_TUPLE: {
    bool list = v.tag == RT_LIST;
    g_string_append_c(out, list ? '[' : '(');
    for (guint i = 0; i < v.u.seq->len; i++) {
      if (i > 0)
        g_string_append(out, ", ");
      if (!write_value(out, v.u.seq->items[i], error))
        return false;
    }
    if (!list && v.u.seq->len == 1)
      g_string_append_c(out, ',');
    g_string_append_c(out, list ? ']' : ')');
    return true;
  }
  case RT_TENSOR:
  case RT_DICT: break;
  }
  K_ERR(error, "writing a %s as a string is not supported", v.tag == RT_TENSOR ? "Tensor" : "Dict");
  return false;
}

/* TorchScript's aten::format: each "{}" of the format takes the next argument; too few
 * arguments is an error. */
static bool format(RtValue *args, guint n_args, RtValue *out, GError **error) {
  K_INVARIANT(args[0].tag == RT_STR, "format's format is a str");
  const char *fmt = args[0].u.s->text;
  g_autoptr(GString) s = g_string_new(NULL);
  guint used = 1;
  for (const char *p = fmt;;) {
    const char *at = strstr(p, "{}");
    if (!at) {
      g_string_append(s, p);
      break;
    }
    g_string_append_len(s, p, at - p);
    if (used >= n_args) {
      K_ERR(error, "Too few arguments for format string: %s", fmt);
      return false;
    }
    if (!write_value(s, args[used++], error))
      return false;
    p = at + 2;
  }
  *out = rt_str(s->str);
  return true;
}

/* TorchScript's stringFindImpl: start and end as Python's slice bounds (end -1 is the
 * string's end), the match's offset in the whole string or -1. */
static gint64 find(const char *s, const char *sub, gint64 start, gint64 end) {
  gint64 size = (gint64)strlen(s);
  if (start < 0)
    start = MAX(0, size + start);
  if (end < 0)
    end = MAX(0, size + end + 1);
  end = MIN(end, size);
  if (end <= start || end - start < (gint64)strlen(sub))
    return -1;
  g_autofree char *window = g_strndup(s + start, (gsize)(end - start));
  const char *at = strstr(window, sub);
  return at ? start + (at - window) : -1;
}

bool rt_kernel_str(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  switch (schema->kind) {
  case IR_ATEN_FORMAT: return format(args, n_args, &outs[0], error);
  case IR_ATEN_STR: {
    g_autoptr(GString) s = g_string_new(NULL);
    if (!write_value(s, args[0], error))
      return false;
    outs[0] = rt_str(s->str);
    return true;
  }
  default: break;
  }
  K_INVARIANT(args[0].tag == RT_STR, "the str family's first argument is a str");
  const char *a = args[0].u.s->text;
  switch (schema->kind) {
  case IR_ATEN_LEN: outs[0] = rt_int((gint64)strlen(a)); return true;
  case IR_ATEN_ADD: {
    K_INVARIANT(args[1].tag == RT_STR, "add.str gets two strings");
    g_autofree char *joined = g_strconcat(a, args[1].u.s->text, NULL);
    outs[0] = rt_str(joined);
    return true;
  }
  case IR_ATEN_WARN: /* Python's warnings module writes to stderr */
    fprintf(stderr, "UserWarning: %s\n", a);
    fflush(stderr);
    return true;
  case IR_ATEN_FIND: {
    gint64 start, end;
    K_INVARIANT(args[1].tag == RT_STR, "find's substring is a str");
    if (!k_arg_int(schema, args, 2, &start, error) || !k_arg_int(schema, args, 3, &end, error))
      return false;
    outs[0] = rt_int(find(a, args[1].u.s->text, start, end));
    return true;
  }
  default: break;
  }
  K_INVARIANT(false, "rt_kernel_str serves only the str rows of ops.def");
  return false;
}

bool rt_kernel_unchecked_cast(const IrSchema *schema, const IrNode *node, RtValue *args,
                              guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  outs[0] = rt_value_ref(args[0]);
  return true;
}
