/* PyTorch operator schema strings, parsed into typed signatures:
 *   ns::name[.overload]( [Type[(alias)] name[=default]] | * , ... ) -> Type | (Type [name], ...)
 * Types: Tensor int float bool str Scalar Device Any, type variables (t) as Any, ScalarType /
 * Layout / MemoryFormat as int, NoneType, Generator (a class type); suffixes `[]`, `[N]` (fixed-size lists are lists)
 * and `?`. Defaults: None True False ints floats lists strings. */
#include "ir/ir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(jitscope - schema - error - quark, jitscope_schema_error)

typedef struct {
  const char *text;
  const char *p;
  GError **error;
  bool failed;
} Cursor;

static bool fail(Cursor *c, const char *what) {
  if (!c->failed)
    g_set_error(c->error, JITSCOPE_SCHEMA_ERROR, 0, "schema '%s': column %d: %s", c->text,
                (int)(c->p - c->text) + 1, what);
  c->failed = true;
  return false;
}

static void skip_ws(Cursor *c) {
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n')
    c->p++;
}

static bool accept(Cursor *c, const char *tok) {
  skip_ws(c);
  size_t n = strlen(tok);
  if (strncmp(c->p, tok, n) == 0) {
    c->p += n;
    return true;
  }
  return false;
}

static bool expect(Cursor *c, const char *tok) {
  if (accept(c, tok))
    return true;
  g_autofree char *msg = g_strdup_printf("expected '%s'", tok);
  fail(c, msg);
  return false;
}

static char *ident(Cursor *c) {
  skip_ws(c);
  const char *s = c->p;
  if (!(g_ascii_isalpha(*s) || *s == '_')) {
    fail(c, "expected a name");
    return NULL;
  }
  while (g_ascii_isalnum(*c->p) || *c->p == '_')
    c->p++;
  return g_strndup(s, (gsize)(c->p - s));
}

static const IrType *generator_type(void) {
  return ir_type_class("Generator");
}

static const IrType *base_type(const char *name) {
  static const struct {
    const char *name;
    const IrType *(*make)(void);
  } bases[] = {
      {"Tensor", ir_type_tensor},  {"int", ir_type_int},          {"float", ir_type_float},
      {"bool", ir_type_bool},      {"str", ir_type_str},          {"Scalar", ir_type_number},
      {"Device", ir_type_device},  {"Any", ir_type_any},          {"t", ir_type_any},
      {"ScalarType", ir_type_int}, {"Layout", ir_type_int},       {"MemoryFormat", ir_type_int},
      {"NoneType", ir_type_none},  {"Generator", generator_type},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bases); i++)
    if (strcmp(bases[i].name, name) == 0)
      return bases[i].make();
  return NULL;
}

static const IrType *parse_type(Cursor *c, guint *fixed_len);

/* The elements of `(A, B, ...)` after its '(' (a tuple type, or Dict's key and value). */
static bool parse_type_elems(Cursor *c, GPtrArray *elems) {
  do {
    skip_ws(c);
    const IrType *e = parse_type(c, NULL);
    if (!e)
      return false;
    g_ptr_array_add(elems, (gpointer)e);
  } while (accept(c, ","));
  return expect(c, ")");
}

/* The type before its suffixes: a name, `Dict(K, V)` or a tuple `(A, B)`. */
static const IrType *parse_base_type(Cursor *c) {
  g_autoptr(GPtrArray) elems = g_ptr_array_new();
  if (accept(c, "(")) {
    if (!parse_type_elems(c, elems))
      return NULL;
    return ir_type_tuple((const IrType *const *)elems->pdata, elems->len);
  }
  g_autofree char *name = ident(c);
  if (!name)
    return NULL;
  if (strcmp(name, "Dict") == 0) {
    if (!expect(c, "(") || !parse_type_elems(c, elems))
      return NULL;
    if (elems->len != 2) {
      fail(c, "Dict takes a key and a value type");
      return NULL;
    }
    return ir_type_dict(elems->pdata[0], elems->pdata[1]);
  }
  const IrType *t = base_type(name);
  if (!t) {
    g_autofree char *msg = g_strdup_printf("unknown type '%s'", name);
    fail(c, msg);
  }
  return t;
}

/* A type with its suffixes; *fixed_len receives N of a trailing `[N]` (0 otherwise). */
static const IrType *parse_type(Cursor *c, guint *fixed_len) {
  const IrType *t = parse_base_type(c);
  if (!t)
    return NULL;
  if (fixed_len)
    *fixed_len = 0;
  for (;;) {
    if (*c->p == '(') {
      /* Alias annotation, e.g. Tensor(a!) or t[](a!): irrelevant to matching. */
      const char *close = strchr(c->p, ')');
      if (!close) {
        fail(c, "unterminated alias annotation");
        return NULL;
      }
      c->p = close + 1;
    } else if (*c->p == '[') {
      c->p++;
      guint n = 0;
      while (g_ascii_isdigit(*c->p))
        n = n * 10 + (guint)(*c->p++ - '0');
      if (*c->p != ']') {
        fail(c, "expected ']'");
        return NULL;
      }
      c->p++;
      t = ir_type_list(t);
      if (fixed_len)
        *fixed_len = n;
    } else if (*c->p == '?') {
      c->p++;
      t = ir_type_optional(t);
    } else {
      return t;
    }
  }
}

