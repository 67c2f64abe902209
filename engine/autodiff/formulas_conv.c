/* Gradient formulas of the convolutions and, as PyTorch 1.13's derivatives.yaml, their one
 * backward op: conv1d / conv2d through aten::convolution_backward. */
#include "autodiff/formulas_internal.h"

/* A bool[3] output_mask as a ListConstruct of constants. */
static IrValue *
mask_of(Ctx *c, const bool asks[3])
{
  IrNode *mask = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (int i = 0; i < 3; i++)
    ir_node_add_input(mask, ir_graph_insert_constant_bool(c->g, asks[i]));
  ir_value_set_type(ir_output(mask, 0), ir_type_list(ir_type_bool()));
  ir_graph_insert(c->g, mask);
  return ir_output(mask, 0);
}

/* Argument i, or the constant int[] `fill` (the schema's default) when the node omits it. */
static IrValue *
int_list_arg(Ctx *c, guint i, gint64 fill)
{
  return arg(c, i) ? c->in[i] : ir_graph_insert_constant_int_list(c->g, &fill, 1);
}

/* conv1d, conv2d: the gradients of input, weight and (when given) bias from one
 * convolution_backward, as PyTorch's convolution_backward with transposed = False. */
void
ad_grad_conv(Ctx *c, IrValue *g)
{
  bool has_bias = is_tensor(arg(c, 2));
  bool asks[3] = {true, true, has_bias};
  gint64 zero = 0;
  IrValue *args[] = {
    g,
    c->in[0],
    c->in[1],
    has_bias ? size_of(c, c->in[2]) : ir_graph_insert_constant_none(c->g),
    int_list_arg(c, 3, 1),
    int_list_arg(c, 4, 0),
    int_list_arg(c, 5, 1),
    ir_graph_insert_constant_bool(c->g, false),
    ir_graph_insert_constant_int_list(c->g, &zero, 1),
    arg(c, 6) ? c->in[6] : cint(c, 1),
    mask_of(c, asks),
  };
  IrNode *bw = ir_graph_insert_op(c->g, IR_ATEN_CONVOLUTION_BACKWARD, args,
                                  G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  c->gin[1] = ir_output(bw, 1);
  if (has_bias)
    c->gin[2] = ir_output(bw, 2);
}
