/* A line-based unified diff (longest common subsequence), for replay to show how a stage's
 * IR changed. Common leading and trailing lines are trimmed first; the rest is aligned by an
 * LCS table when it has at most APP_DIFF_MAX_CELLS cells, else shown as all removed then all
 * added (still a correct diff, just not a minimal one). */
#ifndef JITSCOPE_APP_BUNDLE_DIFF_H
#define JITSCOPE_APP_BUNDLE_DIFF_H

#include <glib.h>
#include <stdbool.h>

#define APP_DIFF_MAX_CELLS (16u * 1024u * 1024u)

/* "--- a_label\n+++ b_label\n@@ -l,n +l,n @@\n..." with `context` lines around changes; ""
 * when the texts are equal. A missing final newline is treated as present. */
char *app_unified_diff(const char *a, const char *b, const char *a_label, const char *b_label,
                       guint context);

#endif
