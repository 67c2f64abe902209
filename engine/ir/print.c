/* The graph printer: PyTorch 1.13's Graph::print / Node::print (reference section 1).
 *
 * Contracts:
 * - Byte-identical to PyTorch for what both can hold: `graph(%a : T,\n      %b : T):`, node
 *   lines indented two spaces per level, `blockN(%i : T):` ... `-> (%o)`, `  return (%o)`,
 *   source comments ` # file:line:col`, nodes holding a Subgraph graph printed `KIND_N` (N in
 *   print order, nested blocks included) and each body dumped after the graph as
 *   `with KIND_N = graph(...)`, a body's own trailers right after its return.
 * - Attribute values as PyTorch's IValue repr: ints raw, doubles as text_format_double,
 *   strings quoted, lists `[a, b]`, 1-element tensors `{v}`. Where PyTorch writes something our
 *   parser (and torch._C.parse_ir) cannot read we write the nearest readable form: an empty
 *   list is `[]` (PyTorch: `annotate(List[int], [])`), a tensor of other than one element is
 *   `<Tensor>`.
 * - Iterative over blocks and subgraphs: no recursion, whatever the nesting. */
#include <math.h>
#include <string.h>

#include "ir/text.h"
#include "ir/text_lexer.h"
#include "ir/text_out.h"
#include "tensor/tensor.h"

void ir_format_double(GString *out, double d) {
  if (isnan(d)) {
    text_put(out, "nan");
    return;
  }
  int c = fpclassify(d);
  if ((c == FP_NORMAL || c == FP_ZERO) && fabs(d) < 1e10) {
    gint64 i = (gint64)d;
    if ((double)i == d) {
      if (i == 0 && signbit(d)) {
        text_put(out, "-0.");
      } else {
        text_put_int(out, i);
        g_string_append_c(out, '.');
      }
      return;
    }
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.17g", d);
  text_put(out, buf);
}

/* c10::printQuotedString: double quotes, C escapes, other bytes outside 0x20..0x7e as \ooo. */
static void text_format_quoted(GString *out, const char *s) {
  g_string_append_c(out, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '\\': text_put(out, "\\\\"); break;
    case '\'': text_put(out, "\\'"); break;
    case '"': text_put(out, "\\\""); break;
    case '\a': text_put(out, "\\a"); break;
    case '\b': text_put(out, "\\b"); break;
    case '\f': text_put(out, "\\f"); break;
    case '\n': text_put(out, "\\n"); break;
    case '\r': text_put(out, "\\r"); break;
    case '\t': text_put(out, "\\t"); break;
    case '\v': text_put(out, "\\v"); break;
    default:
      if (*p >= 0x20 && *p < 0x7f)
        g_string_append_c(out, (char)*p);
      else
        g_string_append_printf(out, "\\%03o", (unsigned)*p);
      break;
    }
  }
  g_string_append_c(out, '"');
}

/* PyTorch: a one-element tensor prints as {v} with ostream's default precision (%g). */
static void print_tensor_attr(GString *out, const RtTensor *t) {
  int64_t numel = 1;
  for (int i = 0; i < t->ndim; i++)
    numel *= t->sizes[i];
  if (numel != 1 || t->storage == NULL || t->storage->device != IR_DEVICE_CPU) {
    text_put(out, "<Tensor>");
    return;
  }
  double v = rt_tensor_get(t, 0);
  g_string_append_c(out, '{');
  if (ir_type_is_float_dtype(t->dtype)) {
    if (isnan(v)) {
      text_put(out, "nan");
    } else {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd(buf, sizeof buf, "%g", v);
      text_put(out, buf);
    }
  } else {
    text_put_int(out, (gint64)v);
  }
  g_string_append_c(out, '}');
}

