/* One `--input SPEC` (DESIGN.md, "SPEC"): parsing the text, and making the value it names.
 *
 *   SPEC := TYPE | NPY | INT | FLOAT | BOOL | 'none'
 *   TYPE := a tensor type in the IR's syntax, read by ir_type_parse: 'Float(5, 1, requires_grad=1)',
 *           'Double(3, 4)', 'Long(2)', 'Bool(3)', 'Half(2)', 'Float(8, device=cuda)'; every
 *           size must be given; strides, if given, must be the contiguous ones
 *   NPY  := PATH '.npy' [':' KEY '=' VALUE {',' KEY '=' VALUE}]       KEY: requires_grad, device
 *   INT  := decimal integer (int64)     FLOAT := decimal or exponent form, inf, nan
 *   BOOL := true | false (True/False too)   'none' (None too)
 *
 * Values drawn for a TYPE come from a deterministic generator: input number `index`
 * (0-based) of a run with `--seed S` uses generator seed S + index (input_spec_seed).
 * Float/Double/Half values are Normal(0, 1); Long values are round(3 x) for x ~ Normal(0, 1)
 * (small integers, both signs); Bool values are x > 0.
 *
 * device=cuda is recorded in the spec (it is part of the argument spec the executor
 * specializes on); the tensor itself lives in CPU memory, since this runtime computes on the
 * CPU unless the fuser's CUDA backend takes a node. */
#ifndef JITSCOPE_APP_INPUT_SPEC_H
#define JITSCOPE_APP_INPUT_SPEC_H

#include <stdbool.h>

#include "runtime/value.h"

typedef enum {
  INPUT_SPEC_TYPE, /* a tensor type: values drawn from the generator */
  INPUT_SPEC_NPY,  /* a NumPy file */
  INPUT_SPEC_INT,
  INPUT_SPEC_FLOAT,
  INPUT_SPEC_BOOL,
  INPUT_SPEC_NONE,
} InputSpecKind;

typedef struct {
  InputSpecKind kind;
  char *text; /* the SPEC as given */
  /* INPUT_SPEC_TYPE */
  IrDtype dtype;
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
  /* INPUT_SPEC_NPY: the path as given (relative to the current directory) */
  char *path;
  /* INPUT_SPEC_TYPE and INPUT_SPEC_NPY */
  bool requires_grad;
  int device; /* IrDevice */
  /* scalars */
  gint64 i;
  double d;
  bool b;
} InputSpec;

/* Parses one SPEC; NULL with *error (JITSCOPE_APP_ERROR, APP_ERROR_INPUT; the message says
 * what is wrong, without saying which --input it was) on malformed text. */
InputSpec *input_spec_parse(const char *text, GError **error);
void input_spec_free(InputSpec *spec);

/* The generator seed of input `index` under `--seed seed` (see above). */
guint64 input_spec_seed(guint64 seed, guint index);

/* Makes the value: draws it (TYPE), loads it (NPY; errors name the file) or wraps the
 * scalar. Tensors get spec->requires_grad; requires_grad=1 on a non-float tensor is an
 * error. *out is a new reference. */
bool input_spec_make_value(const InputSpec *spec, guint64 seed, guint index, RtValue *out,
                           GError **error);

/* Short description of what the spec gives, for messages: "Float(3, 4, requires_grad=1)",
 * "int 3", "float 2.5", "bool true", "None". For NPY specs `value` (the loaded tensor)
 * supplies dtype and shape. */
char *input_spec_describe(const InputSpec *spec, RtValue value);

#endif
