/* The layout service: a worker process (or, without one, a thread), one request at a time, a
 * time budget with cheaper retries, progress, and a scene cache (contract in
 * layout_service.h). Every field of the service is touched on its main context only; the
 * reader and in-process threads talk to it through Messages posted there. */
#include "layout_service.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "layout_gv.h"
#include "layout_protocol.h"

#define CACHE_MAX 512
#define CACHE_BYTES ((gsize)768 * 1024 * 1024)
#define DEFAULT_BUDGET_MS 10000
#define DEFAULT_PREVIEW_ABOVE 300
#define FAST_MAX_NODES 3000 /* above this even dot's cheap settings take minutes */
#define COARSE_BUDGET_MS 60000
#define TICK_MS 250

/* ---- threads -> main context ---- */

typedef struct {
  gint refcount;
  AppLayoutService *service; /* NULL once the service is freed */
  GMainContext *context;
} Link;

static Link *link_ref(Link *link) {
  g_atomic_int_inc(&link->refcount);
  return link;
}

static void link_unref(Link *link) {
  if (!g_atomic_int_dec_and_test(&link->refcount))
    return;
  g_main_context_unref(link->context);
  g_free(link);
}

typedef struct {
  gint refcount;
  Link *link;
  GSubprocess *proc;
  GOutputStream *in;
  GInputStream *out;
  GPid pid;
  /* Joined by the service when it lets the worker go: a reader thread still ending when the
   * process exits races LeakSanitizer's stop-the-world, whose tracer then crashes. */
  GThread *reader;
} Worker;

static Worker *worker_ref(Worker *w) {
  g_atomic_int_inc(&w->refcount);
  return w;
}

static void worker_unref(Worker *w) {
  if (!g_atomic_int_dec_and_test(&w->refcount))
    return;
  g_object_unref(w->out);
  g_object_unref(w->in);
  g_object_unref(w->proc);
  link_unref(w->link);
  g_free(w);
}

typedef enum { MSG_PHASE, MSG_PARTIAL, MSG_RESULT, MSG_ERROR, MSG_EOF } MessageKind;

typedef struct {
  Link *link;
  Worker *worker; /* NULL from the in-process thread */
  MessageKind kind;
  guint id;
  char *phase;
  AppScene *scene;
  GError *error;
  int nodes;
  int signal_number, exit_status; /* MSG_EOF */
} Message;

static gboolean on_message(gpointer data);

static void message_free(Message *m) {
  g_free(m->phase);
  if (m->scene)
    app_scene_unref(m->scene);
  g_clear_error(&m->error);
  if (m->worker)
    worker_unref(m->worker);
  link_unref(m->link);
  g_free(m);
}

/* Through an idle source: never a call on the caller's stack. */
static void post_to(GMainContext *context, GSourceFunc fn, gpointer data) {
  GSource *source = g_idle_source_new();
  g_source_set_priority(source, G_PRIORITY_DEFAULT);
  g_source_set_callback(source, fn, data, NULL);
  g_source_attach(source, context);
  g_source_unref(source);
}

static Message *message_new(Link *link, Worker *worker, MessageKind kind, guint id) {
  Message *m = g_new0(Message, 1);
  m->link = link_ref(link);
  m->worker = worker ? worker_ref(worker) : NULL;
  m->kind = kind;
  m->id = id;
  return m;
}

static void message_post(Message *m) {
  post_to(m->link->context, on_message, m);
}

/* A "result"/"partial" payload -> a scene, on the thread that read it. */
static void message_scene(Message *m, const char *records, gsize length, const char *quality) {
  m->scene = app_records_to_scene(records, length, &m->error);
  if (!m->scene) {
    m->kind = MSG_ERROR;
    g_prefix_error(&m->error, "the layout worker's scene: ");
    m->error->domain = APP_LAYOUT_ERROR;
    m->error->code = APP_LAYOUT_ERROR_WORKER;
  } else if (quality) {
    app_scene_quality_parse(quality, &m->scene->quality);
  }
}

