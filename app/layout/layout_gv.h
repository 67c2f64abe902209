/* Graphviz (libgvc) layouts as scene records: what `jitscope-layout-worker` runs, and what the
 * layout service runs in its own process, under its lock, when the worker is missing.
 * Not thread-safe (libgvc is not): one caller at a time per process. */
#ifndef JITSCOPE_APP_LAYOUT_GV_H
#define JITSCOPE_APP_LAYOUT_GV_H

#include <graphviz/gvc.h>

#include "scene.h"

/* Graph attributes of a FAST layout: dot's most expensive phases cut short. */
#define APP_GV_FAST_SETTINGS                                                      \
  "newrank=true nslimit=0.1 nslimit1=0.1 mclimit=0.05 searchsize=5 splines=line " \
  "remincross=false"

typedef struct {
  AppSceneQuality mode; /* FULL: dot as the DOT says; FAST: dot + APP_GV_FAST_SETTINGS;
                            COARSE: layout_coarse.h */
  int preview_above;    /* >= 0: report a coarse layout through `partial` first when the graph
                            has more nodes than this */
  bool hang;            /* test-only: never finish a FULL or FAST layout */
  void (*phase)(const char *phase, gpointer data);
  void (*partial)(const GString *records, int nodes, gpointer data);
  gpointer data;
} AppGvJob;

/* The lock around every libgvc call of a process that calls it from several threads. */
void app_gv_lock(void);
void app_gv_unlock(void);

/* The process's one GVC context (made on first use). */
GVC_t *app_gv_context(void);

/* Starts and ends collecting Graphviz's error messages (agseterrf). */
void app_gv_begin(void);
char *app_gv_end(void);
/* Messages collected so far ("" for none). */
const char *app_gv_errors(void);

/* Parses `dot` (between app_gv_begin and app_gv_end); NULL with *error (code 0). */
Agraph_t *app_gv_read(const char *dot, GError **error);

/* Reads and lays out `dot` as `job` says. Returns the scene records, NULL with *error (of
 * APP_LAYOUT_ERROR, layout_service.h) when the DOT does not parse or Graphviz fails. */
GString *app_gv_layout(const char *dot, const AppGvJob *job, GError **error);

#endif
