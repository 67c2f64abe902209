/* Operator schemas: PyTorch's schema strings parsed into typed signatures, and overload
 * resolution of a node's inputs against them. */
#ifndef JITSCOPE_IR_SCHEMA_H
#define JITSCOPE_IR_SCHEMA_H

#include "ir/type.h"

typedef enum {
  IR_DEFAULT_NONE_GIVEN, /* the argument has no default */
  IR_DEFAULT_NONE,       /* =None */
  IR_DEFAULT_INT,        /* =1, =False (bools as 0/1) */
  IR_DEFAULT_FLOAT,      /* =1.0 */
  IR_DEFAULT_INT_LIST,   /* =[] or =[0, 1] */
  IR_DEFAULT_STR,        /* ="mean" */
} IrDefaultKind;

typedef struct {
  IrDefaultKind kind;
  int64_t i;
  double f;
  const char *s;
  guint n_ints;
  const int64_t *ints;
} IrDefault;

typedef struct {
  const char *name;
  const IrType *type; /* Scalar is IR_TYPE_NUMBER; ScalarType/Layout/MemoryFormat are int */
  bool kwarg_only;
  guint fixed_len; /* N of a `T[N]` list type (`int[1] dim`), 0 otherwise */
  IrDefault def;
} IrArgument;

typedef struct IrSchema IrSchema;
struct IrSchema {
  int kind;             /* IrOpKind */
  const char *name;     /* "aten::add" */
  const char *overload; /* "Tensor", "Scalar", "" */
  const char *text;     /* the schema string as written in ops.def */
  guint n_args;
  const IrArgument *args;
  guint n_returns;
  const IrType *const *returns;
  bool returns_list_of_tensors; /* "-> Tensor[]" */
  bool varargs;                 /* "(str self, ...)": any inputs of any type follow args */
  guint index;                  /* position in the op table */
};

/* Parses one schema string; NULL with a message on error (the op table aborts on that,
 * since schemas are written by us). */
IrSchema *ir_schema_parse(const char *text, GError **error);
void ir_schema_free(IrSchema *schema);

#define JITSCOPE_SCHEMA_ERROR (jitscope_schema_error_quark())
GQuark jitscope_schema_error_quark(void);

/* Number of arguments a call must pass positionally (those without defaults). */
guint ir_schema_required_args(const IrSchema *schema);

/* Whether an argument of type arg_type takes a value of type value_type: a subtype, or a
 * Tensor[] for a Tensor?[] (PyTorch's schema matching converts it, and its graphs print
 * torch.index_put(x, [i], v) so, although the list types are not subtypes). */
bool ir_schema_arg_accepts(const IrType *arg_type, const IrType *value_type);

/* Does a node with these input types match the schema? Trailing arguments with defaults may
 * be omitted; a varargs schema takes any further inputs. */
bool ir_schema_matches(const IrSchema *schema, const IrType *const *input_types, guint n_inputs);

void ir_schema_print(GString *out, const IrSchema *schema);

#endif
