/* Type syntax of the graph text: what ir_type_print writes (PyTorch 1.13), plus the early-2019
 * spellings (`Float(2, 3, 4!)`, `Dynamic`, `UndefinedTensor`).
 *
 *   type   := base ('[]' | '?' | '[Undefined]')*
 *   base   := '(' [type (',' type)*] ')'                      tuple
 *           | int | float | bool | str | string | None | NoneType | Device | Scalar | number | Any | t
 *           | Tensor | Dynamic | UndefinedTensor | AutogradZeroTensor
 *           | DTYPE ['(' dims ')'] | DTYPE 'Tensor' ['(' props ')'] | 'Tensor' '(' dims ')'
 *           | 'Dict' '(' type ',' type ')'
 *           | CLASS          a dotted name (`__torch__.torch.nn.Linear`), Function, Generator...
 *   dims   := [dim (',' dim)*] [',' props] | props          dim := INT ['!'] | '*'
 *   props  := prop (',' prop)*     prop := strides=[INT, ...] | requires_grad=0|1 | device=D
 *
 * A DTYPE with parentheses fixes the rank (`Float()` is 0-dim); `FloatTensor(...)` and
 * `Tensor(requires_grad=1)` leave it unknown, as ir_type_print writes them. The dtypes the
 * engine lacks (Byte, Char, Short, Int, BFloat16) read as tensors of unknown dtype.
 * Recursion is bounded by TEXT_MAX_DEPTH. */
#include <string.h>

#include "ir/text.h"
#include "ir/text_lexer.h"

static bool dtype_from_name(const char *name, IrDtype *out) {
  for (int d = 0; d < IR_DTYPE_COUNT; d++) {
    if (strcmp(name, ir_dtype_type_name((IrDtype)d)) == 0) {
      *out = (IrDtype)d;
      return true;
    }
  }
  return false;
}

/* Types PyTorch prints that the engine carries by name only. */
static bool is_class_type_name(const char *name) {
  static const char *const builtin[] = {
      "Function",     "Generator",   "Layout",    "ScalarType", "MemoryFormat", "QScheme",
      "Stream",       "Storage",     "Capsule",   "complex",    "AnyClassType", "AnyEnumType",
      "AnyTupleType", "AnyListType", "Quantizer", "Await",      "RRef",         "Object",
  };
  if (strchr(name, '.') != NULL)
    return true;
  for (gsize i = 0; i < G_N_ELEMENTS(builtin); i++)
    if (strcmp(name, builtin[i]) == 0)
      return true;
  return false;
}

/* Tensor element types of PyTorch that the engine has no dtype for. */
static bool is_foreign_dtype_name(const char *name) {
  static const char *const names[] = {"Byte",     "Char",         "Short",        "Int",
                                      "BFloat16", "ComplexFloat", "ComplexDouble"};
  for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0)
      return true;
  return false;
}

/* `Dict(K, V)` after the name; `(` not yet consumed. */
static const IrType *parse_dict(Lexer *lx, int depth, GError **error) {
  if (!text_expect_punct(lx, '(', "after 'Dict'", error))
    return NULL;
  const IrType *key = text_parse_type(lx, depth + 1, error);
  if (key == NULL || !text_expect_punct(lx, ',', "between the key and value types", error))
    return NULL;
  const IrType *value = text_parse_type(lx, depth + 1, error);
  if (value == NULL || !text_expect_punct(lx, ')', "to close the Dict type", error))
    return NULL;
  return ir_type_dict(key, value);
}

static bool parse_size_int(Lexer *lx, const Token *t, const char *what, gint64 *out,
                           GError **error) {
  gint64 v;
  if (!g_ascii_string_to_signed(t->text, 10, G_MININT64, G_MAXINT64, &v, NULL)) {
    text_error_at(error, lx, t, "bad type: %s %s does not fit in 64 bits", what, t->text);
    return false;
  }
  if (v < 0 || v > TEXT_MAX_SIZE) {
    text_error_at(error, lx, t, "bad type: %s %s is out of range (0 to 2^40)", what, t->text);
    return false;
  }
  *out = v;
  return true;
}

