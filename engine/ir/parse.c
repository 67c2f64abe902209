/* The graph parser: PyTorch's graph text (reference section 1) into an IrGraph.
 *
 *   file     := graph+ EOF                  (several graphs: PyTorch's old expect files)
 *   graph    := 'graph' '(' [param ([','] param)*] ')' (':' | '{') stmt* return ['}'] trailer*
 *   param    := VALUE [':' type]
 *   stmt     := [output (',' output)*] '=' KIND [attrs] '(' [VALUE (',' VALUE)*] ')' [COMMENT]
 *               block*
 *   block    := 'blockN' '(' [param (',' param)*] ')' (':' | '{') stmt* '->' '(' values ')' ['}']
 *   return   := 'return' '(' values ')' [';']
 *   trailer  := 'with' KIND_N '=' graph
 *
 * Contracts:
 * - Non-recursive over blocks and subgraph trailers: an explicit stack of frames, bounded by
 *   TEXT_MAX_DEPTH, so no input can overflow the C stack. Names live in one hash table per
 *   graph, so large graphs parse in linear time.
 * - Value names are graph-wide and visible after their definition inside the defining block
 *   and its nested blocks. Numeric names (`%24`) become value ids (ir_value_set_id); named
 *   values get fresh ids above every numeric one once their graph is complete.
 * - A node whose kind is `KIND_N` (prim::DifferentiableGraph_0) has kind KIND; N counts such
 *   nodes of its graph in text order, and trailer N after that graph's return is its Subgraph.
 * - Every error is a GError "FILE:LINE:COL: error: ..." and the partial graph is freed. */
#include <string.h>

#include "ir/ops.h"
#include "ir/text.h"
#include "ir/text_lexer.h"
#include "ir/text_parse.h"
#include "ir/verify.h"

static void name_entry_free(gpointer p) {
  g_free(p);
}

static GraphFrame *graph_frame_new(void) {
  GraphFrame *gf = g_new0(GraphFrame, 1);
  gf->graph = ir_graph_new();
  gf->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, name_entry_free);
  gf->groups = g_ptr_array_new();
  gf->renumber = g_ptr_array_new();
  gf->blocks = g_array_new(FALSE, TRUE, sizeof(BlockFrame));
  return gf;
}

static void graph_frame_free(GraphFrame *gf, bool free_graph) {
  for (guint i = 0; i < gf->blocks->len; i++)
    g_ptr_array_free(g_array_index(gf->blocks, BlockFrame, i).defined, TRUE);
  g_array_free(gf->blocks, TRUE);
  g_hash_table_destroy(gf->names);
  g_ptr_array_free(gf->groups, TRUE);
  g_ptr_array_free(gf->renumber, TRUE);
  if (free_graph)
    ir_graph_free(gf->graph);
  g_free(gf);
}

static GraphFrame *top_graph(Parser *p) {
  return g_ptr_array_index(p->graphs, p->graphs->len - 1);
}

static BlockFrame *top_block(GraphFrame *gf) {
  return &g_array_index(gf->blocks, BlockFrame, gf->blocks->len - 1);
}

static bool enter(Parser *p, const Token *at, GError **error) {
  if (p->depth + 1 >= TEXT_MAX_DEPTH) {
    text_error_at(error, &p->lx, at, "nesting deeper than %d", TEXT_MAX_DEPTH);
    return false;
  }
  p->depth++;
  return true;
}

static void push_block(Parser *p, GraphFrame *gf, IrBlock *block, IrNode *owner, guint index,
                       bool braces, int line, int col) {
  BlockFrame bf = {0};
  bf.block = block;
  bf.owner = owner;
  bf.index = index;
  bf.braces = braces;
  bf.defined = g_ptr_array_new();
  bf.owner_line = line;
  bf.owner_col = col;
  g_array_append_val(gf->blocks, bf);
  (void)p;
}

/* Closes the innermost block: its names go out of scope. A graph's top block does not count
 * as a level of its own: the graph frame holds that level until the graph is complete. */
