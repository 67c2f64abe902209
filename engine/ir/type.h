/* IR types: immutable, hash-consed (two equal types are the same pointer), shared by every
 * graph of the process and never freed. Interning is guarded by a mutex, so graphs on
 * different threads may create types concurrently. */
#ifndef JITSCOPE_IR_TYPE_H
#define JITSCOPE_IR_TYPE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "tensor/dtype.h"

typedef enum {
  IR_TYPE_TENSOR,
  IR_TYPE_INT,
  IR_TYPE_FLOAT,
  IR_TYPE_BOOL,
  IR_TYPE_NUMBER, /* schema "Scalar": int, float or bool */
  IR_TYPE_STR,
  IR_TYPE_NONE,
  IR_TYPE_DEVICE,
  IR_TYPE_LIST,
  IR_TYPE_OPTIONAL,
  IR_TYPE_TUPLE,
  IR_TYPE_ANY, /* schema "Any" / "t" type variables */
  /* A named type the engine only carries: module and class types (`__torch__.M`),
   * `Function`, `Generator`, `Layout`, ... */
  IR_TYPE_CLASS,
  IR_TYPE_DICT, /* Dict(K, V): elems[0] key, elems[1] value */
} IrTypeKind;

/* A tri-state for facts about tensors that may be unknown. */
typedef enum { IR_UNKNOWN = -1, IR_NO = 0, IR_YES = 1 } IrTristate;

#define IR_SIZE_UNKNOWN (-1)

typedef struct IrType IrType;
struct IrType {
  IrTypeKind kind;
  /* IR_TYPE_TENSOR: every field may be unknown. */
  bool undefined; /* known-undefined: prints Tensor[Undefined] */
  bool has_dtype; /* dtype known */
  IrDtype dtype;
  int rank;               /* -1 unknown */
  const int64_t *sizes;   /* NULL, or rank entries (IR_SIZE_UNKNOWN for '*') */
  const int64_t *strides; /* NULL, or rank entries */
  IrTristate requires_grad;
  int device; /* -1 unknown, else IrDevice */
  /* IR_TYPE_LIST, IR_TYPE_OPTIONAL: the element type. */
  const IrType *elem;
  /* IR_TYPE_TUPLE, IR_TYPE_DICT */
  guint n_elems;
  const IrType *const *elems;
  /* IR_TYPE_CLASS: its qualified name. */
  const char *name;
  /* A tensor type's text, made by its first ir_type_print and kept (types are interned and
   * live as long as the process): graphs print a few types many times. */
  gpointer printed;
};

/* Scalar and unknown-tensor singletons. */
const IrType *ir_type_tensor(void); /* "Tensor": nothing known */
const IrType *ir_type_int(void);
const IrType *ir_type_float(void);
const IrType *ir_type_bool(void);
const IrType *ir_type_number(void);
const IrType *ir_type_str(void);
const IrType *ir_type_none(void);
const IrType *ir_type_device(void);
const IrType *ir_type_any(void);
const IrType *ir_type_undefined_tensor(void);

/* Interns a tensor type shaped like *proto (kind, elem and elems are ignored). */
const IrType *ir_type_tensor_from(const IrType *proto);
const IrType *ir_type_list(const IrType *elem);
const IrType *ir_type_optional(const IrType *elem);
const IrType *ir_type_tuple(const IrType *const *elems, guint n);
const IrType *ir_type_class(const char *name);
const IrType *ir_type_dict(const IrType *key, const IrType *value);

/* Tensor type helpers, each returning an interned type. */
const IrType *ir_type_with_requires_grad(const IrType *t, IrTristate rg);
/* dtype/device/rank kept, sizes and strides dropped: what an ArgumentSpec knows. */
const IrType *ir_type_dimensioned(const IrType *t);

/* PyTorch's subtyping: equal types; any tensor type is a Tensor; T is a T?; None is a T?;
 * int/float/bool are Number; List(A) <: List(B) when A == B or B is Any-like; Dict(K, A) <:
 * Dict(K, B) likewise; tuples element-wise. */
bool ir_type_is_subtype(const IrType *sub, const IrType *super);

bool ir_type_is_tensor(const IrType *t);
/* Tensor[]: a list whose elements are tensors. */
bool ir_type_is_tensor_list(const IrType *t);
bool ir_type_is_float_dtype(IrDtype d);

/* Appends the type as PyTorch 1.13 prints it: "Float(5, 1, strides=[1, 1], requires_grad=1,
 * device=cpu)", "Float(*, *)", "Tensor", "Tensor[Undefined]", "int[]?", "(Tensor, int)",
 * "NoneType", "Scalar". */
void ir_type_print(GString *out, const IrType *t);
char *ir_type_to_string(const IrType *t);

/* "Float", "Double", "Half", "Long", "Bool" */
const char *ir_dtype_type_name(IrDtype d);
/* "float32", "float64", "float16", "int64", "bool" (the JSON and NumPy-facing names) */
const char *ir_dtype_name(IrDtype d);
size_t ir_dtype_size(IrDtype d);
const char *ir_device_name(int device); /* "cpu", "cuda" */

#endif
