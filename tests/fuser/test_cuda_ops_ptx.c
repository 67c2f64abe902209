/* The CUDA runtime's kernels compile without a GPU: for every elementwise op of ops.def the
 * single-op group (cuda_ops.h) parses back to the same overload and its generated kernel
 * compiles to PTX with nvrtc in float32 and float64 at merged ranks 1 and 2; the copy kernel
 * for every dtype pair and the sum kernel for every input dtype and result dtype compile.
 * Also: the generated kernels' result dtypes against the CPU kernels' (mismatches are
 * declined at run time; the test prints them and fails when a float32/float64 op would be
 * declined, since those must run on the device). Exit 77 only when nvrtc cannot be loaded. */
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_kernels.h"
#include "cuda/cuda_ops.h"
#include "ir/text.h"
#include "runtime/device.h"
#include "runtime/kernels.h"

static guint failures;

static void fail(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void fail(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  failures++;
}

/* Arguments for a call of schema: tensors of `dtype`, numbers of the declared kinds. */
static guint make_args(const IrSchema *schema, IrDtype dtype, RtValue *args) {
  int64_t sizes[1] = {4};
  for (guint i = 0; i < schema->n_args; i++) {
    const IrType *t = schema->args[i].type;
    if (t->kind == IR_TYPE_OPTIONAL)
      t = t->elem;
    switch (t->kind) {
    case IR_TYPE_TENSOR: args[i] = rt_tensor(rt_tensor_randn(dtype, 1, sizes, i + 1)); break;
    case IR_TYPE_INT: args[i] = rt_int(2); break;
    case IR_TYPE_BOOL: args[i] = rt_bool(true); break;
    default: args[i] = rt_double(i == 1 ? 0.5 : 1.5); break;
    }
  }
  return schema->n_args;
}

static guint elementwise_ops(const char *arch) {
  guint compiled = 0;
  for (guint s = 0; s < ir_ops_count(); s++) {
    const IrSchema *schema = ir_ops_schema(s);
    if (!(ir_ops_def(s)->flags & IR_OPF_FUSIBLE_BIT)) /* the rest go through the host */
      continue;
    IrDtype dtypes[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64};
    for (guint d = 0; d < 2; d++) {
      RtValue args[16];
      guint n = make_args(schema, dtypes[d], args);
      GError *error = NULL;
      char *text = cuda_elementwise_group_text(schema, args, n, &error);
      if (text == NULL) {
        fail("%s: no group text: %s", schema->text, error->message);
        g_clear_error(&error);
      }
      IrGraph *g = text ? ir_graph_parse(text, strlen(text), "<op>", &error) : NULL;
      if (text && g == NULL) {
        fail("%s: the group does not parse: %s\n%s", schema->text, error->message, text);
        g_clear_error(&error);
      }
      if (g) {
        const IrNode *group = g->block->param->next;
        const IrGraph *sub = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
        const IrNode *op = NULL;
        IR_FOR_EACH_NODE(nd, sub->block) {
          if (nd->kind != IR_PRIM_CONSTANT)
            op = nd;
        }
        if (!op || !op->schema || op->schema->index != schema->index)
          fail("%s: the group resolves to %s", schema->text,
               op && op->schema ? op->schema->text : "nothing");
        guint n_tensor = cuda_codegen_n_tensor_inputs(sub);
        IrDtype in_dtypes[16];
        for (guint i = 0; i < n_tensor; i++)
          in_dtypes[i] = dtypes[d];
        /* The result dtype the CPU kernel gives for the same arguments. */
        RtValue out = rt_none();
        IrDtype gen = IR_DTYPE_FLOAT32;
        if (!cuda_codegen_output_dtypes(sub, in_dtypes, &gen, &error)) {
          fail("%s: no output dtype: %s", schema->text, error->message);
          g_clear_error(&error);
        } else if (rt_op_kernel(schema)(schema, NULL, args, n, &out, 1, NULL) &&
                   out.u.tensor->dtype != gen) {
          fail("%s %s: generated dtype %s, CPU kernel %s", schema->text, ir_dtype_name(dtypes[d]),
               ir_dtype_name(gen), ir_dtype_name(out.u.tensor->dtype));
        }
        rt_value_unref(out);
        for (guint rank = 1; rank <= 2; rank++) {
          guint in_nd[16], out_nd[1] = {rank};
          for (guint i = 0; i < n_tensor; i++)
            in_nd[i] = rank;
          CudaKernelSource *k =
              cuda_codegen_kernel(sub, "jitscope_op", in_dtypes, in_nd, out_nd, &error);
          if (k == NULL) {
            fail("%s: codegen: %s", schema->text, error->message);
            g_clear_error(&error);
            continue;
          }
          CudaCompileResult *c = cuda_compile_ptx(k->source, k->name, arch, &error);
          g_assert_no_error(error);
          if (!c->ok)
            fail("%s (%s, rank %u): nvrtc:\n%s\n%s", schema->text, ir_dtype_name(dtypes[d]), rank,
                 c->log, k->source);
          else
            compiled++;
          cuda_compile_result_free(c);
          kernel_source_free(k);
        }
        ir_graph_free(g);
      }
      g_free(text);
      for (guint i = 0; i < n; i++)
        rt_value_unref(args[i]);
    }
  }
  return compiled;
}

static guint runtime_kernels(void) {
  IrDtype all[5] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64, IR_DTYPE_FLOAT16, IR_DTYPE_INT64,
                    IR_DTYPE_BOOL};
  guint compiled = 0;
  for (guint s = 0; s < 5; s++) {
    for (guint d = 0; d < 5; d++) {
      for (int kind = CUDA_RT_COPY; kind <= CUDA_RT_SUM; kind++) {
        GError *error = NULL;
        const CudaCompileResult *c = cuda_rt_kernel_compile(kind, all[s], all[d], &error);
        g_assert_no_error(error);
        if (!c->ok) {
          char *src = cuda_rt_kernel_source(kind, all[s], all[d], "k");
          fail("%s %s -> %s: nvrtc:\n%s\n%s", kind == CUDA_RT_COPY ? "copy" : "sum",
               ir_dtype_name(all[s]), ir_dtype_name(all[d]), c->log, src);
          g_free(src);
        } else {
          compiled++;
          const char *entry = kind == CUDA_RT_COPY ? "_copy_" : "_sum_";
          if (strstr(c->ptx, entry) == NULL)
            fail("the PTX of a %s kernel lacks its entry point", entry);
        }
        /* The second lookup is the cached result. */
        g_assert_true(cuda_rt_kernel_compile(kind, all[s], all[d], NULL) == c);
      }
    }
  }
  return compiled;
}

int main(void) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->nvrtc.loaded) {
    printf("SKIP: nvrtc did not load: %s\n", s->nvrtc.error);
    return 77;
  }
  GError *error = NULL;
  char *arch = cuda_compile_resolve_arch(NULL, &error);
  g_assert_no_error(error);
  guint ops = elementwise_ops(arch);
  guint rt = runtime_kernels();
  printf("%u single-op kernels and %u runtime kernels compiled for %s; %u failures\n", ops, rt,
         arch, failures);
  if (ops == 0 || rt != 50)
    fail("expected every kernel to compile (%u single-op, %u of 50 runtime)", ops, rt);
  g_free(arch);
  return failures ? 1 : 0;
}
