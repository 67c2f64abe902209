/* Definitions of the torch.nn.functional functions and nn.Module methods that PyTorch 1.13's
 * scripted graphs call (prim::CallFunction / prim::CallMethod), as graph text with PyTorch's
 * parameter lists, written from torch/nn/functional.py and torch/nn/modules/ (1.13). Checks
 * that only raise (argument validation) are left out; the computation is PyTorch's. */
#include <string.h>

#include "passes/module_lowering.h"

/* torch.nn._reduction.get_enum: "none" 0, "sum" 2, else "mean" 1 (the names PyTorch rejects
 * raise there before any loss runs), into %reduction_enum; constant propagation folds it. */
#define REDUCTION_ENUM                                    \
  "  %none_s : str = prim::Constant[value=\"none\"]()\n"  \
  "  %sum_s : str = prim::Constant[value=\"sum\"]()\n"    \
  "  %red_none : int = prim::Constant[value=0]()\n"       \
  "  %red_mean : int = prim::Constant[value=1]()\n"       \
  "  %red_sum : int = prim::Constant[value=2]()\n"        \
  "  %is_none : bool = aten::eq(%reduction, %none_s)\n"   \
  "  %reduction_enum : int = prim::If(%is_none)\n"        \
  "    block0():\n"                                       \
  "      -> (%red_none)\n"                                \
  "    block1():\n"                                       \
  "      %is_sum : bool = aten::eq(%reduction, %sum_s)\n" \
  "      %sum_or_mean : int = prim::If(%is_sum)\n"        \
  "        block0():\n"                                   \
  "          -> (%red_sum)\n"                             \
  "        block1():\n"                                   \
  "          -> (%red_mean)\n"                            \
  "      -> (%sum_or_mean)\n"

