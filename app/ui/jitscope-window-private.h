/* The window's fields and helpers shared by its files: jitscope-window.c (stages, canvas,
 * runs, navigation) and jitscope-window-export.c (exports), and the getters that tests and
 * benchmarks read. Not for other widgets. */
#ifndef JITSCOPE_WINDOW_PRIVATE_H
#define JITSCOPE_WINDOW_PRIVATE_H

#include "jitscope-inputs-pane.h"
#include "jitscope-program-pane.h"
#include "jitscope-stage-list.h"
#include "jitscope-window.h"

struct _JitscopeWindow {
  GtkApplicationWindow parent_instance;
  /* template children */
  JitscopeProgramPane *program_pane;
  JitscopeInputsPane *inputs_pane;
  JitscopePlansTree *plans_tree;
  JitscopeStageList *stage_list;
  JitscopeInspector *inspector;
  JitscopeGraphView *graph_view;
  JitscopeCompareView *compare_view;
  GtkLabel *stage_title, *banner, *legend_compare;
  GtkWidget *legend;
  GtkSearchBar *search_bar;
  GtkSearchEntry *search_entry;
  GtkStack *view_stack;
  GtkMenuButton *export_button;
  GtkPaned *outer_paned, *side_paned, *middle_paned, *lists_paned, *canvas_paned;
  /* state */
  AppWorkspace *ws;
  AppLayoutService *layouts;
  AppStageLayouts *stage_layouts; /* DOT per stage, clusters on their own, over `layouts` */
  GSettings *settings;
  int plan, stage;
  guint pending;         /* layout request of the shown stage */
  guint64 select_origin; /* node to select once the stage's scene is shown (0: none) */
  GHashTable *toggled;   /* owner ids whose folding the user flipped */
  gboolean fold_all, dark, edge_types; /* edge_types: canvas.edge-types (t) */
  gboolean show_removed;               /* canvas.removed (r) */
  int exports;                         /* exports in flight */
  char *searched;                      /* the text last searched for */
  gboolean run_again;                  /* a program with specs came in during a run: run it after */
  gboolean stop_requested;             /* win.stop-run during the run in flight */
  gboolean show_kernel; /* a kernel row was activated: its group's CUDA source in view */
};

/* The banner over the canvas (NULL or "" hides it); `error` shows it in red. */
void jitscope_window_say(JitscopeWindow *self, const char *message, gboolean error);
/* The stage shown, or NULL. */
const AppWorkspaceStage *jitscope_window_current_stage(JitscopeWindow *self);
/* The shown stage as one DOT text, as drawn (new string). */
char *jitscope_window_stage_dot(JitscopeWindow *self);
/* win.export (the menu), win.export-graph, win.copy-ir, win.export-bundle. */
void jitscope_window_action_export_menu(GtkWidget *widget, const char *name, GVariant *param);
void jitscope_window_action_export_graph(GtkWidget *widget, const char *name, GVariant *param);
void jitscope_window_action_copy_ir(GtkWidget *widget, const char *name, GVariant *param);
void jitscope_window_action_export_bundle(GtkWidget *widget, const char *name, GVariant *param);

/* What tests and benchmarks read of the window; the application does not. */
AppWorkspace *jitscope_window_get_workspace(JitscopeWindow *self);
JitscopeGraphView *jitscope_window_get_graph_view(JitscopeWindow *self);
/* The canvas's DOT cache and layout service (counters for tests and benchmarks). */
AppStageLayouts *jitscope_window_get_stage_layouts(JitscopeWindow *self);
JitscopeCompareView *jitscope_window_get_compare_view(JitscopeWindow *self);
JitscopePlansTree *jitscope_window_get_plans_tree(JitscopeWindow *self);
JitscopeInspector *jitscope_window_get_inspector(JitscopeWindow *self);
/* The window's settings, or NULL when the schema is not installed. */
GSettings *jitscope_window_get_settings(JitscopeWindow *self);
/* Position of a pane by its settings key ("sidebar-width", "program-height", "middle-width",
 * "plans-height", "canvas-height"), -1 for an unknown key. */
int jitscope_window_get_pane_position(JitscopeWindow *self, const char *key);
/* A run, a layout, an export or the inspector's computation is in flight. */
gboolean jitscope_window_is_busy(JitscopeWindow *self);
/* Index into the last run's plans, stage index in it (-1 when none). */
int jitscope_window_get_plan(JitscopeWindow *self);
int jitscope_window_get_stage(JitscopeWindow *self);
gboolean jitscope_window_is_comparing(JitscopeWindow *self);
/* What the window says about the program / the last run / the current stage / the
 * selected node / the last export or other notice. */
const char *jitscope_window_get_program_error(JitscopeWindow *self);
const char *jitscope_window_get_run_status(JitscopeWindow *self);
const char *jitscope_window_get_stage_title(JitscopeWindow *self);
const char *jitscope_window_get_inspector_text(JitscopeWindow *self);
const char *jitscope_window_get_banner(JitscopeWindow *self);

#endif
