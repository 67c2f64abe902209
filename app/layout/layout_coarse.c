/* A layered layout in milliseconds (contract and algorithm in layout_coarse.h). */
#include "layout_coarse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout_protocol.h"

#define GLYPH_WIDTH 0.6
#define LINE_HEIGHT 1.2
#define MARGIN 8.0
#define SWEEPS 4

typedef struct {
  Agnode_t *node;
  double w, h, x, y;
  int rank;
  guint order; /* position within its rank */
  double key;
  GArray *preds, *succs; /* of guint */
} CNode;

typedef struct {
  guint tail, head;
  Agedge_t *edge;
} CEdge;

typedef struct {
  CNode *nodes;
  guint n;
  GArray *edges;
  GHashTable *index; /* Agnode_t* -> index + 1 */
  GPtrArray **ranks; /* rank -> CNode* in order */
  int n_ranks;
  double ranksep, nodesep;
} Coarse;

static const char *get(void *obj, const char *name, const char *fallback) {
  char *v = agget(obj, (char *)name);
  return v && *v ? v : fallback;
}

static double get_num(void *obj, const char *name, double fallback) {
  const char *v = get(obj, name, NULL);
  if (!v)
    return fallback;
  char *end = NULL;
  double d = g_ascii_strtod(v, &end);
  return end != v ? d : fallback;
}

/* A DOT label's lines: "\n", "\l", "\r" break lines; "\N" is the node's name. */
static GPtrArray *label_lines(const char *label, const char *name) {
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GString) line = g_string_new(NULL);
  for (const char *p = label; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      if (*p == 'n' || *p == 'l' || *p == 'r') {
        g_ptr_array_add(lines, g_strdup(line->str));
        g_string_truncate(line, 0);
      } else if (*p == 'N') {
        g_string_append(line, name);
      } else {
        g_string_append_c(line, *p);
      }
      continue;
    }
    g_string_append_c(line, *p);
  }
  if (line->len || lines->len == 0)
    g_ptr_array_add(lines, g_strdup(line->str));
  return lines;
}

static const char *node_label(Agnode_t *n) {
  const char *label = get(n, "label", "\\N");
  return label;
}

static void measure(CNode *c) {
  double fs = get_num(c->node, "fontsize", 14);
  g_autoptr(GPtrArray) lines = label_lines(node_label(c->node), agnameof(c->node));
  glong widest = 0;
  for (guint i = 0; i < lines->len; i++)
    widest = MAX(widest, g_utf8_strlen(g_ptr_array_index(lines, i), -1));
  c->w = MAX(get_num(c->node, "width", 0.75) * 72, widest * GLYPH_WIDTH * fs + 16);
  c->h = MAX(get_num(c->node, "height", 0.5) * 72, lines->len * LINE_HEIGHT * fs + 8);
  if (strcmp(get(c->node, "shape", "ellipse"), "ellipse") == 0 ||
      strcmp(get(c->node, "shape", "ellipse"), "diamond") == 0) {
    c->w *= 1.3;
    c->h *= 1.3;
  }
}

static void read_graph(Coarse *c, Agraph_t *g) {
  c->n = (guint)agnnodes(g);
  c->nodes = g_new0(CNode, c->n ? c->n : 1);
  c->index = g_hash_table_new(g_direct_hash, g_direct_equal);
  c->edges = g_array_new(FALSE, FALSE, sizeof(CEdge));
  guint i = 0;
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n), i++) {
    c->nodes[i].node = n;
    c->nodes[i].preds = g_array_new(FALSE, FALSE, sizeof(guint));
    c->nodes[i].succs = g_array_new(FALSE, FALSE, sizeof(guint));
    g_hash_table_insert(c->index, n, GUINT_TO_POINTER(i + 1));
    measure(&c->nodes[i]);
  }
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
    for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
      CEdge ce = {GPOINTER_TO_UINT(g_hash_table_lookup(c->index, agtail(e))) - 1,
                  GPOINTER_TO_UINT(g_hash_table_lookup(c->index, aghead(e))) - 1, e};
      g_array_append_val(c->edges, ce);
      if (ce.tail == ce.head)
        continue;
      g_array_append_val(c->nodes[ce.tail].succs, ce.head);
      g_array_append_val(c->nodes[ce.head].preds, ce.tail);
    }
  c->ranksep = get_num(g, "ranksep", 0.5) * 72;
  c->nodesep = get_num(g, "nodesep", 0.25) * 72;
}

