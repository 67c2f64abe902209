/* NumPy .npy reading and writing (format: numpy/lib/format.py, NEP 1).
 *
 * File layout: "\x93NUMPY", major, minor, header length (uint16 LE for 1.x, uint32 LE for 2.x
 * and 3.x), then the header, a Python dict literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape' (latin-1 in 1.x/2.x, UTF-8 in 3.x; only ASCII matters here),
 * padded with spaces and a newline; then the raw elements.
 *
 * Reading is defensive: every length is checked against the bytes actually present before
 * anything is allocated, so a corrupt header cannot cause a huge allocation, and trailing or
 * missing data bytes are errors. Loaded tensors are always C-contiguous (Fortran-order data
 * is transposed on load). int32 and uint8 widen to int64 (lossless).
 *
 * Writing produces what numpy.save writes: version 1.0 (2.0 when the header does not fit a
 * uint16), keys sorted, shape repr as Python prints tuples, the spare space numpy leaves for
 * growing the first axis, padding to a multiple of 64 bytes. */
#include "runtime/npy.h"

#include <string.h>

#include "runtime/file_read.h"
#include "tensor/memory_budget.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_GROWTH_AXIS_MAX_DIGITS 21

static gboolean fail(GError **error, const char *name, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean fail(GError **error, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_FORMAT, "%s: %s", name, msg);
  return FALSE;
}

/* ---- A parser for the Python literal subset numpy writes ---- */

typedef enum { PY_STR, PY_BOOL, PY_INT, PY_TUPLE, PY_LIST, PY_NONE } PyKind;

typedef struct PyVal {
  PyKind kind;
  char *str;        /* PY_STR */
  gint64 i;         /* PY_INT, PY_BOOL */
  GPtrArray *items; /* PY_TUPLE, PY_LIST: PyVal* */
} PyVal;

static void py_free(gpointer p) {
  PyVal *v = p;
  if (v == NULL)
    return;
  g_free(v->str);
  if (v->items)
    g_ptr_array_unref(v->items);
  g_free(v);
}

typedef struct {
  const char *s;
  size_t len, pos;
  const char *name;
  GError **error;
} PyParser;

static void py_skip_ws(PyParser *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
                             p->s[p->pos] == '\r'))
    p->pos++;
}

static bool py_peek(PyParser *p, char c) {
  py_skip_ws(p);
  return p->pos < p->len && p->s[p->pos] == c;
}

static PyVal *py_value(PyParser *p, int depth);

static PyVal *py_seq(PyParser *p, char close, PyKind kind, int depth) {
  PyVal *v = g_new0(PyVal, 1);
  v->kind = kind;
  v->items = g_ptr_array_new_with_free_func(py_free);
  p->pos++; /* opening bracket */
  for (;;) {
    if (py_peek(p, close)) {
      p->pos++;
      return v;
    }
    PyVal *item = py_value(p, depth + 1);
    if (item == NULL) {
      py_free(v);
      return NULL;
    }
    g_ptr_array_add(v->items, item);
    if (py_peek(p, ',')) {
      p->pos++;
    } else if (!py_peek(p, close)) {
      fail(p->error, p->name, "malformed header dict: expected ',' or '%c' at offset %zu", close,
           p->pos);
      py_free(v);
      return NULL;
    }
  }
}