static gpointer read_worker(gpointer data) {
  Worker *w = data;
  AppFrame f;
  while (app_frame_read(w->out, &f, NULL)) {
    char buf[32];
    Message *m = NULL;
    if (strcmp(f.type, "phase") == 0) {
      m = message_new(w->link, w, MSG_PHASE, f.id);
      m->phase = g_strdup(f.payload);
    } else if (strcmp(f.type, "partial") == 0 || strcmp(f.type, "result") == 0) {
      m = message_new(w->link, w, f.type[0] == 'p' ? MSG_PARTIAL : MSG_RESULT, f.id);
      m->nodes = atoi(app_frame_key(&f, "nodes", "0", buf, sizeof buf));
      message_scene(m, f.payload, f.length, app_frame_key(&f, "quality", NULL, buf, sizeof buf));
    } else if (strcmp(f.type, "error") == 0) {
      m = message_new(w->link, w, MSG_ERROR, f.id);
      int code = atoi(app_frame_key(&f, "code", "1", buf, sizeof buf));
      m->error = g_error_new_literal(APP_LAYOUT_ERROR, code, f.payload);
    }
    if (m)
      message_post(m);
    app_frame_clear(&f);
  }
  /* End of output (or garbage): the worker ended or was killed; reap it. */
  g_subprocess_force_exit(w->proc);
  g_subprocess_wait(w->proc, NULL, NULL);
  Message *m = message_new(w->link, w, MSG_EOF, 0);
  if (g_subprocess_get_if_signaled(w->proc))
    m->signal_number = g_subprocess_get_term_sig(w->proc);
  else if (g_subprocess_get_if_exited(w->proc))
    m->exit_status = g_subprocess_get_exit_status(w->proc);
  message_post(m);
  worker_unref(w);
  return NULL;
}

/* ---- the in-process fallback ---- */

typedef struct {
  Link *link;
  GAsyncQueue *jobs;
} Inproc;

typedef struct {
  guint id;
  char *dot;
  AppGvJob job;
  Inproc *inproc;
  bool quit;
} InprocJob;

static void inproc_phase(const char *phase, gpointer data) {
  InprocJob *j = data;
  Message *m = message_new(j->inproc->link, NULL, MSG_PHASE, j->id);
  m->phase = g_strdup(phase);
  message_post(m);
}

static void inproc_job_free(InprocJob *j) {
  g_free(j->dot);
  g_free(j);
}

static gpointer run_inproc(gpointer data) {
  Inproc *ip = data;
  for (;;) {
    InprocJob *j = g_async_queue_pop(ip->jobs);
    if (j->quit) {
      inproc_job_free(j);
      break;
    }
    GError *error = NULL;
    app_gv_lock();
    g_autoptr(GString) records = app_gv_layout(j->dot, &j->job, &error);
    app_gv_unlock();
    Message *m = message_new(ip->link, NULL, records ? MSG_RESULT : MSG_ERROR, j->id);
    if (records)
      message_scene(m, records->str, records->len, app_scene_quality_name(j->job.mode));
    else
      m->error = error;
    message_post(m);
    inproc_job_free(j);
  }
  link_unref(ip->link);
  g_async_queue_unref(ip->jobs);
  g_free(ip);
  return NULL;
}

/* ---- the service ---- */

typedef struct {
  AppLayoutService *service;
  guint id;
  char *dot;
  char *key;        /* cache key of the quality asked for */
  char *budget_key; /* cache key of what a budgeted request may settle for */
  AppLayoutOptions opt;
  AppLayoutDoneFn done;
  AppLayoutProgressFn progress;
  gpointer data;
  AppSceneQuality trying;
  gint64 started;
  char *phase;
  AppScene *preview;
  int nodes;
  char *note;
  guint budget_source;
  bool cancelled;
  /* delivery */
  AppScene *scene;
  GError *error;
} Request;

typedef struct {
  AppScene *scene;
  gsize bytes;
} CacheEntry;

struct AppLayoutService {
  Link *link;
  GMainContext *context;
  char *worker_path; /* NULL: in-process */
  Worker *worker;
  Inproc *inproc;
  GQueue queue;      /* Request*, waiting */
  Request *current;  /* being laid out */
  GHashTable *live;  /* id -> Request*, every request whose callback is due */
  GHashTable *cache; /* key -> CacheEntry* */
  GQueue cache_order;
  gsize cache_bytes;
  guint tick_source;
  int budget_ms;
  guint next_id, hits, misses, layouts, starts;
};