static void pop_block(Parser *p, GraphFrame *gf) {
  BlockFrame *bf = top_block(gf);
  if (bf->owner != NULL)
    p->depth--;
  for (guint i = 0; i < bf->defined->len; i++)
    ((NameEntry *)g_ptr_array_index(bf->defined, i))->open = false;
  g_ptr_array_free(bf->defined, TRUE);
  g_array_set_size(gf->blocks, gf->blocks->len - 1);
}

/* `%name [: type]` (block and graph parameters); adds the input to `block`. */
static bool parse_param(Parser *p, GraphFrame *gf, IrBlock *block, GError **error) {
  const Token *t = text_next(&p->lx, error);
  if (t == NULL)
    return false;
  if (t->kind != TOK_VALUE)
    return text_error_found(error, &p->lx, t, "expected a parameter '%%name'");
  Token name = *t;
  name.text = g_strdup(t->text);
  const IrType *type = ir_type_tensor();
  bool ok = true;
  const Token *c = text_peek(&p->lx, error);
  if (c == NULL)
    ok = false;
  else if (text_tok_is_punct(c, ':')) {
    text_next(&p->lx, error);
    type = text_parse_type(&p->lx, p->depth, error);
    ok = type != NULL;
  }
  if (ok) {
    IrValue *v = ir_block_add_input(block, type, NULL);
    ok = text_define_value(p, gf, &name, v, error);
  }
  g_free(name.text);
  return ok;
}

/* '(' params ')' ; separators are ',' or, in the early-2019 format, just newlines. */
static bool parse_params(Parser *p, GraphFrame *gf, IrBlock *block, GError **error) {
  if (!text_expect_punct(&p->lx, '(', "to open the parameters", error))
    return false;
  for (;;) {
    const Token *t = text_peek(&p->lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, ')')) {
      text_next(&p->lx, error);
      return true;
    }
    if (!parse_param(p, gf, block, error))
      return false;
    t = text_peek(&p->lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, ','))
      text_next(&p->lx, error);
    else if (t->kind != TOK_VALUE && !text_tok_is_punct(t, ')'))
      return text_error_found(error, &p->lx, t, "expected ',' or ')' after a parameter");
  }
}

/* Reads ':' (PyTorch 1.x) or '{' (early 2019) after a header; *braces says which. */
static bool parse_header_end(Parser *p, bool *braces, const char *what, GError **error) {
  const Token *t = text_next(&p->lx, error);
  if (t == NULL)
    return false;
  if (text_tok_is_punct(t, ':') || text_tok_is_punct(t, '{')) {
    *braces = t->punct == '{';
    return true;
  }
  return text_error_found(error, &p->lx, t, "expected ':' after %s", what);
}

/* `graph(params):` : pushes a new graph frame with its top block open. Comments before it
 * are skipped (a file's header, e.g. the input specs that app/input/spec_header.h reads). */
static bool parse_graph_header(Parser *p, GError **error) {
  const Token *t = text_next(&p->lx, error);
  while (t != NULL && t->kind == TOK_COMMENT)
    t = text_next(&p->lx, error);
  if (t == NULL)
    return false;
  if (!text_tok_is_ident(t, "graph"))
    return text_error_found(error, &p->lx, t, "expected 'graph('");
  if (!enter(p, t, error))
    return false;
  int line = t->line, col = t->col;
  GraphFrame *gf = graph_frame_new();
  g_ptr_array_add(p->graphs, gf);
  push_block(p, gf, gf->graph->block, NULL, 0, false, line, col);
  if (!parse_params(p, gf, gf->graph->block, error))
    return false;
  bool braces = false;
  if (!parse_header_end(p, &braces, "the graph's parameters", error))
    return false;
  gf->early = braces;
  top_block(gf)->braces = braces;
  return true;
}

