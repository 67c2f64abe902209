/* Graphviz in this process, under one lock: app_layout_dot, app_layout_export (contracts in
 * layout_service.h), and the lock the service's in-process fallback takes. */
#include <stdio.h>
#include <string.h>

#include "layout_gv.h"
#include "layout_protocol.h"
#include "layout_service.h"

#define PNG_MAX_PX 32767.0

G_LOCK_DEFINE_STATIC(graphviz);

void app_gv_lock(void) {
  G_LOCK(graphviz);
}
void app_gv_unlock(void) {
  G_UNLOCK(graphviz);
}

AppScene *app_layout_dot(const char *dot, GError **error) {
  AppGvJob job = {.mode = APP_SCENE_FULL, .preview_above = -1};
  app_gv_lock();
  g_autoptr(GString) records = app_gv_layout(dot, &job, error);
  app_gv_unlock();
  if (!records)
    return NULL;
  return app_records_to_scene(records->str, records->len, error);
}

bool app_layout_export(const char *dot, const char *format, const char *path, GError **error) {
  if (strcmp(format, "svg") != 0 && strcmp(format, "png") != 0 && strcmp(format, "pdf") != 0) {
    g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_FORMAT,
                "cannot export as '%s' (svg, png or pdf)", format);
    return false;
  }
  app_gv_lock();
  app_gv_begin();
  GVC_t *gvc = app_gv_context();
  bool ok = false;
  Agraph_t *g = app_gv_read(dot, error);
  if (g && gvLayout(gvc, g, "dot") != 0) {
    g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_FAILED, "Graphviz layout failed: %s",
                app_gv_errors());
  } else if (g) {
    double llx = 0, lly = 0, urx = 0, ury = 0;
    const char *bb = agget(g, "bb");
    if (bb)
      sscanf(bb, "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury);
    /* PNG at 96 dpi: points * 96 / 72. */
    if (strcmp(format, "png") == 0 &&
        ((urx - llx) * 96 / 72 > PNG_MAX_PX || (ury - lly) * 96 / 72 > PNG_MAX_PX))
      g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_TOO_LARGE,
                  "the graph is %.0f x %.0f px, past PNG's 32,767 px: export SVG or PDF",
                  (urx - llx) * 96 / 72, (ury - lly) * 96 / 72);
    else if (gvRenderFilename(gvc, g, format, path) != 0)
      g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_WRITE, "cannot write %s as %s: %s",
                  path, format, app_gv_errors());
    else
      ok = true;
    gvFreeLayout(gvc, g);
  }
  if (g)
    agclose(g);
  g_free(app_gv_end());
  app_gv_unlock();
  return ok;
}
