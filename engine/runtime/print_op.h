/* The text prim::Print writes (print_op.c): PyTorch 1.13's, for the interpreter and tests. */
#ifndef JITSCOPE_RUNTIME_PRINT_OP_H
#define JITSCOPE_RUNTIME_PRINT_OP_H

#include <glib.h>
#include <stdio.h>

#include "runtime/value.h"

/* Appends the n values as prim::Print prints them, newline included. */
void rt_print_format(GString *out, const RtValue *values, guint n);

/* Where prim::Print writes: stdout (PyTorch's choice) unless set; a command whose stdout holds
 * one JSON document sets stderr, so that a program's prints cannot break the document. */
void rt_print_set_stream(FILE *stream);
FILE *rt_print_stream(void);

#endif
