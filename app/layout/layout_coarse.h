/* Our own quick layered layout of a parsed DOT graph, for the first picture of a large graph
 * and for graphs Graphviz cannot lay out within its time budget (layout_service.h).
 *
 * Sugiyama's frame, each step in linear time or close to it:
 *   1. ranks by longest path from the sources in declaration order (Kahn's algorithm; a cycle
 *      is broken at its first-declared node), then every source moved down to just above its
 *      highest user, so that graph inputs do not pull edges across the drawing;
 *   2. order within ranks: declaration order, then four barycentre sweeps (down, up, down, up);
 *   3. x: each node at the barycentre of its predecessors, pushed right past its left
 *      neighbour (nodesep); y: rank by rank, ranksep apart;
 *   4. straight edges with arrowheads; clusters drawn as the bounding boxes of their nodes.
 * Node sizes are estimated from the label (0.6 x fontsize per character, 1.2 x fontsize per
 * line) and the width/height attributes. The drawing is written as xdot operations in
 * scene records (layout_protocol.h), so it draws like a Graphviz layout. */
#ifndef JITSCOPE_APP_LAYOUT_COARSE_H
#define JITSCOPE_APP_LAYOUT_COARSE_H

#include <glib.h>
#include <graphviz/cgraph.h>

/* Scene records of `g`'s coarse layout. `g` is only read. */
GString *app_layout_coarse(Agraph_t *g);

#endif
