/* A graph as Graphviz DOT text, written by our own code (no libgvc), for
 * `print --format dot` and for exports.
 *
 * Layout choices (DESIGN.md, "Graphviz facts"): prim::Constant nodes are not drawn; each
 * constant is written into the label of every node that uses it ("alpha=1"), so no long
 * edges run from constants to far users. A node's label is its kind with attributes, the
 * inlined constants, then one line per output "%name : Type". Graph inputs are ellipses,
 * `return` and block `->` nodes are inverted houses. Each block of If/Loop/GradOf is a
 * cluster labelled "<kind> blockN" entered by a dashed edge from its node; a Subgraph
 * attribute (DifferentiableGraph, FusionGroup) is a cluster of its own reached by a dashed
 * edge. Labels longer than 4,000 bytes are cut (the DOT parser breaks past 16 KB). */
#ifndef JITSCOPE_APP_GRAPH_DOT_H
#define JITSCOPE_APP_GRAPH_DOT_H

#include "ir/ir.h"

char *app_graph_to_dot(const IrGraph *graph);

#endif