/* requires_grad=, device=, strides= (one property; the name token is consumed). */
static bool parse_prop(Lexer *lx, const Token *name_tok, IrType *proto, int64_t *strides,
                       int *n_strides, GError **error) {
  g_autofree char *name = g_strdup(name_tok->text);
  int line = name_tok->line, col = name_tok->col;
  bool ok = false;
  if (!text_expect_punct(lx, '=', "after a tensor property name", error))
    return false;
  const Token *v = text_next(lx, error);
  if (v == NULL)
    return false;
  if (strcmp(name, "requires_grad") == 0) {
    if (v->kind == TOK_INT && (strcmp(v->text, "0") == 0 || strcmp(v->text, "1") == 0)) {
      proto->requires_grad = v->text[0] == '1' ? IR_YES : IR_NO;
      ok = true;
    } else {
      text_error_at(error, lx, v, "bad type: requires_grad must be 0 or 1");
    }
  } else if (strcmp(name, "device") == 0) {
    if (text_tok_is_ident(v, "cpu")) {
      proto->device = IR_DEVICE_CPU;
      ok = true;
    } else if (text_tok_is_ident(v, "cuda")) {
      proto->device = IR_DEVICE_CUDA;
      ok = true;
      const Token *p = text_peek(lx, error);
      if (p == NULL)
        ok = false;
      else if (text_tok_is_punct(p, ':')) {
        text_next(lx, error);
        const Token *idx = text_next(lx, error);
        if (idx == NULL || idx->kind != TOK_INT || idx->text[0] == '-') {
          if (idx)
            text_error_at(error, lx, idx, "bad type: expected a device index after 'cuda:'");
          ok = false;
        }
      }
    } else {
      text_error_at(error, lx, v, "bad type: unknown device (expected cpu or cuda)");
    }
  } else if (strcmp(name, "strides") == 0) {
    if (!text_tok_is_punct(v, '[')) {
      text_error_at(error, lx, v, "bad type: expected '[' after strides=");
      return false;
    }
    *n_strides = 0;
    const Token *p = text_peek(lx, error);
    if (p == NULL)
      return false;
    if (!text_tok_is_punct(p, ']')) {
      for (;;) {
        const Token *s = text_next(lx, error);
        if (s == NULL)
          return false;
        if (s->kind != TOK_INT) {
          text_error_found(error, lx, s, "bad type: expected a stride");
          return false;
        }
        if (*n_strides >= IR_MAX_RANK) {
          text_error_at(error, lx, s, "bad type: more than %d strides", IR_MAX_RANK);
          return false;
        }
        gint64 sv;
        if (!parse_size_int(lx, s, "stride", &sv, error))
          return false;
        strides[(*n_strides)++] = sv;
        p = text_peek(lx, error);
        if (p == NULL)
          return false;
        if (!text_tok_is_punct(p, ','))
          break;
        text_next(lx, error);
      }
    }
    ok = text_expect_punct(lx, ']', "to close strides", error);
  } else {
    text_error(error, lx, line, col, "bad type: unknown tensor property '%s'", name);
  }
  return ok;
}

/* The parenthesized part of a tensor type; '(' already consumed. dims_allowed: sizes may
 * appear (Float(...), Tensor(...)); otherwise only properties (FloatTensor(...)). Sizes and
 * strides land in the caller's arrays (IR_MAX_RANK entries), which proto then points to. */