/* '(' VALUE, ... ')' as uses; appends them to `out`. */
static bool parse_uses(Parser *p, GraphFrame *gf, const char *what, GPtrArray *out,
                       GPtrArray *pending, GError **error) {
  g_autofree char *ctx = g_strdup_printf("to open %s", what);
  bool ok = text_expect_punct(&p->lx, '(', ctx, error);
  if (!ok)
    return false;
  const Token *t = text_peek(&p->lx, error);
  if (t == NULL)
    return false;
  if (text_tok_is_punct(t, ')')) {
    text_next(&p->lx, error);
    return true;
  }
  for (;;) {
    t = text_next(&p->lx, error);
    if (t == NULL)
      return false;
    if (t->kind != TOK_VALUE)
      return text_error_found(error, &p->lx, t, "expected a value '%%name'");
    IrValue *v = text_lookup_value(p, gf, t, pending, error);
    if (v == NULL)
      return false;
    g_ptr_array_add(out, v);
    t = text_next(&p->lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, ')'))
      return true;
    if (!text_tok_is_punct(t, ','))
      return text_error_found(error, &p->lx, t, "expected ',' or ')'");
  }
}

/* '(' VALUE, ... ')' as the outputs of `block`. */
static bool parse_outputs_of(Parser *p, GraphFrame *gf, const char *what, IrBlock *block,
                             GError **error) {
  g_autoptr(GPtrArray) outs = g_ptr_array_new();
  bool ok = parse_uses(p, gf, what, outs, NULL, error);
  for (guint i = 0; ok && i < outs->len; i++)
    ir_block_add_output(block, g_ptr_array_index(outs, i));
  return ok;
}

/* `blockN(params):` for block `index` of `owner`. */
static bool parse_block_header(Parser *p, GraphFrame *gf, IrNode *owner, guint index,
                               int owner_line, int owner_col, GError **error) {
  const Token *t = text_next(&p->lx, error);
  if (t == NULL)
    return false;
  g_autofree char *expected = g_strdup_printf("block%u", index);
  bool match = text_tok_is_ident(t, expected);
  if (!match) {
    text_error_at(error, &p->lx, t, "expected 'block%u', found '%s'", index, t->text);
    return false;
  }
  if (owner->kind != IR_PRIM_IF && owner->kind != IR_PRIM_LOOP && owner->kind != IR_PRIM_GRAD_OF) {
    text_error_at(error, &p->lx, t, "wrong block arity: %s takes no blocks",
                  ir_kind_name(owner->kind));
    return false;
  }
  if (!enter(p, t, error))
    return false;
  IrBlock *block = ir_node_add_block(owner);
  push_block(p, gf, block, owner, index, false, owner_line, owner_col);
  if (!parse_params(p, gf, block, error))
    return false;
  bool braces = false;
  if (!parse_header_end(p, &braces, "the block's parameters", error))
    return false;
  top_block(gf)->braces = braces;
  return true;
}

bool text_open_block(Parser *p, GraphFrame *gf, IrNode *owner, int owner_line, int owner_col,
                     GError **error) {
  return parse_block_header(p, gf, owner, 0, owner_line, owner_col, error);
}

/* `-> (values)` closing the innermost block, then the next block of its node or the node's
 * arity check. */
static bool parse_block_end(Parser *p, GraphFrame *gf, GError **error) {
  BlockFrame *bf = top_block(gf);
  const Token *arrow = text_next(&p->lx, error);
  if (bf->owner == NULL) {
    text_error_at(error, &p->lx, arrow, "'->' outside a block (the graph ends with 'return')");
    return false;
  }
  bool ok = parse_outputs_of(p, gf, "the block outputs", bf->block, error);
  if (ok && bf->braces)
    ok = text_expect_punct(&p->lx, '}', "to close the block", error);
  if (!ok)
    return false;
  IrNode *owner = bf->owner;
  guint index = bf->index;
  int line = bf->owner_line, col = bf->owner_col;
  pop_block(p, gf);
  const Token *t = text_peek(&p->lx, error);
  if (t == NULL)
    return false;
  if (t->kind == TOK_IDENT && g_str_has_prefix(t->text, "block"))
    return parse_block_header(p, gf, owner, index + 1, line, col, error);
  if (!text_check_block_arity(p, owner, line, col, error))
    return false;
  g_autofree char *flow = ir_control_flow_types_problem(owner);
  if (flow != NULL) {
    text_error(error, &p->lx, line, col, "bad type: %s", flow);
    return false;
  }
  text_finish_node(gf, owner);
  return true;
}

