/* Node statements of the graph text: names, kinds, schema resolution, output types and block
 * arities (see parse.c for the grammar; text_parse.h for the frames). */
#include <string.h>

#include "ir/ops.h"
#include "ir/text.h"
#include "ir/text_parse.h"
#include "ir/verify.h"
#include "tensor/tensor.h"

/* 2018 and early-2019 spellings of kinds that were renamed since (prim::TensorToNum, whose
 * later name depends on its output's type, is text_parse_node's). */
static const struct {
  const char *old_name, *new_name;
} kind_aliases[] = {
    {"prim::Undefined", "prim::AutogradZero"},
    {"prim::AnyDefined", "prim::AutogradAnyNonZero"},
    {"prim::TensorToBool", "aten::Bool"},
    {"prim::Bool", "aten::Bool"},
    {"prim::Int", "aten::Int"},
    {"prim::Float", "aten::Float"},
    {"prim::None", "prim::Constant"},
};

static bool all_digits(const char *s) {
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (!g_ascii_isdigit(*s))
      return false;
  return true;
}

/* The table key of a value name: numeric names canonicalized (`%024` is `%24`). Sets *id and
 * *numeric; NULL with an error when a numeric name is out of range. */
static char *canonical_name(Parser *p, const Token *t, bool *numeric, guint64 *id, GError **error) {
  *numeric = all_digits(t->text);
  if (!*numeric)
    return g_strdup(t->text);
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned(t->text, 10, 0, (guint64)TEXT_MAX_SIZE, &v, NULL)) {
    text_error_at(error, &p->lx, t, "value id %%%s is out of range (at most 2^40)", t->text);
    return NULL;
  }
  *id = v;
  return g_strdup_printf("%" G_GUINT64_FORMAT, v);
}

bool text_define_value(Parser *p, GraphFrame *gf, const Token *name, IrValue *v, GError **error) {
  bool numeric;
  guint64 id = 0;
  g_autofree char *key = canonical_name(p, name, &numeric, &id, error);
  if (key == NULL)
    return false;
  NameEntry *old = g_hash_table_lookup(gf->names, key);
  if (old != NULL) {
    text_error_at(error, &p->lx, name, "redefinition of value %%%s (first defined at %d:%d)",
                  name->text, old->line, old->col);
    return false;
  }
  NameEntry *e = g_new0(NameEntry, 1);
  e->value = v;
  e->open = true;
  e->line = name->line;
  e->col = name->col;
  g_hash_table_insert(gf->names, g_steal_pointer(&key), e);
  BlockFrame *bf = &g_array_index(gf->blocks, BlockFrame, gf->blocks->len - 1);
  g_ptr_array_add(bf->defined, e);
  if (numeric) {
    ir_value_set_id(v, id);
    if (id > gf->max_id)
      gf->max_id = id;
  } else {
    ir_value_set_name(v, name->text);
    g_ptr_array_add(gf->renumber, v);
  }
  return true;
}

/* Looks ahead (error path only) for a later definition of `key`: a value token first on its
 * line or followed by ':' or '='. Returns its line, or 0. */
static int find_later_definition(const Parser *p, const char *key) {
  Lexer scan = p->lx;
  scan.has_peeked = false;
  scan.peeked.text = NULL;
  scan.last.text = NULL;
  int found = 0, prev_line = 0;
  Token prev = {0};
  bool have_prev = false;
  for (;;) {
    const Token *t = text_next(&scan, NULL);
    if (t == NULL || t->kind == TOK_EOF)
      break;
    if (have_prev && prev.kind == TOK_VALUE && strcmp(prev.text, key) == 0 &&
        (prev.line != prev_line || text_tok_is_punct(t, ':') || text_tok_is_punct(t, '='))) {
      found = prev.line;
      break;
    }
    if (have_prev) {
      prev_line = prev.line;
      g_free(prev.text);
    }
    prev = *t;
    prev.text = g_strdup(t->text);
    have_prev = true;
  }
  if (have_prev)
    g_free(prev.text);
  text_lexer_clear(&scan);
  return found;
}

