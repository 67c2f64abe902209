/* prim::Print's text, as PyTorch 1.13's interpreter writes it: the values separated by one
 * space, then a newline. Strings print raw, floats and other non-tensors as their IValue
 * repr, and tensors in ATen's C++ layout (ATen/core/Formatting.cpp): the values in a common format
 * (integers, fixed with 4 decimals, or scientific; a common scale factor where the range
 * allows), 1-D tensors as a column, matrices in blocks of columns that fit 80 characters,
 * higher ranks as (i,j,.,.) slices, then "[ CPUFloatType{2,3} ]". Formatting.cpp's quirks
 * (the largest magnitude found by comparing signed values) are kept on purpose: the text
 * must be PyTorch's. */
#include "runtime/print_op.h"

#include "ir/text.h"

#include <math.h>

#define LINE_SIZE 80

typedef struct {
  double scale;
  int width;
  char style; /* 'g' (integers), 'f' (fixed, 4 decimals) or 'e' (scientific, 4 decimals) */
} Format;

/* Formatting.cpp's __printFormat over the n values. */
static Format print_format(const double *p, int64_t n) {
  Format f = {1, 0, 'g'};
  bool int_mode = true;
  for (int64_t i = 0; i < n && int_mode; i++)
    if (isfinite(p[i]) && p[i] != ceil(p[i]))
      int_mode = false;
  int64_t offset = 0;
  while (offset < n && !isfinite(p[offset]))
    offset++;
  double exp_min = 1, exp_max = 1;
  if (offset < n) {
    exp_min = fabs(p[offset]);
    exp_max = fabs(p[offset]);
    for (int64_t i = offset; i < n; i++) {
      double z = fabs(p[i]);
      if (isfinite(z)) {
        if (z < exp_min)
          exp_min = z;
        if (p[i] > exp_max)
          exp_max = z;
      }
    }
    exp_min = exp_min != 0 ? floor(log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? floor(log10(exp_max)) + 1 : 1;
  }
  if (int_mode) {
    if (exp_max > 9) {
      f.width = 11;
      f.style = 'e';
    } else {
      f.width = (int)exp_max + 1;
    }
  } else if (exp_max - exp_min > 4) {
    f.width = fabs(exp_max) > 99 || fabs(exp_min) > 99 ? 12 : 11;
    f.style = 'e';
  } else if (exp_max > 5 || exp_max < 0) {
    f.width = 7;
    f.scale = pow(10, exp_max - 1);
    f.style = 'f';
  } else {
    f.width = exp_max == 0 ? 7 : (int)exp_max + 6;
    f.style = 'f';
  }
  return f;
}

static void put_value(GString *out, const Format *f, double v) {
  v /= f->scale;
  if (f->style == 'g')
    g_string_append_printf(out, "%*g", f->width, v);
  else if (f->style == 'f')
    g_string_append_printf(out, "%*.4f", f->width, v);
  else
    g_string_append_printf(out, "%*.4e", f->width, v);
}

static void put_indent(GString *out, int indent) {
  for (int i = 0; i < indent; i++)
    g_string_append_c(out, ' ');
}

/* Formatting.cpp's printScale: the stream then holds precision 4. */
static void put_scale(GString *out, double scale) {
  g_string_append_printf(out, "%.4g *\n", scale);
}

/* __printMatrix of the rows x cols values at p. */
static void put_matrix(GString *out, const double *p, int64_t rows, int64_t cols, int indent) {
  Format f = print_format(p, rows * cols);
  put_indent(out, indent);
  int64_t per_line = (LINE_SIZE - indent) / (f.width + 1);
  for (int64_t first = 0; first < cols;) {
    int64_t last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
    if (per_line < cols) {
      if (first != 0)
        g_string_append_c(out, '\n');
      g_string_append_printf(out, "Columns %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, first + 1,
                             last + 1);
      put_indent(out, indent);
    }
    if (f.scale != 1) {
      put_scale(out, f.scale);
      put_indent(out, indent);
    }
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = first; c <= last; c++) {
        put_value(out, &f, p[r * cols + c]);
        if (c != last) {
          g_string_append_c(out, ' ');
          continue;
        }
        g_string_append_c(out, '\n');
        if (r != rows - 1) {
          put_indent(out, indent);
          if (f.scale != 1)
            g_string_append_c(out, ' ');
        }
      }
    first = last + 1;
  }
}

