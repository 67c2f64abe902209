/* Graphviz layout for the window, never on the main thread and never in the window's process
 * (DESIGN.md, "Graphviz facts that shape the canvas").
 *
 * WHERE LAYOUTS RUN. libgvc is not thread-safe, leaks, can crash on some cluster graphs, and
 * a large layout cannot be interrupted. So the service runs Graphviz in a child process,
 * `jitscope-layout-worker` (layout_worker.c), kept alive across requests and fed one request
 * at a time over pipes (frames: layout_protocol.h). The worker writes scene records; a reader
 * thread in this process turns them into AppScenes, so neither the layout nor building the
 * scene runs on the main thread. When the worker dies (a crash in Graphviz) that request
 * fails with APP_LAYOUT_ERROR_CRASHED ("Graphviz crashed on this graph") and the next request
 * starts a new worker. Cancelling the request in progress kills the worker (the next request
 * starts another: a few milliseconds). The worker is found through $JITSCOPE_LAYOUT_WORKER
 * (tests; empty: none), beside the running executable, in the build tree, then in libexecdir
 * and bindir. Without it the service lays out on one thread of this process under a lock, as
 * before, and says so once: then a crash ends the window and nothing can be cancelled.
 *
 * LARGE GRAPHS: LAY OUT ONLY WHAT IS SHOWN, FAST FIRST, FULL LATER.
 *   1. The DOT is already small where it can be: app_graphviz_dot draws constants inline,
 *      folds subgraph bodies and GradOf/If/Loop blocks into summary nodes on large graphs,
 *      and an expanded cluster can be laid out on its own (app_graphviz_dot_cluster) and
 *      drawn inside its summary node (app_scene_compose), so each layout stays small.
 *   2. Progressive display: for a graph of more than `preview_above` nodes (300) the worker
 *      first sends a coarse layout of its own (layout_coarse.h: layered, straight edges,
 *      milliseconds for 10,000 nodes), delivered through the progress callback as `preview`,
 *      then runs dot; the full scene replaces it when it arrives.
 *   3. Time budget: a request that runs past its budget (default 10 s) is killed and retried
 *      with cheaper dot settings (APP_SCENE_FAST: nslimit, mclimit, searchsize, newrank,
 *      splines=line; skipped above 3,000 nodes, where dot's crossing minimization alone takes
 *      minutes), and past the budget again it ends with the coarse layout. The scene says
 *      what it is (AppScene.quality, AppScene.note).
 *   4. Cache: scenes (not xdot text) are cached by a fingerprint of the DOT text (its SHA-256,
 *      or the caller's AppLayoutOptions.key) + quality + whether a budget applied, so an
 *      unchanged stage is a lookup by a short key (bounded by count and by memory).
 *
 * Progress: the progress callback gets the elapsed time, the phase ("reading DOT",
 * "coarse layout", "dot: ranking", "dot: crossing minimization", "dot: x coordinates
 * (network simplex)", "dot: edge routing", "rendering xdot", and retries), four times a
 * second and at every phase change. */
#ifndef JITSCOPE_APP_LAYOUT_SERVICE_H
#define JITSCOPE_APP_LAYOUT_SERVICE_H

#include "scene.h"

#define APP_LAYOUT_ERROR (app_layout_error_quark())
GQuark app_layout_error_quark(void);

typedef enum {
  APP_LAYOUT_ERROR_SYNTAX,    /* the DOT does not parse */
  APP_LAYOUT_ERROR_FAILED,    /* dot failed */
  APP_LAYOUT_ERROR_RENDER,    /* xdot rendering failed */
  APP_LAYOUT_ERROR_FORMAT,    /* export: unknown format */
  APP_LAYOUT_ERROR_TOO_LARGE, /* export: PNG past 32,767 px */
  APP_LAYOUT_ERROR_WRITE,     /* export: cannot write */
  APP_LAYOUT_ERROR_CRASHED,   /* the worker died on this graph */
  APP_LAYOUT_ERROR_WORKER,    /* the worker cannot start or spoke nonsense */
} AppLayoutErrorCode;

/* Lays out `dot` on the calling thread, in this process (under the Graphviz lock). NULL with
 * *error when the DOT does not parse or the layout fails. */
AppScene *app_layout_dot(const char *dot, GError **error);

