/* The JSON nesting scan (contract in json_depth.h). */
#include "json_depth.h"

#include <gio/gio.h>

bool app_json_check_depth(const char *text, gsize length, guint max_depth, GError **error) {
  guint depth = 0;
  bool in_string = false;
  for (gsize i = 0; i < length; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++; /* the escaped character, whatever it is */
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "nested deeper than %u levels at byte %" G_GSIZE_FORMAT, max_depth, i);
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return true;
}