/* __printTensor: the matrices of a rank > 2 tensor, the leading index counting fastest. */
static void put_slices(GString *out, const double *p, const RtTensor *t) {
  int lead = t->ndim - 2;
  int64_t counter[RT_MAX_DIMS] = {0}, rows = t->sizes[lead], cols = t->sizes[lead + 1];
  counter[0] = -1;
  for (bool first = true;; first = false) {
    bool finished = false;
    for (int i = 0;; i++) {
      if (++counter[i] < t->sizes[i])
        break;
      if (i == lead - 1) {
        finished = true;
        break;
      }
      counter[i] = 0;
    }
    if (finished)
      break;
    if (!first)
      g_string_append_c(out, '\n');
    g_string_append_c(out, '(');
    int64_t offset = 0;
    for (int i = 0; i < lead; i++) {
      g_string_append_printf(out, "%" G_GINT64_FORMAT ",", counter[i] + 1);
      offset = offset * t->sizes[i] + counter[i];
    }
    g_string_append(out, ".,.) = \n");
    put_matrix(out, p + offset * rows * cols, rows, cols, 1);
  }
}

static const char *type_name(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT16: return "CPUHalfType";
  case IR_DTYPE_FLOAT64: return "CPUDoubleType";
  case IR_DTYPE_INT64: return "CPULongType";
  case IR_DTYPE_BOOL: return "CPUBoolType";
  default: return "CPUFloatType";
  }
}

static void put_tensor(GString *out, RtTensor *t) {
  if (!t) {
    g_string_append(out, "[ Tensor (undefined) ]");
    return;
  }
  RtTensor *d = rt_tensor_to_dtype(t, IR_DTYPE_FLOAT64);
  const double *p = rt_tensor_data(d);
  int64_t n = rt_tensor_numel(d);
  if (t->ndim == 0) {
    g_string_append_printf(out, "%g\n", p[0]);
  } else if (t->ndim == 1 && n > 0) {
    Format f = print_format(p, n);
    if (f.scale != 1)
      put_scale(out, f.scale);
    for (int64_t i = 0; i < n; i++) {
      put_value(out, &f, p[i]);
      g_string_append_c(out, '\n');
    }
  } else if (t->ndim == 2 && n > 0) {
    put_matrix(out, p, t->sizes[0], t->sizes[1], 0);
  } else if (n > 0) {
    put_slices(out, p, t);
  }
  rt_tensor_unref(d);
  g_string_append_printf(out, "[ %s{", type_name(t->dtype));
  for (int k = 0; k < t->ndim; k++)
    g_string_append_printf(out, k ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->sizes[k]);
  g_string_append(out, "} ]");
}

void rt_print_format(GString *out, const RtValue *values, guint n) {
  for (guint i = 0; i < n; i++) {
    if (i)
      g_string_append_c(out, ' ');
    if (values[i].tag == RT_STR)
      g_string_append(out, values[i].u.s->text);
    else if (values[i].tag == RT_DOUBLE)
      ir_format_double(out, values[i].u.d);
    else if (values[i].tag == RT_TENSOR)
      put_tensor(out, values[i].u.tensor);
    else
      rt_value_print(out, values[i]);
  }
  g_string_append_c(out, '\n');
}

static FILE *print_stream; /* NULL: stdout */

void rt_print_set_stream(FILE *stream) {
  g_atomic_pointer_set(&print_stream, stream);
}

FILE *rt_print_stream(void) {
  FILE *stream = g_atomic_pointer_get(&print_stream);
  return stream ? stream : stdout;
}
