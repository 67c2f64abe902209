/* Definitions of the torch.nn.functional functions (and torch.norm, torch.functional's) and
 * of the nn.Module methods that PyTorch 1.13's scripted graphs call (prim::CallFunction /
 * prim::CallMethod), as graph text with PyTorch's parameter lists, written from
 * torch/nn/functional.py, torch/functional.py and torch/nn/modules/ (1.13). Checks that only
 * raise (argument validation) are mostly left out; the computation is PyTorch's. */
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

/* torch.broadcast_tensors(input, target) into %bin and %btarget, as the functional losses
 * that take operands of different sizes begin. */
#define BROADCAST_PAIR                                                             \
  "  %pair : Tensor[] = prim::ListConstruct(%input, %target)\n"                   \
  "  %broadcast : Tensor[] = aten::broadcast_tensors(%pair)\n"                    \
  "  %bin : Tensor, %btarget : Tensor = prim::ListUnpack(%broadcast)\n"

/* F.interpolate after its arguments became %output_size (int[]?) and %scale_factors
 * (float[]?): PyTorch 1.13's checks of mode and align_corners, then upsample_nearest2d or
 * upsample_bilinear2d (align_corners None meaning false) for a 4-D input; other modes, ranks
 * and antialias, which jitscope does not run, raise saying so. */
#define INTERPOLATE_BODY                                                                          \
  "  %none : NoneType = prim::Constant()\n"                                                       \
  "  %false : bool = prim::Constant[value=0]()\n"                                                 \
  "  %four : int = prim::Constant[value=4]()\n"                                                   \
  "  %nearest_s : str = prim::Constant[value=\"nearest\"]()\n"                                    \
  "  %bilinear_s : str = prim::Constant[value=\"bilinear\"]()\n"                                  \
  "  %align_msg : str = prim::Constant[value=\"ValueError: align_corners option can only be set " \
  "with the interpolating modes: linear | bilinear | bicubic | trilinear\"]()\n"                   \
  "  %unsupported : str = prim::Constant[value=\"NotImplementedError: jitscope runs "             \
  "F.interpolate in modes 'nearest' and 'bilinear' (without antialias) on 4-D inputs only\"]()\n" \
  "  %is_nearest : bool = aten::eq(%mode, %nearest_s)\n"                                          \
  "  %is_bilinear : bool = aten::eq(%mode, %bilinear_s)\n"                                        \
  "  %no_align : bool = aten::__is__(%align_corners, %none)\n"                                    \
  "  %align_set : bool = aten::__not__(%no_align)\n"                                              \
  "  %align_wrong : bool = aten::__and__(%is_nearest, %align_set)\n"                              \
  "   = prim::If(%align_wrong)\n"                                                                 \
  "    block0():\n"                                                                               \
  "       = prim::RaiseException(%align_msg, %none)\n"                                            \
  "      -> ()\n"                                                                                 \
  "    block1():\n"                                                                               \
  "      -> ()\n"                                                                                 \
  "  %dim : int = aten::dim(%input)\n"                                                            \
  "  %is_4d : bool = aten::eq(%dim, %four)\n"                                                     \
  "  %no_aa : bool = aten::__not__(%antialias)\n"                                                 \
  "  %runs : bool = aten::__and__(%is_4d, %no_aa)\n"                                              \
  "  %r : Tensor = prim::If(%runs)\n"                                                             \
  "    block0():\n"                                                                               \
  "      %picked : Tensor = prim::If(%is_nearest)\n"                                              \
  "        block0():\n"                                                                           \
  "          %near : Tensor = aten::upsample_nearest2d(%input, %output_size, %scale_factors)\n"   \
  "          -> (%near)\n"                                                                        \
  "        block1():\n"                                                                           \
  "          %lin : Tensor = prim::If(%is_bilinear)\n"                                            \
  "            block0():\n"                                                                       \
  "              %align : bool = prim::If(%no_align)\n"                                           \
  "                block0():\n"                                                                   \
  "                  -> (%false)\n"                                                               \
  "                block1():\n"                                                                   \
  "                  %given : bool = prim::unchecked_cast(%align_corners)\n"                      \
  "                  -> (%given)\n"                                                               \
  "              %bil : Tensor = aten::upsample_bilinear2d(%input, %output_size, %align, "        \
  "%scale_factors)\n"                                                                             \
  "              -> (%bil)\n"                                                                     \
  "            block1():\n"                                                                       \
  "               = prim::RaiseException(%unsupported, %none)\n"                                  \
  "              %never : Tensor = prim::Uninitialized()\n"                                       \
  "              -> (%never)\n"                                                                   \
  "          -> (%lin)\n"                                                                         \
  "      -> (%picked)\n"                                                                          \
  "    block1():\n"                                                                               \
  "       = prim::RaiseException(%unsupported, %none)\n"                                          \
  "      %unrun : Tensor = prim::Uninitialized()\n"                                               \
  "      -> (%unrun)\n"                                                                           \
  "  return (%r)\n"