/* Step 1: longest-path ranks, sources pulled down to their users. */
static void assign_ranks(Coarse *c) {
  guint *indegree = g_new0(guint, c->n ? c->n : 1);
  bool *done = g_new0(bool, c->n ? c->n : 1);
  guint *queue = g_new(guint, c->n ? c->n : 1);
  guint head = 0, tail = 0, next_unseen = 0;
  for (guint v = 0; v < c->n; v++) {
    indegree[v] = c->nodes[v].preds->len;
    if (indegree[v] == 0)
      queue[tail++] = v;
  }
  for (guint finished = 0; finished < c->n;) {
    if (head == tail) { /* a cycle: break it at its first-declared node */
      while (done[next_unseen] || indegree[next_unseen] == 0)
        next_unseen++;
      indegree[next_unseen] = 0;
      queue[tail++] = next_unseen;
    }
    guint u = queue[head++];
    done[u] = true;
    finished++;
    GArray *succs = c->nodes[u].succs;
    for (guint k = 0; k < succs->len; k++) {
      guint v = g_array_index(succs, guint, k);
      if (done[v])
        continue;
      c->nodes[v].rank = MAX(c->nodes[v].rank, c->nodes[u].rank + 1);
      if (indegree[v] > 0 && --indegree[v] == 0)
        queue[tail++] = v;
    }
  }
  for (guint v = 0; v < c->n; v++) {
    CNode *node = &c->nodes[v];
    if (node->preds->len > 0 || node->succs->len == 0)
      continue;
    int highest = G_MAXINT;
    for (guint k = 0; k < node->succs->len; k++)
      highest = MIN(highest, c->nodes[g_array_index(node->succs, guint, k)].rank);
    node->rank = MAX(node->rank, highest - 1);
  }
  c->n_ranks = 0;
  for (guint v = 0; v < c->n; v++)
    c->n_ranks = MAX(c->n_ranks, c->nodes[v].rank + 1);
  c->ranks = g_new0(GPtrArray *, c->n_ranks ? c->n_ranks : 1);
  for (int r = 0; r < c->n_ranks; r++)
    c->ranks[r] = g_ptr_array_new();
  for (guint v = 0; v < c->n; v++) {
    c->nodes[v].order = c->ranks[c->nodes[v].rank]->len;
    g_ptr_array_add(c->ranks[c->nodes[v].rank], &c->nodes[v]);
  }
  g_free(indegree);
  g_free(done);
  g_free(queue);
}

static int by_key(gconstpointer a, gconstpointer b) {
  const CNode *x = *(CNode *const *)a, *y = *(CNode *const *)b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order; /* stable */
}

/* Step 2: barycentre sweeps. */
static void order_ranks(Coarse *c) {
  for (int sweep = 0; sweep < SWEEPS; sweep++) {
    bool down = sweep % 2 == 0;
    for (int i = 1; i < c->n_ranks; i++) {
      int r = down ? i : c->n_ranks - 1 - i;
      GPtrArray *rank = c->ranks[r];
      for (guint k = 0; k < rank->len; k++) {
        CNode *node = g_ptr_array_index(rank, k);
        GArray *adj = down ? node->preds : node->succs;
        double sum = 0;
        guint count = 0;
        for (guint a = 0; a < adj->len; a++) {
          const CNode *other = &c->nodes[g_array_index(adj, guint, a)];
          const GPtrArray *other_rank = c->ranks[other->rank];
          sum += (other->order + 0.5) / other_rank->len;
          count++;
        }
        node->key = count ? sum / count : (node->order + 0.5) / rank->len;
      }
      g_ptr_array_sort(rank, by_key);
      for (guint k = 0; k < rank->len; k++)
        ((CNode *)g_ptr_array_index(rank, k))->order = k;
    }
  }
}

/* Step 3: coordinates (y down here; flipped when written). */
static void place(Coarse *c, double *width, double *height) {
  double y = MARGIN;
  double max_x = 0;
  for (int r = 0; r < c->n_ranks; r++) {
    GPtrArray *rank = c->ranks[r];
    double tallest = 0;
    for (guint k = 0; k < rank->len; k++)
      tallest = MAX(tallest, ((CNode *)g_ptr_array_index(rank, k))->h);
    double right = MARGIN - c->nodesep;
    for (guint k = 0; k < rank->len; k++) {
      CNode *node = g_ptr_array_index(rank, k);
      double want = 0;
      guint count = 0;
      for (guint a = 0; a < node->preds->len; a++) {
        const CNode *pred = &c->nodes[g_array_index(node->preds, guint, a)];
        if (pred->rank < r) {
          want += pred->x;
          count++;
        }
      }
      double least = right + c->nodesep + node->w / 2;
      node->x = count ? MAX(want / count, least) : least;
      node->y = y + tallest / 2;
      right = node->x + node->w / 2;
    }
    max_x = MAX(max_x, right);
    y += tallest + c->ranksep;
  }
  *width = max_x + MARGIN;
  *height = y - c->ranksep + MARGIN;
}

/* ---- drawing as xdot operations ---- */

static void op_string(GString *ops, char op, const char *text) {
  g_string_append_printf(ops, "%c %zu -%s ", op, strlen(text), text);
}

