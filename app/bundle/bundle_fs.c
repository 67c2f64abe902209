/* File-system helpers of the bundle writer (contracts in bundle_fs.h). */
#include "bundle_fs.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "runtime/run_control.h"

static void bundle_file_free(gpointer p) {
  AppBundleFile *f = p;
  g_free(f->path);
  g_free(f->sha256);
  g_free(f);
}

void app_bundle_writer_init(AppBundleWriter *w, const char *root, guint fail_after) {
  w->root = g_strdup(root);
  w->files = g_ptr_array_new_with_free_func(bundle_file_free);
  w->fail_after = fail_after;
}

void app_bundle_writer_clear(AppBundleWriter *w) {
  g_free(w->root);
  if (w->files)
    g_ptr_array_unref(w->files);
  w->root = NULL;
  w->files = NULL;
}

bool app_bundle_writer_may_write(AppBundleWriter *w, GError **error) {
  if (w->fail_after && w->files->len >= w->fail_after) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO,
                "failing after %u files, as the test asked", w->fail_after);
    return false;
  }
  if (rt_run_cancelled()) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO,
                "interrupted while writing the bundle");
    return false;
  }
  return true;
}

static void record(AppBundleWriter *w, const char *rel, const void *data, gsize length) {
  AppBundleFile *f = g_new0(AppBundleFile, 1);
  f->path = g_strdup(rel);
  f->sha256 = app_bundle_sha256(data, length);
  f->bytes = length;
  g_ptr_array_add(w->files, f);
}

bool app_bundle_writer_put(AppBundleWriter *w, const char *rel, const void *data, gsize length,
                           GError **error) {
  if (!app_bundle_writer_may_write(w, error))
    return false;
  g_autofree char *path = g_build_filename(w->root, rel, NULL);
  g_autofree char *parent = g_path_get_dirname(path);
  g_autoptr(GError) local = NULL;
  bool ok = true;
  if (g_mkdir_with_parents(parent, 0755) != 0) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot create the folder for %s: %s",
                rel, g_strerror(errno));
    ok = false;
  } else if (!g_file_set_contents(path, data, (gssize)length, &local)) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot write %s: %s", rel,
                local->message);
    ok = false;
  }
  if (ok)
    record(w, rel, data, length);
  return ok;
}

bool app_bundle_writer_adopt(AppBundleWriter *w, const char *rel, GError **error) {
  g_autofree char *path = g_build_filename(w->root, rel, NULL);
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  bool ok = g_file_get_contents(path, &data, &length, &local);
  if (ok)
    record(w, rel, data, length);
  else
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot read back %s: %s", rel,
                local->message);
  return ok;
}

const char *app_bundle_writer_hash(const AppBundleWriter *w, const char *rel) {
  for (guint i = 0; i < w->files->len; i++) {
    const AppBundleFile *f = g_ptr_array_index(w->files, i);
    if (strcmp(f->path, rel) == 0)
      return f->sha256;
  }
  return NULL;
}

void app_bundle_remove_tree(const char *path) {
  GStatBuf st;
  if (g_lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
      const char *name;
      while ((name = g_dir_read_name(d))) {
        g_autofree char *child = g_build_filename(path, name, NULL);
        app_bundle_remove_tree(child);
      }
      g_dir_close(d);
    }
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}

static bool dir_is_empty(const char *dir) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (d == NULL)
    return false;
  return g_dir_read_name(d) == NULL;
}

bool app_bundle_check_target(const char *dir, bool force, GError **error) {
  GStatBuf st;
  if (g_lstat(dir, &st) != 0) {
    if (errno == ENOENT)
      return true;
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot examine %s: %s", dir,
                g_strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_EXISTS, "%s exists and is not a folder",
                dir);
    return false;
  }
  if (dir_is_empty(dir))
    return true;
  if (!force) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_EXISTS,
                "%s is not empty (use --force to replace it)", dir);
    return false;
  }
  char *real = realpath(dir, NULL);
  char *cwd = g_get_current_dir();
  char *real_cwd = realpath(cwd, NULL);
  bool ok = real != NULL;
  if (ok && strcmp(real, "/") == 0)
    ok = false;
  if (ok && real_cwd) {
    gsize n = strlen(real);
    if (strncmp(real_cwd, real, n) == 0 && (real_cwd[n] == '\0' || real_cwd[n] == '/'))
      ok = false;
  }
  if (!ok)
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_EXISTS,
                "refusing to replace %s: it is the root folder, the current folder or one of "
                "its ancestors",
                dir);
  free(real);
  free(real_cwd);
  g_free(cwd);
  return ok;
}

static char *sibling_template(const char *dir, const char *what) {
  g_autofree char *trimmed = g_strdup(dir);
  gsize n = strlen(trimmed);
  while (n > 1 && trimmed[n - 1] == '/')
    trimmed[--n] = '\0';
  g_autofree char *parent = g_path_get_dirname(trimmed);
  g_autofree char *base = g_path_get_basename(trimmed);
  g_autofree char *name = g_strdup_printf(".%s.%s-XXXXXX", base, what);
  return g_build_filename(parent, name, NULL);
}

char *app_bundle_make_temp_dir(const char *dir, GError **error) {
  g_autofree char *tmpl = sibling_template(dir, "tmp");
  if (g_mkdtemp(tmpl) == NULL) {
    int e = errno;
    g_autofree char *parent = g_path_get_dirname(tmpl);
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO,
                "cannot create a temporary folder in %s: %s", parent, g_strerror(e));
    return NULL;
  }
  return g_steal_pointer(&tmpl);
}

bool app_bundle_move_into_place(const char *tmp, const char *dir, bool force, GError **error) {
  if (g_rename(tmp, dir) == 0)
    return true;
  int e = errno;
  if (e != ENOTEMPTY && e != EEXIST) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot rename the bundle to %s: %s",
                dir, g_strerror(e));
    return false;
  }
  if (!force) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_EXISTS,
                "%s was filled by something else while the bundle was written; it was left as "
                "it is (use --force to replace it)",
                dir);
    return false;
  }
  /* A non-empty folder (allowed by --force): move it aside, move the bundle in, then remove
   * the old one; put it back when the second rename fails. */
  g_autofree char *old = sibling_template(dir, "old");
  bool ok = false;
  if (g_mkdtemp(old) == NULL || g_rename(dir, old) != 0) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot move %s aside: %s", dir,
                g_strerror(errno));
    g_rmdir(old);
  } else if (g_rename(tmp, dir) != 0) {
    e = errno;
    g_rename(old, dir);
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO, "cannot rename the bundle to %s: %s",
                dir, g_strerror(e));
  } else {
    app_bundle_remove_tree(old);
    ok = true;
  }
  return ok;
}
