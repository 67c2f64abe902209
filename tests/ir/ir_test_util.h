/* Structural checks shared by the IR tests. */
#ifndef JITSCOPE_TESTS_IR_TEST_UTIL_H
#define JITSCOPE_TESTS_IR_TEST_UTIL_H

#include "ir/ir.h"

/* Asserts that every use list in the graph (nested blocks included) is exact: each input
 * slot of every live node appears once in its value's uses, and every use points back at a
 * live node's matching input slot. Also checks sentinels, owning blocks and that topological
 * positions strictly increase in every block. */
void ir_test_check_graph(const IrGraph *graph);

/* Kinds of the nodes of a block in order, as "aten::add aten::mul". */
char *ir_test_block_kinds(const IrBlock *block);

#endif
