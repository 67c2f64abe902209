/* What the code generators' tests share: parsing a graph text and checking generated source. */
#ifndef JITSCOPE_TESTS_FUSER_SOURCE_LINES_H
#define JITSCOPE_TESTS_FUSER_SOURCE_LINES_H

#include "ir/ir.h"

/* Parses `text` (asserting it parses). */
IrGraph *source_lines_parse(const char *text);
/* Every line of the NULL-terminated `lines` appears as a whole line of `source`, in order;
 * otherwise prints the missing line and the source, and fails the test. */
void source_lines_expect(const char *source, const char *const *lines);

#endif
