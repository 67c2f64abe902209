/* Defensive reading of manifest.json (contract in bundle_manifest.h). */
#include "bundle_manifest.h"

#include <string.h>

#include "bundle_read.h"
#include "json_depth.h"

static void malformed(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
static void malformed(GError **error, const char *format, ...) {
  va_list args;
  va_start(args, format);
  g_autofree char *message = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "manifest.json: %s", message);
}

static JsonNode *member(JsonObject *o, const char *where, const char *name, JsonNodeType type,
                        const char *what, GError **error) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  if (n == NULL || JSON_NODE_TYPE(n) != type) {
    malformed(error, "%s%s%s: %s %s", where, *where ? "." : "", name,
              n == NULL ? "missing; expected" : "expected", what);
    return NULL;
  }
  return n;
}

JsonObject *app_manifest_object(JsonObject *o, const char *where, const char *name,
                                GError **error) {
  JsonNode *n = member(o, where, name, JSON_NODE_OBJECT, "an object", error);
  return n ? json_node_get_object(n) : NULL;
}

JsonArray *app_manifest_array(JsonObject *o, const char *where, const char *name, GError **error) {
  JsonNode *n = member(o, where, name, JSON_NODE_ARRAY, "an array", error);
  return n ? json_node_get_array(n) : NULL;
}

static JsonNode *value_member(JsonObject *o, const char *where, const char *name, GType type,
                              const char *what, GError **error) {
  JsonNode *n = member(o, where, name, JSON_NODE_VALUE, what, error);
  if (n && json_node_get_value_type(n) != type) {
    malformed(error, "%s%s%s: expected %s", where, *where ? "." : "", name, what);
    return NULL;
  }
  return n;
}

const char *app_manifest_string(JsonObject *o, const char *where, const char *name,
                                GError **error) {
  JsonNode *n = value_member(o, where, name, G_TYPE_STRING, "a string", error);
  return n ? json_node_get_string(n) : NULL;
}

bool app_manifest_string_or_null(JsonObject *o, const char *where, const char *name,
                                 const char **out, GError **error) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  if (n && JSON_NODE_HOLDS_NULL(n)) {
    *out = NULL;
    return true;
  }
  *out = app_manifest_string(o, where, name, error);
  return *out != NULL;
}

bool app_manifest_int(JsonObject *o, const char *where, const char *name, gint64 *out,
                      GError **error) {
  JsonNode *n = value_member(o, where, name, G_TYPE_INT64, "an integer", error);
  if (n)
    *out = json_node_get_int(n);
  return n != NULL;
}

bool app_manifest_bool(JsonObject *o, const char *where, const char *name, bool *out,
                       GError **error) {
  JsonNode *n = value_member(o, where, name, G_TYPE_BOOLEAN, "true or false", error);
  if (n)
    *out = json_node_get_boolean(n);
  return n != NULL;
}

JsonObject *app_manifest_element_object(JsonArray *a, guint i, const char *where, GError **error) {
  JsonNode *n = i < json_array_get_length(a) ? json_array_get_element(a, i) : NULL;
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n)) {
    malformed(error, "%s[%u]: expected an object", where, i);
    return NULL;
  }
  return json_node_get_object(n);
}

char *app_manifest_path(const AppBundleManifest *m, const char *rel) {
  return g_build_filename(m->dir, rel, NULL);
}

const char *app_manifest_file(AppBundleManifest *m, JsonObject *o, const char *where,
                              const char *path_member, const char *hash_member, GError **error) {
  const char *rel = app_manifest_string(o, where, path_member, error);
  if (rel == NULL)
    return NULL;
  if (!app_bundle_path_is_safe(rel)) {
    malformed(error, "%s.%s: '%s' is not a relative path inside the bundle", where, path_member,
              rel);
    return NULL;
  }
  const char *listed = g_hash_table_lookup(m->hashes, rel);
  if (listed == NULL) {
    malformed(error, "%s.%s: %s is not in the files list", where, path_member, rel);
    return NULL;
  }
  if (hash_member) {
    const char *hash = app_manifest_string(o, where, hash_member, error);
    if (hash == NULL)
      return NULL;
    if (strcmp(hash, listed) != 0) {
      malformed(error, "%s.%s: the hash of %s differs from the files list's", where, hash_member,
                rel);
      return NULL;
    }
  }
  return rel;
}

