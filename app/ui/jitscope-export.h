/* Exporting the shown graph from the window: a save dialog, then Graphviz writes SVG, PNG or
 * PDF (by the file's extension; SVG without one) on a worker thread; the outcome is written
 * into `status`. */
#ifndef JITSCOPE_EXPORT_H
#define JITSCOPE_EXPORT_H

#include <gtk/gtk.h>

/* Takes `dot`. */
void jitscope_export_graph(GtkWindow *parent, char *dot, GtkLabel *status);

#endif
