/* Frames and scene records between the layout service and its worker (layout_protocol.h). */
#include "layout_protocol.h"

#include <stdio.h>
#include <string.h>

#include "layout_service.h"

G_DEFINE_QUARK(app - layout - error - quark, app_layout_error)

G_DEFINE_QUARK(app - layout - protocol - error - quark, app_layout_protocol_error)
#define PROTOCOL_ERROR app_layout_protocol_error_quark()

void app_frame_clear(AppFrame *frame) {
  g_free(frame->keys);
  g_free(frame->payload);
  memset(frame, 0, sizeof *frame);
}

const char *app_frame_key(const AppFrame *frame, const char *key, const char *fallback, char *buf,
                          gsize buf_size) {
  gsize klen = strlen(key);
  for (const char *p = frame->keys ? frame->keys : ""; (p = strstr(p, key)); p += klen) {
    if ((p != frame->keys && p[-1] != ' ') || p[klen] != '=')
      continue;
    const char *v = p + klen + 1;
    gsize n = strcspn(v, " ");
    if (n >= buf_size)
      n = buf_size - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return buf;
  }
  return fallback;
}

/* The header line, byte by byte (it is short; the payload is read in one piece). */
static bool read_header(GInputStream *in, char *line, GError **error) {
  gsize n = 0;
  for (;;) {
    char c;
    gssize got = g_input_stream_read(in, &c, 1, NULL, error);
    if (got < 0)
      return false;
    if (got == 0) {
      if (n > 0)
        g_set_error(error, PROTOCOL_ERROR, 0, "truncated frame header");
      return false;
    }
    if (c == '\n')
      break;
    if (n + 1 >= APP_FRAME_HEADER_MAX) {
      g_set_error(error, PROTOCOL_ERROR, 1, "frame header longer than %d bytes",
                  APP_FRAME_HEADER_MAX);
      return false;
    }
    line[n++] = c;
  }
  line[n] = '\0';
  return true;
}

bool app_frame_read(GInputStream *in, AppFrame *frame, GError **error) {
  memset(frame, 0, sizeof *frame);
  char line[APP_FRAME_HEADER_MAX];
  if (!read_header(in, line, error))
    return false;
  unsigned long long length = 0;
  int used = 0;
  if (sscanf(line, "%15s %u %llu%n", frame->type, &frame->id, &length, &used) != 3 ||
      length > APP_FRAME_MAX) {
    g_set_error(error, PROTOCOL_ERROR, 2, "malformed frame header '%.80s'", line);
    return false;
  }
  frame->length = (gsize)length;
  frame->keys = g_strdup(line + used);
  frame->payload = g_malloc(frame->length + 1);
  gsize got = 0;
  if (!g_input_stream_read_all(in, frame->payload, frame->length, &got, NULL, error) ||
      got != frame->length) {
    if (error && !*error)
      g_set_error(error, PROTOCOL_ERROR, 3, "truncated frame: %zu of %zu bytes", got,
                  frame->length);
    app_frame_clear(frame);
    return false;
  }
  frame->payload[frame->length] = '\0';
  return true;
}

GBytes *app_frame_encode(const char *type, guint id, const char *keys, const char *payload,
                         gsize length) {
  GString *out = g_string_sized_new(length + 64);
  g_string_append_printf(out, "%s %u %zu%s%s\n", type, id, length, keys && *keys ? " " : "",
                         keys ? keys : "");
  if (length)
    g_string_append_len(out, payload, (gssize)length);
  return g_string_free_to_bytes(out);
}

/* ---- scene records ---- */

static void put_field(GString *out, const char *bytes, gsize length) {
  g_string_append_printf(out, "%zu:", length);
  g_string_append_len(out, bytes, (gssize)length);
}

void app_records_begin(GString *out, const char *bb) {
  put_field(out, bb, strlen(bb));
}

void app_records_object(GString *out, AppObjectKind kind, const char *id, const char *label) {
  static const char kinds[] = {'G', 'C', 'N', 'E'};
  put_field(out, "O", 1);
  put_field(out, &kinds[kind], 1);
  put_field(out, id, strlen(id));
  put_field(out, label ? "1" : "0", 1);
  put_field(out, label ? label : "", label ? strlen(label) : 0);
}

void app_records_ops(GString *out, const char *ops) {
  put_field(out, "A", 1);
  put_field(out, ops, strlen(ops));
}

typedef struct {
  const char *p, *end;
} Reader;

/* The next field as a new string, or NULL at the end or on malformed input (*bad set). */
static char *get_field(Reader *r, bool *bad) {
  if (r->p >= r->end)
    return NULL;
  gsize n = 0;
  const char *p = r->p;
  while (p < r->end && g_ascii_isdigit(*p) && n < APP_FRAME_MAX)
    n = n * 10 + (gsize)(*p++ - '0');
  if (p == r->p || p >= r->end || *p != ':' || (gsize)(r->end - p - 1) < n) {
    *bad = true;
    return NULL;
  }
  r->p = p + 1 + n;
  return g_strndup(p + 1, n);
}

AppScene *app_records_to_scene(const char *records, gsize length, GError **error) {
  Reader r = {records, records + length};
  bool bad = false;
  g_autofree char *bb = get_field(&r, &bad);
  AppScene *scene = bb ? app_scene_new(bb, error) : NULL;
  if (!scene) {
    if (!bb && error && !*error)
      g_set_error(error, PROTOCOL_ERROR, 4, "scene records without a bounding box");
    return NULL;
  }
  int object = -1;
  AppObjectKind kind = APP_OBJECT_GRAPH;
  g_autofree char *id = NULL;
  g_autofree char *label = NULL;
  char *tag;
  while ((tag = get_field(&r, &bad))) {
    if (strcmp(tag, "O") == 0) {
      g_autofree char *k = get_field(&r, &bad);
      g_free(id);
      g_free(label);
      id = get_field(&r, &bad);
      g_autofree char *has = get_field(&r, &bad);
      label = get_field(&r, &bad);
      const char *at = k ? strchr("GCNE", k[0]) : NULL;
      if (!k || !k[0] || !at || !id || !has || !label)
        bad = true;
      else
        kind = (AppObjectKind)(at - "GCNE");
      if (has && strcmp(has, "1") != 0)
        g_clear_pointer(&label, g_free);
      if (!bad && (object = app_scene_add_ops(scene, -1, kind, id, label, NULL, error)) < 0)
        bad = true;
    } else if (strcmp(tag, "A") == 0 && object >= 0) {
      g_autofree char *ops = get_field(&r, &bad);
      if (!ops || app_scene_add_ops(scene, object, kind, id, label, ops, error) < 0)
        bad = true;
    } else {
      bad = true;
    }
    g_free(tag);
    if (bad)
      break;
  }
  if (bad) {
    if (error && !*error)
      g_set_error(error, PROTOCOL_ERROR, 5, "malformed scene records at byte %ld",
                  (long)(r.p - records));
    app_scene_unref(scene);
    return NULL;
  }
  return scene;
}

const char *app_scene_quality_name(AppSceneQuality quality) {
  switch (quality) {
  case APP_SCENE_FULL: return "full";
  case APP_SCENE_FAST: return "fast";
  case APP_SCENE_COARSE: return "coarse";
  }
  return "full";
}

bool app_scene_quality_parse(const char *name, AppSceneQuality *out) {
  for (int q = APP_SCENE_FULL; q <= APP_SCENE_COARSE; q++)
    if (strcmp(name, app_scene_quality_name((AppSceneQuality)q)) == 0) {
      *out = (AppSceneQuality)q;
      return true;
    }
  return false;
}