static void dispatch(AppLayoutService *s);

static void remove_source(GMainContext *context, guint *id) {
  if (*id)
    g_source_destroy(g_main_context_find_source_by_id(context, *id));
  *id = 0;
}

static void request_free(Request *r) {
  if (r->budget_source) /* only while the service lives */
    remove_source(r->service->context, &r->budget_source);
  g_free(r->dot);
  g_free(r->key);
  g_free(r->budget_key);
  g_free(r->phase);
  g_free(r->note);
  if (r->preview)
    app_scene_unref(r->preview);
  if (r->scene)
    app_scene_unref(r->scene);
  g_clear_error(&r->error);
  g_free(r);
}

static void cache_entry_free(gpointer data) {
  CacheEntry *e = data;
  app_scene_unref(e->scene);
  g_free(e);
}

static void cache_insert(AppLayoutService *s, const char *key, AppScene *scene) {
  if (g_hash_table_contains(s->cache, key))
    return;
  CacheEntry *e = g_new(CacheEntry, 1);
  e->scene = app_scene_ref(scene);
  e->bytes = app_scene_memory(scene);
  char *k = g_strdup(key);
  g_hash_table_insert(s->cache, k, e);
  g_queue_push_tail(&s->cache_order, k);
  s->cache_bytes += e->bytes;
  while (g_queue_get_length(&s->cache_order) > 1 &&
         (g_queue_get_length(&s->cache_order) > CACHE_MAX || s->cache_bytes > CACHE_BYTES)) {
    char *old = g_queue_pop_head(&s->cache_order);
    CacheEntry *gone = g_hash_table_lookup(s->cache, old);
    s->cache_bytes -= gone->bytes;
    g_hash_table_remove(s->cache, old); /* frees the key */
  }
}

static AppScene *cache_find(AppLayoutService *s, const Request *r) {
  CacheEntry *e = g_hash_table_lookup(s->cache, r->key);
  if (!e && r->budget_key)
    e = g_hash_table_lookup(s->cache, r->budget_key);
  return e ? e->scene : NULL;
}

static gboolean deliver(gpointer data) {
  Request *r = data;
  AppLayoutService *s = r->service;
  if (!r->cancelled) {
    g_hash_table_remove(s->live, GUINT_TO_POINTER(r->id));
    if (r->done)
      r->done(r->scene, r->error, r->data);
  }
  request_free(r);
  return G_SOURCE_REMOVE;
}

/* Ends the current request: caches a scene, posts the callback, starts the next. */
static void finish(AppLayoutService *s, Request *r, AppScene *scene, GError *error) {
  remove_source(s->context, &r->budget_source);
  if (s->current == r)
    s->current = NULL;
  if (scene) {
    if (r->note && !scene->note)
      scene->note = g_strdup(r->note);
    cache_insert(s, scene->quality == r->opt.quality || !r->budget_key ? r->key : r->budget_key,
                 scene);
    r->scene = app_scene_ref(scene);
  }
  r->error = error;
  post_to(s->context, deliver, r);
  dispatch(s);
}

static bool report(AppLayoutService *s, Request *r, AppScene *preview) {
  if (!r->progress || r->cancelled)
    return !r->cancelled;
  guint id = r->id;
  AppLayoutProgress p = {id, (double)(g_get_monotonic_time() - r->started) / G_USEC_PER_SEC,
                         r->phase ? r->phase : "waiting for the layout worker", r->trying, preview};
  r->progress(&p, r->data);
  return g_hash_table_lookup(s->live, GUINT_TO_POINTER(id)) == r && !r->cancelled;
}

/* The reader ends promptly once the worker is dead: its output reaches end of file. */
static void forget_worker(AppLayoutService *s) {
  g_thread_join(s->worker->reader);
  worker_unref(s->worker);
  s->worker = NULL;
}

static void kill_worker(AppLayoutService *s) {
  if (!s->worker)
    return;
  g_subprocess_force_exit(s->worker->proc);
  forget_worker(s);
}

