/* Helpers shared by the text-format tests: corpus discovery and a minimal JSON string reader
 * for case.json (only what the tests need: the string value of a key, the strings of an array). */
#ifndef JITSCOPE_TESTS_TEXT_UTIL_H
#define JITSCOPE_TESTS_TEXT_UTIL_H

#include <glib.h>

#include "ir/ir.h"

/* Every graph text of the corpus: graph.ir files, then each case's forward_graph and
 * backward_plans entries. Entries are (label, text) pairs in `labels` and `texts`. Aborts the
 * test when the corpus directory cannot be read (it is part of the checkout). */
void text_test_corpus_graphs(GPtrArray *labels, GPtrArray *texts);

/* The decoded JSON string stored under "key", or NULL. */
char *text_test_json_string(const char *doc, const char *key);
/* The decoded strings of the JSON array stored under "key" (empty if absent). */
GPtrArray *text_test_json_string_array(const char *doc, const char *key);

/* Parses or fails the test with the error message. */
IrGraph *text_test_parse_ok(const char *text, const char *label);
/* Parses, expects failure, returns the message (caller frees). */
char *text_test_parse_error(const char *text);

#endif