/* F.interpolate's scale factors when recompute_scale_factor is true: the output size
 * floor(in * scale) per spatial dim (2 here; other ranks raise in INTERPOLATE_BODY), no
 * scales. Reads %factors (float[]), %recompute (bool?); gives %output_size, %scale_factors. */
#define INTERPOLATE_RECOMPUTE                                                                     \
  "  %no_recompute : bool = aten::__is__(%recompute_scale_factor, %none0)\n"                      \
  "  %output_size : int[]?, %scale_factors : float[]? = prim::If(%no_recompute)\n"                \
  "    block0():\n"                                                                               \
  "      -> (%none0, %factors)\n"                                                                 \
  "    block1():\n"                                                                               \
  "      %recompute : bool = prim::unchecked_cast(%recompute_scale_factor)\n"                     \
  "      %sizes : int[]?, %scales : float[]? = prim::If(%recompute)\n"                            \
  "        block0():\n"                                                                           \
  "          %zero : int = prim::Constant[value=0]()\n"                                           \
  "          %one : int = prim::Constant[value=1]()\n"                                            \
  "          %two : int = prim::Constant[value=2]()\n"                                            \
  "          %three : int = prim::Constant[value=3]()\n"                                          \
  "          %h : int = aten::size(%input, %two)\n"                                               \
  "          %w : int = aten::size(%input, %three)\n"                                             \
  "          %hf : float = aten::Float(%h)\n"                                                     \
  "          %wf : float = aten::Float(%w)\n"                                                     \
  "          %sh : float = aten::__getitem__(%factors, %zero)\n"                                  \
  "          %sw : float = aten::__getitem__(%factors, %one)\n"                                   \
  "          %oh_f : float = aten::mul(%hf, %sh)\n"                                               \
  "          %ow_f : float = aten::mul(%wf, %sw)\n"                                               \
  "          %oh : int = aten::Int(%oh_f)\n"                                                      \
  "          %ow : int = aten::Int(%ow_f)\n"                                                      \
  "          %computed : int[] = prim::ListConstruct(%oh, %ow)\n"                                 \
  "          -> (%computed, %none0)\n"                                                            \
  "        block1():\n"                                                                           \
  "          -> (%none0, %factors)\n"                                                             \
  "      -> (%sizes, %scales)\n"

/* F.interpolate's parameters, size and scale_factor under the names and types given. */
#define INTERPOLATE_PARAMS(SIZE, SCALE)                                                           \
  "graph(%input : Tensor, " SIZE ", " SCALE ", %mode : str, %align_corners : bool?,\n"            \
  "      %recompute_scale_factor : bool?, %antialias : bool):\n"

/* torch.norm (torch.functional.norm, 1.13): its four TorchScript overloads take p as a str or
 * a number (or None) and dim as a list or an int (or None). The forms below are picked by the
 * arguments' types, dim's None, list and int first, so that a call with constant arguments
 * inlines to a norm with constant dims, which has a gradient formula even where nothing
 * folds constants (the eager tape); the forms with an Optional dim come last. %dims: [] for
 * every dim, what PyTorch's list(range(ndim)) reduces over. out= raises: not run here. */
#define NORM_PARAMS(P, DIM)                                                               \
  "graph(%input : Tensor, %p : " P ", " DIM ", %keepdim : bool, %out : Tensor?,\n"        \
  "      %dtype : int?):\n"                                                               \
  "  %none : NoneType = prim::Constant()\n"                                               \
  "  %out_msg : str = prim::Constant[value=\"NotImplementedError: jitscope does not run " \
  "torch.norm with out=\"]()\n"                                                           \
  "  %no_out : bool = aten::__is__(%out, %none)\n"                                        \
  "   = prim::If(%no_out)\n"                                                              \
  "    block0():\n"                                                                       \
  "      -> ()\n"                                                                         \
  "    block1():\n"                                                                       \
  "       = prim::RaiseException(%out_msg, %none)\n"                                      \
  "      -> ()\n"

#define NORM_ALL_DIMS "  %dims : int[] = prim::Constant[value=[]]()\n"
#define NORM_INT_DIMS "  %dims : int[] = prim::ListConstruct(%dim)\n"
#define NORM_OPTIONAL_DIMS                                    \
  "  %dim_none : bool = aten::__is__(%dim, %none)\n"          \
  "  %dims : int[] = prim::If(%dim_none)\n"                   \
  "    block0():\n"                                           \
  "      %all : int[] = prim::Constant[value=[]]()\n"         \
  "      -> (%all)\n"                                         \
  "    block1():\n"                                           \
  "      %one_dim : int = prim::unchecked_cast(%dim)\n"       \
  "      %one_list : int[] = prim::ListConstruct(%one_dim)\n" \
  "      -> (%one_list)\n"