static void print_attr_value(GString *out, const IrAttr *a) {
  switch (a->kind) {
  case IR_ATTR_F: ir_format_double(out, a->v.f); break;
  case IR_ATTR_I: text_put_int(out, a->v.i); break;
  case IR_ATTR_S: text_format_quoted(out, a->v.s); break;
  case IR_ATTR_FS:
  case IR_ATTR_IS:
  case IR_ATTR_SS: {
    guint n = a->kind == IR_ATTR_SS ? a->v.ss->len
                                    : (a->kind == IR_ATTR_FS ? a->v.fs->len : a->v.is->len);
    g_string_append_c(out, '[');
    for (guint i = 0; i < n; i++) {
      if (i)
        text_put(out, ", ");
      if (a->kind == IR_ATTR_FS)
        ir_format_double(out, g_array_index(a->v.fs, double, i));
      else if (a->kind == IR_ATTR_IS)
        text_put_int(out, g_array_index(a->v.is, gint64, i));
      else
        text_format_quoted(out, g_ptr_array_index(a->v.ss, i));
    }
    g_string_append_c(out, ']');
    break;
  }
  case IR_ATTR_T: print_tensor_attr(out, a->v.t); break;
  case IR_ATTR_TS: text_put(out, "[<Tensors>]"); break;
  case IR_ATTR_G: text_put(out, "<Graph>"); break;
  case IR_ATTR_GS: text_put(out, "[<Graphs>]"); break;
  case IR_ATTR_RAW: text_put(out, a->v.s); break;
  }
}

static void print_attrs(GString *out, const IrNode *node, bool skip_subgraph) {
  g_string_append_c(out, '[');
  int n = 0;
  for (guint i = 0; i < ir_n_attrs(node); i++) {
    const IrAttr *a = ir_attr_at(node, i);
    if (skip_subgraph && strcmp(a->name, IR_ATTR_SUBGRAPH) == 0)
      continue;
    if (n++)
      text_put(out, ", ");
    text_put(out, a->name);
    g_string_append_c(out, '=');
    print_attr_value(out, a);
  }
  g_string_append_c(out, ']');
}

static void print_value_refs(GString *out, const GPtrArray *values) {
  char buf[32];
  for (guint i = 0; i < values->len; i++) {
    if (i)
      text_put(out, ", ");
    g_string_append_c(out, '%');
    text_put(out, ir_value_display_name(g_ptr_array_index(values, i), buf));
  }
}

static void print_typed_values(GString *out, const GPtrArray *values, const char *delim) {
  char buf[32];
  for (guint i = 0; i < values->len; i++) {
    const IrValue *v = g_ptr_array_index(values, i);
    if (i)
      text_put(out, delim);
    g_string_append_c(out, '%');
    text_put(out, ir_value_display_name(v, buf));
    text_put(out, " : ");
    ir_type_print(out, v->type);
  }
}

static void indent(GString *out, int level) {
  for (int i = 0; i < level; i++)
    text_put(out, "  ");
}

/* The node's own line without the newline. With `groups`, a node holding a Subgraph graph
 * prints as KIND_N and is appended to groups (PyTorch's print order numbering). */
static void print_node_line(GString *out, const IrNode *node, int level, GPtrArray *groups,
                            bool comments) {
  indent(out, level);
  print_typed_values(out, node->outputs, ", ");
  text_put(out, " = ");
  const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  if (sub != NULL && sub->kind == IR_ATTR_G && groups != NULL) {
    text_put(out, ir_kind_name(node->kind));
    g_string_append_c(out, '_');
    text_put_int(out, groups->len);
    if (ir_n_attrs(node) > 1 && node->kind != IR_PRIM_DIFFERENTIABLE_GRAPH)
      print_attrs(out, node, true);
    g_ptr_array_add(groups, (gpointer)node);
  } else {
    text_put(out, ir_node_kind_name(node));
    if (ir_n_attrs(node) > 0)
      print_attrs(out, node, false);
  }
  g_string_append_c(out, '(');
  print_value_refs(out, node->inputs);
  g_string_append_c(out, ')');
  if (node->scope != NULL) {
    text_put(out, ", scope: ");
    text_put(out, node->scope);
  }
  if (comments && node->source != NULL) {
    text_put(out, " # ");
    text_put(out, node->source);
  }
}

void ir_node_print_line(GString *out, const IrNode *node) {
  print_node_line(out, node, 0, NULL, true);
}

typedef struct {
  const IrBlock *block;
  const IrNode *cur;
  int level;           /* indentation of the block's nodes */
  const IrNode *owner; /* NULL for the outermost block printed */
  guint index;
} PrintFrame;