static void op_num(GString *ops, double v) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(ops, g_ascii_formatd(buf, sizeof buf, "%.1f", v));
  g_string_append_c(ops, ' ');
}

/* A polygon (filled: 'P', outline: 'p') of n points (scene y down -> Graphviz y up). */
static void op_polygon(GString *ops, bool filled, const double *pts, guint n, double height) {
  g_string_append_printf(ops, "%c %u ", filled ? 'P' : 'p', n);
  for (guint i = 0; i < n; i++) {
    op_num(ops, pts[2 * i]);
    op_num(ops, height - pts[2 * i + 1]);
  }
}

static void op_text_lines(GString *ops, GPtrArray *lines, double cx, double top, double fs,
                          const char *font, const char *color, double height) {
  g_string_append_printf(ops, "F ");
  op_num(ops, fs);
  g_string_append_printf(ops, "%zu -%s ", strlen(font), font);
  op_string(ops, 'c', color);
  for (guint i = 0; i < lines->len; i++) {
    const char *text = g_ptr_array_index(lines, i);
    double baseline = top + (i + 1) * LINE_HEIGHT * fs - 0.25 * fs;
    g_string_append(ops, "T ");
    op_num(ops, cx);
    op_num(ops, height - baseline);
    g_string_append(ops, "0 ");
    op_num(ops, g_utf8_strlen(text, -1) * GLYPH_WIDTH * fs);
    g_string_append_printf(ops, "%zu -%s ", strlen(text), text);
  }
}

static void op_style(GString *ops, const char *style) {
  if (strstr(style, "dashed"))
    op_string(ops, 'S', "dashed");
  else if (strstr(style, "dotted"))
    op_string(ops, 'S', "dotted");
}

static void draw_node(GString *out, const CNode *c, double height) {
  Agnode_t *n = c->node;
  const char *style = get(n, "style", "");
  bool filled = strstr(style, "filled") != NULL;
  const char *pen = get(n, "color", "black");
  const char *fill = get(n, "fillcolor", get(n, "color", "lightgrey"));
  const char *shape = get(n, "shape", "ellipse");
  g_autoptr(GString) ops = g_string_new(NULL);
  op_style(ops, style);
  op_string(ops, 'c', pen);
  op_string(ops, 'C', fill);
  double x0 = c->x - c->w / 2, x1 = c->x + c->w / 2, y0 = c->y - c->h / 2, y1 = c->y + c->h / 2;
  if (strcmp(shape, "ellipse") == 0 || strcmp(shape, "oval") == 0) {
    g_string_append_c(ops, filled ? 'E' : 'e');
    g_string_append_c(ops, ' ');
    op_num(ops, c->x);
    op_num(ops, height - c->y);
    op_num(ops, c->w / 2);
    op_num(ops, c->h / 2);
  } else if (strcmp(shape, "diamond") == 0) {
    double pts[] = {c->x, y0, x1, c->y, c->x, y1, x0, c->y};
    op_polygon(ops, filled, pts, 4, height);
  } else if (strcmp(shape, "invhouse") == 0) {
    double roof = c->h * 0.3;
    double pts[] = {x0, y0, x1, y0, x1, y1 - roof, c->x, y1, x0, y1 - roof};
    op_polygon(ops, filled, pts, 5, height);
  } else {
    double pts[] = {x0, y0, x1, y0, x1, y1, x0, y1};
    op_polygon(ops, filled, pts, 4, height);
  }
  if (filled) /* the outline over the fill */
    op_string(ops, 'S', "solid");
  double fs = get_num(n, "fontsize", 14);
  g_autoptr(GPtrArray) lines = label_lines(node_label(n), agnameof(n));
  double top = c->y - lines->len * LINE_HEIGHT * fs / 2;
  op_text_lines(ops, lines, c->x, top, fs, get(n, "fontname", "Sans"), get(n, "fontcolor", "black"),
                height);
  app_records_object(out, APP_OBJECT_NODE, agnameof(n), node_label(n));
  app_records_ops(out, ops->str);
}