static const struct {
  const char *name;
  const char *text;
} functions[] = {
    {"silu", "graph(%input : Tensor, %inplace : bool):\n"
             "  %r : Tensor = aten::silu(%input)\n"
             "  return (%r)\n"},
    {"dropout", "graph(%input : Tensor, %p : float, %training : bool, %inplace : bool):\n"
                "  %r : Tensor = aten::dropout(%input, %p, %training)\n"
                "  return (%r)\n"},
    {"mish", "graph(%input : Tensor, %inplace : bool):\n"
             "  %r : Tensor = aten::mish(%input)\n"
             "  return (%r)\n"},
    {"hardsigmoid", "graph(%input : Tensor, %inplace : bool):\n"
                    "  %r : Tensor = aten::hardsigmoid(%input)\n"
                    "  return (%r)\n"},
    {"relu6", "graph(%input : Tensor, %inplace : bool):\n"
              "  %r : Tensor = aten::relu6(%input)\n"
              "  return (%r)\n"},
    {"hardswish", "graph(%input : Tensor, %inplace : bool):\n"
                  "  %r : Tensor = aten::hardswish(%input)\n"
                  "  return (%r)\n"},
    {"hardtanh", "graph(%input : Tensor, %min_val : float, %max_val : float, %inplace : bool):\n"
                 "  %r : Tensor = aten::hardtanh(%input, %min_val, %max_val)\n"
                 "  return (%r)\n"},
    {"leaky_relu", "graph(%input : Tensor, %negative_slope : float, %inplace : bool):\n"
                   "  %r : Tensor = aten::leaky_relu(%input, %negative_slope)\n"
                   "  return (%r)\n"},
    {"elu", "graph(%input : Tensor, %alpha : float, %inplace : bool):\n"
            "  %one : float = prim::Constant[value=1.]()\n"
            "  %r : Tensor = aten::elu(%input, %alpha, %one, %one)\n"
            "  return (%r)\n"},
    {"relu", "graph(%input : Tensor, %inplace : bool):\n"
             "  %r : Tensor = aten::relu(%input)\n"
             "  return (%r)\n"},
    {"gelu", "graph(%input : Tensor, %approximate : str):\n"
             "  %r : Tensor = aten::gelu(%input, %approximate)\n"
             "  return (%r)\n"},
    {"layer_norm", "graph(%input : Tensor, %normalized_shape : int[], %weight : Tensor?,\n"
                   "      %bias : Tensor?, %eps : float):\n"
                   "  %cudnn : bool = prim::Constant[value=1]()\n"
                   "  %r : Tensor = aten::layer_norm(%input, %normalized_shape, %weight, %bias, "
                   "%eps, %cudnn)\n"
                   "  return (%r)\n"},
    {"softmax", "graph(%input : Tensor, %dim : int, %_stacklevel : int, %dtype : int?):\n"
                "  %r : Tensor = aten::softmax(%input, %dim, %dtype)\n"
                "  return (%r)\n"},
    {"log_softmax", "graph(%input : Tensor, %dim : int, %_stacklevel : int, %dtype : int?):\n"
                    "  %r : Tensor = aten::log_softmax(%input, %dim, %dtype)\n"
                    "  return (%r)\n"},
    {"batch_norm", "graph(%input : Tensor, %running_mean : Tensor?, %running_var : Tensor?,\n"
                   "      %weight : Tensor?, %bias : Tensor?, %training : bool,\n"
                   "      %momentum : float, %eps : float):\n"
                   "  %cudnn : bool = prim::Constant[value=1]()\n"
                   "  %r : Tensor = aten::batch_norm(%input, %weight, %bias, %running_mean, "
                   "%running_var, %training, %momentum, %eps, %cudnn)\n"
                   "  return (%r)\n"},
    /* F.max_pool2d without return_indices: stride None means the kernel size, an empty list */
    {"_max_pool2d", "graph(%input : Tensor, %kernel_size : int[], %stride : NoneType,\n"
                    "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
                    "      %return_indices : bool):\n"
                    "  %empty : int[] = prim::Constant[value=[]]()\n"
                    "  %r : Tensor = aten::max_pool2d(%input, %kernel_size, %empty, %padding, "
                    "%dilation, %ceil_mode)\n"
                    "  return (%r)\n"},
    {"_max_pool2d", "graph(%input : Tensor, %kernel_size : int[], %stride : int[],\n"
                    "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
                    "      %return_indices : bool):\n"
                    "  %r : Tensor = aten::max_pool2d(%input, %kernel_size, %stride, %padding, "
                    "%dilation, %ceil_mode)\n"
                    "  return (%r)\n"},
    /* an int[] output_size has no None entries for _list_with_default to fill */
    {"adaptive_avg_pool2d", "graph(%input : Tensor, %output_size : int[]):\n"
                            "  %r : Tensor = aten::adaptive_avg_pool2d(%input, %output_size)\n"
                            "  return (%r)\n"},
    {"group_norm", "graph(%input : Tensor, %num_groups : int, %weight : Tensor?,\n"
                   "      %bias : Tensor?, %eps : float):\n"
                   "  %cudnn : bool = prim::Constant[value=1]()\n"
                   "  %r : Tensor = aten::group_norm(%input, %num_groups, %weight, %bias, %eps, "
                   "%cudnn)\n"
                   "  return (%r)\n"},
    {"embedding", "graph(%input : Tensor, %weight : Tensor, %padding_idx : NoneType,\n"
                  "      %max_norm : NoneType, %norm_type : float, %scale_grad_by_freq : bool,\n"
                  "      %sparse : bool):\n"
                  "  %no_padding : int = prim::Constant[value=-1]()\n"
                  "  %r : Tensor = aten::embedding(%weight, %input, %no_padding, "
                  "%scale_grad_by_freq, %sparse)\n"
                  "  return (%r)\n"},
    {"mse_loss", "graph(%input : Tensor, %target : Tensor, %size_average : NoneType,\n"
                 "      %reduce : NoneType, %reduction : str):\n" REDUCTION_ENUM
                 "  %r : Tensor = aten::mse_loss(%input, %target, %reduction_enum)\n"
                 "  return (%r)\n"},
    {"l1_loss", "graph(%input : Tensor, %target : Tensor, %size_average : NoneType,\n"
                "      %reduce : NoneType, %reduction : str):\n" REDUCTION_ENUM
                "  %r : Tensor = aten::l1_loss(%input, %target, %reduction_enum)\n"
                "  return (%r)\n"},
    {"nll_loss", "graph(%input : Tensor, %target : Tensor, %weight : Tensor?,\n"
                 "      %size_average : NoneType, %ignore_index : int, %reduce : NoneType,\n"
                 "      %reduction : str):\n" REDUCTION_ENUM
                 "  %r : Tensor = aten::nll_loss_nd(%input, %target, %weight, %reduction_enum, "
                 "%ignore_index)\n"
                 "  return (%r)\n"},
    {"cross_entropy", "graph(%input : Tensor, %target : Tensor, %weight : Tensor?,\n"
                      "      %size_average : NoneType, %ignore_index : int, %reduce : NoneType,\n"
                      "      %reduction : str, %label_smoothing : float):\n" REDUCTION_ENUM
                      "  %r : Tensor = aten::cross_entropy_loss(%input, %target, %weight, "
                      "%reduction_enum, %ignore_index, %label_smoothing)\n"
                      "  return (%r)\n"},
    {"binary_cross_entropy_with_logits",
     "graph(%input : Tensor, %target : Tensor, %weight : Tensor?, %size_average : NoneType,\n"
     "      %reduce : NoneType, %reduction : str, %pos_weight : Tensor?):\n" REDUCTION_ENUM
     "  %r : Tensor = aten::binary_cross_entropy_with_logits(%input, %target, %weight, "
     "%pos_weight, %reduction_enum)\n"
     "  return (%r)\n"},
};