static void push_block(GString *out, GArray *stack, const IrNode *owner, guint index, int level) {
  const IrBlock *b = ir_block(owner, index);
  indent(out, level - 1);
  text_put(out, "block");
  text_put_int(out, index);
  g_string_append_c(out, '(');
  print_typed_values(out, ir_block_inputs(b), ", ");
  text_put(out, "):\n");
  PrintFrame f = {b, b->param->next, level, owner, index};
  g_array_append_val(stack, f);
}

/* Prints the nodes of `block` at `level` (and their blocks), without recursion. */
static void print_nodes(GString *out, const IrBlock *block, int level, GPtrArray *groups,
                        bool comments) {
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(PrintFrame));
  PrintFrame top = {block, block->param->next, level, NULL, 0};
  g_array_append_val(stack, top);
  while (stack->len > 0) {
    PrintFrame *f = &g_array_index(stack, PrintFrame, stack->len - 1);
    if (f->cur == f->block->ret) {
      const IrNode *owner = f->owner;
      guint index = f->index;
      int lvl = f->level;
      if (owner != NULL) {
        indent(out, lvl);
        text_put(out, "-> (");
        print_value_refs(out, ir_block_outputs(f->block));
        text_put(out, ")\n");
      }
      g_array_set_size(stack, stack->len - 1);
      if (owner == NULL)
        continue;
      if (index + 1 < ir_n_blocks(owner)) {
        push_block(out, stack, owner, index + 1, lvl);
      } else {
        PrintFrame *parent = &g_array_index(stack, PrintFrame, stack->len - 1);
        parent->cur = owner->next;
      }
      continue;
    }
    const IrNode *node = f->cur;
    print_node_line(out, node, f->level, groups, comments);
    g_string_append_c(out, '\n');
    if (ir_n_blocks(node) > 0)
      push_block(out, stack, node, 0, f->level + 2);
    else
      f->cur = node->next;
  }
  g_array_free(stack, TRUE);
}

/* `graph(...):`, the nodes and the return line; the subgraph nodes met go to `groups`. */
static void print_graph_body(GString *out, const IrGraph *graph, GPtrArray *groups, bool comments) {
  text_put(out, "graph(");
  print_typed_values(out, ir_graph_inputs(graph), ",\n      ");
  text_put(out, "):\n");
  print_nodes(out, graph->block, 1, groups, comments);
  text_put(out, "  return (");
  print_value_refs(out, ir_graph_outputs(graph));
  text_put(out, ")\n");
}

typedef struct {
  GPtrArray *groups;
  guint next;
} TrailerFrame;

void ir_graph_print(GString *out, const IrGraph *graph, const IrPrintOptions *options) {
  bool comments = options == NULL || options->with_source_comments;
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(TrailerFrame));
  TrailerFrame first = {g_ptr_array_new(), 0};
  print_graph_body(out, graph, first.groups, comments);
  g_array_append_val(stack, first);
  while (stack->len > 0) {
    TrailerFrame *f = &g_array_index(stack, TrailerFrame, stack->len - 1);
    if (f->next == f->groups->len) {
      g_ptr_array_free(f->groups, TRUE);
      g_array_set_size(stack, stack->len - 1);
      continue;
    }
    const IrNode *node = g_ptr_array_index(f->groups, f->next);
    text_put(out, "with ");
    text_put(out, ir_kind_name(node->kind));
    g_string_append_c(out, '_');
    text_put_int(out, f->next);
    text_put(out, " = ");
    f->next++;
    TrailerFrame sub = {g_ptr_array_new(), 0};
    print_graph_body(out, ir_node_attr(node, IR_ATTR_SUBGRAPH)->v.g, sub.groups, comments);
    g_array_append_val(stack, sub);
  }
  g_array_free(stack, TRUE);
}

char *ir_graph_to_string(const IrGraph *graph) {
  /* Room for a cell's plan without regrowing from GString's default 16 bytes. */
  GString *s = g_string_sized_new(8192);
  IrPrintOptions opts = {.with_source_comments = true};
  ir_graph_print(s, graph, &opts);
  return g_string_free(s, FALSE);
}
