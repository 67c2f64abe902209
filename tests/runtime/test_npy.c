/* .npy reading and writing: fixtures assembled from bytes here, every malformed-file case,
 * and the corpus files written by NumPy (byte-identical round trip for C-order files). */
#include "runtime/npy.h"

#include <glib/gstdio.h>
#include <string.h>

#include "jitscope-config.h"

/* Builds a .npy image: magic, version major.0 (or an explicit minor), header length in the
 * version's width, the header text as given (no padding added), then data. */
static GByteArray *npy_image(int major, int minor, const char *header, const void *data,
                             gsize data_len) {
  GByteArray *b = g_byte_array_new();
  g_byte_array_append(b, (const guint8 *)"\x93NUMPY", 6);
  guint8 ver[2] = {(guint8)major, (guint8)minor};
  g_byte_array_append(b, ver, 2);
  guint32 hl = (guint32)strlen(header);
  guint8 len[4] = {hl & 0xff, (hl >> 8) & 0xff, (hl >> 16) & 0xff, (hl >> 24) & 0xff};
  g_byte_array_append(b, len, major == 1 ? 2 : 4);
  g_byte_array_append(b, (const guint8 *)header, hl);
  if (data_len)
    g_byte_array_append(b, data, (guint)data_len);
  return b;
}

static RtTensor *load(GByteArray *b, GError **error) {
  RtTensor *t = rt_npy_load_bytes(b->data, b->len, "fixture.npy", error);
  g_byte_array_unref(b);
  return t;
}

static void test_read_versions(void) {
  const float v[6] = {0, 1, 2, 3, 4, 5.5f};
  for (int major = 1; major <= 3; major++) {
    GError *error = NULL;
    RtTensor *t = load(npy_image(major, 0,
                                 "{'descr': '<f4', 'fortran_order': False, 'shape': "
                                 "(2, 3), }          \n",
                                 v, sizeof v),
                       &error);
    g_assert_no_error(error);
    g_assert_cmpint(t->dtype, ==, IR_DTYPE_FLOAT32);
    g_assert_cmpint(t->ndim, ==, 2);
    g_assert_cmpint(t->sizes[0], ==, 2);
    g_assert_cmpint(t->sizes[1], ==, 3);
    g_assert_cmpfloat(rt_tensor_get(t, 5), ==, 5.5);
    rt_tensor_unref(t);
  }
}

static void test_read_fortran(void) {
  /* Column-major [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6. */
  const double v[6] = {1, 4, 2, 5, 3, 6};
  GError *error = NULL;
  RtTensor *t = load(npy_image(1, 0,
                               "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), "
                               "}\n",
                               v, sizeof v),
                     &error);
  g_assert_no_error(error);
  g_assert_true(rt_tensor_is_contiguous(t));
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(((double *)rt_tensor_data(t))[i], ==, i + 1);
  rt_tensor_unref(t);
  /* 3-d: element (i, j, k) of shape (2, 2, 2) sits at i + 2 j + 4 k; store value 100i+10j+k */
  double w[8];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 2; k++)
        w[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
  t = load(npy_image(1, 0, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }\n", w,
                     sizeof w),
           &error);
  g_assert_no_error(error);
  for (int q = 0; q < 8; q++)
    g_assert_cmpfloat(rt_tensor_get(t, q), ==, 100 * (q / 4) + 10 * ((q / 2) % 2) + q % 2);
  rt_tensor_unref(t);
}