static bool parse_number(Cursor *c, IrDefault *def) {
  skip_ws(c);
  const char *s = c->p;
  const char *e = s;
  if (*e == '-' || *e == '+')
    e++;
  bool is_float = false;
  if (strncmp(e, "inf", 3) == 0) {
    e += 3;
    is_float = true;
  } else {
    while (g_ascii_isdigit(*e) || *e == '.' || *e == 'e' || *e == 'E' ||
           ((*e == '-' || *e == '+') && (e[-1] == 'e' || e[-1] == 'E'))) {
      if (*e == '.' || *e == 'e' || *e == 'E')
        is_float = true;
      e++;
    }
  }
  if (e == s || (e == s + 1 && (*s == '-' || *s == '+')))
    return fail(c, "expected a default value");
  g_autofree char *tok = g_strndup(s, (gsize)(e - s));
  char *end = NULL;
  errno = 0;
  if (is_float) {
    def->kind = IR_DEFAULT_FLOAT;
    def->f = g_ascii_strtod(tok, &end);
  } else {
    def->kind = IR_DEFAULT_INT;
    def->i = g_ascii_strtoll(tok, &end, 10);
  }
  bool ok = end && *end == '\0' && errno == 0;
  c->p = e;
  return ok ? true : fail(c, "malformed number");
}

static bool parse_default(Cursor *c, const IrType *type, guint fixed_len, IrDefault *def) {
  skip_ws(c);
  if (accept(c, "None")) {
    def->kind = IR_DEFAULT_NONE;
    return true;
  }
  if (accept(c, "True")) {
    def->kind = IR_DEFAULT_INT;
    def->i = 1;
    return true;
  }
  if (accept(c, "False")) {
    def->kind = IR_DEFAULT_INT;
    def->i = 0;
    return true;
  }
  if (*c->p == '"' || *c->p == '\'') {
    char q = *c->p++;
    const char *s = c->p;
    while (*c->p && *c->p != q)
      c->p++;
    if (!*c->p)
      return fail(c, "unterminated string default");
    def->kind = IR_DEFAULT_STR;
    def->s = g_strndup(s, (gsize)(c->p - s));
    c->p++;
    return true;
  }
  if (*c->p == '[') {
    c->p++;
    g_autoptr(GArray) ints = g_array_new(FALSE, FALSE, sizeof(int64_t));
    skip_ws(c);
    if (*c->p != ']') {
      do {
        IrDefault e = {0};
        if (!parse_number(c, &e) || e.kind != IR_DEFAULT_INT)
          return fail(c, "list defaults hold ints");
        int64_t v = e.i;
        g_array_append_val(ints, v);
      } while (accept(c, ","));
    }
    if (!expect(c, "]"))
      return false;
    def->kind = IR_DEFAULT_INT_LIST;
    def->n_ints = ints->len;
    def->ints = (const int64_t *)g_array_free(g_steal_pointer(&ints), def->n_ints == 0);
    return true;
  }
  if (!parse_number(c, def))
    return false;
  /* `int[2] stride=1` means [1, 1], as in PyTorch. */
  const IrType *base = type->kind == IR_TYPE_OPTIONAL ? type->elem : type;
  if (base->kind == IR_TYPE_LIST && def->kind == IR_DEFAULT_INT && fixed_len > 0) {
    int64_t *v = g_new(int64_t, fixed_len);
    for (guint i = 0; i < fixed_len; i++)
      v[i] = def->i;
    def->kind = IR_DEFAULT_INT_LIST;
    def->n_ints = fixed_len;
    def->ints = v;
  }
  return true;
}

/* The clear function of the arguments' array, which frees them only on the error paths. */
static void clear_arg(gpointer p) {
  IrArgument *a = p;
  g_free((char *)a->name);
  g_free((char *)a->def.s);
  g_free((int64_t *)a->def.ints);
}

static bool parse_returns(Cursor *c, GPtrArray *returns) {
  skip_ws(c);
  if (accept(c, "(")) {
    if (accept(c, ")"))
      return true;
    do {
      const IrType *t = parse_type(c, NULL);
      if (!t)
        return false;
      g_ptr_array_add(returns, (gpointer)t);
      skip_ws(c);
      if (g_ascii_isalpha(*c->p) || *c->p == '_')
        g_free(ident(c)); /* named return */
    } while (accept(c, ","));
    return expect(c, ")");
  }
  const IrType *t = parse_type(c, NULL);
  if (!t)
    return false;
  g_ptr_array_add(returns, (gpointer)t);
  return true;
}

