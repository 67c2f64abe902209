/* The IR verifier: use lists consistent with inputs, every value defined before it is used
 * (dominance through blocks), sentinels in place, topological positions increasing, block
 * arities of If/Loop/GradOf, schema conformance of schema nodes, subgraph attributes
 * verified recursively. Messages name the node (its printed line) and the rule broken. */
#ifndef JITSCOPE_IR_VERIFY_H
#define JITSCOPE_IR_VERIFY_H

#include "ir/ir.h"

#define JITSCOPE_VERIFY_ERROR (jitscope_verify_error_quark())
GQuark jitscope_verify_error_quark(void);

bool ir_graph_verify(const IrGraph *graph, GError **error);
/* The [construct] and [unpack] rules for one node (the parser checks them where it reads the
 * node): NULL when the node keeps them, else what it breaks (a new string), and *rule names
 * the rule. */
char *ir_container_types_problem(const IrNode *node, const char **rule);
/* The [flow] rule for one If or Loop (the parser checks it where the node's blocks end):
 * NULL when it holds, else what breaks it (a new string). */
char *ir_control_flow_types_problem(const IrNode *node);
/* Aborts with the verifier's message: for tests and debug builds after every pass. */
void ir_graph_assert_valid(const IrGraph *graph, const char *after_what);

#endif