/* Verifies every entry of "files"; all problems go into one message. */
static bool verify_files(AppBundleManifest *m, GError **error) {
  JsonArray *files = app_manifest_array(m->root, "", "files", error);
  if (files == NULL)
    return false;
  g_autoptr(GString) problems = g_string_new(NULL);
  guint n_problems = 0;
  for (guint i = 0; i < json_array_get_length(files); i++) {
    char where[48];
    g_snprintf(where, sizeof where, "files[%u]", i);
    JsonObject *f = app_manifest_element_object(files, i, "files", error);
    const char *rel = f ? app_manifest_string(f, where, "path", error) : NULL;
    const char *hash = rel ? app_manifest_string(f, where, "sha256", error) : NULL;
    if (hash == NULL)
      return false;
    if (!app_bundle_path_is_safe(rel) || strcmp(rel, "manifest.json") == 0) {
      malformed(error, "%s.path: '%s' is not a file path inside the bundle", where, rel);
      return false;
    }
    if (g_hash_table_contains(m->hashes, rel)) {
      malformed(error, "%s.path: %s is listed twice", where, rel);
      return false;
    }
    g_hash_table_insert(m->hashes, g_strdup(rel), g_strdup(hash));
    g_autofree char *data = NULL;
    gsize length = 0;
    g_autoptr(GError) local = NULL;
    if (!app_bundle_read_member(m->dir, rel, &data, &length, &local)) {
      g_string_append_printf(problems, "%s%s", n_problems ? "; " : "", local->message);
      n_problems++;
    } else {
      g_autofree char *actual = app_bundle_sha256(data, length);
      if (g_ascii_strcasecmp(actual, hash) != 0) {
        g_string_append_printf(problems,
                               "%s%s is corrupted (its SHA-256 differs from the manifest's)",
                               n_problems ? "; " : "", rel);
        n_problems++;
      }
    }
  }
  if (n_problems) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s", problems->str);
    return false;
  }
  return true;
}

AppBundleManifest *app_bundle_manifest_open(const char *dir, GError **error) {
  g_autoptr(AppBundleManifest) m = g_new0(AppBundleManifest, 1);
  m->dir = g_strdup(dir);
  m->hashes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  m->parser = json_parser_new();
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s is not a folder", dir);
    return NULL;
  }
  if (!app_bundle_read_member(dir, "manifest.json", &text, &length, error))
    return NULL;
  if (!app_json_check_depth(text, length, APP_JSON_MAX_DEPTH, &local) ||
      !json_parser_load_from_data(m->parser, text, (gssize)length, &local)) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                "manifest.json is not valid JSON: %s", local->message);
    return NULL;
  }
  JsonNode *root = json_parser_get_root(m->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    malformed(error, "expected an object at the top");
    return NULL;
  }
  m->root = json_node_get_object(root);
  const char *format = app_manifest_string(m->root, "", "format", error);
  if (format == NULL)
    return NULL;
  if (strcmp(format, APP_BUNDLE_FORMAT) != 0) {
    malformed(error, "format is '%s', not '%s'", format, APP_BUNDLE_FORMAT);
    return NULL;
  }
  gint64 version = 0;
  if (!app_manifest_int(m->root, "", "format_version", &version, error))
    return NULL;
  if (version != APP_BUNDLE_FORMAT_VERSION) {
    malformed(error, "format_version %" G_GINT64_FORMAT " is not one this jitscope reads (%d)",
              version, APP_BUNDLE_FORMAT_VERSION);
    return NULL;
  }
  if (!verify_files(m, error))
    return NULL;
  return g_steal_pointer(&m);
}

void app_bundle_manifest_free(AppBundleManifest *m) {
  if (!m)
    return;
  g_free(m->dir);
  g_object_unref(m->parser);
  g_hash_table_unref(m->hashes);
  g_free(m);
}