static Worker *start_worker(AppLayoutService *s, GError **error) {
  static gsize sigpipe_ignored;
  if (g_once_init_enter(&sigpipe_ignored)) {
    signal(SIGPIPE, SIG_IGN); /* a dead worker's stdin must not kill the window */
    g_once_init_leave(&sigpipe_ignored, 1);
  }
  GSubprocess *proc = g_subprocess_new(
      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, error, s->worker_path, NULL);
  if (!proc)
    return NULL;
  Worker *w = g_new0(Worker, 1);
  w->refcount = 1;
  w->link = link_ref(s->link);
  w->proc = proc;
  w->in = g_object_ref(g_subprocess_get_stdin_pipe(proc));
  w->out = g_buffered_input_stream_new_sized(g_subprocess_get_stdout_pipe(proc), 1 << 16);
  w->pid = (GPid)atoi(g_subprocess_get_identifier(proc));
  w->reader = g_thread_new("jitscope-layout-reader", read_worker, worker_ref(w));
  s->starts++;
  return w;
}

typedef struct {
  Worker *worker;
  GBytes *bytes;
} Write;

static void on_written(GObject *stream, GAsyncResult *result, gpointer data) {
  Write *wr = data;
  /* A failed write means the worker died: its end of output reports that. */
  g_output_stream_write_all_finish(G_OUTPUT_STREAM(stream), result, NULL, NULL);
  g_bytes_unref(wr->bytes);
  worker_unref(wr->worker);
  g_free(wr);
}

static const char *quality_phase(AppSceneQuality q) {
  return q == APP_SCENE_FULL   ? "starting dot"
         : q == APP_SCENE_FAST ? "retrying dot with cheaper settings"
                               : "falling back to the quick layout";
}

static gboolean on_budget(gpointer data);

/* Progress four times a second while a request that wants it is laid out. */
static gboolean on_tick(gpointer data) {
  AppLayoutService *s = data;
  if (!s->current || !s->current->progress) {
    s->tick_source = 0;
    return G_SOURCE_REMOVE;
  }
  report(s, s->current, NULL);
  return G_SOURCE_CONTINUE;
}

/* Sends the current request to the worker (or the thread) at quality r->trying. */
static void start(AppLayoutService *s, Request *r) {
  s->current = r;
  s->layouts++;
  g_free(r->phase);
  r->phase = g_strdup(quality_phase(r->trying));
  int preview = r->preview || r->trying == APP_SCENE_COARSE ? -1 : r->opt.preview_above;
  if (!s->worker_path) {
    InprocJob *j = g_new0(InprocJob, 1);
    j->id = r->id;
    j->dot = g_strdup(r->dot);
    j->inproc = s->inproc;
    j->job = (AppGvJob){.mode = r->trying, .preview_above = -1, .phase = inproc_phase, .data = j};
    g_async_queue_push(s->inproc->jobs, j);
    return;
  }
  if (r->progress && !s->tick_source) {
    GSource *tick = g_timeout_source_new(TICK_MS);
    g_source_set_callback(tick, on_tick, s, NULL);
    s->tick_source = g_source_attach(tick, s->context);
    g_source_unref(tick);
  }
  GError *error = NULL;
  if (!s->worker && !(s->worker = start_worker(s, &error))) {
    g_prefix_error(&error, "cannot start the layout worker %s: ", s->worker_path);
    error->domain = APP_LAYOUT_ERROR;
    error->code = APP_LAYOUT_ERROR_WORKER;
    finish(s, r, NULL, error);
    return;
  }
  g_autofree char *keys =
      g_strdup_printf("mode=%s preview=%d%s", app_scene_quality_name(r->trying), preview,
                      r->opt.fault == APP_LAYOUT_FAULT_CRASH  ? " fault=crash"
                      : r->opt.fault == APP_LAYOUT_FAULT_HANG ? " fault=hang"
                                                              : "");
  Write *wr = g_new(Write, 1);
  wr->worker = worker_ref(s->worker);
  wr->bytes = app_frame_encode("layout", r->id, keys, r->dot, strlen(r->dot));
  gsize size = 0;
  const void *bytes = g_bytes_get_data(wr->bytes, &size);
  g_main_context_push_thread_default(s->context);
  g_output_stream_write_all_async(s->worker->in, bytes, size, G_PRIORITY_DEFAULT, NULL, on_written,
                                  wr);
  g_main_context_pop_thread_default(s->context);
  int budget = r->opt.budget_ms;
  if (r->trying == APP_SCENE_COARSE && budget > 0)
    budget = MAX(budget, COARSE_BUDGET_MS);
  if (budget > 0) {
    GSource *source = g_timeout_source_new((guint)budget);
    g_source_set_callback(source, on_budget, r, NULL);
    r->budget_source = g_source_attach(source, s->context);
    g_source_unref(source);
  }
}

