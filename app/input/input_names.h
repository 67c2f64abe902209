/* Named inputs on the command line: `NAME=SPEC` binds SPEC to the graph input named NAME
 * (`self.fc.weight=w.npy`, `x=Float(3)`; for `%x.1` both `x.1` and, when unambiguous, `x`),
 * the other SPECs fill the remaining inputs in order. A text is named when what comes before
 * its first '=' is a dotted identifier: tensor types and NumPy attributes (`Float(2,
 * requires_grad=1)`, `x.npy:requires_grad=1`) have '(' or ':' before it. */
#ifndef JITSCOPE_APP_INPUT_NAMES_H
#define JITSCOPE_APP_INPUT_NAMES_H

#include "ir/ir.h"

/* The SPEC texts in graph input order (a NULL-terminated vector, *n_out entries), or NULL
 * with *error (JITSCOPE_APP_ERROR / APP_ERROR_INPUT, "--input N: ...") for an unknown or
 * repeated name. With as many texts as inputs every slot is filled; otherwise the caller's
 * count check reports the mismatch (unnamed texts are then kept in their order). */
char **app_inputs_order_by_name(const IrGraph *graph, char *const *texts, guint n, guint *n_out,
                                GError **error);

#endif