static bool parse_tensor_args(Lexer *lx, IrType *proto, bool dims_allowed, int64_t *sizes,
                              int64_t *strides, GError **error) {
  int rank = 0, n_strides = -1;
  bool saw = false;
  bool *saw_dims = &saw;
  bool props = false;
  *saw_dims = false;
  const Token *t = text_peek(lx, error);
  if (t == NULL)
    return false;
  bool empty = text_tok_is_punct(t, ')');
  if (!empty) {
    for (;;) {
      t = text_next(lx, error);
      if (t == NULL)
        return false;
      if (!props && dims_allowed && (t->kind == TOK_INT || text_tok_is_punct(t, '*'))) {
        if (rank >= IR_MAX_RANK) {
          text_error_at(error, lx, t, "bad type: rank above %d", IR_MAX_RANK);
          return false;
        }
        if (t->kind == TOK_INT) {
          gint64 v;
          if (!parse_size_int(lx, t, "size", &v, error))
            return false;
          sizes[rank++] = v;
          const Token *bang = text_peek(lx, error);
          if (bang == NULL)
            return false;
          if (text_tok_is_punct(bang, '!'))
            text_next(lx, error);
        } else {
          sizes[rank++] = IR_SIZE_UNKNOWN;
        }
        *saw_dims = true;
      } else if (t->kind == TOK_IDENT) {
        props = true;
        if (!parse_prop(lx, t, proto, strides, &n_strides, error))
          return false;
      } else {
        return text_error_found(error, lx, t, "bad type: expected a size, '*' or a property");
      }
      t = text_peek(lx, error);
      if (t == NULL)
        return false;
      if (!text_tok_is_punct(t, ','))
        break;
      text_next(lx, error);
    }
  }
  t = text_peek(lx, error);
  if (t == NULL)
    return false;
  if (!text_tok_is_punct(t, ')')) {
    return text_error_found(error, lx, t, "bad type: expected ')' to close the tensor type");
  }
  if (n_strides >= 0 && n_strides != rank) {
    text_error_at(error, lx, t, "bad type: %d strides for rank %d", n_strides, rank);
    return false;
  }
  text_next(lx, error);
  if (dims_allowed && (*saw_dims || proto->has_dtype || empty)) {
    proto->rank = rank;
    bool any_known = false;
    for (int i = 0; i < rank; i++)
      any_known |= sizes[i] != IR_SIZE_UNKNOWN;
    if (rank > 0 && (any_known || n_strides >= 0))
      proto->sizes = sizes;
    if (rank > 0 && n_strides >= 0)
      proto->strides = strides;
  }
  return true;
}

static const IrType *parse_base(Lexer *lx, int depth, GError **error) {
  const Token *t = text_next(lx, error);
  if (t == NULL)
    return NULL;
  if (text_tok_is_punct(t, '(')) {
    g_autoptr(GPtrArray) elems = g_ptr_array_new();
    const Token *p = text_peek(lx, error);
    if (p == NULL)
      return NULL;
    if (!text_tok_is_punct(p, ')')) {
      for (;;) {
        const IrType *e = text_parse_type(lx, depth + 1, error);
        if (e == NULL)
          return NULL;
        g_ptr_array_add(elems, (gpointer)e);
        p = text_peek(lx, error);
        if (p == NULL)
          return NULL;
        if (!text_tok_is_punct(p, ','))
          break;
        text_next(lx, error);
      }
    }
    if (!text_expect_punct(lx, ')', "to close the tuple type", error))
      return NULL;
    return ir_type_tuple((const IrType *const *)elems->pdata, elems->len);
  }
  if (t->kind != TOK_IDENT) {
    text_error_found(error, lx, t, "bad type: expected a type");
    return NULL;
  }
  static const struct {
    const char *name;
    const IrType *(*make)(void);
  } scalars[] = {
      {"int", ir_type_int},
      {"float", ir_type_float},
      {"bool", ir_type_bool},
      {"str", ir_type_str},
      {"string", ir_type_str},
      {"None", ir_type_none},
      {"NoneType", ir_type_none},
      {"Device", ir_type_device},
      {"Scalar", ir_type_number},
      {"number", ir_type_number},
      {"Number", ir_type_number}, /* 2018 */
      {"Any", ir_type_any},
      {"t", ir_type_any},
      {"Dynamic", ir_type_tensor},
      {"UndefinedTensor", ir_type_undefined_tensor},
      {"AutogradZeroTensor", ir_type_undefined_tensor},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(scalars); i++)
    if (strcmp(t->text, scalars[i].name) == 0)
      return scalars[i].make();
  if (is_class_type_name(t->text))
    return ir_type_class(t->text);
  if (strcmp(t->text, "Dict") == 0)
    return parse_dict(lx, depth, error);

  IrType proto;
  memset(&proto, 0, sizeof proto);
  proto.kind = IR_TYPE_TENSOR;
  proto.rank = -1;
  proto.requires_grad = IR_UNKNOWN;
  proto.device = -1;
  bool dims_allowed;
  g_autofree char *name = g_strdup(t->text);
  int line = t->line, col = t->col;
  gsize nlen = strlen(name);
  if (strcmp(name, "Tensor") == 0 || is_foreign_dtype_name(name)) {
    dims_allowed = true;
  } else if (dtype_from_name(name, &proto.dtype)) {
    proto.has_dtype = true;
    dims_allowed = true;
  } else if (nlen > 6 && strcmp(name + nlen - 6, "Tensor") == 0) {
    name[nlen - 6] = '\0';
    if (!dtype_from_name(name, &proto.dtype)) {
      text_error(error, lx, line, col, "bad type: unknown type '%sTensor'", name);
      return NULL;
    }
    proto.has_dtype = true;
    dims_allowed = false;
  } else {
    text_error(error, lx, line, col, "bad type: unknown type '%s'", name);
    return NULL;
  }
  const Token *p = text_peek(lx, error);
  if (p == NULL)
    return NULL;
  if (!text_tok_is_punct(p, '('))
    return ir_type_tensor_from(&proto);
  text_next(lx, error);
  int64_t sizes[IR_MAX_RANK], strides[IR_MAX_RANK];
  if (!parse_tensor_args(lx, &proto, dims_allowed, sizes, strides, error))
    return NULL;
  return ir_type_tensor_from(&proto);
}