static PyVal *py_value(PyParser *p, int depth) {
  if (depth > 8) {
    fail(p->error, p->name, "malformed header dict: nesting too deep");
    return NULL;
  }
  py_skip_ws(p);
  if (p->pos >= p->len) {
    fail(p->error, p->name, "malformed header dict: unexpected end");
    return NULL;
  }
  char c = p->s[p->pos];
  if (c == '\'' || c == '"') {
    size_t start = ++p->pos;
    while (p->pos < p->len && p->s[p->pos] != c && p->s[p->pos] != '\\')
      p->pos++;
    if (p->pos >= p->len || p->s[p->pos] != c) {
      fail(p->error, p->name, "malformed header dict: unterminated or escaped string");
      return NULL;
    }
    PyVal *v = g_new0(PyVal, 1);
    v->kind = PY_STR;
    v->str = g_strndup(p->s + start, p->pos - start);
    p->pos++;
    return v;
  }
  if (c == '(')
    return py_seq(p, ')', PY_TUPLE, depth);
  if (c == '[')
    return py_seq(p, ']', PY_LIST, depth);
  if (g_ascii_isdigit(c) || c == '-') {
    size_t start = p->pos;
    if (c == '-')
      p->pos++;
    while (p->pos < p->len && g_ascii_isdigit(p->s[p->pos]))
      p->pos++;
    g_autofree char *text = g_strndup(p->s + start, p->pos - start);
    if (p->pos < p->len && (p->s[p->pos] == 'L' || p->s[p->pos] == 'l'))
      p->pos++; /* Python 2 long suffix, written by old numpy */
    gint64 value;
    if (!g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64, &value, NULL)) {
      fail(p->error, p->name, "malformed header dict: bad integer '%s'", text);
      return NULL;
    }
    PyVal *v = g_new0(PyVal, 1);
    v->kind = PY_INT;
    v->i = value;
    return v;
  }
  static const struct {
    const char *word;
    PyKind kind;
    gint64 i;
  } words[] = {{"True", PY_BOOL, 1}, {"False", PY_BOOL, 0}, {"None", PY_NONE, 0}};
  for (size_t w = 0; w < G_N_ELEMENTS(words); w++) {
    size_t n = strlen(words[w].word);
    if (p->len - p->pos >= n && strncmp(p->s + p->pos, words[w].word, n) == 0) {
      p->pos += n;
      PyVal *v = g_new0(PyVal, 1);
      v->kind = words[w].kind;
      v->i = words[w].i;
      return v;
    }
  }
  fail(p->error, p->name, "malformed header dict: unexpected character '%c' at offset %zu",
       g_ascii_isprint(c) ? c : '?', p->pos);
  return NULL;
}

typedef struct {
  PyVal *descr, *fortran, *shape;
} NpyHeader;

static void header_clear(NpyHeader *h) {
  py_free(h->descr);
  py_free(h->fortran);
  py_free(h->shape);
}

/* Parses "{'descr': ..., 'fortran_order': ..., 'shape': ...}" with any key order. */
static gboolean parse_header_dict(const char *text, size_t len, const char *name, NpyHeader *h,
                                  GError **error) {
  PyParser p = {text, len, 0, name, error};
  if (!py_peek(&p, '{'))
    return fail(error, name, "malformed header: not a Python dict literal");
  p.pos++;
  for (;;) {
    if (py_peek(&p, '}')) {
      p.pos++;
      break;
    }
    PyVal *key = py_value(&p, 1);
    if (key == NULL)
      return FALSE;
    if (key->kind != PY_STR) {
      py_free(key);
      return fail(error, name, "malformed header dict: keys must be strings");
    }
    PyVal **slot = strcmp(key->str, "descr") == 0           ? &h->descr
                   : strcmp(key->str, "fortran_order") == 0 ? &h->fortran
                   : strcmp(key->str, "shape") == 0         ? &h->shape
                                                            : NULL;
    if (slot == NULL || *slot != NULL) {
      gboolean r = fail(error, name, "header dict has %s key '%s'",
                        slot ? "a repeated" : "an unexpected", key->str);
      py_free(key);
      return r;
    }
    py_free(key);
    if (!py_peek(&p, ':'))
      return fail(error, name, "malformed header dict: expected ':' at offset %zu", p.pos);
    p.pos++;
    *slot = py_value(&p, 1);
    if (*slot == NULL)
      return FALSE;
    if (py_peek(&p, ','))
      p.pos++;
    else if (!py_peek(&p, '}'))
      return fail(error, name, "malformed header dict: expected ',' or '}' at offset %zu", p.pos);
  }
  py_skip_ws(&p);
  if (p.pos != len)
    return fail(error, name, "malformed header: text after the dict");
  if (h->descr == NULL || h->fortran == NULL || h->shape == NULL)
    return fail(error, name, "header dict lacks the key '%s'",
                h->descr == NULL     ? "descr"
                : h->fortran == NULL ? "fortran_order"
                                     : "shape");
  return TRUE;
}