static const struct {
  const char *class_name; /* qualified, without __torch__. and mangling */
  const char *method;
  const char *text;
} methods[] = {
    {"torch.nn.modules.linear.Linear", "forward",
     "graph(%self : __torch__.torch.nn.modules.linear.Linear, %input : Tensor):\n"
     "  %weight : Tensor = prim::GetAttr[name=\"weight\"](%self)\n"
     "  %bias : Tensor = prim::GetAttr[name=\"bias\"](%self)\n"
     "  %r : Tensor = aten::linear(%input, %weight, %bias)\n"
     "  return (%r)\n"},
    {"torch.nn.modules.linear.NonDynamicallyQuantizableLinear", "forward",
     "graph(%self : __torch__.torch.nn.modules.linear.NonDynamicallyQuantizableLinear,\n"
     "      %input : Tensor):\n"
     "  %weight : Tensor = prim::GetAttr[name=\"weight\"](%self)\n"
     "  %bias : Tensor = prim::GetAttr[name=\"bias\"](%self)\n"
     "  %r : Tensor = aten::linear(%input, %weight, %bias)\n"
     "  return (%r)\n"},
    {"torch.nn.modules.activation.ReLU", "forward",
     "graph(%self : __torch__.torch.nn.modules.activation.ReLU, %input : Tensor):\n"
     "  %r : Tensor = aten::relu(%input)\n"
     "  return (%r)\n"},
    {"torch.nn.modules.activation.Tanh", "forward",
     "graph(%self : __torch__.torch.nn.modules.activation.Tanh, %input : Tensor):\n"
     "  %r : Tensor = aten::tanh(%input)\n"
     "  return (%r)\n"},
    {"torch.nn.modules.activation.Sigmoid", "forward",
     "graph(%self : __torch__.torch.nn.modules.activation.Sigmoid, %input : Tensor):\n"
     "  %r : Tensor = aten::sigmoid(%input)\n"
     "  return (%r)\n"},
    {"torch.nn.modules.dropout.Dropout", "forward",
     "graph(%self : __torch__.torch.nn.modules.dropout.Dropout, %input : Tensor):\n"
     "  %p : float = prim::GetAttr[name=\"p\"](%self)\n"
     "  %training : bool = prim::GetAttr[name=\"training\"](%self)\n"
     "  %r : Tensor = aten::dropout(%input, %p, %training)\n"
     "  return (%r)\n"},
};

const char *functional_definition(const char *name, guint index) {
  for (gsize i = 0; i < G_N_ELEMENTS(functions); i++)
    if (strcmp(functions[i].name, name) == 0 && index-- == 0)
      return functions[i].text;
  return NULL;
}

/* `__torch__.torch.nn.modules.linear.___torch_mangle_1.Linear` -> `torch.nn.modules.linear.
 * Linear`: PyTorch mangles a class name per compiled instance. */
static char *demangle_class_name(const char *name) {
  if (g_str_has_prefix(name, "__torch__."))
    name += strlen("__torch__.");
  char **parts = g_strsplit(name, ".", -1);
  GString *out = g_string_new(NULL);
  for (guint i = 0; parts[i]; i++) {
    if (g_str_has_prefix(parts[i], "___torch_mangle_"))
      continue;
    if (out->len)
      g_string_append_c(out, '.');
    g_string_append(out, parts[i]);
  }
  g_strfreev(parts);
  return g_string_free(out, FALSE);
}

const char *module_method_definition(const char *class_name, const char *method) {
  g_autofree char *plain = demangle_class_name(class_name);
  for (gsize i = 0; i < G_N_ELEMENTS(methods); i++)
    if (strcmp(methods[i].class_name, plain) == 0 && strcmp(methods[i].method, method) == 0)
      return methods[i].text;
  return NULL;
}
