/* Reading a whole regular file (contract in file_read.h). */
#include "runtime/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor/memory_budget.h"

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

static bool io_error(GError **error, const char *path, const char *format, const char *what) {
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO, format, path, what);
  return false;
}

bool rt_file_read_regular(const char *path, RtFileReadFlags flags, char **contents, gsize *length,
                          GError **error) {
  *contents = NULL;
  *length = 0;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway. */
  int open_flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
  if (flags & RT_FILE_READ_NO_SYMLINK)
    open_flags |= O_NOFOLLOW;
  int fd = open(path, open_flags);
  if (fd < 0) {
    if (errno == ELOOP && (flags & RT_FILE_READ_NO_SYMLINK))
      return io_error(error, path, "%s: %s", "is a symbolic link, which is not followed here");
    return io_error(error, path, "%s: cannot open: %s", g_strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return io_error(error, path, "%s: cannot examine: %s", g_strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO,
                "%s: is %s; only regular files are read", path, file_kind(st.st_mode));
    return false;
  }
  g_autoptr(GError) budget = NULL;
  if (!rt_memory_check((guint64)st.st_size, &budget)) {
    close(fd);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO, "%s: the file is too large to read: %s",
                path, budget->message);
    return false;
  }
  /* The size fstat saw is all that is read: a file that grows meanwhile cannot make this
   * read run on. */
  gsize size = (gsize)st.st_size;
  char *data = g_malloc(size + 1);
  gsize done = 0;
  while (done < size) {
    ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      g_free(data);
      return io_error(error, path, "%s: cannot read: %s", g_strerror(e));
    }
    if (n == 0)
      break; /* the file shrank */
    done += (gsize)n;
  }
  close(fd);
  data[done] = '\0';
  *contents = data;
  *length = done;
  return true;
}
