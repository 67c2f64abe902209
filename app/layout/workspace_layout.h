/* A stage's picture for the canvas (DESIGN.md, "The window": "stepping through unchanged
 * stages is instant"; "Graphviz facts that shape the canvas": "lay out only what is shown").
 *
 * DOT ONCE PER STAGE. The DOT text of a stage as drawn, and the SHA-256 of that text (the
 * layout cache's short key, AppLayoutOptions.key), are computed once per (stage fingerprint,
 * previous stage's fingerprint, drawing options) and kept (bounded by count and bytes). So
 * showing a stage again, or an unchanged stage (same fingerprints), neither rebuilds the DOT
 * nor hashes it: it is two hash lookups by short keys. A stage whose fingerprint equals its
 * predecessor's highlights nothing and is drawn as that predecessor without a previous stage
 * (one DOT and one layout for a run of unchanged stages).
 *
 * EXPANDED CLUSTERS OF LARGE GRAPHS ON THEIR OWN. In a graph of more than
 * APP_STAGE_SEPARATE_ABOVE nodes (where owners fold by default), a top-level owner node
 * (DifferentiableGraph, FusionGroup, GradOf, If, Loop) that the user expanded is laid out in
 * four steps instead of re-laying out the whole graph: (1) its inside alone
 * (app_graphviz_dot_cluster), (2) that layout's size into AppDotOptions.separate, (3) the main
 * DOT, where the owner is a box of that size, (4) app_scene_compose. Collapsing it again
 * gives back the main DOT of before, whose scene is still in the layout cache; each expanded
 * cluster keeps its own cached layout when another one changes. Composed scenes are cached
 * too.
 *
 * PROGRESS. Updates report the phase and elapsed time of the layout in progress, a coarse
 * preview as soon as the layout service has one (composed with the clusters already laid
 * out), then the final scene (whose AppScene.note says when it is not a full layout). */
#ifndef JITSCOPE_APP_WORKSPACE_LAYOUT_H
#define JITSCOPE_APP_WORKSPACE_LAYOUT_H

#include "graphviz_dot.h"
#include "layout_service.h"
#include "workspace.h"

/* Node count above which expanded owners are laid out on their own (the count above which
 * app_graphviz_dot folds owners by default). */
#define APP_STAGE_SEPARATE_ABOVE 150

typedef struct AppStageLayouts AppStageLayouts;

/* What to draw. */
typedef struct {
  const AppWorkspaceStage *stage;  /* with a graph */
  const AppWorkspaceStage *before; /* the previous stage (highlighting), or NULL */
  AppDotCollapse collapse;
  GHashTable *toggled; /* owner ids whose folding the user flipped; may be NULL */
  bool dark;
  bool edge_types;   /* edges labelled with their values' types */
  bool show_removed; /* the nodes `before` had and the stage lost, faded */
} AppStageView;

typedef struct {
  AppScene *scene;          /* borrowed: the scene to show now (a preview or the final one), or
                              NULL (nothing new to show) */
  bool done;                /* the last update of this request */
  const GError *error;      /* done without a scene */
  const AppDotStats *stats; /* of the main DOT, once it is built (set on the first update
                               after that), else NULL */
  const char *phase;        /* while laying out: "dot: ranking", "cluster n12: coarse layout"... */
  double elapsed_s;         /* since the request was made */
  guint clusters;           /* owners laid out on their own */
} AppStageUpdate;

typedef void (*AppStageUpdateFn)(const AppStageUpdate *update, gpointer data);

/* `service` is borrowed and must outlive the result. */
AppStageLayouts *app_stage_layouts_new(AppLayoutService *service);
/* Cancels every request in flight (without callbacks). */
void app_stage_layouts_free(AppStageLayouts *layouts);
AppLayoutService *app_stage_layouts_service(AppStageLayouts *layouts);

/* Shows `view`: when its scene is at hand (cached DOT and cached layouts), returns 0 and
 * sets *scene to it (a new reference); otherwise returns a request id (> 0), sets *scene to
 * NULL and calls `fn` later on the service's context (never from inside this call) until an
 * update with done set. *stats gets the main DOT's stats when it is built here (returns
 * whether it did; with expanded clusters still to lay out it is built later and comes with
 * an update). */
guint app_stage_layouts_show(AppStageLayouts *layouts, const AppStageView *view, AppScene **scene,
                             AppDotStats *stats, bool *have_stats, AppStageUpdateFn fn,
                             gpointer data);
/* No more updates for this request; its layouts are stopped. */
void app_stage_layouts_cancel(AppStageLayouts *layouts, guint id);

/* The whole stage as one DOT text (expanded owners drawn inline, as export writes it); new
 * string. */
char *app_stage_layouts_full_dot(const AppStageView *view, AppDotStats *stats);
/* The top-level owner ids that `view` lays out on their own (a new array of char*, sorted). */
GPtrArray *app_stage_layouts_separate_owners(const AppStageView *view);

/* Counters for tests and benchmarks: DOT texts built, DOT cache hits, scenes composed. */
guint app_stage_layouts_dot_builds(const AppStageLayouts *layouts);
guint app_stage_layouts_dot_hits(const AppStageLayouts *layouts);
guint app_stage_layouts_compositions(const AppStageLayouts *layouts);

#endif
