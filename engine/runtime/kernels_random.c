/* Random kernels: rt_kernel_random (rand, randn, rand_like, randn_like, bernoulli in its
 * three forms) and rt_kernel_dropout (dropout, native_dropout, native_dropout_backward).
 *
 * Contracts as PyTorch 1.13 on the CPU, drawing from the process's generator
 * (tensor/rng.h) in row-major order of a fresh contiguous result:
 * - rand / randn(size, dtype, layout, device, pin_memory) and rand_like / randn_like(self,
 *   ...): uniform [0, 1) / standard normal values; dtype None is float32 (the _like ops:
 *   self's dtype); only float32 and float64, the strided layout and the cpu device.
 * - bernoulli(self): 1 with probability self[i] (self's dtype and shape); bernoulli.p(self,
 *   p): probability p; bernoulli.Tensor(self, p): p broadcast to self's shape. Every
 *   probability must lie in [0, 1]. An explicit Generator argument is an error: only the
 *   run's generator exists.
 * - dropout(input, p, train) (_dropout_impl): input itself when train is false, p is 0 or
 *   input is empty; input * 0 when p is 1 (no draw); else noise = bernoulli(1 - p) in input's
 *   dtype, noise /= (1 - p) in that dtype, result input * noise.
 * - native_dropout(input, p, train): (output, mask bool); train None or true: mask =
 *   bernoulli(1 - p), output = input * mask * scale with scale = 1 / (1 - p) (0 when p is
 *   1), the scale rounded to input's dtype; train false: a copy of input and a mask of
 *   ones. An empty input gives input itself and an empty mask.
 * - native_dropout_backward(grad, mask, scale) = grad * mask * scale, in grad's dtype.
 * p outside [0, 1] is an error; the dropouts draw for float32 and float64 inputs only. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"
#include "tensor/memory_budget.h"
#include "tensor/rng.h"

#include <string.h>

static bool float_dtype(const IrSchema *schema, IrDtype dtype, GError **error) {
  if (dtype == IR_DTYPE_FLOAT32 || dtype == IR_DTYPE_FLOAT64)
    return true;
  K_ERR_DTYPE(error, "\"%s\" not implemented for '%s': jitscope draws float32 and float64",
              k_op_short_name(schema), ir_dtype_type_name(dtype));
  return false;
}

static bool cpu_only(const IrSchema *schema, RtValue *args, guint device, GError **error) {
  if (args[device].tag == RT_DEVICE && args[device].u.device != IR_DEVICE_CPU) {
    K_ERR(error, "%s(): the CPU kernel cannot create a tensor on device %s",
          k_op_short_name(schema), ir_device_name(args[device].u.device));
    return false;
  }
  return true;
}

static bool no_generator(const IrSchema *schema, RtValue *args, guint i, GError **error) {
  if (k_arg_is_none(args, i))
    return true;
  K_ERR(error,
        "%s(): an explicit Generator is not supported; runs draw from the generator "
        "that --seed seeds",
        k_op_short_name(schema));
  return false;
}

static bool check_probability(const IrSchema *schema, double p, GError **error) {
  if (p >= 0 && p <= 1)
    return true;
  K_ERR(error, "%s(): probability has to be between 0 and 1, but got %g", k_op_short_name(schema),
        p);
  return false;
}

/* rand, randn and their _like forms. */
static bool draw(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  bool like = schema->kind == IR_ATEN_RAND_LIKE || schema->kind == IR_ATEN_RANDN_LIKE;
  int64_t sizes[RT_MAX_DIMS];
  int nd;
  IrDtype dtype = IR_DTYPE_FLOAT32, given;
  bool has_dtype;
  if (like) {
    RtTensor *self;
    if (!k_arg_tensor(schema, args, 0, &self, error))
      return false;
    nd = self->ndim;
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)nd);
    dtype = self->dtype;
  } else if (!k_arg_int_list(schema, args, 0, sizes, &nd, error)) {
    return false;
  }
  if (!k_arg_dtype(schema, args, 1, &has_dtype, &given, error) || !cpu_only(schema, args, 3, error))
    return false;
  if (has_dtype)
    dtype = given;
  if (!like && !k_arg_is_none(args, 2)) {
    gint64 layout;
    if (!k_arg_int(schema, args, 2, &layout, error))
      return false;
    if (layout != 0) {
      K_ERR(error, "%s(): only the strided layout is supported, got layout %" G_GINT64_FORMAT,
            k_op_short_name(schema), layout);
      return false;
    }
  }
  if (!float_dtype(schema, dtype, error))
    return false;
  RtTensor *out = rt_tensor_new_checked(dtype, nd, sizes, error);
  if (!out)
    return false;
  RtGenerator *g = rt_generator_lock();
  if (schema->kind == IR_ATEN_RAND || schema->kind == IR_ATEN_RAND_LIKE)
    rt_generator_uniform(g, out, 0, 1);
  else
    rt_generator_normal(g, out, 0, 1);
  rt_generator_unlock(g);
  outs[0] = rt_tensor(out);
  return true;
}