IrValue *text_lookup_value(Parser *p, GraphFrame *gf, const Token *t, GPtrArray *pending,
                           GError **error) {
  bool numeric;
  guint64 id;
  g_autofree char *key = canonical_name(p, t, &numeric, &id, error);
  if (key == NULL)
    return NULL;
  NameEntry *e = g_hash_table_lookup(gf->names, key);
  IrValue *v = NULL;
  if (e != NULL && e->open) {
    v = e->value;
  } else if (e != NULL && e->pending) {
    text_error_at(error, &p->lx, t, "value %%%s is used inside the node that defines it", t->text);
  } else if (e != NULL) {
    text_error_at(error, &p->lx, t,
                  "value %%%s is not visible here: it is defined inside a block at %d:%d", t->text,
                  e->line, e->col);
  } else {
    bool own = false;
    for (guint i = 0; pending && i < pending->len && !own; i++)
      own = strcmp(g_ptr_array_index(pending, i), key) == 0;
    int later = own ? 0 : find_later_definition(p, t->text);
    if (own)
      text_error_at(error, &p->lx, t, "value %%%s is used by the node that defines it", t->text);
    else if (later > 0)
      text_error_at(error, &p->lx, t, "value %%%s is used before its definition (line %d)", t->text,
                    later);
    else
      text_error_at(error, &p->lx, t, "undefined value %%%s", t->text);
  }
  return v;
}

/* Output names are the values' display names (names are unique, numeric keys canonical). */
static void set_outputs_visible(GraphFrame *gf, IrNode *node, bool visible) {
  char buf[32];
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    NameEntry *e = g_hash_table_lookup(gf->names, ir_value_display_name(ir_output(node, i), buf));
    if (e == NULL || e->value != ir_output(node, i))
      g_error("ir text invariant: output %u of a parsed node is not in the name table", i);
    e->open = visible;
    e->pending = !visible;
  }
}

void text_finish_node(GraphFrame *gf, IrNode *node) {
  set_outputs_visible(gf, node, true);
}

/* One warning per op name and graph file, at its first occurrence. */
static void warn_opaque(Parser *p, const Token *t, const char *name, const char *why) {
  if (g_hash_table_contains(p->warned, name))
    return;
  g_hash_table_add(p->warned, g_strdup(name));
  g_ptr_array_add(p->warnings,
                  g_strdup_printf("%s:%d:%d: warning: %s '%s': parsed as an opaque node (it can "
                                  "be printed and drawn, not run)",
                                  p->lx.filename ? p->lx.filename : "<input>", t->line, t->col, why,
                                  name));
}

/* Turns a node the engine cannot type into prim::Opaque keeping the op's text and place. */
static void make_opaque(Parser *p, IrNode *node, const Token *kind_tok) {
  IrGraph *g = node->graph;
  node->kind = IR_PRIM_OPAQUE;
  node->schema = NULL;
  node->opaque_name = g_string_chunk_insert_const(g->strings, kind_tok->text);
  g_autofree char *at = g_strdup_printf("%s:%d:%d", p->lx.filename ? p->lx.filename : "<input>",
                                        kind_tok->line, kind_tok->col);
  node->opaque_at = g_string_chunk_insert_const(g->strings, at);
}

/* Resolves `ns::name` or `ns::name_N`; *group is set for the latter. An op outside the table
 * (or a Python op `^f()`) resolves to prim::Opaque with a warning. */
static bool resolve_kind(Parser *p, const Token *t, IrOpKind *kind, bool *group, guint *group_index,
                         GError **error) {
  *group = false;
  if (t->kind == TOK_PYOP) {
    warn_opaque(p, t, t->text, "Python op");
    *kind = IR_PRIM_OPAQUE;
    return true;
  }
  const char *name = t->text;
  for (gsize i = 0; i < G_N_ELEMENTS(kind_aliases); i++)
    if (strcmp(name, kind_aliases[i].old_name) == 0)
      name = kind_aliases[i].new_name;
  if (ir_kind_from_name(name, kind))
    return true;
  const char *us = strrchr(name, '_');
  if (us != NULL && all_digits(us + 1) && strlen(us + 1) < 10) {
    g_autofree char *base = g_strndup(name, (gsize)(us - name));
    bool known = ir_kind_from_name(base, kind);
    if (known) {
      *group = true;
      *group_index = (guint)g_ascii_strtoull(us + 1, NULL, 10);
      return true;
    }
  }
  if (strstr(name, "::") == NULL) {
    text_error_at(error, &p->lx, t, "expected an operator 'namespace::name', found '%s'", name);
    return false;
  }
  warn_opaque(p, t, name, "unknown op");
  *kind = IR_PRIM_OPAQUE;
  return true;
}