static bool parse_return(Parser *p, GraphFrame *gf, GError **error) {
  BlockFrame *bf = top_block(gf);
  const Token *t = text_next(&p->lx, error);
  if (bf->owner != NULL) {
    text_error_at(error, &p->lx, t, "'return' inside a block (blocks end with '-> (...)')");
    return false;
  }
  bool ok = parse_outputs_of(p, gf, "the graph outputs", gf->graph->block, error);
  if (!ok)
    return false;
  t = text_peek(&p->lx, error);
  if (t == NULL)
    return false;
  if (text_tok_is_punct(t, ';'))
    text_next(&p->lx, error);
  if (gf->early && !text_expect_punct(&p->lx, '}', "to close the graph", error))
    return false;
  pop_block(p, gf);
  return true;
}

/* Assigns ids to the named values of a complete graph, above every numeric id. */
static void finish_ids(GraphFrame *gf) {
  guint64 next = gf->max_id + 1;
  for (guint i = 0; i < gf->renumber->len; i++)
    ir_value_set_id(g_ptr_array_index(gf->renumber, i), next++);
}

/* After a graph's return: its next trailer, or completion (attach to the parent's group
 * node, or end of input for the outermost graph). */
static bool parse_trailer_or_finish(Parser *p, bool *done, GError **error) {
  GraphFrame *gf = top_graph(p);
  const Token *t = text_peek(&p->lx, error);
  while (t != NULL && t->kind == TOK_COMMENT) {
    text_next(&p->lx, error);
    t = text_peek(&p->lx, error);
  }
  if (t == NULL)
    return false;
  if (gf->trailers_done < gf->groups->len) {
    IrNode *group = g_ptr_array_index(gf->groups, gf->trailers_done);
    g_autofree char *want = g_strdup_printf("%s_%u", ir_kind_name(group->kind), gf->trailers_done);
    bool ok = text_tok_is_ident(t, "with");
    if (ok) {
      text_next(&p->lx, error);
      t = text_next(&p->lx, error);
      ok = t != NULL && text_tok_is_ident(t, want);
    }
    if (!ok) {
      if (t != NULL)
        text_error_at(error, &p->lx, t, "missing trailer 'with %s = graph(...)'", want);
      return false;
    }
    int line = t->line, col = t->col;
    if (!text_expect_punct(&p->lx, '=', "after the trailer's name", error))
      return false;
    if (!parse_graph_header(p, error))
      return false;
    top_graph(p)->with_line = line;
    top_graph(p)->with_col = col;
    return true;
  }
  finish_ids(gf);
  if (p->graphs->len == 1) {
    if (t->kind != TOK_EOF && !text_tok_is_ident(t, "graph"))
      return text_error_found(error, &p->lx, t,
                              "expected end of input or another 'graph(' after the graph");
    *done = true;
    return true;
  }
  GraphFrame *parent = g_ptr_array_index(p->graphs, p->graphs->len - 2);
  IrNode *group = g_ptr_array_index(parent->groups, parent->trailers_done);
  guint n_in = ir_graph_inputs(gf->graph)->len;
  if (n_in != ir_n_inputs(group)) {
    text_error(error, &p->lx, gf->with_line, gf->with_col,
               "subgraph %s_%u has %u inputs but its node has %u", ir_kind_name(group->kind),
               parent->trailers_done, n_in, ir_n_inputs(group));
    return false;
  }
  /* A body returns at least its node's outputs (a DifferentiableGraph's may return more: the
   * values its backward saves). */
  guint n_out = ir_graph_outputs(gf->graph)->len;
  if (n_out < ir_n_outputs(group)) {
    text_error(error, &p->lx, gf->with_line, gf->with_col,
               "subgraph %s_%u returns %u values but its node has %u outputs",
               ir_kind_name(group->kind), parent->trailers_done, n_out, ir_n_outputs(group));
    return false;
  }
  g_ptr_array_remove_index(p->graphs, p->graphs->len - 1);
  ir_node_set_attr_g(group, IR_ATTR_SUBGRAPH, gf->graph);
  graph_frame_free(gf, false);
  parent->trailers_done++;
  p->depth--;
  return true;
}