#define NORM_OPTIONAL_LIST                                   \
  "  %list_none : bool = aten::__is__(%dim_list, %none)\n"   \
  "  %dims : int[] = prim::If(%list_none)\n"                 \
  "    block0():\n"                                          \
  "      %all : int[] = prim::Constant[value=[]]()\n"        \
  "      -> (%all)\n"                                        \
  "    block1():\n"                                          \
  "      %given : int[] = prim::unchecked_cast(%dim_list)\n" \
  "      -> (%given)\n"

/* p a string: 'fro' is frobenius_norm (a dtype is PyTorch's ValueError); 'nuc' (nuclear_norm,
 * a sum of singular values) raises saying jitscope does not run it; anything else raises
 * PyTorch's RuntimeError. */
#define NORM_STR_BODY                                                                       \
  "  %fro : str = prim::Constant[value=\"fro\"]()\n"                                        \
  "  %nuc : str = prim::Constant[value=\"nuc\"]()\n"                                        \
  "  %nuc_msg : str = prim::Constant[value=\"NotImplementedError: jitscope does not run "   \
  "torch.norm with p='nuc': aten::nuclear_norm needs a singular value decomposition\"]()\n" \
  "  %nuc_dtype_msg : str = prim::Constant[value=\"ValueError: dtype argument is not "      \
  "supported in nuclear norm\"]()\n"                                                        \
  "  %fro_dtype_msg : str = prim::Constant[value=\"ValueError: dtype argument is not "      \
  "supported in frobenius norm\"]()\n"                                                      \
  "  %bad_msg : str = prim::Constant[value=\"RuntimeError: only valid string values are "   \
  "'fro' and 'nuc', found \"]()\n"                                                          \
  "  %is_fro : bool = aten::eq(%p, %fro)\n"                                                 \
  "  %is_nuc : bool = aten::eq(%p, %nuc)\n"                                                 \
  "  %known : bool = aten::__or__(%is_fro, %is_nuc)\n"                                      \
  "   = prim::If(%known)\n"                                                                 \
  "    block0():\n"                                                                         \
  "      -> ()\n"                                                                           \
  "    block1():\n"                                                                         \
  "      %bad : str = aten::add(%bad_msg, %p)\n"                                            \
  "       = prim::RaiseException(%bad, %none)\n"                                            \
  "      -> ()\n"                                                                           \
  "  %has_dtype : bool = aten::__isnot__(%dtype, %none)\n"                                  \
  "   = prim::If(%has_dtype)\n"                                                             \
  "    block0():\n"                                                                         \
  "      %dtype_raise : str = prim::If(%is_nuc)\n"                                          \
  "        block0():\n"                                                                     \
  "          -> (%nuc_dtype_msg)\n"                                                         \
  "        block1():\n"                                                                     \
  "          -> (%fro_dtype_msg)\n"                                                         \
  "       = prim::RaiseException(%dtype_raise, %none)\n"                                    \
  "      -> ()\n"                                                                           \
  "    block1():\n"                                                                         \
  "      -> ()\n"                                                                           \
  "   = prim::If(%is_nuc)\n"                                                                \
  "    block0():\n"                                                                         \
  "       = prim::RaiseException(%nuc_msg, %none)\n"                                        \
  "      -> ()\n"                                                                           \
  "    block1():\n"                                                                         \
  "      -> ()\n"                                                                           \
  "  %r : Tensor = aten::frobenius_norm(%input, %dims, %keepdim)\n"                         \
  "  return (%r)\n"