const IrType *text_parse_type(Lexer *lx, int depth, GError **error) {
  if (depth >= TEXT_MAX_DEPTH) {
    const Token *t = text_peek(lx, error);
    if (t)
      text_error_at(error, lx, t, "nesting deeper than %d", TEXT_MAX_DEPTH);
    return NULL;
  }
  const IrType *type = parse_base(lx, depth, error);
  while (type != NULL) {
    const Token *p = text_peek(lx, error);
    if (p == NULL)
      return NULL;
    if (text_tok_is_punct(p, '?')) {
      text_next(lx, error);
      if (type->kind == IR_TYPE_OPTIONAL)
        continue; /* T?? is T? */
      type = ir_type_optional(type);
    } else if (text_tok_is_punct(p, '[')) {
      Token open = *p;
      open.text = NULL;
      text_next(lx, error);
      const Token *q = text_next(lx, error);
      if (q == NULL)
        return NULL;
      if (text_tok_is_punct(q, ']')) {
        type = ir_type_list(type);
      } else if (text_tok_is_ident(q, "Undefined") && type->kind == IR_TYPE_TENSOR) {
        if (!text_expect_punct(lx, ']', "after 'Undefined'", error))
          return NULL;
        IrType proto = *type;
        proto.undefined = true;
        type = ir_type_tensor_from(&proto);
      } else {
        text_error_at(error, lx, &open, "bad type: expected '[]' or '[Undefined]'");
        return NULL;
      }
    } else {
      break;
    }
  }
  return type;
}

const IrType *ir_type_parse(const char *text, gsize length, GError **error) {
  Lexer lx;
  if (!text_lexer_init(&lx, text, length, "<type>", error))
    return NULL;
  const IrType *type = text_parse_type(&lx, 0, error);
  if (type != NULL) {
    const Token *t = text_peek(&lx, error);
    if (t == NULL) {
      type = NULL;
    } else if (t->kind != TOK_EOF) {
      g_autofree char *d = text_tok_describe(t);
      text_error_at(error, &lx, t, "bad type: unexpected %s after the type", d);
      type = NULL;
    }
  }
  text_lexer_clear(&lx);
  return type;
}