static void test_read_shapes_and_dtypes(void) {
  GError *error = NULL;
  /* 0-dim, written with double quotes, keys reordered, no trailing comma, no newline. */
  const double x = -2.25;
  RtTensor *t =
      load(npy_image(1, 0, "{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f8\"}", &x, 8),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->ndim, ==, 0);
  g_assert_cmpfloat(rt_tensor_get(t, 0), ==, -2.25);
  rt_tensor_unref(t);
  /* (5,), int32 widened, negative values. */
  const gint32 i32[5] = {-1, 0, 1, 2147483647, -2147483647 - 1};
  t = load(npy_image(1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }\n", i32,
                     sizeof i32),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->dtype, ==, IR_DTYPE_INT64);
  g_assert_cmpint(t->sizes[0], ==, 5);
  g_assert_cmpint(((int64_t *)rt_tensor_data(t))[0], ==, -1);
  g_assert_cmpint(((int64_t *)rt_tensor_data(t))[3], ==, 2147483647);
  g_assert_cmpint(((int64_t *)rt_tensor_data(t))[4], ==, -2147483648LL);
  rt_tensor_unref(t);
  /* int64 with a Python-2 long suffix in the shape */
  const gint64 i64[2] = {(INT64_C(1) << 62) + 7, -3};
  t = load(npy_image(1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (2L,), }\n", i64,
                     sizeof i64),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(((int64_t *)rt_tensor_data(t))[0], ==, (INT64_C(1) << 62) + 7);
  rt_tensor_unref(t);
  /* bool (nonzero bytes normalize to true) and uint8 */
  const guint8 bytes[3] = {0, 1, 2};
  t = load(npy_image(1, 0, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", bytes, 3),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->dtype, ==, IR_DTYPE_BOOL);
  g_assert_cmpint(((uint8_t *)rt_tensor_data(t))[2], ==, 1);
  rt_tensor_unref(t);
  t = load(npy_image(1, 0, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", bytes, 3),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->dtype, ==, IR_DTYPE_INT64);
  g_assert_cmpfloat(rt_tensor_get(t, 2), ==, 2);
  rt_tensor_unref(t);
  /* half: 0x3c00 = 1, 0xc000 = -2 */
  const guint8 half[4] = {0x00, 0x3c, 0x00, 0xc0};
  t = load(npy_image(1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }\n", half, 4),
           &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->dtype, ==, IR_DTYPE_FLOAT16);
  g_assert_cmpfloat(rt_tensor_get(t, 0), ==, 1.0);
  g_assert_cmpfloat(rt_tensor_get(t, 1), ==, -2.0);
  rt_tensor_unref(t);
  /* empty (0, 3) */
  t = load(
      npy_image(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }\n", NULL, 0),
      &error);
  g_assert_no_error(error);
  g_assert_cmpint(rt_tensor_numel(t), ==, 0);
  g_assert_cmpint(t->sizes[1], ==, 3);
  rt_tensor_unref(t);
}

/* Loads the image and expects a format error whose message contains `part`. */
static void expect_error(GByteArray *b, const char *part) {
  GError *error = NULL;
  RtTensor *t = load(b, &error);
  g_assert_null(t);
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_FORMAT);
  if (strstr(error->message, part) == NULL || strstr(error->message, "fixture.npy") == NULL)
    g_error("message '%s' lacks '%s' or the file name", error->message, part);
  g_error_free(error);
}

static void test_malformed(void) {
  const float v[4] = {1, 2, 3, 4};
  const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n";
  /* wrong magic */
  GByteArray *b = npy_image(1, 0, ok, v, sizeof v);
  b->data[1] = 'M';
  expect_error(b, "bad magic");
  b = g_byte_array_new();
  g_byte_array_append(b, (const guint8 *)"\x93NUM", 4);
  expect_error(b, "bad magic");
  /* versions */
  expect_error(npy_image(4, 0, ok, v, sizeof v), "version 4.0");
  expect_error(npy_image(1, 1, ok, v, sizeof v), "version 1.1");
  expect_error(npy_image(0, 0, ok, v, sizeof v), "version 0.0");
  /* truncated header: inside the length field, and shorter than its declared length */
  b = npy_image(2, 0, ok, NULL, 0);
  g_byte_array_set_size(b, 10);
  expect_error(b, "truncated header");
  b = npy_image(1, 0, ok, NULL, 0);
  g_byte_array_set_size(b, b->len - 5);
  expect_error(b, "truncated header");
  /* Headers (version 1.0, the data of v) and the error each must give. */
  static const struct {
    const char *header, *error;
  } bad_headers[] = {
      /* bad dicts */
      {"['descr', '<f4']\n", "not a Python dict"},
      {"{'descr': '<f4', 'shape': (4,), }\n", "lacks the key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), "
       "'extra': 1}\n",
       "unexpected key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (4,)}\n",
       "repeated key 'descr'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (4,)}\n", "malformed header dict"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (4,)}\n", "malformed header dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x\n", "text after the dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,\n", "malformed header dict"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (4,)}\n",
       "'fortran_order' must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [4]}\n", "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}\n", "non-negative integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ('4',)}\n", "non-negative integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}\n",
       "bad integer"},
      /* unsupported descr, structured descr, big-endian */
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", "unsupported descr '<c8'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': "
       "(4,), }\n",
       "structured dtype"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }\n",
       "unsupported descr '>f4': big-endian"},
      /* data size: trailing bytes, truncated data, absurd shapes (no allocation happens) */
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", "size mismatch"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }\n", "truncated data"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': "
       "(1099511627776, 1099511627776), }\n",
       "too large"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': "
       "(4611686018427387904,), }\n",
       "too large"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': "
       "(1000000000, 1000), }\n",
       "truncated data"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }\n",
       "at most 16"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad_headers); i++)
    expect_error(npy_image(1, 0, bad_headers[i].header, v, sizeof v), bad_headers[i].error);
  /* header with a NUL byte */
  b = npy_image(1, 0, ok, v, sizeof v);
  b->data[12] = 0;
  expect_error(b, "NUL byte");
}