static void draw_edge(GString *out, const Coarse *c, const CEdge *e, double height) {
  const CNode *t = &c->nodes[e->tail], *h = &c->nodes[e->head];
  double x0 = t->x, y0 = t->y + t->h / 2, x1 = h->x, y1 = h->y - h->h / 2;
  if (h->rank <= t->rank) { /* an edge against the ranks: side to side */
    y0 = t->y;
    y1 = h->y;
  }
  const char *color = get(e->edge, "color", "black");
  g_autoptr(GString) ops = g_string_new(NULL);
  op_style(ops, get(e->edge, "style", ""));
  op_string(ops, 'c', color);
  double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
  if (len < 1e-6)
    len = 1;
  double ux = dx / len, uy = dy / len, arrow = 7 * get_num(e->edge, "arrowsize", 1);
  double bx = x1 - ux * arrow, by = y1 - uy * arrow;
  double line[] = {x0, y0, bx, by};
  g_string_append(ops, "L 2 ");
  for (int i = 0; i < 2; i++) {
    op_num(ops, line[2 * i]);
    op_num(ops, height - line[2 * i + 1]);
  }
  op_string(ops, 'S', "solid");
  op_string(ops, 'C', color);
  double head[] = {
      x1, y1, bx - uy * arrow / 2, by + ux * arrow / 2, bx + uy * arrow / 2, by - ux * arrow / 2};
  op_polygon(ops, true, head, 3, height);
  const char *label = get(e->edge, "label", NULL);
  if (label) {
    g_autoptr(GPtrArray) lines = label_lines(label, "");
    double fs = get_num(e->edge, "fontsize", 14);
    op_text_lines(ops, lines, (x0 + x1) / 2 + 4, (y0 + y1) / 2 - fs / 2, fs,
                  get(e->edge, "fontname", "Sans"), get(e->edge, "fontcolor", "black"), height);
  }
  const char *given = get(e->edge, "id", NULL);
  g_autofree char *id =
      given ? g_strdup(given) : g_strdup_printf("%s->%s", agnameof(t->node), agnameof(h->node));
  app_records_object(out, APP_OBJECT_EDGE, id, NULL);
  app_records_ops(out, ops->str);
}

/* Clusters, outermost first, as the padded bounding boxes of their nodes. */
static void draw_clusters(GString *out, const Coarse *c, Agraph_t *g, double height) {
  for (Agraph_t *sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
    const char *name = agnameof(sub);
    if (name && g_str_has_prefix(name, "cluster") && agfstnode(sub)) {
      double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
      for (Agnode_t *n = agfstnode(sub); n; n = agnxtnode(sub, n)) {
        const CNode *cn = &c->nodes[GPOINTER_TO_UINT(g_hash_table_lookup(c->index, n)) - 1];
        x0 = MIN(x0, cn->x - cn->w / 2);
        x1 = MAX(x1, cn->x + cn->w / 2);
        y0 = MIN(y0, cn->y - cn->h / 2);
        y1 = MAX(y1, cn->y + cn->h / 2);
      }
      double fs = get_num(sub, "fontsize", 14);
      const char *label = get(sub, "label", NULL);
      x0 -= 8, x1 += 8, y1 += 8, y0 -= 8 + (label ? LINE_HEIGHT * fs : 0);
      g_autoptr(GString) ops = g_string_new(NULL);
      const char *style = get(sub, "style", "");
      op_string(ops, 'c', get(sub, "color", "black"));
      op_string(ops, 'C', get(sub, "fillcolor", get(sub, "color", "lightgrey")));
      double pts[] = {x0, y0, x1, y0, x1, y1, x0, y1};
      op_polygon(ops, strstr(style, "filled") != NULL, pts, 4, height);
      if (label) {
        g_autoptr(GPtrArray) lines = label_lines(label, name);
        op_text_lines(ops, lines, (x0 + x1) / 2, y0 + 2, fs, get(sub, "fontname", "Sans"),
                      get(sub, "fontcolor", "black"), height);
      }
      app_records_object(out, APP_OBJECT_CLUSTER, name, label);
      app_records_ops(out, ops->str);
    }
    draw_clusters(out, c, sub, height);
  }
}

GString *app_layout_coarse(Agraph_t *g) {
  Coarse c = {0};
  read_graph(&c, g);
  assign_ranks(&c);
  order_ranks(&c);
  double width = 2 * MARGIN, height = 2 * MARGIN;
  if (c.n)
    place(&c, &width, &height);
  GString *out = g_string_new(NULL);
  g_autofree char *bb = g_strdup_printf("0,0,%.1f,%.1f", width, height);
  app_records_begin(out, bb);
  app_records_object(out, APP_OBJECT_GRAPH, "graph", NULL);
  draw_clusters(out, &c, g, height);
  for (guint i = 0; i < c.edges->len; i++) {
    const CEdge *e = &g_array_index(c.edges, CEdge, i);
    if (e->tail != e->head)
      draw_edge(out, &c, e, height);
  }
  for (guint i = 0; i < c.n; i++)
    draw_node(out, &c.nodes[i], height);

  for (guint i = 0; i < c.n; i++) {
    g_array_unref(c.nodes[i].preds);
    g_array_unref(c.nodes[i].succs);
  }
  for (int r = 0; r < c.n_ranks; r++)
    g_ptr_array_unref(c.ranks[r]);
  g_free(c.ranks);
  g_free(c.nodes);
  g_array_unref(c.edges);
  g_hash_table_destroy(c.index);
  return out;
}
