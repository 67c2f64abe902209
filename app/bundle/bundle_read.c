/* Path-checked reading of bundle members (contract in bundle_read.h). */
#include "bundle_read.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle.h"
#include "runtime/file_read.h"

static bool member_error(GError **error, const char *rel, const char *format, const char *what) {
  g_autofree char *message = g_strdup_printf(format, what);
  g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s: %s", rel, message);
  return false;
}

/* Every folder on the way from DIR to REL's file must be a real folder, not a link. */
static bool folders_stay_inside(const char *dir, const char *rel, GError **error) {
  g_auto(GStrv) parts = g_strsplit(rel, "/", -1);
  g_autofree char *at = g_strdup(dir);
  for (guint i = 0; parts[i] && parts[i + 1]; i++) {
    char *next = g_build_filename(at, parts[i], NULL);
    g_free(at);
    at = next;
    GStatBuf st;
    if (g_lstat(at, &st) != 0)
      return member_error(error, rel, "cannot examine a folder on its path: %s", g_strerror(errno));
    if (S_ISLNK(st.st_mode))
      return member_error(error, rel,
                          "the folder %s on its path is a symbolic link, which "
                          "could lead outside the bundle",
                          parts[i]);
    if (!S_ISDIR(st.st_mode))
      return member_error(error, rel, "%s on its path is not a folder", parts[i]);
  }
  return true;
}

bool app_bundle_read_member(const char *dir, const char *rel, char **contents, gsize *length,
                            GError **error) {
  *contents = NULL;
  *length = 0;
  if (!app_bundle_path_is_safe(rel))
    return member_error(error, rel, "%s", "not a relative path inside the bundle");
  if (!folders_stay_inside(dir, rel, error))
    return false;
  g_autofree char *path = g_build_filename(dir, rel, NULL);
  GStatBuf st;
  if (g_lstat(path, &st) != 0 && errno == ENOENT) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s is missing", rel);
    return false;
  }
  g_autoptr(GError) local = NULL;
  if (!rt_file_read_regular(path, RT_FILE_READ_NO_SYMLINK, contents, length, &local)) {
    /* The reader's message starts with the full path: name the member instead. */
    const char *why = local->message;
    if (g_str_has_prefix(why, path) && why[strlen(path)] == ':')
      why += strlen(path) + 2;
    member_error(error, rel, "%s", why);
    return false;
  }
  return true;
}