/* The budget ran out: kill the worker and try something cheaper. */
static gboolean on_budget(gpointer data) {
  Request *r = data;
  AppLayoutService *s = r->service;
  r->budget_source = 0;
  kill_worker(s);
  double spent = (double)(g_get_monotonic_time() - r->started) / G_USEC_PER_SEC;
  if (r->trying == APP_SCENE_COARSE) {
    finish(s, r, NULL,
           g_error_new(APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_FAILED,
                       "no layout within %.1f s, not even the quick one", spent));
    return G_SOURCE_REMOVE;
  }
  AppSceneQuality next =
      r->trying == APP_SCENE_FULL && (r->nodes == 0 || r->nodes <= FAST_MAX_NODES)
          ? APP_SCENE_FAST
          : APP_SCENE_COARSE;
  g_free(r->note);
  r->note = g_strdup_printf(
      "Graphviz took longer than its %.1f s budget: drawn with %s", r->opt.budget_ms / 1000.0,
      next == APP_SCENE_FAST ? "cheaper dot settings" : "jitscope's quick layered layout");
  if (next == APP_SCENE_COARSE && r->preview) {
    finish(s, r, r->preview, NULL);
    return G_SOURCE_REMOVE;
  }
  r->trying = next;
  start(s, r);
  report(s, r, NULL);
  return G_SOURCE_REMOVE;
}

static void dispatch(AppLayoutService *s) {
  while (!s->current && !g_queue_is_empty(&s->queue)) {
    Request *r = g_queue_pop_head(&s->queue);
    AppScene *cached = cache_find(s, r); /* laid out since it was queued */
    if (cached) {
      s->current = r;
      finish(s, r, cached, NULL);
      return;
    }
    start(s, r);
  }
}

static void worker_died(AppLayoutService *s, const Message *m) {
  Request *r = s->current;
  if (!r)
    return;
  GError *error;
  if (m->signal_number)
    error = g_error_new(APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_CRASHED,
                        "Graphviz crashed on this graph (signal %d, %s); the next layout starts a "
                        "new worker",
                        m->signal_number, g_strsignal(m->signal_number));
  else
    error = g_error_new(APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_CRASHED,
                        "the layout worker ended on this graph (exit status %d); the next "
                        "layout starts a new worker",
                        m->exit_status);
  finish(s, r, NULL, error);
}

static gboolean on_message(gpointer data) {
  Message *m = data;
  AppLayoutService *s = m->link->service;
  if (!s || (s->worker_path && m->worker != s->worker)) {
    message_free(m);
    return G_SOURCE_REMOVE;
  }
  Request *r = s->current && s->current->id == m->id ? s->current : NULL;
  if (m->kind == MSG_EOF) {
    if (s->worker)
      forget_worker(s);
    worker_died(s, m);
  } else if (r && r->cancelled) { /* in-process: the layout we could not stop is over */
    s->current = NULL;
    request_free(r);
    dispatch(s);
  } else if (r && m->kind == MSG_PHASE) {
    g_free(r->phase);
    r->phase = g_steal_pointer(&m->phase);
    report(s, r, NULL);
  } else if (r && m->kind == MSG_PARTIAL && !r->preview) {
    r->preview = app_scene_ref(m->scene);
    r->nodes = m->nodes;
    report(s, r, r->preview);
  } else if (r && m->kind == MSG_RESULT) {
    finish(s, r, m->scene, NULL);
  } else if (r && m->kind == MSG_ERROR) {
    finish(s, r, NULL, g_steal_pointer(&m->error));
  }
  message_free(m);
  return G_SOURCE_REMOVE;
}