/* Are all of t's values probabilities? */
static bool probabilities(const IrSchema *schema, const RtTensor *t, GError **error) {
  const char *d = rt_tensor_data((RtTensor *)t);
  size_t es = rt_dtype_size(t->dtype);
  for (int64_t i = 0; i < rt_tensor_numel(t); i++)
    if (!check_probability(schema, rt_load_element(d + (size_t)i * es, t->dtype), error))
      return false;
  return true;
}

static bool bernoulli(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  RtTensor *self;
  bool scalar_p = k_overload_is(schema, "p"), tensor_p = k_overload_is(schema, "Tensor");
  KScalar p = {K_SCALAR_FLOAT, 0, 0};
  RtTensor *p_tensor = NULL;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      (scalar_p && !k_arg_scalar(schema, args, 1, &p, error)) ||
      (tensor_p && !k_arg_tensor(schema, args, 1, &p_tensor, error)) ||
      !no_generator(schema, args, scalar_p || tensor_p ? 2 : 1, error))
    return false;
  if (!scalar_p && !tensor_p)
    p_tensor = self;
  if (scalar_p && !check_probability(schema, p.d, error))
    return false;
  RtTensor *probs = NULL;
  if (p_tensor) {
    RtTensor *expanded = rt_tensor_view_expand(p_tensor, self->ndim, self->sizes, NULL);
    if (!expanded) {
      char shape[64];
      k_shape_text(shape, sizeof shape, p_tensor->ndim, p_tensor->sizes);
      K_ERR_SHAPE(error, "%s(): p of shape %s does not broadcast to self's shape",
                  k_op_short_name(schema), shape);
      return false;
    }
    probs = rt_tensor_contiguous(expanded);
    rt_tensor_unref(expanded);
    if (!probabilities(schema, probs, error)) {
      rt_tensor_unref(probs);
      return false;
    }
  }
  RtTensor *out = rt_tensor_new_checked(self->dtype, self->ndim, self->sizes, error);
  if (out) {
    RtGenerator *g = rt_generator_lock();
    rt_generator_bernoulli(g, out, p.d, probs);
    rt_generator_unlock(g);
    outs[0] = rt_tensor(out);
  }
  if (probs)
    rt_tensor_unref(probs);
  return out != NULL;
}

bool rt_kernel_random(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  return schema->kind == IR_ATEN_BERNOULLI ? bernoulli(schema, args, outs, error)
                                           : draw(schema, args, outs, error);
}

/* out[i] = a[i] * b[i] * c in t's dtype (float32 or float64): b read in its own dtype, c
 * rounded to the dtype; a and b contiguous, of out's size. */
static void multiply(RtTensor *out, const RtTensor *a, const RtTensor *b, double c) {
  int64_t n = rt_tensor_numel(out);
  const char *bd = rt_tensor_data((RtTensor *)b);
  size_t bs = rt_dtype_size(b->dtype);
  if (out->dtype == IR_DTYPE_FLOAT32) {
    float *o = rt_tensor_data(out), cf = (float)c;
    const float *x = rt_tensor_data((RtTensor *)a);
    for (int64_t i = 0; i < n; i++)
      o[i] = x[i] * (float)rt_load_element(bd + (size_t)i * bs, b->dtype) * cf;
  } else {
    double *o = rt_tensor_data(out);
    const double *x = rt_tensor_data((RtTensor *)a);
    for (int64_t i = 0; i < n; i++)
      o[i] = x[i] * rt_load_element(bd + (size_t)i * bs, b->dtype) * c;
  }
}

