/* The one way a bundle's files are read (replay, the manifest's hash check): a member path
 * must be relative and stay inside the bundle (no "..", no absolute path), and no component
 * of it may be a symbolic link; the member must be a regular file (no device, FIFO or
 * folder) whose size fits the memory budget. Errors (APP_BUNDLE_ERROR_MALFORMED) start with
 * the member's path in the bundle, so a user sees which file is at fault. */
#ifndef JITSCOPE_APP_BUNDLE_READ_H
#define JITSCOPE_APP_BUNDLE_READ_H

#include <glib.h>
#include <stdbool.h>

/* Reads DIR/REL whole; *contents (g_free) is NUL-terminated after *length bytes. */
bool app_bundle_read_member(const char *dir, const char *rel, char **contents, gsize *length,
                            GError **error);

#endif