static void append_types(GString *s, IrNode *node) {
  g_string_append_c(s, '(');
  for (guint i = 0; i < ir_n_inputs(node); i++) {
    if (i)
      g_string_append(s, ", ");
    ir_type_print(s, ir_input(node, i)->type);
  }
  g_string_append_c(s, ')');
}

/* Resolves node's schema and sets output types: annotated types must conform to the schema's
 * returns; unannotated outputs take them (Tensor where the schema says Any). */
static bool type_schema_node(Parser *p, IrNode *node, const Token *kind_tok,
                             const IrType **annotated, GError **error) {
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(node->kind, &n);
  const IrSchema *schema = ir_node_resolve_schema(node);
  if (schema == NULL) {
    /* Real graphs use overloads the table lacks (aten::add on strings): keep the node. */
    g_autoptr(GString) s = g_string_new(NULL);
    g_string_append_printf(s, "no overload of %s matches ", ir_kind_name(node->kind));
    append_types(s, node);
    g_string_append(s, " (candidates:");
    for (guint i = 0; i < n; i++)
      g_string_append_printf(s, "%s %s", i ? ";" : "", overloads[i]->text);
    g_string_append(s, ")");
    g_autofree char *key = g_strdup_printf("%s%s", kind_tok->text, s->str);
    if (!g_hash_table_contains(p->warned, key)) {
      g_hash_table_add(p->warned, g_steal_pointer(&key));
      g_ptr_array_add(p->warnings,
                      g_strdup_printf("%s:%d:%d: warning: %s: parsed as an opaque node",
                                      p->lx.filename ? p->lx.filename : "<input>", kind_tok->line,
                                      kind_tok->col, s->str));
    }
    make_opaque(p, node, kind_tok);
    for (guint i = 0; i < ir_n_outputs(node); i++)
      ir_value_set_type(ir_output(node, i), annotated[i] ? annotated[i] : ir_type_tensor());
    return true;
  }
  if (schema->n_returns != ir_n_outputs(node)) {
    text_error_at(error, &p->lx, kind_tok, "%s returns %u value%s but the node has %u outputs",
                  schema->text, schema->n_returns, schema->n_returns == 1 ? "" : "s",
                  ir_n_outputs(node));
    return false;
  }
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    const IrType *ret = schema->returns[i];
    const IrType *type = annotated[i];
    if (type == NULL) {
      type = ret->kind == IR_TYPE_ANY ? ir_type_tensor() : ret;
    } else if (ret->kind != IR_TYPE_ANY && !ir_type_is_subtype(type, ret)) {
      g_autofree char *a = ir_type_to_string(type);
      g_autofree char *r = ir_type_to_string(ret);
      text_error_at(error, &p->lx, kind_tok,
                    "bad type: output %u is annotated %s but %s returns %s", i, a,
                    ir_kind_name(node->kind), r);
      return false;
    }
    ir_value_set_type(ir_output(node, i), type);
  }
  return true;
}

/* The type an unannotated prim::Constant output takes from its value attribute. */
static const IrType *constant_type(const IrNode *node) {
  const IrAttr *a = ir_node_attr(node, IR_ATTR_VALUE);
  if (a == NULL)
    return ir_type_none();
  switch (a->kind) {
  case IR_ATTR_I: return ir_type_int();
  case IR_ATTR_F: return ir_type_float();
  case IR_ATTR_S: return ir_type_str();
  case IR_ATTR_IS: return ir_type_list(ir_type_int());
  case IR_ATTR_FS: return ir_type_list(ir_type_float());
  case IR_ATTR_SS: return ir_type_list(ir_type_str());
  case IR_ATTR_TS: return ir_type_list(ir_type_tensor());
  case IR_ATTR_T:
  case IR_ATTR_G:
  case IR_ATTR_GS:
  case IR_ATTR_RAW: break;
  }
  return ir_type_tensor();
}

/* 2018: an int[] constant printed as a tensor, `value= 0 -1 [ CPULongTensor{2} ]`: its
 * numbers, when they are all the footer's count of integers. */