static void test_missing_file(void) {
  GError *error = NULL;
  g_assert_null(rt_npy_load("/nonexistent/dir/x.npy", &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO);
  g_assert_nonnull(strstr(error->message, "/nonexistent/dir/x.npy"));
  g_error_free(error);
}

static void test_write_round_trip(void) {
  const IrDtype dtypes[5] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64, IR_DTYPE_FLOAT16, IR_DTYPE_INT64,
                             IR_DTYPE_BOOL};
  int64_t s[3] = {2, 3, 4};
  for (int k = 0; k < 5; k++) {
    RtTensor *t = rt_tensor_new(dtypes[k], 3, s);
    for (int i = 0; i < 24; i++)
      rt_tensor_set(t, i, (i % 5) - 1.5 * (k != 3 && k != 4));
    /* Save a transposed view: the file must hold the view's row-major order. */
    RtTensor *tt = rt_tensor_view_transpose(t, 0, 2);
    GBytes *bytes = rt_npy_to_bytes(tt);
    gsize n;
    const guint8 *data = g_bytes_get_data(bytes, &n);
    guint hl = data[8] | (data[9] << 8);
    g_assert_cmpint(data[6], ==, 1);
    g_assert_cmpint(data[7], ==, 0);
    g_assert_cmpuint((10 + hl) % 64, ==, 0);
    g_assert_cmpint(data[10 + hl - 1], ==, '\n');
    g_assert_cmpuint(n, ==, 10 + hl + 24 * rt_dtype_size(dtypes[k]));
    g_assert_true(strncmp((const char *)data + 10, "{'descr': '", 11) == 0);
    g_assert_nonnull(g_strstr_len((const char *)data + 10, hl, "'shape': (4, 3, 2), }"));
    GError *error = NULL;
    RtTensor *back = rt_npy_load_bytes(data, n, "mem", &error);
    g_assert_no_error(error);
    g_assert_cmpint(back->dtype, ==, dtypes[k]);
    g_assert_cmpint(back->ndim, ==, 3);
    for (int i = 0; i < 24; i++)
      g_assert_cmpfloat(rt_tensor_get(back, i), ==, rt_tensor_get(tt, i));
    rt_tensor_unref(back);
    g_bytes_unref(bytes);
    rt_tensor_unref(tt);
    rt_tensor_unref(t);
  }
  /* 0-dim and 1-dim shapes print as Python tuples; save to a real file and back. */
  RtTensor *s0 = rt_tensor_scalar(IR_DTYPE_FLOAT64, 4.5);
  GBytes *bytes = rt_npy_to_bytes(s0);
  gsize n;
  const char *d = g_bytes_get_data(bytes, &n);
  g_assert_nonnull(g_strstr_len(d + 10, (gssize)n - 10, "'shape': (), }"));
  /* dict "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" is 55 bytes, no growth
   * space for 0-dim; 10 + 56 padded to 128, then 8 data bytes. */
  g_assert_cmpuint(n, ==, 128 + 8);
  g_bytes_unref(bytes);
  g_autofree char *dir = g_dir_make_tmp("jitscope-npy-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "x.npy", NULL);
  GError *error = NULL;
  g_assert_true(rt_npy_save(path, s0, &error));
  g_assert_no_error(error);
  RtTensor *back = rt_npy_load(path, &error);
  g_assert_no_error(error);
  g_assert_cmpint(back->ndim, ==, 0);
  g_assert_cmpfloat(rt_tensor_get(back, 0), ==, 4.5);
  rt_tensor_unref(back);
  g_remove(path);
  g_rmdir(dir);
  g_autofree char *bad = g_build_filename(dir, "missing", "x.npy", NULL);
  g_assert_false(rt_npy_save(bad, s0, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_IO);
  g_clear_error(&error);
  rt_tensor_unref(s0);
}

/* Shape text "(2, 3)" as the file's own header spells it, cut out with string search (an
 * independent reading of the header). */
static char *raw_shape_text(const guint8 *data, gsize n) {
  guint hl = data[8] | (data[9] << 8);
  g_autofree char *h = g_strndup((const char *)data + 10, MIN(hl, n - 10));
  const char *s = strstr(h, "'shape': (");
  g_assert_nonnull(s);
  s += strlen("'shape': ");
  const char *e = strchr(s, ')');
  g_assert_nonnull(e);
  return g_strndup(s, (gsize)(e - s + 1));
}

static char *tuple_text(const RtTensor *t) {
  GString *s = g_string_new("(");
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf(s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->sizes[d]);
  if (t->ndim == 1)
    g_string_append_c(s, ',');
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

static void test_corpus(void) {
  const char *corpus = g_getenv("JITSCOPE_CORPUS_DIR");
  if (corpus == NULL)
    corpus = JITSCOPE_CORPUS_DIR;
  GDir *top = g_dir_open(corpus, 0, NULL);
  if (top == NULL) {
    g_test_skip("corpus not found");
    return;
  }
  int files = 0, c_order = 0, fortran = 0;
  const char *prog;
  while ((prog = g_dir_read_name(top)) != NULL) {
    g_autofree char *pdir = g_build_filename(corpus, prog, NULL);
    GDir *pd = g_dir_open(pdir, 0, NULL);
    if (pd == NULL)
      continue;
    const char *cs;
    while ((cs = g_dir_read_name(pd)) != NULL) {
      if (!g_str_has_prefix(cs, "case-"))
        continue;
      g_autofree char *cdir = g_build_filename(pdir, cs, NULL);
      GDir *cd = g_dir_open(cdir, 0, NULL);
      const char *fn;
      while (cd && (fn = g_dir_read_name(cd)) != NULL) {
        if (!g_str_has_suffix(fn, ".npy"))
          continue;
        g_autofree char *path = g_build_filename(cdir, fn, NULL);
        gchar *raw;
        gsize n;
        g_assert_true(g_file_get_contents(path, &raw, &n, NULL));
        GError *error = NULL;
        RtTensor *t = rt_npy_load(path, &error);
        g_assert_no_error(error);
        g_autofree char *want = raw_shape_text((const guint8 *)raw, n);
        g_autofree char *got = tuple_text(t);
        g_assert_cmpstr(got, ==, want);
        guint hl = (guint8)raw[8] | ((guint8)raw[9] << 8);
        bool is_fortran = g_strstr_len(raw + 10, hl, "'fortran_order': True") != NULL;
        if (!is_fortran) {
          GBytes *out = rt_npy_to_bytes(t);
          gsize on;
          const void *od = g_bytes_get_data(out, &on);
          g_assert_cmpmem(od, on, raw, n);
          g_bytes_unref(out);
          c_order++;
        } else {
          /* Independent check: element (i, j) of a 2-d file is data[j * rows + i]. */
          g_assert_cmpint(t->ndim, ==, 2);
          int64_t rows = t->sizes[0], cols = t->sizes[1];
          const char *data = raw + 10 + hl;
          size_t es = rt_dtype_size(t->dtype);
          for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
              double want_v;
              if (es == 4) {
                float f;
                memcpy(&f, data + (j * rows + i) * 4, 4);
                want_v = f;
              } else {
                memcpy(&want_v, data + (j * rows + i) * 8, 8);
              }
              g_assert_cmpfloat(rt_tensor_get(t, i * cols + j), ==, want_v);
            }
          fortran++;
        }
        rt_tensor_unref(t);
        g_free(raw);
        files++;
      }
      if (cd)
        g_dir_close(cd);
    }
    g_dir_close(pd);
  }
  g_dir_close(top);
  g_test_message("corpus: %d files, %d C order, %d Fortran order", files, c_order, fortran);
  g_assert_cmpint(files, >, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/npy/read-versions", test_read_versions);
  g_test_add_func("/runtime/npy/read-fortran", test_read_fortran);
  g_test_add_func("/runtime/npy/read-shapes-dtypes", test_read_shapes_and_dtypes);
  g_test_add_func("/runtime/npy/malformed", test_malformed);
  g_test_add_func("/runtime/npy/missing-file", test_missing_file);
  g_test_add_func("/runtime/npy/write-round-trip", test_write_round_trip);
  g_test_add_func("/runtime/npy/corpus", test_corpus);
  return g_test_run();
}
