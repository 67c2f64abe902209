/* File-system helpers of the bundle writer: a writer that hashes every file it puts under a
 * root folder, recursive removal, and the final swap of a finished folder into place. */
#ifndef JITSCOPE_APP_BUNDLE_FS_H
#define JITSCOPE_APP_BUNDLE_FS_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  char *path; /* relative to the root */
  char *sha256;
  gsize bytes;
} AppBundleFile;

typedef struct {
  char *root;       /* the folder being written (owned) */
  GPtrArray *files; /* AppBundleFile*, in write order */
  guint fail_after; /* tests: the put after this many files fails (0: never) */
} AppBundleWriter;

void app_bundle_writer_init(AppBundleWriter *w, const char *root, guint fail_after);
void app_bundle_writer_clear(AppBundleWriter *w);
/* Writes root/rel (creating folders) and records its hash. Errors: APP_BUNDLE_ERROR_IO. */
bool app_bundle_writer_put(AppBundleWriter *w, const char *rel, const void *data, gsize length,
                           GError **error);
/* Records a file something else wrote under the root (reads it back to hash it). */
bool app_bundle_writer_adopt(AppBundleWriter *w, const char *rel, GError **error);
/* Whether the next put is allowed: not after the test fault, nor once the run was cancelled
 * (SIGINT, SIGTERM: runtime/run_control.h); sets the error when not. */
bool app_bundle_writer_may_write(AppBundleWriter *w, GError **error);
/* The hash recorded for rel, or NULL. */
const char *app_bundle_writer_hash(const AppBundleWriter *w, const char *rel);

/* Removes path and everything under it; symbolic links are removed, never followed. */
void app_bundle_remove_tree(const char *path);

/* Checks that DIR may receive a bundle: absent, an empty folder, or (with force) a folder that
 * is neither "/" nor the current folder or one of its ancestors. */
bool app_bundle_check_target(const char *dir, bool force, GError **error);

/* Makes an empty temporary folder next to dir: "PARENT/.NAME.tmp-XXXXXX". */
char *app_bundle_make_temp_dir(const char *dir, GError **error);

/* Renames the finished folder `tmp` to `dir`, replacing an empty or (force) any folder there;
 * without force a folder that something else filled meanwhile is an error, and what is in it
 * stays untouched. On failure dir is as it was and tmp is left for the caller to remove. */
bool app_bundle_move_into_place(const char *tmp, const char *dir, bool force, GError **error);

#endif