static void int_list_constant_from_2018(IrNode *node, const IrAttr *a) {
  const char *footer = strchr(a->v.s, '[');
  if (footer == NULL || !g_str_has_prefix(footer, "[ CPULongTensor{"))
    return;
  gint64 count = g_ascii_strtoll(footer + strlen("[ CPULongTensor{"), NULL, 10);
  g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(gint64));
  for (const char *p = a->v.s; p < footer;) {
    while (p < footer && g_ascii_isspace(*p))
      p++;
    if (p == footer)
      break;
    char *end = NULL;
    gint64 v = g_ascii_strtoll(p, &end, 10);
    if (end == p || end > footer || (end < footer && !g_ascii_isspace(*end)))
      return; /* not an integer: left as it was read */
    g_array_append_val(values, v);
    p = end;
  }
  if ((gint64)values->len == count)
    ir_node_set_attr_is(node, IR_ATTR_VALUE, (const gint64 *)values->data, values->len);
}

/* PyTorch 2018 printed a number constant's value as a one-element tensor (`{1}`, `{0.5}`) and
 * some bools as `false`/`true`: read as the number itself. */
static void number_constant_from_2018(IrNode *node, const IrType *type, const IrAttr *a) {
  if (a != NULL && a->kind == IR_ATTR_RAW && type->kind == IR_TYPE_LIST &&
      type->elem->kind == IR_TYPE_INT) {
    int_list_constant_from_2018(node, a);
    return;
  }
  bool number =
      type->kind == IR_TYPE_INT || type->kind == IR_TYPE_BOOL || type->kind == IR_TYPE_FLOAT;
  if (!number || a == NULL)
    return;
  if (a->kind == IR_ATTR_T && rt_tensor_numel(a->v.t) == 1 && a->v.t->storage != NULL &&
      a->v.t->storage->device == IR_DEVICE_CPU) {
    double v = rt_tensor_get(a->v.t, 0);
    gint64 i;
    if (type->kind == IR_TYPE_FLOAT)
      ir_node_set_attr_f(node, IR_ATTR_VALUE, v);
    else if (text_double_as_int(v, &i) && (type->kind == IR_TYPE_INT || i == 0 || i == 1))
      ir_node_set_attr_i(node, IR_ATTR_VALUE, i);
  } else if (a->kind == IR_ATTR_S && type->kind == IR_TYPE_BOOL &&
             (strcmp(a->v.s, "true") == 0 || strcmp(a->v.s, "false") == 0)) {
    ir_node_set_attr_i(node, IR_ATTR_VALUE, strcmp(a->v.s, "true") == 0);
  }
}

/* A constant's value attribute must suit its output type. PyTorch prints integral doubles
 * from 1e10 on without '.', so an int literal for a float constant is read as that double. */
static bool check_constant(Parser *p, IrNode *node, const Token *kind_tok, GError **error) {
  const IrType *type = ir_output(node, 0)->type;
  number_constant_from_2018(node, type, ir_node_attr(node, IR_ATTR_VALUE));
  const IrAttr *a = ir_node_attr(node, IR_ATTR_VALUE);
  if (type->kind == IR_TYPE_FLOAT && a != NULL && a->kind == IR_ATTR_I) {
    ir_node_set_attr_f(node, IR_ATTR_VALUE, (double)a->v.i);
    return true;
  }
  bool ok;
  switch (type->kind) {
  case IR_TYPE_INT:
  case IR_TYPE_BOOL: ok = a != NULL && a->kind == IR_ATTR_I; break;
  case IR_TYPE_FLOAT: ok = a != NULL && a->kind == IR_ATTR_F; break;
  case IR_TYPE_STR: ok = a != NULL && a->kind == IR_ATTR_S; break;
  case IR_TYPE_NONE: ok = a == NULL; break;
  case IR_TYPE_TENSOR: ok = a != NULL && (a->kind == IR_ATTR_T || a->kind == IR_ATTR_RAW); break;
  default: ok = true; break;
  }
  if (!ok) {
    g_autofree char *t = ir_type_to_string(type);
    text_error_at(error, &p->lx, kind_tok,
                  "bad attribute: the value does not suit a constant of "
                  "type %s",
                  t);
  }
  return ok;
}

