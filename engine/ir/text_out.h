/* Appending text to a GString cheaply: the printer's and the type printer's hot path (a
 * plan's compile prints its graph a score of times, each print thousands of short pieces,
 * and GLib's g_string_append costs a strlen and a call into insert_len for each). IR-internal. */
#ifndef JITSCOPE_IR_TEXT_OUT_H
#define JITSCOPE_IR_TEXT_OUT_H

#include <glib.h>
#include <string.h>

static inline void text_put_len(GString *out, const char *s, gsize n) {
  if (G_LIKELY(out->len + n < out->allocated_len)) {
    memcpy(out->str + out->len, s, n);
    out->len += n;
    out->str[out->len] = '\0';
  } else {
    g_string_append_len(out, s, (gssize)n);
  }
}

static inline void text_put(GString *out, const char *s) {
  text_put_len(out, s, strlen(s));
}

/* Decimal digits without printf's machinery. */
static inline void text_put_int(GString *out, gint64 v) {
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 magnitude = v < 0 ? (guint64)0 - (guint64)v : (guint64)v;
  do {
    *--p = (char)('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0);
  if (v < 0)
    *--p = '-';
  text_put_len(out, p, (gsize)(buf + sizeof buf - p));
}

#endif