/* Lays out `dot` and writes it as `format` ("svg", "png", "pdf") to `path`. PNG larger than
 * 32,767 px on a side is refused (Graphviz would scale it down silently): use SVG or PDF. */
bool app_layout_export(const char *dot, const char *format, const char *path, GError **error);

/* The worker executable the service would start (new string), or NULL when none is found. */
char *app_layout_worker_path(void);

typedef struct AppLayoutService AppLayoutService;

/* `scene` is borrowed (take a reference to keep it); exactly one of scene and error is set. */
typedef void (*AppLayoutDoneFn)(AppScene *scene, const GError *error, gpointer data);

typedef enum {
  APP_LAYOUT_FAULT_NONE,
  APP_LAYOUT_FAULT_CRASH, /* tests only: the worker aborts on this request */
  APP_LAYOUT_FAULT_HANG,  /* tests only: the worker's dot/fast layout never ends */
} AppLayoutFault;

typedef struct {
  AppSceneQuality quality; /* the best layout to try; FULL by default */
  int budget_ms;           /* 0: the service's budget; < 0: no limit */
  int preview_above;       /* 0: the service's default (300 nodes); < 0: no coarse preview */
  AppLayoutFault fault;
  const char *key; /* a short fingerprint of the DOT text (e.g. its SHA-256, computed
                              once by the caller) that the cache uses; NULL: the service
                              computes the SHA-256 of the text */
} AppLayoutOptions;

typedef struct {
  guint id;
  double elapsed_s;       /* since the request was made */
  const char *phase;      /* what is running now */
  AppSceneQuality trying; /* the quality being computed */
  AppScene *preview;      /* borrowed: a coarse scene to show meanwhile, set once; or NULL */
} AppLayoutProgress;

typedef void (*AppLayoutProgressFn)(const AppLayoutProgress *progress, gpointer data);

/* A service that finds its worker with app_layout_worker_path(). */
AppLayoutService *app_layout_service_new(GMainContext *context);
/* `worker`: the executable to run, or NULL to lay out in this process. */
AppLayoutService *app_layout_service_new_with_worker(GMainContext *context, const char *worker);
/* Stops the worker; pending requests are dropped without callbacks. */
void app_layout_service_free(AppLayoutService *service);

/* The budget of requests that do not set one, in ms (< 0: none). Default 10,000, or
 * $JITSCOPE_LAYOUT_BUDGET_MS. */
void app_layout_service_set_budget(AppLayoutService *service, int budget_ms);

/* A cached scene for this text (new reference), or NULL. Counts a hit or nothing. Looks up
 * what app_layout_service_request would deliver (FULL quality, the service's budget). */
AppScene *app_layout_service_lookup(AppLayoutService *service, const char *dot);
/* The same for what app_layout_service_request_full with these options would deliver; with
 * options->key set, `dot` is not read (it may be NULL). */
AppScene *app_layout_service_lookup_full(AppLayoutService *service, const char *dot,
                                         const AppLayoutOptions *options);

/* Queues a layout; `done` is called on the service's context, later, never from inside this
 * call (also for cache hits). Returns the request's id (> 0). */
guint app_layout_service_request(AppLayoutService *service, const char *dot, AppLayoutDoneFn done,
                                 gpointer data);
/* The same with options (NULL for defaults) and progress reports (`progress` may be NULL). */
guint app_layout_service_request_full(AppLayoutService *service, const char *dot,
                                      const AppLayoutOptions *options, AppLayoutDoneFn done,
                                      AppLayoutProgressFn progress, gpointer data);
/* Neither callback of the request will be called again; a layout in progress is stopped
 * (the worker is killed and restarted for the next request). */
void app_layout_service_cancel(AppLayoutService *service, guint id);

guint app_layout_service_hits(const AppLayoutService *service);
guint app_layout_service_misses(const AppLayoutService *service);
guint app_layout_service_cache_size(const AppLayoutService *service);
/* Layouts handed to Graphviz (worker or in-process), retries included. */
guint app_layout_service_layouts(const AppLayoutService *service);
/* Workers started so far, and the running one's pid (0: none). */
guint app_layout_service_worker_starts(const AppLayoutService *service);
GPid app_layout_service_worker_pid(const AppLayoutService *service);
/* Whether layouts run in this process (no worker executable). */
bool app_layout_service_in_process(const AppLayoutService *service);

#endif