bool text_check_block_arity(Parser *p, IrNode *node, int line, int col, GError **error) {
  const char *kind = ir_kind_name(node->kind);
  guint nb = ir_n_blocks(node), ni = ir_n_inputs(node), no = ir_n_outputs(node);
  if (node->kind == IR_PRIM_IF) {
    if (nb != 2) {
      text_error(error, &p->lx, line, col, "wrong block arity: %s needs 2 blocks, found %u", kind,
                 nb);
      return false;
    }
    for (guint b = 0; b < 2; b++) {
      IrBlock *block = ir_block(node, b);
      if (ir_block_inputs(block)->len != 0) {
        text_error(error, &p->lx, line, col, "wrong block arity: %s block%u takes no inputs", kind,
                   b);
        return false;
      }
      if (ir_block_outputs(block)->len != no) {
        text_error(error, &p->lx, line, col,
                   "wrong block arity: %s block%u returns %u values but the node has %u outputs",
                   kind, b, ir_block_outputs(block)->len, no);
        return false;
      }
    }
  } else if (node->kind == IR_PRIM_LOOP) {
    if (nb != 1) {
      text_error(error, &p->lx, line, col, "wrong block arity: %s needs 1 block, found %u", kind,
                 nb);
      return false;
    }
    IrBlock *block = ir_block(node, 0);
    guint bi = ir_block_inputs(block)->len, bo = ir_block_outputs(block)->len;
    if (bi != ni - 1 || bo != ni - 1 || no != ni - 2) {
      text_error(error, &p->lx, line, col,
                 "wrong block arity: %s with %u inputs needs %u block inputs, %u block outputs "
                 "and %u node outputs, found %u, %u and %u",
                 kind, ni, ni - 1, ni - 1, ni - 2, bi, bo, no);
      return false;
    }
  } else if (node->kind == IR_PRIM_GRAD_OF) {
    if (nb != 1) {
      text_error(error, &p->lx, line, col, "wrong block arity: %s needs 1 block, found %u", kind,
                 nb);
      return false;
    }
    IrBlock *block = ir_block(node, 0);
    if (ir_block_inputs(block)->len != 0 || ir_block_outputs(block)->len != no) {
      text_error(error, &p->lx, line, col,
                 "wrong block arity: %s block0 needs 0 inputs and %u outputs, found %u and %u",
                 kind, no, ir_block_inputs(block)->len, ir_block_outputs(block)->len);
      return false;
    }
  }
  return true;
}

/* Structural rules that hold before any block is read. */
static bool check_node_shape(Parser *p, IrNode *node, const Token *kind_tok, GError **error) {
  const char *kind = ir_kind_name(node->kind);
  guint ni = ir_n_inputs(node), no = ir_n_outputs(node);
  if (node->kind == IR_PRIM_CONSTANT && (ni != 0 || no != 1)) {
    text_error_at(error, &p->lx, kind_tok, "%s takes no inputs and has one output", kind);
    return false;
  }
  if (node->kind == IR_PRIM_IF && ni != 1) {
    text_error_at(error, &p->lx, kind_tok, "%s takes 1 input (the condition), found %u", kind, ni);
    return false;
  }
  if (node->kind == IR_PRIM_LOOP && ni < 2) {
    text_error_at(error, &p->lx, kind_tok,
                  "%s takes a trip count and a condition, then the carried values", kind);
    return false;
  }
  if (node->kind == IR_PRIM_GRAD_OF) {
    const IrAttr *a = ir_node_attr(node, IR_ATTR_NAME);
    if (a == NULL || a->kind != IR_ATTR_S) {
      text_error_at(error, &p->lx, kind_tok, "bad attribute: %s needs a string 'name'", kind);
      return false;
    }
  }
  return true;
}

typedef struct {
  GPtrArray *names; /* Token copies (text owned) */
  GPtrArray *keys;  /* canonical-ish names for self-use detection */
  GPtrArray *types; /* const IrType* or NULL */
} Outputs;

static void outputs_clear(Outputs *o) {
  for (guint i = 0; i < o->names->len; i++) {
    Token *t = g_ptr_array_index(o->names, i);
    g_free(t->text);
    g_free(t);
  }
  g_ptr_array_free(o->names, TRUE);
  g_ptr_array_free(o->keys, TRUE);
  g_ptr_array_free(o->types, TRUE);
}