IrSchema *ir_schema_parse(const char *text, GError **error) {
  Cursor c = {text, text, error, false};
  g_autofree char *ns = ident(&c);
  if (!ns)
    return NULL;
  g_autofree char *base = NULL;
  g_autofree char *overload = NULL;
  g_autoptr(GArray) args = g_array_new(FALSE, TRUE, sizeof(IrArgument));
  g_array_set_clear_func(args, clear_arg);
  g_autoptr(GPtrArray) returns = g_ptr_array_new();
  if (!expect(&c, "::") || !(base = ident(&c)))
    return NULL;
  if (*c.p == '.') {
    c.p++;
    if (!(overload = ident(&c)))
      return NULL;
  }
  if (!expect(&c, "("))
    return NULL;
  bool kwarg_only = false, varargs = false;
  if (!accept(&c, ")")) {
    do {
      if (accept(&c, "...")) { /* "aten::format(str self, ...)": any further inputs */
        varargs = true;
        break;
      }
      if (accept(&c, "*")) {
        if (kwarg_only) {
          fail(&c, "second '*'");
          return NULL;
        }
        kwarg_only = true;
        continue;
      }
      IrArgument a;
      memset(&a, 0, sizeof a);
      guint fixed_len = 0;
      a.type = parse_type(&c, &fixed_len);
      if (!a.type)
        return NULL;
      a.kwarg_only = kwarg_only;
      a.fixed_len = fixed_len;
      a.def.kind = IR_DEFAULT_NONE_GIVEN;
      if (!(a.name = ident(&c)))
        return NULL;
      g_array_append_val(args, a);
      if (accept(&c, "=")) {
        IrArgument *stored = &g_array_index(args, IrArgument, args->len - 1);
        if (!parse_default(&c, stored->type, fixed_len, &stored->def))
          return NULL;
      }
    } while (accept(&c, ","));
    if (!expect(&c, ")"))
      return NULL;
  }
  if (!expect(&c, "->") || !parse_returns(&c, returns))
    return NULL;
  skip_ws(&c);
  if (*c.p) {
    fail(&c, "trailing text after the return type");
    return NULL;
  }

  IrSchema *s = g_new0(IrSchema, 1);
  s->name = g_strdup_printf("%s::%s", ns, base);
  s->overload = overload ? g_steal_pointer(&overload) : g_strdup("");
  s->text = g_strdup(text);
  IrOpKind kind;
  s->kind = ir_kind_from_name(s->name, &kind) ? (int)kind : -1;
  s->n_args = args->len;
  s->varargs = varargs;
  s->args = (const IrArgument *)g_array_free(g_steal_pointer(&args), FALSE);
  s->n_returns = returns->len;
  s->returns_list_of_tensors = returns->len == 1 &&
                               ((const IrType *)returns->pdata[0])->kind == IR_TYPE_LIST &&
                               ((const IrType *)returns->pdata[0])->elem == ir_type_tensor();
  s->returns = (const IrType *const *)g_ptr_array_free(g_steal_pointer(&returns), FALSE);
  return s;
}

void ir_schema_free(IrSchema *schema) {
  if (!schema)
    return;
  for (guint i = 0; i < schema->n_args; i++) {
    const IrArgument *a = &schema->args[i];
    g_free((char *)a->name);
    g_free((char *)a->def.s);
    g_free((int64_t *)a->def.ints);
  }
  g_free((IrArgument *)schema->args);
  g_free((IrType **)schema->returns);
  g_free((char *)schema->name);
  g_free((char *)schema->overload);
  g_free((char *)schema->text);
  g_free(schema);
}

guint ir_schema_required_args(const IrSchema *schema) {
  guint n = 0;
  for (guint i = 0; i < schema->n_args; i++)
    if (schema->args[i].def.kind == IR_DEFAULT_NONE_GIVEN)
      n = i + 1;
  return n;
}

bool ir_schema_arg_accepts(const IrType *arg_type, const IrType *value_type) {
  if (ir_type_is_subtype(value_type, arg_type))
    return true;
  return ir_type_is_tensor_list(value_type) && arg_type->kind == IR_TYPE_LIST &&
         arg_type->elem->kind == IR_TYPE_OPTIONAL && ir_type_is_tensor(arg_type->elem->elem);
}

bool ir_schema_matches(const IrSchema *schema, const IrType *const *input_types, guint n_inputs) {
  if ((n_inputs > schema->n_args && !schema->varargs) || n_inputs < ir_schema_required_args(schema))
    return false;
  for (guint i = 0; i < n_inputs && i < schema->n_args; i++)
    if (!ir_schema_arg_accepts(schema->args[i].type, input_types[i]))
      return false;
  return true;
}

void ir_schema_print(GString *out, const IrSchema *schema) {
  g_string_append(out, schema->text);
}
