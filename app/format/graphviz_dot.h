/* A graph as DOT for the window's canvas (DESIGN.md, "Graphviz facts that shape the canvas").
 *
 * - Node ids are stable across stages: "n<origin>" for a node of the top graph, "i<k>" for
 *   input k, "r" for the return; nodes inside a Subgraph attribute are prefixed by their
 *   owner's id and "_" ("n12_n3", "n12_i0"); block inputs/outputs of an If/Loop/GradOf node
 *   are "<owner>_b<k>i" / "<owner>_b<k>o". app_graphviz_dot_find_node maps an id back.
 * - Labels: the node's kind with its attributes, each prim::Constant input inlined as
 *   "name=value" (constants are not drawn as nodes, so no long edges), then one line per
 *   output "%name : Type". None constants are the exception: each use gets its own small
 *   grey "None" diamond next to its user. Values of type `int[]?` are drawn with bold purple
 *   edges labelled "int[]?".
 * - Edges stand for values and carry their ids, as stable as the node ids: a VALUE ID is
 *   "<DOT id of the node it comes from>:<output index>" ("n12:0", "n12_n3:1"; a graph or
 *   subgraph input "i2:0", "n12_i0:0"; a block input "<owner>_b<k>i:<input index>"; a None
 *   constant's own "n<origin>:0"), and the EDGE ID (DOT attribute `id`, which the scene
 *   takes as the edge object's id) is "<value id>-><user id>:<input index>", one per use:
 *   "n12:0->n15:1". Edges that stand for no value (an owner to its blocks' inputs, dashed)
 *   have no id. app_graphviz_dot_find_value maps either id back to the value.
 * - With `edge_types`, each value's edge is labelled with its type ("Float(*, *)", "int[]?",
 *   "Tensor"), None diamonds aside; off by default. The option changes the DOT text, so
 *   layouts with and without labels are cached apart.
 * - Nodes with a scope (an inlined call's "F.linear", an early trace's "Net/Linear[fc]") are
 *   drawn in nested clusters labelled by the scope path's parts, so a call or a module reads
 *   as one box.
 * - Blocks of GradOf/If/Loop are clusters labelled "GradOf aten::mul", "If then",
 *   "Loop body"; DifferentiableGraph/FusionGroup bodies are clusters too. Collapsed, an owner
 *   (a node with blocks or a body) is one summary node, "(N nodes folded)": by default every
 *   owner when the graph has more than collapse_above nodes, so a large graph's layout holds
 *   only its top level.
 * - Lay out only what is shown: an expanded owner listed in `separate` is drawn as a box of
 *   the given size (its label on top) and its blocks/body are left out; the caller lays out
 *   app_graphviz_dot_cluster (the owner's inside alone, same ids) on its own and draws it
 *   into that box with app_scene_compose. Each layout stays small, and an unchanged cluster
 *   keeps its cached layout when another part of the graph changes.
 * - With `previous` set, nodes whose origin is new are drawn as added (green), nodes whose
 *   own line changed as changed (orange), relative to the node of the same origin there.
 *   With `show_removed` too, the top-level nodes of `previous` whose origin is drawn nowhere
 *   now are drawn faded and dashed, labelled "removed: KIND", ids "x<origin>", with dashed
 *   edges (no ids) from their inputs and to their users that are still drawn; not in
 *   app_graphviz_dot_cluster.
 * - Above 300 nodes the layout is told to save time (nslimit, mclimit, splines=line), and
 *   graph inputs with more than 3 uses are drawn once per use (dashed copies "%name" next
 *   to each user, ids "none<k>") instead of as one node with edges across the drawing.
 * - Labels are cut at 4,000 bytes (the DOT parser breaks past 16 KB). */
#ifndef JITSCOPE_APP_GRAPHVIZ_DOT_H
#define JITSCOPE_APP_GRAPHVIZ_DOT_H

#include "ir/ir.h"

typedef enum {
  APP_DOT_COLLAPSE_AUTO, /* collapse subgraph bodies when the graph is large */
  APP_DOT_COLLAPSE_ALL,
  APP_DOT_EXPAND_ALL,
} AppDotCollapse;

typedef struct {
  const IrGraph *previous; /* the previous stage's graph, for highlighting; NULL for none */
  AppDotCollapse collapse;
  guint collapse_above; /* node count for APP_DOT_COLLAPSE_AUTO; 0 = 150 */
  GHashTable *toggled;  /* ids (char*) of owner nodes whose default is inverted; may be NULL */
  bool dark;            /* colours for a dark background */
  GHashTable *separate; /* owner id (char*) -> "W,H": the size in points of its own layout
                               (app_graphviz_dot_cluster); may be NULL */
  bool edge_types;      /* label every value edge with its value's type */
  bool show_removed;    /* draw what `previous` had and this graph lost (see above) */
} AppDotOptions;

typedef struct {
  guint nodes; /* drawn IR nodes */
  guint added; /* relative to options->previous */
  guint changed;
  guint removed;
  guint removed_shown; /* removed nodes drawn faded (show_removed) */
  guint collapsed;     /* folded subgraph bodies */
} AppDotStats;

/* DOT text; stats may be NULL. */
char *app_graphviz_dot(const IrGraph *graph, const AppDotOptions *options, AppDotStats *stats);

/* The inside of one owner node (its blocks as clusters, or its body as a cluster), with the
 * ids app_graphviz_dot gives them, and only the edges between them; NULL when `owner_id`
 * names no owner. `options->separate` and `collapse` apply inside as well. */
char *app_graphviz_dot_cluster(const IrGraph *graph, const char *owner_id,
                               const AppDotOptions *options, AppDotStats *stats);

/* The node an id of the DOT names (NULL for inputs, returns, block ends and unknown ids). */
const IrNode *app_graphviz_dot_find_node(const IrGraph *graph, const char *id);

/* The value an id of the DOT names: a value id or an edge id (NULL for ids of neither
 * kind, and for values the graph does not have). */
const IrValue *app_graphviz_dot_find_value(const IrGraph *graph, const char *id);

/* Every IR node's count, blocks and subgraphs included. */
guint app_graphviz_count_nodes(const IrGraph *graph);

#endif
