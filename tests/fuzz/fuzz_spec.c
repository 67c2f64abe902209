/* libFuzzer target for the SPEC parser (app/input/input_spec.h). For every input (read as text up
 * to its first NUL): input_spec_parse either fails with a JITSCOPE_APP_ERROR or returns a
 * spec; a TYPE or scalar spec's value is made (drawn under the fuzz memory budget), which
 * either fails with an error or gives a value that fits the spec (dtype, rank, sizes), and
 * the spec's description is printable. .npy specs are not loaded (the fuzz_npy target reads
 * .npy bytes). Any violation aborts. */
#include <string.h>

#include "app_error.h"
#include "fuzz_common.h"
#include "input_spec.h"

static void check_value(const InputSpec *spec, RtValue value) {
  if (spec->kind != INPUT_SPEC_TYPE)
    return;
  const RtTensor *t = value.tag == RT_TENSOR ? value.u.tensor : NULL;
  if (t == NULL || t->dtype != spec->dtype || t->ndim != spec->ndim ||
      t->requires_grad != spec->requires_grad)
    g_error("fuzz invariant: the drawn tensor does not fit its spec '%s'", spec->text);
  for (int d = 0; d < t->ndim; d++)
    if (t->sizes[d] != spec->sizes[d])
      g_error("fuzz invariant: the drawn tensor's shape differs from '%s'", spec->text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_setup_once();
  g_autofree char *text = g_strndup((const char *)data, size);
  GError *error = NULL;
  InputSpec *spec = input_spec_parse(text, &error);
  if (spec == NULL) {
    if (error == NULL || error->domain != JITSCOPE_APP_ERROR)
      g_error("fuzz invariant: a refused SPEC must set a CLI error");
    g_error_free(error);
    return 0;
  }
  RtValue value = rt_none();
  if (spec->kind != INPUT_SPEC_NPY) {
    if (input_spec_make_value(spec, 0, 0, &value, &error)) {
      check_value(spec, value);
    } else {
      if (error == NULL)
        g_error("fuzz invariant: a failed value must set an error");
      g_clear_error(&error);
    }
  }
  g_free(input_spec_describe(spec, value));
  rt_value_unref(value);
  input_spec_free(spec);
  return 0;
}