/* p a number or None: norm, with the dtype when one is given. */
#define NORM_NUMBER_BODY                                                           \
  "  %no_dtype : bool = aten::__is__(%dtype, %none)\n"                             \
  "  %r : Tensor = prim::If(%no_dtype)\n"                                          \
  "    block0():\n"                                                                \
  "      %plain : Tensor = aten::norm(%input, %p, %dims, %keepdim)\n"              \
  "      -> (%plain)\n"                                                            \
  "    block1():\n"                                                                \
  "      %dtype_given : int = prim::unchecked_cast(%dtype)\n"                      \
  "      %cast : Tensor = aten::norm(%input, %p, %dims, %keepdim, %dtype_given)\n" \
  "      -> (%cast)\n"                                                             \
  "  return (%r)\n"

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
    /* celu and selu as PyTorch 1.13's at::celu / at::selu: elu with input_scale 1 / alpha
     * (computed in double) and with SELU's alpha and scale. */
    {"celu", "graph(%input : Tensor, %alpha : float, %inplace : bool):\n"
             "  %none : NoneType = prim::Constant()\n"
             "  %zero : float = prim::Constant[value=0.]()\n"
             "  %one : float = prim::Constant[value=1.]()\n"
             "  %msg : str = prim::Constant[value=\"ZeroDivisionError: alpha cannot be 0 for "
             "CELU\"]()\n"
             "  %is_zero : bool = aten::eq(%alpha, %zero)\n"
             "   = prim::If(%is_zero)\n"
             "    block0():\n"
             "       = prim::RaiseException(%msg, %none)\n"
             "      -> ()\n"
             "    block1():\n"
             "      -> ()\n"
             "  %input_scale : float = aten::div(%one, %alpha)\n"
             "  %r : Tensor = aten::elu(%input, %alpha, %one, %input_scale)\n"
             "  return (%r)\n"},
    {"selu", "graph(%input : Tensor, %inplace : bool):\n"
             "  %alpha : float = prim::Constant[value=1.6732632423543772]()\n"
             "  %scale : float = prim::Constant[value=1.0507009873554805]()\n"
             "  %one : int = prim::Constant[value=1]()\n"
             "  %r : Tensor = aten::elu(%input, %alpha, %scale, %one)\n"
             "  return (%r)\n"},
    /* rrelu in evaluation: leaky_relu with the bounds' mean as its slope (PyTorch 1.13's
     * rrelu_with_noise); training draws a slope per element, which jitscope does not. */
    {"rrelu", "graph(%input : Tensor, %lower : float, %upper : float, %training : bool,\n"
              "      %inplace : bool):\n"
              "  %none : NoneType = prim::Constant()\n"
              "  %two : float = prim::Constant[value=2.]()\n"
              "  %bounds_msg : str = prim::Constant[value=\"RuntimeError: Lower bound should be "
              "less than or equal to the upper bound\"]()\n"
              "  %training_msg : str = prim::Constant[value=\"NotImplementedError: jitscope runs "
              "F.rrelu with training=False only (training draws random slopes)\"]()\n"
              "  %crossed : bool = aten::gt(%lower, %upper)\n"
              "   = prim::If(%crossed)\n"
              "    block0():\n"
              "       = prim::RaiseException(%bounds_msg, %none)\n"
              "      -> ()\n"
              "    block1():\n"
              "      -> ()\n"
              "   = prim::If(%training)\n"
              "    block0():\n"
              "       = prim::RaiseException(%training_msg, %none)\n"
              "      -> ()\n"
              "    block1():\n"
              "      -> ()\n"
              "  %sum : float = aten::add(%lower, %upper)\n"
              "  %slope : float = aten::div(%sum, %two)\n"
              "  %r : Tensor = aten::leaky_relu(%input, %slope)\n"
              "  return (%r)\n"},
    {"softsign", "graph(%input : Tensor):\n"
                 "  %one : int = prim::Constant[value=1]()\n"
                 "  %abs : Tensor = aten::abs(%input)\n"
                 "  %den : Tensor = aten::add(%abs, %one, %one)\n"
                 "  %r : Tensor = aten::div(%input, %den)\n"
                 "  return (%r)\n"},
    {"tanhshrink", "graph(%input : Tensor):\n"
                   "  %one : int = prim::Constant[value=1]()\n"
                   "  %t : Tensor = aten::tanh(%input)\n"
                   "  %r : Tensor = aten::sub(%input, %t, %one)\n"
                   "  return (%r)\n"},
    /* F.normalize without out=: input / max(norm, eps) over dim, expanded back. */
    {"normalize", "graph(%input : Tensor, %p : float, %dim : int, %eps : float, %out : NoneType):\n"
                  "  %true : bool = prim::Constant[value=1]()\n"
                  "  %dims : int[] = prim::ListConstruct(%dim)\n"
                  "  %norm : Tensor = aten::norm(%input, %p, %dims, %true)\n"
                  "  %clamped : Tensor = aten::clamp_min(%norm, %eps)\n"
                  "  %denom : Tensor = aten::expand_as(%clamped, %input)\n"
                  "  %r : Tensor = aten::div(%input, %denom)\n"
                  "  return (%r)\n"},
    /* F.threshold, which PyTorch's boolean_dispatch names _threshold */
    {"_threshold", "graph(%input : Tensor, %threshold : float, %value : float, %inplace : bool):\n"
                   "  %r : Tensor = aten::threshold(%input, %threshold, %value)\n"
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
    /* F.max_pool2d(return_indices=True) */
    {"max_pool2d_with_indices",
     "graph(%input : Tensor, %kernel_size : int[], %stride : NoneType,\n"
     "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
     "      %return_indices : bool):\n"
     "  %empty : int[] = prim::Constant[value=[]]()\n"
     "  %r : Tensor, %i : Tensor = aten::max_pool2d_with_indices(%input, %kernel_size, %empty, "
     "%padding, %dilation, %ceil_mode)\n"
     "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %i)\n"
     "  return (%t)\n"},
    {"max_pool2d_with_indices",
     "graph(%input : Tensor, %kernel_size : int[], %stride : int[],\n"
     "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
     "      %return_indices : bool):\n"
     "  %r : Tensor, %i : Tensor = aten::max_pool2d_with_indices(%input, %kernel_size, %stride, "
     "%padding, %dilation, %ceil_mode)\n"
     "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %i)\n"
     "  return (%t)\n"},
    /* F.max_pool1d without and with return_indices, as the 2-D ones */
    {"_max_pool1d", "graph(%input : Tensor, %kernel_size : int[], %stride : NoneType,\n"
                    "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
                    "      %return_indices : bool):\n"
                    "  %empty : int[] = prim::Constant[value=[]]()\n"
                    "  %r : Tensor = aten::max_pool1d(%input, %kernel_size, %empty, %padding, "
                    "%dilation, %ceil_mode)\n"
                    "  return (%r)\n"},
    {"_max_pool1d", "graph(%input : Tensor, %kernel_size : int[], %stride : int[],\n"
                    "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
                    "      %return_indices : bool):\n"
                    "  %r : Tensor = aten::max_pool1d(%input, %kernel_size, %stride, %padding, "
                    "%dilation, %ceil_mode)\n"
                    "  return (%r)\n"},
    {"max_pool1d_with_indices",
     "graph(%input : Tensor, %kernel_size : int[], %stride : NoneType,\n"
     "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
     "      %return_indices : bool):\n"
     "  %empty : int[] = prim::Constant[value=[]]()\n"
     "  %r : Tensor, %i : Tensor = aten::max_pool1d_with_indices(%input, %kernel_size, %empty, "
     "%padding, %dilation, %ceil_mode)\n"
     "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %i)\n"
     "  return (%t)\n"},
    {"max_pool1d_with_indices",
     "graph(%input : Tensor, %kernel_size : int[], %stride : int[],\n"
     "      %padding : int[], %dilation : int[], %ceil_mode : bool,\n"
     "      %return_indices : bool):\n"
     "  %r : Tensor, %i : Tensor = aten::max_pool1d_with_indices(%input, %kernel_size, %stride, "
     "%padding, %dilation, %ceil_mode)\n"
     "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %i)\n"
     "  return (%t)\n"},
    /* F.adaptive_max_pool1d without and with return_indices */
    {"_adaptive_max_pool1d",
     "graph(%input : Tensor, %output_size : int[], %return_indices : bool):\n"
     "  %r : Tensor, %i : Tensor = aten::adaptive_max_pool1d(%input, %output_size)\n"
     "  return (%r)\n"},
    {"adaptive_max_pool1d_with_indices",
     "graph(%input : Tensor, %output_size : int[], %return_indices : bool):\n"
     "  %r : Tensor, %i : Tensor = aten::adaptive_max_pool1d(%input, %output_size)\n"
     "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %i)\n"
     "  return (%t)\n"},
    /* F.interpolate by size: a list, one int for both dims, or a pair */
    {"interpolate",
     INTERPOLATE_PARAMS("%output_size : int[]", "%scale_factors : NoneType") INTERPOLATE_BODY},
    {"interpolate",
     INTERPOLATE_PARAMS(
         "%size : int",
         "%scale_factors : NoneType") "  %output_size : int[] = prim::ListConstruct(%size, "
                                      "%size)\n" INTERPOLATE_BODY},
    {"interpolate",
     INTERPOLATE_PARAMS(
         "%size : (int, int)",
         "%scale_factors : NoneType") "  %h : int, %w : int = prim::TupleUnpack(%size)\n"
                                      "  %output_size : int[] = prim::ListConstruct(%h, "
                                      "%w)\n" INTERPOLATE_BODY},
    /* by scale factors: a list, a pair, or one float for both dims */
    {"interpolate",
     INTERPOLATE_PARAMS(
         "%output_size0 : NoneType",
         "%pair : (float, float)") "  %none0 : NoneType = prim::Constant()\n"
                                   "  %sh0 : float, %sw0 : float = prim::TupleUnpack(%pair)\n"
                                   "  %factors : float[] = prim::ListConstruct(%sh0, "
                                   "%sw0)\n" INTERPOLATE_RECOMPUTE INTERPOLATE_BODY},
    {"interpolate",
     INTERPOLATE_PARAMS(
         "%output_size0 : NoneType",
         "%factors : float[]") "  %none0 : NoneType = prim::Constant()\n" INTERPOLATE_RECOMPUTE
         INTERPOLATE_BODY},
    {"interpolate",
     INTERPOLATE_PARAMS(
         "%output_size0 : NoneType",
         "%scale_factor : float") "  %none0 : NoneType = prim::Constant()\n"
                                  "  %factors : float[] = prim::ListConstruct(%scale_factor, "
                                  "%scale_factor)\n" INTERPOLATE_RECOMPUTE INTERPOLATE_BODY},
    /* torch.norm: dim None, a list or an int, then Optional ones; str p before a number */
    {"norm", NORM_PARAMS("str", "%dim : NoneType") NORM_ALL_DIMS NORM_STR_BODY},
    {"norm", NORM_PARAMS("str", "%dims : int[]") NORM_STR_BODY},
    {"norm", NORM_PARAMS("str", "%dim : int") NORM_INT_DIMS NORM_STR_BODY},
    {"norm", NORM_PARAMS("Scalar?", "%dim : NoneType") NORM_ALL_DIMS NORM_NUMBER_BODY},
    {"norm", NORM_PARAMS("Scalar?", "%dims : int[]") NORM_NUMBER_BODY},
    {"norm", NORM_PARAMS("Scalar?", "%dim : int") NORM_INT_DIMS NORM_NUMBER_BODY},
    {"norm", NORM_PARAMS("str", "%dim_list : int[]?") NORM_OPTIONAL_LIST NORM_STR_BODY},
    {"norm", NORM_PARAMS("Scalar?", "%dim_list : int[]?") NORM_OPTIONAL_LIST NORM_NUMBER_BODY},
    {"norm", NORM_PARAMS("str", "%dim : int?") NORM_OPTIONAL_DIMS NORM_STR_BODY},
    {"norm", NORM_PARAMS("Scalar?", "%dim : int?") NORM_OPTIONAL_DIMS NORM_NUMBER_BODY},
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
    {"instance_norm", "graph(%input : Tensor, %running_mean : Tensor?, %running_var : Tensor?,\n"
                      "      %weight : Tensor?, %bias : Tensor?, %use_input_stats : bool,\n"
                      "      %momentum : float, %eps : float):\n"
                      "  %cudnn : bool = prim::Constant[value=1]()\n"
                      "  %r : Tensor = aten::instance_norm(%input, %weight, %bias, "
                      "%running_mean, %running_var, %use_input_stats, %momentum, %eps, %cudnn)\n"
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
    {"smooth_l1_loss",
     "graph(%input : Tensor, %target : Tensor, %size_average : NoneType, %reduce : NoneType,\n"
     "      %reduction : str, %beta : float):\n" REDUCTION_ENUM BROADCAST_PAIR
     "  %r : Tensor = aten::smooth_l1_loss(%bin, %btarget, %reduction_enum, %beta)\n"
     "  return (%r)\n"},
    {"huber_loss", "graph(%input : Tensor, %target : Tensor, %reduction : str, %delta : float):\n"
                   REDUCTION_ENUM BROADCAST_PAIR
                   "  %r : Tensor = aten::huber_loss(%bin, %btarget, %reduction_enum, %delta)\n"
                   "  return (%r)\n"},
    {"soft_margin_loss", "graph(%input : Tensor, %target : Tensor, %size_average : NoneType,\n"
                         "      %reduce : NoneType, %reduction : str):\n" REDUCTION_ENUM
                         "  %r : Tensor = aten::soft_margin_loss(%input, %target, "
                         "%reduction_enum)\n"
                         "  return (%r)\n"},
    /* binary_cross_entropy: PyTorch refuses a target of another size than input's. */
    {"binary_cross_entropy",
     "graph(%input : Tensor, %target : Tensor, %weight : Tensor?, %size_average : NoneType,\n"
     "      %reduce : NoneType, %reduction : str):\n" REDUCTION_ENUM
     "  %none : NoneType = prim::Constant()\n"
     "  %size_msg : str = prim::Constant[value=\"ValueError: Using a target size that is "
     "different to the input size is deprecated. Please ensure they have the same size.\"]()\n"
     "  %target_size : int[] = aten::size(%target)\n"
     "  %input_size : int[] = aten::size(%input)\n"
     "  %same : bool = aten::eq(%target_size, %input_size)\n"
     "  %differ : bool = aten::__not__(%same)\n"
     "   = prim::If(%differ)\n"
     "    block0():\n"
     "       = prim::RaiseException(%size_msg, %none)\n"
     "      -> ()\n"
     "    block1():\n"
     "      -> ()\n"
     "  %r : Tensor = aten::binary_cross_entropy(%input, %target, %weight, %reduction_enum)\n"
     "  return (%r)\n"},
    /* kl_div: 'batchmean' sums, then divides by the batch size (a 0-dim input keeps the sum). */
    {"kl_div",
     "graph(%input : Tensor, %target : Tensor, %size_average : NoneType, %reduce : NoneType,\n"
     "      %reduction : str, %log_target : bool):\n" REDUCTION_ENUM
     "  %batchmean_s : str = prim::Constant[value=\"batchmean\"]()\n"
     "  %zero : int = prim::Constant[value=0]()\n"
     "  %false : bool = prim::Constant[value=0]()\n"
     "  %is_batchmean : bool = aten::eq(%reduction, %batchmean_s)\n"
     "  %enum : int = prim::If(%is_batchmean)\n"
     "    block0():\n"
     "      -> (%red_sum)\n"
     "    block1():\n"
     "      -> (%reduction_enum)\n"
     "  %reduced : Tensor = aten::kl_div(%input, %target, %enum, %log_target)\n"
     "  %dims : int = aten::dim(%input)\n"
     "  %batched : bool = aten::ne(%dims, %zero)\n"
     "  %divide : bool = prim::If(%is_batchmean)\n"
     "    block0():\n"
     "      -> (%batched)\n"
     "    block1():\n"
     "      -> (%false)\n"
     "  %r : Tensor = prim::If(%divide)\n"
     "    block0():\n"
     "      %batch : int = aten::size(%input, %zero)\n"
     "      %mean : Tensor = aten::div(%reduced, %batch)\n"
     "      -> (%mean)\n"
     "    block1():\n"
     "      -> (%reduced)\n"
     "  return (%r)\n"},
    /* multilabel_soft_margin_loss: PyTorch 1.13's composite, per sample the mean over classes
     * of -(t log_sigmoid(x) + (1 - t) log_sigmoid(-x)), times weight. */
    {"multilabel_soft_margin_loss",
     "graph(%input : Tensor, %target : Tensor, %weight : Tensor?, %size_average : NoneType,\n"
     "      %reduce : NoneType, %reduction : str):\n"
     "  %none : NoneType = prim::Constant()\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %false : bool = prim::Constant[value=0]()\n"
     "  %none_s : str = prim::Constant[value=\"none\"]()\n"
     "  %mean_s : str = prim::Constant[value=\"mean\"]()\n"
     "  %sum_s : str = prim::Constant[value=\"sum\"]()\n"
     "  %invalid : str = prim::Constant[value=\" is not valid\"]()\n"
     "  %pos : Tensor = aten::log_sigmoid(%input)\n"
     "  %t_pos : Tensor = aten::mul(%target, %pos)\n"
     "  %minus_t : Tensor = aten::neg(%target)\n"
     "  %one_minus_t : Tensor = aten::add(%minus_t, %one, %one)\n"
     "  %minus_x : Tensor = aten::neg(%input)\n"
     "  %neg : Tensor = aten::log_sigmoid(%minus_x)\n"
     "  %t_neg : Tensor = aten::mul(%one_minus_t, %neg)\n"
     "  %both : Tensor = aten::add(%t_pos, %t_neg, %one)\n"
     "  %loss0 : Tensor = aten::neg(%both)\n"
     "  %has_weight : bool = aten::__isnot__(%weight, %none)\n"
     "  %loss : Tensor = prim::If(%has_weight)\n"
     "    block0():\n"
     "      %w : Tensor = prim::unchecked_cast(%weight)\n"
     "      %weighted : Tensor = aten::mul(%loss0, %w)\n"
     "      -> (%weighted)\n"
     "    block1():\n"
     "      -> (%loss0)\n"
     "  %rank : int = aten::dim(%input)\n"
     "  %class_dim : int = aten::sub(%rank, %one)\n"
     "  %classes : int = aten::size(%input, %class_dim)\n"
     "  %dims : int[] = prim::ListConstruct(%class_dim)\n"
     "  %summed : Tensor = aten::sum(%loss, %dims, %false, %none)\n"
     "  %per_sample : Tensor = aten::div(%summed, %classes)\n"
     "  %is_none : bool = aten::eq(%reduction, %none_s)\n"
     "  %r : Tensor = prim::If(%is_none)\n"
     "    block0():\n"
     "      -> (%per_sample)\n"
     "    block1():\n"
     "      %is_mean : bool = aten::eq(%reduction, %mean_s)\n"
     "      %reduced : Tensor = prim::If(%is_mean)\n"
     "        block0():\n"
     "          %m : Tensor = aten::mean(%per_sample, %none)\n"
     "          -> (%m)\n"
     "        block1():\n"
     "          %is_sum : bool = aten::eq(%reduction, %sum_s)\n"
     "          %total : Tensor = prim::If(%is_sum)\n"
     "            block0():\n"
     "              %s : Tensor = aten::sum(%per_sample, %none)\n"
     "              -> (%s)\n"
     "            block1():\n"
     "              %msg : str = aten::add(%reduction, %invalid)\n"
     "               = prim::RaiseException(%msg, %none)\n"
     "              %never : Tensor = prim::Uninitialized()\n"
     "              -> (%never)\n"
     "          -> (%total)\n"
     "      -> (%reduced)\n"
     "  return (%r)\n"},
    {"nll_loss", "graph(%input : Tensor, %target : Tensor, %weight : Tensor?,\n"
                 "      %size_average : NoneType, %ignore_index : int, %reduce : NoneType,\n"
                 "      %reduction : str):\n" REDUCTION_ENUM
                 "  %r : Tensor = aten::nll_loss_nd(%input, %target, %weight, %reduction_enum, "
                 "%ignore_index)\n"
                 "  return (%r)\n"},
    /* cross_entropy: with label_smoothing, PyTorch 1.13's composite (LossNLL.cpp): (1 -
     * smoothing) nll_loss + smoothing / C times the summed -log_softmax (weighted per class,
     * 0 at ignored targets), its mean over the kept targets' count or weight; the smoothing
     * of a constant 0 folds to cross_entropy_loss. */
    {"cross_entropy",
     "graph(%input : Tensor, %target : Tensor, %weight : Tensor?,\n"
     "      %size_average : NoneType, %ignore_index : int, %reduce : NoneType,\n"
     "      %reduction : str, %label_smoothing : float):\n" REDUCTION_ENUM
     "  %none : NoneType = prim::Constant()\n"
     "  %zero_f : float = prim::Constant[value=0.]()\n"
     "  %one_f : float = prim::Constant[value=1.]()\n"
     "  %zero : int = prim::Constant[value=0]()\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %two : int = prim::Constant[value=2]()\n"
     "  %minus_one : int = prim::Constant[value=-1]()\n"
     "  %false : bool = prim::Constant[value=0]()\n"
     "  %smoothing : bool = aten::ne(%label_smoothing, %zero_f)\n"
     "  %r : Tensor = prim::If(%smoothing)\n"
     "    block0():\n"
     "      %rank : int = aten::dim(%input)\n"
     "      %is_1d : bool = aten::eq(%rank, %one)\n"
     "      %class_dim : int = prim::If(%is_1d)\n"
     "        block0():\n"
     "          -> (%zero)\n"
     "        block1():\n"
     "          -> (%one)\n"
     "      %logp : Tensor = aten::log_softmax(%input, %class_dim, %none)\n"
     "      %nll : Tensor = aten::nll_loss_nd(%logp, %target, %weight, %reduction_enum, "
     "%ignore_index)\n"
     "      %ignored : Tensor = aten::eq(%target, %ignore_index)\n"
     "      %has_weight : bool = aten::__isnot__(%weight, %none)\n"
     "      %per_class : Tensor = prim::If(%has_weight)\n"
     "        block0():\n"
     "          %w : Tensor = prim::unchecked_cast(%weight)\n"
     "          %classes : int = aten::size(%w, %zero)\n"
     "          %class_list : int[] = prim::ListConstruct(%classes)\n"
     "          %trailing : int = aten::sub(%rank, %two)\n"
     "          %one_list : int[] = prim::ListConstruct(%one)\n"
     "          %ones : int[] = aten::mul(%one_list, %trailing)\n"
     "          %shape : int[] = aten::add(%class_list, %ones)\n"
     "          %w_view : Tensor = aten::view(%w, %shape)\n"
     "          %weighted : Tensor = aten::mul(%logp, %w_view)\n"
     "          -> (%weighted)\n"
     "        block1():\n"
     "          -> (%logp)\n"
     "      %dims : int[] = prim::ListConstruct(%class_dim)\n"
     "      %summed : Tensor = aten::sum(%per_class, %dims, %false, %none)\n"
     "      %negated : Tensor = aten::neg(%summed)\n"
     "      %smooth : Tensor = aten::masked_fill(%negated, %ignored, %zero_f)\n"
     "      %no_reduction : bool = aten::eq(%reduction_enum, %red_none)\n"
     "      %reduced : Tensor = prim::If(%no_reduction)\n"
     "        block0():\n"
     "          -> (%smooth)\n"
     "        block1():\n"
     "          %total : Tensor = aten::sum(%smooth, %none)\n"
     "          %summing : bool = aten::eq(%reduction_enum, %red_sum)\n"
     "          %mean_or_sum : Tensor = prim::If(%summing)\n"
     "            block0():\n"
     "              -> (%total)\n"
     "            block1():\n"
     "              %count : Tensor = prim::If(%has_weight)\n"
     "                block0():\n"
     "                  %w2 : Tensor = prim::unchecked_cast(%weight)\n"
     "                  %safe : Tensor = aten::masked_fill(%target, %ignored, %zero)\n"
     "                  %flat : Tensor = aten::flatten(%safe, %zero, %minus_one)\n"
     "                  %picked : Tensor = aten::index_select(%w2, %zero, %flat)\n"
     "                  %flat_ignored : Tensor = aten::flatten(%ignored, %zero, %minus_one)\n"
     "                  %kept_w : Tensor = aten::masked_fill(%picked, %flat_ignored, %zero_f)\n"
     "                  %weight_sum : Tensor = aten::sum(%kept_w, %none)\n"
     "                  -> (%weight_sum)\n"
     "                block1():\n"
     "                  %kept : Tensor = aten::logical_not(%ignored)\n"
     "                  %kept_sum : Tensor = aten::sum(%kept, %none)\n"
     "                  -> (%kept_sum)\n"
     "              %mean : Tensor = aten::div(%total, %count)\n"
     "              -> (%mean)\n"
     "          -> (%mean_or_sum)\n"
     "      %keep : float = aten::sub(%one_f, %label_smoothing)\n"
     "      %kept_nll : Tensor = aten::mul(%nll, %keep)\n"
     "      %n_classes : int = aten::size(%input, %class_dim)\n"
     "      %share : float = aten::div(%label_smoothing, %n_classes)\n"
     "      %spread : Tensor = aten::mul(%reduced, %share)\n"
     "      %smoothed : Tensor = aten::add(%kept_nll, %spread, %one)\n"
     "      -> (%smoothed)\n"
     "    block1():\n"
     "      %plain : Tensor = aten::cross_entropy_loss(%input, %target, %weight, "
     "%reduction_enum, %ignore_index, %label_smoothing)\n"
     "      -> (%plain)\n"
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