/* How elements of a descr are stored in the file and what they load as. */
typedef struct {
  IrDtype dtype;
  int file_size; /* bytes per element in the file */
  char kind;     /* 'f', 'i', 'u', 'b' */
} NpyDescr;

static gboolean parse_descr(const PyVal *v, const char *name, NpyDescr *d, GError **error) {
  if (v->kind != PY_STR)
    return fail(error, name,
                "unsupported descr (structured dtype); supported: '<f4', '<f8', "
                "'<f2', '<i8', '<i4', '|u1', '|b1'");
  const char *s = v->str;
  char order = s[0];
  const char *code = s;
  if (order == '<' || order == '>' || order == '|' || order == '=')
    code++;
  else
    order = '=';
  static const struct {
    const char *code;
    IrDtype dtype;
    int size;
    char kind;
  } table[] = {
      {"f4", IR_DTYPE_FLOAT32, 4, 'f'}, {"f8", IR_DTYPE_FLOAT64, 8, 'f'},
      {"f2", IR_DTYPE_FLOAT16, 2, 'f'}, {"i8", IR_DTYPE_INT64, 8, 'i'},
      {"i4", IR_DTYPE_INT64, 4, 'i'},   {"u1", IR_DTYPE_INT64, 1, 'u'},
      {"b1", IR_DTYPE_BOOL, 1, 'b'},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
    if (strcmp(code, table[i].code) != 0)
      continue;
    bool big = order == '>' || (order == '=' && G_BYTE_ORDER == G_BIG_ENDIAN);
    if (big && table[i].size > 1)
      return fail(error, name, "unsupported descr '%s': big-endian data is not supported", s);
    d->dtype = table[i].dtype;
    d->file_size = table[i].size;
    d->kind = table[i].kind;
    return TRUE;
  }
  return fail(error, name,
              "unsupported descr '%s'; supported: '<f4', '<f8', '<f2', '<i8', "
              "'<i4', '|u1', '|b1'",
              s);
}

/* Little-endian loads, independent of the host's byte order. */
static guint64 load_le(const guint8 *p, int n) {
  guint64 v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* Copies n file elements into dst (contiguous, of d->dtype), widening and normalizing. */
static void decode_elements(void *dst, const guint8 *src, int64_t n, const NpyDescr *d) {
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && d->kind == 'f' && n > 0) {
    memcpy(dst, src, (size_t)n * (size_t)d->file_size);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    const guint8 *p = src + i * d->file_size;
    guint64 raw = load_le(p, d->file_size);
    switch (d->kind) {
    case 'f':
      if (d->file_size == 2) {
        ((uint16_t *)dst)[i] = (uint16_t)raw;
      } else if (d->file_size == 4) {
        guint32 r32 = (guint32)raw;
        memcpy((float *)dst + i, &r32, 4);
      } else {
        memcpy((double *)dst + i, &raw, 8);
      }
      break;
    case 'i':
      ((int64_t *)dst)[i] = d->file_size == 4 ? (int64_t)(gint32)(guint32)raw : (int64_t)raw;
      break;
    case 'u': ((int64_t *)dst)[i] = (int64_t)raw; break;
    case 'b': ((uint8_t *)dst)[i] = raw != 0; break;
    default: g_error("npy decode: invalid element kind '%c'", d->kind);
    }
  }
}

