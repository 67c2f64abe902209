/* jitscope-layout-worker: Graphviz layouts in a process of their own, so that a crash, a leak
 * or a layout that never ends cannot take the window down (layout_service.h). Reads "layout"
 * frames on stdin and answers each with "phase" frames, maybe a "partial" (a coarse layout
 * first), then one "result" or "error" frame on stdout (layout_protocol.h). Exits at "quit"
 * or at the end of its input.
 *
 * Graphviz's verbose messages (its `Verbose` flag) are read back from our own stderr and
 * turned into phases: ranking, crossing minimization, x coordinates, edge routing. Lines that
 * look like errors or warnings are passed on to the real stderr. */
#include <errno.h>
#include <gio/gunixinputstream.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "layout_gv.h"
#include "layout_protocol.h"
#include "layout_service.h"

extern unsigned char Verbose; /* libgvc's, set by `dot -v` */

static GMutex out_lock;
static gint current_id; /* the request in progress, 0 between requests */
static int real_stderr = -1;

static void write_all(int fd, const char *data, gsize length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      _exit(3); /* the service is gone */
    data += n;
    length -= (gsize)n;
  }
}

static void send_frame(const char *type, guint id, const char *keys, const char *payload,
                       gsize length) {
  g_autoptr(GBytes) bytes = app_frame_encode(type, id, keys, payload, length);
  gsize size = 0;
  const char *data = g_bytes_get_data(bytes, &size);
  g_mutex_lock(&out_lock);
  write_all(STDOUT_FILENO, data, size);
  g_mutex_unlock(&out_lock);
}

static void on_phase(const char *phase, gpointer data) {
  send_frame("phase", GPOINTER_TO_UINT(data), NULL, phase, strlen(phase));
}

static void on_partial(const GString *records, int nodes, gpointer data) {
  char keys[48];
  g_snprintf(keys, sizeof keys, "quality=coarse nodes=%d", nodes);
  send_frame("partial", GPOINTER_TO_UINT(data), keys, records->str, records->len);
}

/* dot's verbose lines -> phases (state: whether crossing minimization has begun). */
static const char *verbose_phase(const char *line, bool *seen_mincross) {
  if (g_str_has_prefix(line, "mincross")) {
    *seen_mincross = true;
    return "dot: crossing minimization";
  }
  if (g_str_has_prefix(line, "network simplex"))
    return *seen_mincross ? "dot: x coordinates (network simplex)" : "dot: ranking";
  if (g_str_has_prefix(line, "routesplines") || g_str_has_prefix(line, "splines"))
    return "dot: edge routing";
  return NULL;
}

static gpointer read_verbose(gpointer data) {
  g_autoptr(GInputStream) in = g_unix_input_stream_new(GPOINTER_TO_INT(data), TRUE);
  g_autoptr(GDataInputStream) lines = g_data_input_stream_new(in);
  const char *last = NULL;
  guint last_id = 0;
  bool seen_mincross = false;
  char *line;
  while ((line = g_data_input_stream_read_line(lines, NULL, NULL, NULL))) {
    guint id = (guint)g_atomic_int_get(&current_id);
    if (id != last_id) {
      last_id = id;
      last = NULL;
      seen_mincross = false;
    }
    const char *phase = verbose_phase(line, &seen_mincross);
    if (phase && id && phase != last) {
      on_phase(phase, GUINT_TO_POINTER(id));
      last = phase;
    } else if (!phase &&
               (strstr(line, "rror") || strstr(line, "arning") || strstr(line, "ssert"))) {
      write_all(real_stderr, line, strlen(line));
      write_all(real_stderr, "\n", 1);
    }
    g_free(line);
  }
  return NULL;
}

static void capture_verbose(void) {
  int fds[2];
  if (pipe(fds) != 0)
    return;
  real_stderr = dup(STDERR_FILENO);
  if (real_stderr < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  close(fds[1]);
  g_thread_unref(g_thread_new("verbose", read_verbose, GINT_TO_POINTER(fds[0])));
  Verbose = 1;
}

static void run_layout(const AppFrame *frame) {
  char mode_buf[16], preview_buf[16], fault_buf[16];
  const char *mode_name = app_frame_key(frame, "mode", "full", mode_buf, sizeof mode_buf);
  const char *fault = app_frame_key(frame, "fault", "none", fault_buf, sizeof fault_buf);
  AppGvJob job = {.preview_above =
                      atoi(app_frame_key(frame, "preview", "-1", preview_buf, sizeof preview_buf)),
                  .hang = strcmp(fault, "hang") == 0,
                  .phase = on_phase,
                  .partial = on_partial,
                  .data = GUINT_TO_POINTER(frame->id)};
  if (!app_scene_quality_parse(mode_name, &job.mode)) {
    const char *message = "unknown layout mode";
    send_frame("error", frame->id, "code=1", message, strlen(message));
    return;
  }
  if (strcmp(fault, "crash") == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    abort();
  } /* test-only: what a Graphviz crash looks like to the service */
  g_atomic_int_set(&current_id, (gint)frame->id);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) records = app_gv_layout(frame->payload, &job, &error);
  g_atomic_int_set(&current_id, 0);
  if (records) {
    char keys[32];
    g_snprintf(keys, sizeof keys, "quality=%s", app_scene_quality_name(job.mode));
    send_frame("result", frame->id, keys, records->str, records->len);
  } else {
    char keys[32];
    g_snprintf(keys, sizeof keys, "code=%d", error->code);
    send_frame("error", frame->id, keys, error->message, strlen(error->message));
  }
}

int main(int argc, char **argv) {
  if (argc > 1) {
    fprintf(stderr, "usage: %s (started by jitscope; speaks frames on stdin/stdout)\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  capture_verbose();
  app_gv_context();
  g_autoptr(GInputStream) in = g_unix_input_stream_new(STDIN_FILENO, FALSE);
  g_autoptr(GBufferedInputStream) buffered =
      G_BUFFERED_INPUT_STREAM(g_buffered_input_stream_new_sized(in, 1 << 16));
  int status = 0;
  for (;;) {
    AppFrame frame;
    g_autoptr(GError) error = NULL;
    if (!app_frame_read(G_INPUT_STREAM(buffered), &frame, &error)) {
      if (error) {
        fprintf(stderr, "jitscope-layout-worker: %s\n", error->message);
        status = 1;
      }
      break;
    }
    bool quit = strcmp(frame.type, "quit") == 0;
    if (strcmp(frame.type, "layout") == 0)
      run_layout(&frame);
    else if (!quit) {
      const char *message = "unknown request";
      send_frame("error", frame.id, "code=7", message, strlen(message));
    }
    app_frame_clear(&frame);
    if (quit)
      break;
  }
  return status;
}
