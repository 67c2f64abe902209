/* Test helpers for autodiff: parse/print, running graphs, finite-difference gradient checks. */
#ifndef JITSCOPE_TESTS_AD_TEST_UTIL_H
#define JITSCOPE_TESTS_AD_TEST_UTIL_H

#include <glib.h>

#include "autodiff/autodiff.h"
#include "runtime/value.h"

IrGraph *ad_test_parse(const char *text);
/* Occurrences of `needle` in `haystack`. */
guint ad_test_count(const char *haystack, const char *needle);
/* Runs a graph; aborts the test with the error on failure. Inputs borrowed. */
RtValue *ad_test_run(const IrGraph *graph, RtValue *inputs, guint n_inputs, guint *n_outputs);
/* Inputs for `graph` (complete tensor types required): deterministic values in the domain
 * (lo, hi). */
RtValue *ad_test_make_inputs(const IrGraph *graph, double lo, double hi, guint64 seed);

typedef enum {
  AD_RUN_RAW,        /* df as differentiate left it (GradOf, AutogradAdd run by the interpreter) */
  AD_RUN_SPECIALIZED /* df after specialize-autograd-zero and lower-GradOf */
} AdRunMode;

/* Differentiates a copy of `text`'s graph, runs f and df on inputs drawn in (lo, hi) with
 * random output gradients, and compares every input gradient with float64 central finite
 * differences of the original graph. Returns the largest error found (relative to
 * max(1, |fd|)); fails the test when above tol. */
double ad_test_gradcheck(const char *text, double lo, double hi, AdRunMode mode, double tol);

#endif