RtTensor *rt_npy_load_bytes(const guint8 *bytes, gsize length, const char *name, GError **error) {
  if (length < NPY_MAGIC_LEN + 2 || memcmp(bytes, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
    fail(error, name, "not a NumPy .npy file (bad magic string)");
    return NULL;
  }
  int major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    fail(error, name, "unsupported .npy format version %d.%d (supported: 1.0, 2.0, 3.0)", major,
         minor);
    return NULL;
  }
  gsize len_size = major == 1 ? 2 : 4;
  gsize pos = NPY_MAGIC_LEN + 2;
  if (length < pos + len_size) {
    fail(error, name, "truncated header (file ends inside the header length)");
    return NULL;
  }
  guint64 header_len = load_le(bytes + pos, (int)len_size);
  pos += len_size;
  if (header_len > length - pos) {
    fail(error, name,
         "truncated header: header length %" G_GUINT64_FORMAT " but only %" G_GSIZE_FORMAT
         " bytes follow",
         header_len, length - pos);
    return NULL;
  }
  const char *htext = (const char *)bytes + pos;
  for (guint64 i = 0; i < header_len; i++) {
    if (htext[i] == '\0') {
      fail(error, name, "malformed header: NUL byte at offset %" G_GUINT64_FORMAT, i);
      return NULL;
    }
  }
  pos += header_len;

  NpyHeader h = {0};
  NpyDescr d;
  RtTensor *t = NULL;
  if (!parse_header_dict(htext, header_len, name, &h, error))
    goto out;
  if (!parse_descr(h.descr, name, &d, error))
    goto out;
  if (h.fortran->kind != PY_BOOL) {
    fail(error, name, "header 'fortran_order' must be True or False");
    goto out;
  }
  if (h.shape->kind != PY_TUPLE) {
    fail(error, name, "header 'shape' must be a tuple");
    goto out;
  }
  guint ndim = h.shape->items->len;
  if (ndim > RT_MAX_DIMS) {
    fail(error, name, "shape has %u dimensions; at most %d are supported", ndim, RT_MAX_DIMS);
    goto out;
  }
  int64_t sizes[RT_MAX_DIMS];
  for (guint i = 0; i < ndim; i++) {
    const PyVal *e = g_ptr_array_index(h.shape->items, i);
    if (e->kind != PY_INT || e->i < 0) {
      fail(error, name, "shape entries must be non-negative integers");
      goto out;
    }
    sizes[i] = e->i;
  }
  /* The loaded dtype is never narrower than the file's, so its checked byte size bounds the
   * file's too. */
  guint64 tensor_bytes = 0;
  GError *shape_error = NULL;
  if (!rt_shape_checked_bytes(d.dtype, (int)ndim, sizes, &tensor_bytes, &shape_error)) {
    fail(error, name, "%s", shape_error->message);
    g_error_free(shape_error);
    goto out;
  }
  int64_t numel = (int64_t)(tensor_bytes / rt_dtype_size(d.dtype));
  gsize data_len = length - pos;
  gsize need = (gsize)numel * (gsize)d.file_size;
  if (data_len < need) {
    fail(error, name,
         "truncated data: shape and descr '%s' need %" G_GSIZE_FORMAT
         " bytes, file has %" G_GSIZE_FORMAT,
         h.descr->str, need, data_len);
    goto out;
  }
  if (data_len > need) {
    fail(error, name,
         "size mismatch: %" G_GSIZE_FORMAT
         " data bytes, but shape and descr '%s' need %" G_GSIZE_FORMAT,
         data_len, h.descr->str, need);
    goto out;
  }
  /* Fortran order decodes into a second tensor before the transposing copy. */
  bool fortran = h.fortran->i != 0;
  if (!rt_memory_check(fortran ? MIN(tensor_bytes, G_MAXUINT64 / 2) * 2 : tensor_bytes,
                       &shape_error)) {
    fail(error, name, "%s", shape_error->message);
    g_error_free(shape_error);
    goto out;
  }
  if (!fortran || ndim < 2) {
    t = rt_tensor_new(d.dtype, (int)ndim, sizes);
    decode_elements(rt_tensor_data(t), bytes + pos, numel, &d);
  } else {
    /* Column-major data: decode with reversed sizes, then transpose back to row-major. */
    int64_t rev[RT_MAX_DIMS];
    for (guint i = 0; i < ndim; i++)
      rev[i] = sizes[ndim - 1 - i];
    RtTensor *f = rt_tensor_new(d.dtype, (int)ndim, rev);
    decode_elements(rt_tensor_data(f), bytes + pos, numel, &d);
    int64_t strides[RT_MAX_DIMS];
    for (guint i = 0; i < ndim; i++)
      strides[i] = f->strides[ndim - 1 - i];
    RtTensor *view = rt_tensor_new_strided(f->storage, d.dtype, (int)ndim, sizes, strides, 0);
    t = rt_tensor_clone(view);
    rt_tensor_unref(view);
    rt_tensor_unref(f);
  }
out:
  header_clear(&h);
  return t;
}