/* ---- the public face ---- */

char *app_layout_worker_path(void) {
  const char *env = g_getenv("JITSCOPE_LAYOUT_WORKER");
  if (env)
    return *env && g_file_test(env, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup(env) : NULL;
  g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
  g_autofree char *dir = self ? g_path_get_dirname(self) : NULL;
  char *candidates[] = {dir ? g_build_filename(dir, "jitscope-layout-worker", NULL) : NULL,
                        g_strdup(JITSCOPE_LAYOUT_WORKER_BUILD),
                        g_build_filename(JITSCOPE_LIBEXECDIR, "jitscope-layout-worker", NULL),
                        g_build_filename(JITSCOPE_BINDIR, "jitscope-layout-worker", NULL)};
  char *found = NULL;
  for (guint i = 0; i < G_N_ELEMENTS(candidates); i++) {
    if (!found && candidates[i] && g_file_test(candidates[i], G_FILE_TEST_IS_EXECUTABLE))
      found = g_steal_pointer(&candidates[i]);
    g_free(candidates[i]);
  }
  return found;
}

AppLayoutService *app_layout_service_new_with_worker(GMainContext *context, const char *worker) {
  AppLayoutService *s = g_new0(AppLayoutService, 1);
  s->context = g_main_context_ref(context ? context : g_main_context_default());
  s->link = g_new0(Link, 1);
  s->link->refcount = 1;
  s->link->service = s;
  s->link->context = g_main_context_ref(s->context);
  s->worker_path = g_strdup(worker);
  g_queue_init(&s->queue);
  g_queue_init(&s->cache_order);
  s->live = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cache_entry_free);
  const char *budget = g_getenv("JITSCOPE_LAYOUT_BUDGET_MS");
  s->budget_ms = budget && *budget ? atoi(budget) : DEFAULT_BUDGET_MS;
  if (!worker) {
    s->inproc = g_new0(Inproc, 1);
    s->inproc->link = link_ref(s->link);
    s->inproc->jobs = g_async_queue_new();
    g_thread_unref(g_thread_new("jitscope-layout", run_inproc, s->inproc));
  }
  return s;
}

AppLayoutService *app_layout_service_new(GMainContext *context) {
  g_autofree char *path = app_layout_worker_path();
  if (!path) {
    static gsize said;
    if (g_once_init_enter(&said)) {
      g_message("jitscope-layout-worker not found (set JITSCOPE_LAYOUT_WORKER or install it "
                "beside jitscope): laying out in this process, where a Graphviz crash ends the "
                "window and a long layout cannot be stopped");
      g_once_init_leave(&said, 1);
    }
  }
  return app_layout_service_new_with_worker(context, path);
}

