/* Reading manifest.json defensively (format in bundle.h): every accessor checks presence and
 * type and, on failure, sets APP_BUNDLE_ERROR_MALFORMED naming the member ("manifest.json:
 * plans[2].stages[5].ir: expected a string"). The hash check of the files list lives here
 * too: after app_bundle_manifest_open, every file listed has been read and verified. */
#ifndef JITSCOPE_APP_BUNDLE_MANIFEST_H
#define JITSCOPE_APP_BUNDLE_MANIFEST_H

#include <json-glib/json-glib.h>

#include "bundle.h"

typedef struct {
  char *dir;
  JsonParser *parser;
  JsonObject *root;
  GHashTable *hashes; /* bundle path -> sha256 (verified against the file) */
} AppBundleManifest;

/* Reads DIR/manifest.json, checks format and version, verifies every listed file. Problems
 * with files are all named in one message. */
AppBundleManifest *app_bundle_manifest_open(const char *dir, GError **error);
void app_bundle_manifest_free(AppBundleManifest *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppBundleManifest, app_bundle_manifest_free)

/* Typed members; `where` names the object in messages ("plans[2]"). */
JsonObject *app_manifest_object(JsonObject *o, const char *where, const char *name, GError **error);
JsonArray *app_manifest_array(JsonObject *o, const char *where, const char *name, GError **error);
const char *app_manifest_string(JsonObject *o, const char *where, const char *name, GError **error);
/* A string or null (NULL) member; absent is an error. */
bool app_manifest_string_or_null(JsonObject *o, const char *where, const char *name,
                                 const char **out, GError **error);
bool app_manifest_int(JsonObject *o, const char *where, const char *name, gint64 *out,
                      GError **error);
bool app_manifest_bool(JsonObject *o, const char *where, const char *name, bool *out,
                       GError **error);
/* Element i of an array as an object (NULL with an error otherwise). */
JsonObject *app_manifest_element_object(JsonArray *a, guint i, const char *where, GError **error);

/* A file member: the path (checked safe and listed in "files") and, when hash_member is not
 * NULL, its hash equal to the listed one. Returns the path (borrowed from the manifest). */
const char *app_manifest_file(AppBundleManifest *m, JsonObject *o, const char *where,
                              const char *path_member, const char *hash_member, GError **error);
/* The full path of a bundle file (free with g_free). */
char *app_manifest_path(const AppBundleManifest *m, const char *rel);

#endif
