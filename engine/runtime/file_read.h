/* Reading a whole input file defensively: only a regular file is read (a folder, a device
 * such as /dev/zero, a FIFO or a socket is refused before any byte is read, so reading can
 * neither block nor run on forever), and only when its size fits the memory budget.
 * Errors (JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO) start with the path. */
#ifndef JITSCOPE_RUNTIME_FILE_READ_H
#define JITSCOPE_RUNTIME_FILE_READ_H

#include <glib.h>
#include <stdbool.h>

typedef enum {
  RT_FILE_READ_FOLLOW_SYMLINKS = 0,
  RT_FILE_READ_NO_SYMLINK = 1 << 0, /* a symbolic link as the last component is refused */
} RtFileReadFlags;

/* *contents (free with g_free) is NUL-terminated after *length bytes, as g_file_get_contents. */
bool rt_file_read_regular(const char *path, RtFileReadFlags flags, char **contents, gsize *length,
                          GError **error);

#endif