static IrGraph *parse_loop(Parser *p, GError **error) {
  if (!parse_graph_header(p, error))
    return NULL;
  for (;;) {
    GraphFrame *gf = top_graph(p);
    if (gf->blocks->len == 0) {
      bool done = false;
      if (!parse_trailer_or_finish(p, &done, error))
        return NULL;
      if (done)
        break;
      continue;
    }
    const Token *t = text_peek(&p->lx, error);
    if (t == NULL)
      return NULL;
    bool ok;
    if (t->kind == TOK_VALUE || text_tok_is_punct(t, '='))
      ok = text_parse_node(p, gf, error);
    else if (text_tok_is_ident(t, "return"))
      ok = parse_return(p, gf, error);
    else if (t->kind == TOK_ARROW)
      ok = parse_block_end(p, gf, error);
    else if (t->kind == TOK_COMMENT)
      ok = text_next(&p->lx, error) != NULL;
    else if (t->kind == TOK_EOF)
      ok = text_error_found(error, &p->lx, t, "expected %s",
                            top_block(gf)->owner ? "'-> (...)' ending the block"
                                                 : "'return (...)' ending the graph");
    else
      ok = text_error_found(error, &p->lx, t, "expected a node, 'return' or '->'");
    if (!ok)
      return NULL;
  }
  GraphFrame *gf = g_ptr_array_index(p->graphs, 0);
  IrGraph *graph = gf->graph;
  g_ptr_array_remove_index(p->graphs, 0);
  graph_frame_free(gf, false);
  return graph;
}

static void graph_free_cb(gpointer g) {
  if (g != NULL)
    ir_graph_free(g);
}

IrParsedFile *ir_file_parse(const char *text, gsize length, const char *filename, GError **error) {
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  Parser p;
  memset(&p, 0, sizeof p);
  if (!text_lexer_init(&p.lx, text, length, filename, error))
    return NULL;
  p.graphs = g_ptr_array_new();
  p.warnings = g_ptr_array_new_with_free_func(g_free);
  p.warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *graphs = g_ptr_array_new_with_free_func(graph_free_cb);
  GError *local = NULL;
  for (;;) {
    IrGraph *graph = parse_loop(&p, &local);
    if (graph == NULL)
      break;
    g_ptr_array_add(graphs, graph);
    const Token *t = text_peek(&p.lx, &local);
    if (t == NULL || t->kind == TOK_EOF)
      break;
  }
  if (local == NULL && graphs->len == 0)
    g_error("ir text invariant: the parser failed without an error message");
  /* Frames left on the stack belong to a failed parse; nested ones are not attached yet. */
  for (guint i = 0; i < p.graphs->len; i++)
    graph_frame_free(g_ptr_array_index(p.graphs, i), true);
  g_ptr_array_free(p.graphs, TRUE);
  g_hash_table_destroy(p.warned);
  text_lexer_clear(&p.lx);
  if (local) {
    g_propagate_error(error, local);
    g_ptr_array_free(graphs, TRUE);
    g_ptr_array_free(p.warnings, TRUE);
    return NULL;
  }
  IrParsedFile *file = g_new0(IrParsedFile, 1);
  file->graphs = graphs;
  file->warnings = p.warnings;
  return file;
}

void ir_parsed_file_free(IrParsedFile *file) {
  if (file == NULL)
    return;
  g_ptr_array_free(file->graphs, TRUE);
  g_ptr_array_free(file->warnings, TRUE);
  g_free(file);
}

IrGraph *ir_parsed_file_steal_graph(IrParsedFile *file, guint index) {
  if (index >= file->graphs->len)
    g_error("ir text invariant: graph %u of a file with %u", index, file->graphs->len);
  IrGraph *graph = g_ptr_array_index(file->graphs, index);
  g_ptr_array_index(file->graphs, index) = NULL;
  return graph;
}

IrGraph *ir_graph_parse(const char *text, gsize length, const char *filename, GError **error) {
  IrParsedFile *file = ir_file_parse(text, length, filename, error);
  if (file == NULL)
    return NULL;
  IrGraph *graph = ir_parsed_file_steal_graph(file, 0);
  ir_parsed_file_free(file);
  return graph;
}