RtTensor *rt_npy_load(const char *path, GError **error) {
  g_autofree gchar *contents = NULL;
  gsize length = 0;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &contents, &length, error))
    return NULL;
  return rt_npy_load_bytes((const guint8 *)contents, length, path, error);
}

static const char *descr_of(IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return "<f4";
  case IR_DTYPE_FLOAT64: return "<f8";
  case IR_DTYPE_FLOAT16: return "<f2";
  case IR_DTYPE_INT64: return "<i8";
  case IR_DTYPE_BOOL: return "|b1";
  default: break;
  }
  g_error("rt_npy: invalid dtype %d", (int)dtype);
}

GBytes *rt_npy_to_bytes(const RtTensor *t) {
  if (t->storage->device != IR_DEVICE_CPU)
    g_error("rt_npy_to_bytes: tensor is not in host memory (copy it to the CPU first)");
  GString *dict = g_string_new(NULL);
  g_string_append_printf(dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                         descr_of(t->dtype));
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf(dict, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->sizes[d]);
  if (t->ndim == 1)
    g_string_append_c(dict, ',');
  g_string_append(dict, "), }");
  if (t->ndim > 0) {
    g_autofree char *first = g_strdup_printf("%" G_GINT64_FORMAT, t->sizes[0]);
    int spare = NPY_GROWTH_AXIS_MAX_DIGITS - (int)strlen(first);
    for (int i = 0; i < spare; i++)
      g_string_append_c(dict, ' ');
  }
  gsize hlen = dict->len + 1; /* with the final newline */
  int major = 1;
  gsize prefix = NPY_MAGIC_LEN + 2 + 2;
  gsize pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
  if (hlen + pad > G_MAXUINT16) {
    major = 2;
    prefix = NPY_MAGIC_LEN + 2 + 4;
    pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
  }
  gsize header_total = hlen + pad;
  int64_t numel = rt_tensor_numel(t);
  gsize es = rt_dtype_size(t->dtype);
  gsize total = prefix + header_total + (gsize)numel * es;
  guint8 *buf = g_malloc(total);
  memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
  buf[6] = (guint8)major;
  buf[7] = 0;
  for (gsize i = 0; i < prefix - 8; i++)
    buf[8 + i] = (guint8)(header_total >> (8 * i));
  memcpy(buf + prefix, dict->str, dict->len);
  memset(buf + prefix + dict->len, ' ', pad);
  buf[prefix + header_total - 1] = '\n';
  g_string_free(dict, TRUE);

  /* Elements in row-major order, little-endian. */
  guint8 *out = buf + prefix + header_total;
  RtTensor *c = rt_tensor_contiguous((RtTensor *)t);
  const guint8 *src = rt_tensor_data(c);
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN || es == 1) {
    if (numel > 0)
      memcpy(out, src, (size_t)numel * es);
  } else {
    for (int64_t i = 0; i < numel; i++)
      for (gsize b = 0; b < es; b++)
        out[i * es + b] = src[i * es + es - 1 - b];
  }
  rt_tensor_unref(c);
  return g_bytes_new_take(buf, total);
}

bool rt_npy_save(const char *path, const RtTensor *t, GError **error) {
  g_autoptr(GBytes) bytes = rt_npy_to_bytes(t);
  gsize n;
  const char *data = g_bytes_get_data(bytes, &n);
  g_autoptr(GError) io = NULL;
  bool ok = g_file_set_contents(path, data, (gssize)n, &io);
  if (!ok)
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO, "%s: %s", path, io->message);
  return ok;
}
