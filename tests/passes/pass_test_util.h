/* Test helpers for the passes: parse a graph from text, run one pass, compare the printed
 * result with the expected text exactly, and the changed flag. */
#ifndef JITSCOPE_TESTS_PASS_TEST_UTIL_H
#define JITSCOPE_TESTS_PASS_TEST_UTIL_H

#include <glib.h>

#include "ir/ir.h"
#include "passes/passes.h"

IrGraph *pt_parse(const char *text);
/* Runs `pass` on the parsed `input`, verifies the result (ir_graph_assert_valid); fails the test (printing both texts) unless the
 * printed graph equals `expected` and the pass returned `expect_changed`. */
void pt_check(PassFn pass, const char *input, const char *expected, bool expect_changed);
/* Same, on a graph the caller already holds; the graph is not freed. */
void pt_check_graph(PassFn pass, IrGraph *graph, const char *expected, bool expect_changed);
/* Text of a graph (caller frees). */
char *pt_print(const IrGraph *graph);

#endif
