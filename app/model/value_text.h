/* Human-readable values for the text (non --json) output of the commands. */
#ifndef JITSCOPE_APP_VALUE_TEXT_H
#define JITSCOPE_APP_VALUE_TEXT_H

#include "runtime/value.h"

/* At most this many elements of a tensor are shown; the rest are counted. */
#define VALUE_TEXT_MAX_ELEMENTS 20

/* Tensors: "float32 [3, 20] requires_grad=1" then, on the next line indented by `indent`
 * spaces, the first VALUE_TEXT_MAX_ELEMENTS values in row-major order ("[a, b, ..., +40
 * more]"); floats with 7 significant digits. Other values in one line: "int 3",
 * "float 2.5", "bool true", "None", lists and tuples as rt_value_print writes them. Device
 * tensors are read through a host copy (their values replaced by why when it fails). */
void value_text_append(GString *out, RtValue v, int indent);

#endif
