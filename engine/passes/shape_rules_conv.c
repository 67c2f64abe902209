/* shape_rules_conv: the result rules of conv1d / conv2d and of the 2-D poolings (see
 * shape_rules.h): the input's rank and dtype, contiguous, with the window counts of the
 * kernels (runtime/kernel_args.h's k_window_count) when every size and argument is a
 * constant. Arguments the kernel would reject leave the sizes unknown; the kernel reports
 * the error. */
#include "passes/shape_rules.h"
#include "passes/pass_util.h"
#include "runtime/kernel_args.h"

/* An int[] argument of `count` spatial entries, a single value repeated; false unless every
 * entry is a constant. */
static bool
spatial_arg(const IrNode *node, const char *name, guint count, gint64 *out)
{
  gint64 vals[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_int_list_arg(node, name, vals, &n, &all_known) || !all_known ||
      (n != 1 && n != count))
    return false;
  for (guint k = 0; k < count; k++)
    out[k] = vals[n == 1 ? 0 : k];
  return true;
}

/* input [N,] C, *spatial with weight [OC, C / groups, *kernel]: [N,] OC, *windows. */
bool
shape_rule_conv(const IrNode *node, ShapeInfo *out)
{
  guint sp = node->kind == IR_ATEN_CONV1D ? 1 : 2;
  ShapeInfo weight;
  if (!shape_tensor_input(node, 0, out) || (out->rank != (int)sp + 1 && out->rank != (int)sp + 2))
    return false;
  gint64 stride[2], pad[2], dil[2], groups;
  bool sized = shape_tensor_input(node, 1, &weight) && weight.has_sizes && out->has_sizes &&
               weight.rank == (int)sp + 2 && spatial_arg(node, "stride", sp, stride) &&
               spatial_arg(node, "padding", sp, pad) &&
               spatial_arg(node, "dilation", sp, dil) && pu_arg_int(node, "groups", &groups) &&
               groups > 0 && weight.sizes[0] % groups == 0;
  int first = out->rank - (int)sp; /* the first spatial dim */
  for (guint k = 0; sized && k < sp; k++) {
    gint64 windows = IR_SIZE_UNKNOWN;
    sized = stride[k] > 0 && pad[k] >= 0 && dil[k] > 0 &&
            k_window_count(out->sizes[first + (int)k], weight.sizes[2 + k], stride[k], pad[k],
                           dil[k], false, &windows) &&
            windows > 0;
    out->sizes[first + (int)k] = windows;
  }
  if (sized)
    out->sizes[first - 1] = weight.sizes[0];
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}
