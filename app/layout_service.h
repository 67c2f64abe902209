/* Graphviz layout off the main thread (DESIGN.md, "Graphviz facts that shape the canvas").
 *
 * libgvc is not thread-safe, even for reads: every call into it in this process goes through
 * one lock and one GVC context (made on first use). Each layout reads the DOT text
 * (agmemread), runs "dot", renders "xdot" in memory so that the objects carry their drawing
 * operations, turns them into an AppScene, then gvFreeLayout and agclose.
 *
 * The service owns ONE worker thread that takes requests in order and delivers scenes on the
 * GMainContext it was made with. Scenes are cached by DOT text, so asking again for a graph
 * already laid out (an unchanged stage) costs a hash lookup. */
#ifndef JITSCOPE_APP_LAYOUT_SERVICE_H
#define JITSCOPE_APP_LAYOUT_SERVICE_H

#include "scene.h"

#define APP_LAYOUT_ERROR (app_layout_error_quark())
GQuark app_layout_error_quark(void);

/* Lays out `dot` on the calling thread (under the Graphviz lock). NULL with *error when the
 * DOT does not parse or the layout fails. */
AppScene *app_layout_dot(const char *dot, GError **error);

/* Lays out `dot` and writes it as `format` ("svg", "png", "pdf") to `path`. PNG larger than
 * 32,767 px on a side is refused (Graphviz would scale it down silently): use SVG or PDF. */
bool app_layout_export(const char *dot, const char *format, const char *path, GError **error);

typedef struct AppLayoutService AppLayoutService;

/* `scene` is borrowed (take a reference to keep it); exactly one of scene and error is set. */
typedef void (*AppLayoutDoneFn)(AppScene *scene, const GError *error, gpointer data);

AppLayoutService *app_layout_service_new(GMainContext *context);
/* Stops the worker after the layout it is running; pending requests are dropped without
 * callbacks. */
void app_layout_service_free(AppLayoutService *service);

/* A cached scene for this text (new reference), or NULL. Counts a hit or nothing. */
AppScene *app_layout_service_lookup(AppLayoutService *service, const char *dot);

/* Queues a layout; `done` is called on the service's context, later, never from inside this
 * call (also for cache hits). Returns the request's id (> 0). */
guint app_layout_service_request(AppLayoutService *service, const char *dot, AppLayoutDoneFn done,
                                 gpointer data);
/* The request's callback will not be called. */
void app_layout_service_cancel(AppLayoutService *service, guint id);

guint app_layout_service_hits(const AppLayoutService *service);
guint app_layout_service_misses(const AppLayoutService *service);
guint app_layout_service_cache_size(const AppLayoutService *service);

#endif