static bool parse_outputs(Parser *p, Outputs *o, GError **error) {
  const Token *t = text_peek(&p->lx, error);
  if (t == NULL)
    return false;
  if (text_tok_is_punct(t, '=')) {
    text_next(&p->lx, error);
    return true;
  }
  for (;;) {
    t = text_next(&p->lx, error);
    if (t == NULL)
      return false;
    if (t->kind != TOK_VALUE) {
      return text_error_found(error, &p->lx, t, "expected an output '%%name'");
    }
    Token *copy = g_new(Token, 1);
    *copy = *t;
    copy->text = g_strdup(t->text);
    g_ptr_array_add(o->names, copy);
    g_ptr_array_add(o->keys, copy->text);
    const IrType *type = NULL;
    t = text_peek(&p->lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, ':')) {
      text_next(&p->lx, error);
      type = text_parse_type(&p->lx, p->depth, error);
      if (type == NULL)
        return false;
    }
    g_ptr_array_add(o->types, (gpointer)type);
    t = text_next(&p->lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, '='))
      return true;
    if (!text_tok_is_punct(t, ',')) {
      return text_error_found(error, &p->lx, t, "expected ',' or '=' after an output");
    }
  }
}

bool text_parse_node(Parser *p, GraphFrame *gf, GError **error) {
  BlockFrame *bf = &g_array_index(gf->blocks, BlockFrame, gf->blocks->len - 1);
  Outputs o = {g_ptr_array_new(), g_ptr_array_new(), g_ptr_array_new()};
  GPtrArray *inputs = g_ptr_array_new();
  Token kind_tok = {0};
  bool ok = false;
  if (!parse_outputs(p, &o, error))
    goto out;
  const Token *t = text_next(&p->lx, error);
  if (t == NULL)
    goto out;
  if (t->kind != TOK_IDENT && t->kind != TOK_PYOP) {
    text_error_found(error, &p->lx, t, "expected an operator after '='");
    goto out;
  }
  kind_tok = *t;
  /* 2018: prim::TensorToNum, aten::Float or aten::Int later by the number it makes. */
  bool makes_float = o.types->len == 1 && g_ptr_array_index(o.types, 0) != NULL &&
                     ((const IrType *)g_ptr_array_index(o.types, 0))->kind == IR_TYPE_FLOAT;
  kind_tok.text = strcmp(t->text, "prim::TensorToNum") == 0
                      ? g_strdup(makes_float ? "aten::Float" : "aten::Int")
                      : g_strdup(t->text);
  IrOpKind kind;
  bool group;
  guint group_index = 0;
  if (!resolve_kind(p, &kind_tok, &kind, &group, &group_index, error))
    goto out;
  if (kind == IR_PRIM_PARAM || kind == IR_PRIM_RETURN) {
    text_error_at(error, &p->lx, &kind_tok, "%s is a block sentinel, not a node", kind_tok.text);
    goto out;
  }
  if (group && group_index != gf->groups->len) {
    text_error_at(error, &p->lx, &kind_tok, "subgraph node %s is out of order: expected %s_%u",
                  kind_tok.text, ir_kind_name(kind), gf->groups->len);
    goto out;
  }
  IrNode *node = ir_node_create(gf->graph, kind, o.names->len);
  if (kind == IR_PRIM_OPAQUE)
    make_opaque(p, node, &kind_tok);
  t = text_peek(&p->lx, error);
  if (t == NULL)
    goto out;
  if (text_tok_is_punct(t, '[') && !text_parse_attrs(&p->lx, node, error))
    goto out;
  if (ir_node_has_attr(node, IR_ATTR_SUBGRAPH)) {
    text_error_at(error, &p->lx, &kind_tok,
                  "bad attribute: a Subgraph comes from a 'with' trailer, not from [...]");
    goto out;
  }
  if (!text_expect_punct(&p->lx, '(', "to open the node's inputs", error))
    goto out;
  t = text_peek(&p->lx, error);
  if (t == NULL)
    goto out;
  if (text_tok_is_punct(t, ')')) {
    text_next(&p->lx, error);
  } else {
    for (;;) {
      t = text_next(&p->lx, error);
      if (t == NULL)
        goto out;
      if (t->kind != TOK_VALUE) {
        text_error_found(error, &p->lx, t, "expected an input '%%name'");
        goto out;
      }
      IrValue *v = text_lookup_value(p, gf, t, o.keys, error);
      if (v == NULL)
        goto out;
      g_ptr_array_add(inputs, v);
      t = text_next(&p->lx, error);
      if (t == NULL)
        goto out;
      if (text_tok_is_punct(t, ')'))
        break;
      if (!text_tok_is_punct(t, ',')) {
        text_error_found(error, &p->lx, t, "expected ',' or ')' in the inputs");
        goto out;
      }
    }
  }
  int close_line = p->lx.last.line;
  t = text_peek(&p->lx, error);
  if (t == NULL)
    goto out;
  if (text_tok_is_punct(t, ',') && t->line == close_line) {
    /* Early traces: `, scope: Model/Linear[fc]` up to the comment or the line's end. */
    int comma_col = t->col;
    g_autofree char *raw = NULL;
    text_skip_line_raw(&p->lx, &raw);
    const char *scope = raw + 1;
    while (g_ascii_isspace(*scope))
      scope++;
    if (!g_str_has_prefix(scope, "scope:")) {
      text_error(error, &p->lx, close_line, comma_col, "expected ', scope: NAME' after the inputs");
      goto out;
    }
    scope += strlen("scope:");
    while (g_ascii_isspace(*scope))
      scope++;
    node->scope = g_string_chunk_insert_const(gf->graph->strings, scope);
  }
  if (kind == IR_ATEN_CHUNK && ir_node_has_attr(node, "chunks") && ir_n_outputs(node) > 1) {
    /* 2018: `aten::chunk[chunks=N, dim=D](%x)` with its N pieces as outputs, what
     * prim::ConstantChunk later wrote. */
    node->kind = kind = IR_PRIM_CONSTANT_CHUNK;
    if (!ir_node_has_attr(node, IR_ATTR_DIM))
      ir_node_set_attr_i(node, IR_ATTR_DIM, 0);
  }
  guint n_overloads = 0;
  ir_ops_overloads(kind, &n_overloads);
  bool attr_args = n_overloads > 0 && ir_n_attrs(node) > 0;
  if (attr_args && text_attr_args_to_inputs(gf, bf->block, node, inputs))
    attr_args = false;
  if (n_overloads > 0)
    text_legacy_values_to_inputs(gf, bf->block, node, inputs);
  for (guint i = 0; i < inputs->len; i++)
    ir_node_add_input(node, g_ptr_array_index(inputs, i));
  ir_node_append_to(node, bf->block);
  if (!check_node_shape(p, node, &kind_tok, error))
    goto out;
  const IrType **annotated = (const IrType **)o.types->pdata;
  if (attr_args) {
    /* Attributes no overload takes as arguments: running the node without them would be
     * another computation. */
    warn_opaque(p, &kind_tok, kind_tok.text,
                "arguments written as attributes (PyTorch 2018) that no overload takes, in");
    make_opaque(p, node, &kind_tok);
    for (guint i = 0; i < o.names->len; i++)
      ir_value_set_type(ir_output(node, i), annotated[i] ? annotated[i] : ir_type_tensor());
  } else if (n_overloads > 0) {
    if (!type_schema_node(p, node, &kind_tok, annotated, error))
      goto out;
  } else {
    for (guint i = 0; i < o.names->len; i++) {
      const IrType *type = annotated[i];
      if (type == NULL)
        type = kind == IR_PRIM_CONSTANT ? constant_type(node) : ir_type_tensor();
      ir_value_set_type(ir_output(node, i), type);
    }
  }
  if (kind == IR_PRIM_CONSTANT && !check_constant(p, node, &kind_tok, error))
    goto out;
  const char *rule = NULL;
  char *container_problem = ir_container_types_problem(node, &rule);
  if (container_problem != NULL) {
    text_error_at(error, &p->lx, &kind_tok, "bad type: %s", container_problem);
    g_free(container_problem);
    goto out;
  }
  for (guint i = 0; i < o.names->len; i++)
    if (!text_define_value(p, gf, g_ptr_array_index(o.names, i), ir_output(node, i), error))
      goto out;
  set_outputs_visible(gf, node, false);
  if (group)
    g_ptr_array_add(gf->groups, node);
  t = text_peek(&p->lx, error);
  if (t == NULL)
    goto out;
  if (t->kind == TOK_COMMENT && t->line == close_line) {
    if (t->text[0] != '\0')
      node->source = g_string_chunk_insert_const(node->graph->strings, t->text);
    text_next(&p->lx, error);
    t = text_peek(&p->lx, error);
    if (t == NULL)
      goto out;
  }
  if (t->kind == TOK_IDENT && g_str_has_prefix(t->text, "block")) {
    ok = text_open_block(p, gf, node, kind_tok.line, kind_tok.col, error);
    goto out;
  }
  ok = text_check_block_arity(p, node, kind_tok.line, kind_tok.col, error);
  if (ok)
    text_finish_node(gf, node);
out:
  g_free(kind_tok.text);
  g_ptr_array_free(inputs, TRUE);
  outputs_clear(&o);
  return ok;
}
