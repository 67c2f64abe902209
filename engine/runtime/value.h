/* Interpreter values (PyTorch's IValue): None, tensors (NULL tensor = undefined), ints,
 * doubles, bools, strings, devices, lists and tuples. RtValue is passed by value; the heap
 * parts are reference-counted: rt_value_ref / rt_value_unref. */
#ifndef JITSCOPE_RUNTIME_VALUE_H
#define JITSCOPE_RUNTIME_VALUE_H

#include "tensor/tensor.h"

typedef enum {
  RT_NONE,
  RT_TENSOR, /* tensor may be NULL: an undefined tensor */
  RT_INT,
  RT_DOUBLE,
  RT_BOOL,
  RT_STR,
  RT_DEVICE,
  RT_LIST,
  RT_TUPLE,
} RtTag;

typedef struct RtSeq RtSeq;
typedef struct RtString RtString;

typedef struct {
  RtTag tag;
  union {
    RtTensor *tensor;
    gint64 i;
    double d;
    bool b;
    RtString *s;
    int device;
    RtSeq *seq; /* lists and tuples */
  } u;
} RtValue;

struct RtString {
  gint refcount;
  char text[];
};

/* A list or a tuple. Lists are mutable as TorchScript's are (aten::append, _set_item): every
 * RtValue that holds the RtSeq sees the change. `items` starts as `inline_items` (one block
 * with the header) and moves to its own allocation when an append outgrows `capacity`. */
struct RtSeq {
  gint refcount;
  guint len, capacity;
  RtValue *items; /* owned references */
  RtValue inline_items[];
};

RtValue rt_none(void);
RtValue rt_int(gint64 v);
RtValue rt_double(double v);
RtValue rt_bool(bool v);
RtValue rt_device(int device);
RtValue rt_tensor(RtTensor *t);   /* takes the reference */
RtValue rt_str(const char *text); /* copies */
/* Takes the references of the n items. */
RtValue rt_list(RtValue *items, guint n);
RtValue rt_tuple(RtValue *items, guint n);
RtValue rt_int_list(const gint64 *v, guint n);
/* Appends `item` (its reference is taken over) to the list in place. */
void rt_list_append(RtValue list, RtValue item);

RtValue rt_value_ref(RtValue v);
void rt_value_unref(RtValue v);

bool rt_value_is_tensor(RtValue v); /* defined or undefined tensor */
/* Number as double (int, double, bool, or 0-dim/one-element tensor). */
bool rt_value_to_double(RtValue v, double *out);
/* int list (RT_LIST of RT_INT) into a buffer of at most max entries. */
bool rt_value_to_int_list(RtValue v, gint64 *out, guint max, guint *n);

/* Human-readable form for messages and the text CLI ("Float(2, 3)", "[1, 2]", "None"). */
void rt_value_print(GString *out, RtValue v);

#endif