void app_layout_service_free(AppLayoutService *s) {
  if (!s)
    return;
  s->link->service = NULL;
  kill_worker(s);
  if (s->inproc) {
    InprocJob *quit = g_new0(InprocJob, 1);
    quit->quit = true;
    g_async_queue_push_front(s->inproc->jobs, quit);
  }
  /* Requests waiting for delivery see cancelled and free themselves. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, s->live);
  while (g_hash_table_iter_next(&it, NULL, &value))
    ((Request *)value)->cancelled = true;
  Request *r;
  while ((r = g_queue_pop_head(&s->queue)))
    request_free(r);
  if (s->current)
    request_free(s->current);
  remove_source(s->context, &s->tick_source);
  g_hash_table_destroy(s->live);
  g_hash_table_destroy(s->cache);
  g_queue_clear(&s->cache_order);
  g_free(s->worker_path);
  link_unref(s->link);
  g_main_context_unref(s->context);
  g_free(s);
}

void app_layout_service_set_budget(AppLayoutService *s, int budget_ms) {
  s->budget_ms = budget_ms;
}

/* `copy`: keep the DOT text (a request to lay out; a lookup needs only the keys). */
static Request *request_new(AppLayoutService *s, const char *dot, const AppLayoutOptions *options,
                            bool copy) {
  Request *r = g_new0(Request, 1);
  r->service = s;
  r->id = ++s->next_id;
  r->dot = copy ? g_strdup(dot) : NULL;
  if (options)
    r->opt = *options;
  if (r->opt.budget_ms == 0)
    r->opt.budget_ms = s->budget_ms;
  if (!s->worker_path)
    r->opt.budget_ms = -1; /* a thread cannot be stopped */
  if (r->opt.preview_above == 0)
    r->opt.preview_above = DEFAULT_PREVIEW_ABOVE;
  r->trying = r->opt.quality;
  const char *q = app_scene_quality_name(r->opt.quality);
  g_autofree char *fingerprint =
      r->opt.key ? NULL : g_compute_checksum_for_string(G_CHECKSUM_SHA256, dot, -1);
  const char *fp = r->opt.key ? r->opt.key : fingerprint;
  r->opt.key = NULL; /* the caller's string is not kept */
  r->key = g_strdup_printf("%s %s", q, fp);
  if (r->opt.budget_ms > 0 && r->opt.quality != APP_SCENE_COARSE)
    r->budget_key = g_strdup_printf("%s/budget %s", q, fp);
  r->started = g_get_monotonic_time();
  return r;
}

AppScene *app_layout_service_lookup(AppLayoutService *s, const char *dot) {
  return app_layout_service_lookup_full(s, dot, NULL);
}

AppScene *app_layout_service_lookup_full(AppLayoutService *s, const char *dot,
                                         const AppLayoutOptions *options) {
  Request *r = request_new(s, dot, options, false);
  s->next_id--;
  AppScene *scene = cache_find(s, r);
  request_free(r);
  if (!scene)
    return NULL;
  s->hits++;
  return app_scene_ref(scene);
}

guint app_layout_service_request_full(AppLayoutService *s, const char *dot,
                                      const AppLayoutOptions *options, AppLayoutDoneFn done,
                                      AppLayoutProgressFn progress, gpointer data) {
  Request *r = request_new(s, dot, options, true);
  r->done = done;
  r->progress = progress;
  r->data = data;
  g_hash_table_insert(s->live, GUINT_TO_POINTER(r->id), r);
  AppScene *cached = cache_find(s, r);
  if (cached) {
    s->hits++;
    r->scene = app_scene_ref(cached);
    post_to(s->context, deliver, r);
  } else {
    s->misses++;
    g_queue_push_tail(&s->queue, r);
    dispatch(s);
  }
  return r->id;
}

guint app_layout_service_request(AppLayoutService *s, const char *dot, AppLayoutDoneFn done,
                                 gpointer data) {
  return app_layout_service_request_full(s, dot, NULL, done, NULL, data);
}

void app_layout_service_cancel(AppLayoutService *s, guint id) {
  Request *r = g_hash_table_lookup(s->live, GUINT_TO_POINTER(id));
  if (!r)
    return;
  g_hash_table_remove(s->live, GUINT_TO_POINTER(id));
  r->cancelled = true;
  if (g_queue_remove(&s->queue, r)) {
    request_free(r);
  } else if (r == s->current && s->worker_path) {
    kill_worker(s);
    s->current = NULL;
    request_free(r);
    dispatch(s);
  }
  /* else: being delivered (deliver frees it), or in the in-process thread (on_message does) */
}

guint app_layout_service_hits(const AppLayoutService *s) {
  return s->hits;
}
guint app_layout_service_misses(const AppLayoutService *s) {
  return s->misses;
}
guint app_layout_service_cache_size(const AppLayoutService *s) {
  return g_hash_table_size(s->cache);
}
guint app_layout_service_layouts(const AppLayoutService *s) {
  return s->layouts;
}
guint app_layout_service_worker_starts(const AppLayoutService *s) {
  return s->starts;
}
GPid app_layout_service_worker_pid(const AppLayoutService *s) {
  return s->worker ? s->worker->pid : 0;
}
bool app_layout_service_in_process(const AppLayoutService *s) {
  return s->worker_path == NULL;
}
