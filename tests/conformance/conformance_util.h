/* What the conformance tests share: loading the PyTorch data (scripts/gen-conformance.py),
 * making input tensors from it and comparing numbers the way the suite defines. */
#ifndef JITSCOPE_TESTS_CONFORMANCE_UTIL_H
#define JITSCOPE_TESTS_CONFORMANCE_UTIL_H

#include <json-glib/json-glib.h>

#include "runtime/value.h"

/* `given`, or $JITSCOPE_SOURCE_DIR/tests/conformance/data/NAME. */
char *conf_data_path(const char *given, const char *name);
/* Parses the file (aborting the test on failure); its "cases" array. */
JsonParser *conf_load(const char *path);
JsonArray *conf_cases(JsonParser *parser);
/* A data number: JSON numbers, booleans, "nan", "inf", "-inf". */
double conf_number(JsonNode *node);
/* The case's input tensors ("inputs", "input_dtypes", "shapes" when present, else 1-D). */
RtValue *conf_inputs(JsonObject *c, guint *n);
/* Is `got` PyTorch's `want` for dtype: NaN where NaN, infinities and integers exactly, zeros
 * with their sign, other floats within a few ulps of the dtype? */
bool conf_close(double got, double want, IrDtype dtype);
/* Looser, for gradients computed through other formulas than PyTorch's. */
bool conf_close_grad(double got, double want, IrDtype dtype);

/* Results checked and mismatches found by one test. */
typedef struct {
  guint checked, failed;
} ConfTally;
/* Counts a mismatch of case `c` on `backend` at element k and prints it with the case's inputs
 * there (the first 400). */
void conf_report(ConfTally *tally, const char *backend, JsonObject *c, guint k, const char *what);
/* Compares a backend's result with the case's expected dtype and values (conf_close). */
void conf_compare(ConfTally *tally, const char *backend, JsonObject *c, const RtTensor *got);

#endif
