/* Interpreter values (PyTorch's IValue): None, tensors (NULL tensor = undefined), ints,
 * doubles, bools, strings, devices, lists, tuples and dicts. RtValue is passed by value; the heap
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
  RT_DICT,
} RtTag;

typedef struct RtSeq RtSeq;
typedef struct RtString RtString;
typedef struct RtDict RtDict;

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
    RtDict *dict;
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

/* A dict as TorchScript's: keys are str, int or tensors (a tensor key is the tensor itself,
 * by identity, as PyTorch hashes them), iteration in insertion order as Python's, mutable in
 * place (aten::_set_item, pop, update, clear: every holder sees the change). Lookups are
 * linear in the number of entries, which stays small in scripts. */
struct RtDict {
  gint refcount;
  guint len, capacity;
  RtValue *keys;   /* owned references, insertion order */
  RtValue *values; /* owned references, values[i] belongs to keys[i] */
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

/* An empty dict. */
RtValue rt_dict_new(void);
/* Two keys are the same entry: equal str, equal int, or the same tensor object. */
bool rt_dict_key_equal(RtValue a, RtValue b);
/* Index of `key` in the dict's insertion order, or -1. */
gint64 rt_dict_find(const RtDict *dict, RtValue key);
/* d[key] = value in place: replaces the value of an existing key (keeping its position),
 * else appends the entry. Takes the references of key and value. */
void rt_dict_set(RtValue dict, RtValue key, RtValue value);
/* Removes the entry at `index` (0 <= index < len), keeping the others' order, and returns
 * its value (the reference is handed to the caller). */
RtValue rt_dict_take(RtDict *dict, guint index);

RtValue rt_value_ref(RtValue v);
void rt_value_unref(RtValue v);

bool rt_value_is_tensor(RtValue v); /* defined or undefined tensor */
/* Number as double (int, double, bool, or 0-dim/one-element tensor). */
bool rt_value_to_double(RtValue v, double *out);
/* int list (RT_LIST of RT_INT) into a buffer of at most max entries. */
bool rt_value_to_int_list(RtValue v, gint64 *out, guint max, guint *n);

/* Human-readable form for messages and the text CLI ("Float(2, 3)", "[1, 2]", "None",
 * "{\"a\": Float(2)}"). */
void rt_value_print(GString *out, RtValue v);

#endif