/* dropout with 0 < p <= 1 and train: _dropout_impl's noise. */
static RtTensor *dropout_train(const RtTensor *x, double p, GError **error) {
  RtTensor *noise = rt_tensor_new_checked(x->dtype, x->ndim, x->sizes, error);
  RtTensor *out = noise ? rt_tensor_new_checked(x->dtype, x->ndim, x->sizes, error) : NULL;
  if (!out) {
    if (noise)
      rt_tensor_unref(noise);
    return NULL;
  }
  int64_t n = rt_tensor_numel(noise);
  if (p == 1) {
    memset(rt_tensor_data(noise), 0, (size_t)n * rt_dtype_size(x->dtype));
  } else {
    RtGenerator *g = rt_generator_lock();
    rt_generator_bernoulli(g, noise, 1 - p, NULL);
    rt_generator_unlock(g);
    if (x->dtype == IR_DTYPE_FLOAT32) {
      float *d = rt_tensor_data(noise), keep = (float)(1 - p);
      for (int64_t i = 0; i < n; i++)
        d[i] = d[i] / keep;
    } else {
      double *d = rt_tensor_data(noise);
      for (int64_t i = 0; i < n; i++)
        d[i] = d[i] / (1 - p);
    }
  }
  multiply(out, x, noise, 1);
  rt_tensor_unref(noise);
  return out;
}

static bool native_dropout(RtTensor *x, double p, bool train, RtValue *outs, GError **error) {
  if (rt_tensor_numel(x) == 0) {
    RtTensor *mask = rt_tensor_new_checked(x->dtype, x->ndim, x->sizes, error);
    if (!mask)
      return false;
    outs[0] = rt_tensor(rt_tensor_ref(x));
    outs[1] = rt_tensor(mask);
    return true;
  }
  RtTensor *mask = rt_tensor_new_checked(IR_DTYPE_BOOL, x->ndim, x->sizes, error);
  RtTensor *out = mask ? rt_tensor_new_checked(x->dtype, x->ndim, x->sizes, error) : NULL;
  if (!out) {
    if (mask)
      rt_tensor_unref(mask);
    return false;
  }
  double keep = train ? 1 - p : 1, scale = keep == 0 ? 0 : 1 / keep;
  if (train) {
    RtGenerator *g = rt_generator_lock();
    rt_generator_bernoulli(g, mask, keep, NULL);
    rt_generator_unlock(g);
  } else {
    memset(rt_tensor_data(mask), 1, (size_t)rt_tensor_numel(mask));
  }
  multiply(out, x, mask, scale);
  outs[0] = rt_tensor(out);
  outs[1] = rt_tensor(mask);
  return true;
}

static bool dropout_backward(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  RtTensor *grad, *mask;
  KScalar scale;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &mask, error) ||
      !k_arg_scalar(schema, args, 2, &scale, error) || !float_dtype(schema, grad->dtype, error))
    return false;
  if (mask->ndim != grad->ndim ||
      memcmp(mask->sizes, grad->sizes, sizeof(int64_t) * (size_t)grad->ndim) != 0) {
    char mask_shape[64], grad_shape[64];
    k_shape_text(mask_shape, sizeof mask_shape, mask->ndim, mask->sizes);
    k_shape_text(grad_shape, sizeof grad_shape, grad->ndim, grad->sizes);
    K_ERR_SHAPE(error, "%s(): mask of shape %s does not match grad_output's shape %s",
                k_op_short_name(schema), mask_shape, grad_shape);
    return false;
  }
  RtTensor *out = rt_tensor_new_checked(grad->dtype, grad->ndim, grad->sizes, error);
  if (!out)
    return false;
  RtTensor *g = rt_tensor_contiguous(grad), *m = rt_tensor_contiguous(mask);
  multiply(out, g, m, scale.d);
  rt_tensor_unref(g);
  rt_tensor_unref(m);
  outs[0] = rt_tensor(out);
  return true;
}

bool rt_kernel_dropout(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_NATIVE_DROPOUT_BACKWARD)
    return dropout_backward(schema, args, outs, error);
  RtTensor *input;
  KScalar p;
  bool train = true;
  if (!k_arg_tensor(schema, args, 0, &input, error) || !k_arg_scalar(schema, args, 1, &p, error) ||
      (!k_arg_is_none(args, 2) && !k_arg_bool(schema, args, 2, &train, error)))
    return false;
  if (!(p.d >= 0 && p.d <= 1)) {
    K_ERR(error, "dropout probability has to be between 0 and 1, but got %g", p.d);
    return false;
  }
  bool native = schema->kind == IR_ATEN_NATIVE_DROPOUT;
  if (!native && (!train || p.d == 0 || rt_tensor_numel(input) == 0)) {
    outs[0] = rt_tensor(rt_tensor_ref(input));
    return true;
  }
  if (!float_dtype(schema, input->dtype, error))
    return false;
  RtTensor *x = rt_tensor_contiguous(input);
  bool ok;
  if (native) {
    ok = native_dropout(x, p.d, train, outs, error);
  } else {
    RtTensor *out = dropout_train(x, p.d, error);
    if ((ok = out != NULL))
      outs[0] = rt_tensor(out);
  }
  rt_tensor_unref(x);
  return ok;
}
