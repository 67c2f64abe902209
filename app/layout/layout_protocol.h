/* The wire format between the layout service and `jitscope-layout-worker` (see
 * layout_service.h for why layouts run in another process).
 *
 * Frames, both ways, on the worker's stdin and stdout:
 *
 *     <type> <id> <length>[ <key>=<value>]...\n<length bytes of payload>
 *
 * `type` is one word, `id` the request's number (> 0), `length` the payload's size in bytes
 * (at most APP_FRAME_MAX). The header line is at most 1 KB.
 *
 *   service -> worker   "layout"  payload: DOT text; keys: mode=dot|fast|coarse,
 *                                 preview=0|1 (send a coarse "partial" first), and, for tests
 *                                 only, fault=crash (abort after reading) or fault=hang (never
 *                                 finish a dot/fast layout; coarse layouts still finish)
 *                       "quit"    no payload
 *   worker -> service   "phase"   payload: what the worker is doing now ("reading DOT",
 *                                 "dot: ranking", "dot: crossing minimization", ...)
 *                       "partial" payload: scene records of a coarse layout
 *                       "result"  payload: scene records; key quality=full|fast|coarse
 *                       "error"   payload: the message (the request failed, the worker lives)
 *
 * Scene records: a sequence of fields, each "<length>:<bytes>". The first field is the
 * bounding box ("llx,lly,urx,ury"); then per object "O", kind ("G", "C", "N", "E"), id,
 * "0" or "1" (has a label), the label; then "A" and one xdot attribute's operations, as
 * many times as the object has attributes. */
#ifndef JITSCOPE_APP_LAYOUT_PROTOCOL_H
#define JITSCOPE_APP_LAYOUT_PROTOCOL_H

#include <gio/gio.h>
#include <stdbool.h>

#include "scene.h"

#define APP_FRAME_MAX (512u * 1024u * 1024u)
#define APP_FRAME_HEADER_MAX 1024

typedef struct {
  char type[16];
  guint id;
  gsize length;
  char *keys;    /* " key=value..." as received (owned), "" for none */
  char *payload; /* NUL-terminated (owned) */
} AppFrame;

void app_frame_clear(AppFrame *frame);
/* The value of `key` in the frame's header, or `fallback`. */
const char *app_frame_key(const AppFrame *frame, const char *key, const char *fallback, char *buf,
                          gsize buf_size);

/* Blocking I/O on a stream. Reading returns false at a clean end of stream (no error set)
 * or with *error on a malformed or truncated frame. */
bool app_frame_read(GInputStream *in, AppFrame *frame, GError **error);
GBytes *app_frame_encode(const char *type, guint id, const char *keys, const char *payload,
                         gsize length);

/* Scene records. */
void app_records_begin(GString *out, const char *bb);
void app_records_object(GString *out, AppObjectKind kind, const char *id, const char *label);
void app_records_ops(GString *out, const char *ops);
AppScene *app_records_to_scene(const char *records, gsize length, GError **error);

const char *app_scene_quality_name(AppSceneQuality quality);
bool app_scene_quality_parse(const char *name, AppSceneQuality *out);

#endif
