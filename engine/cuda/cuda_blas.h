/* Matrix products on CUDA tensors through cuBLAS (DESIGN.md: never hand-written GEMM).
 *
 * Contracts:
 * - One cublasHandle for the process's context, created on first use, bound to the CUDA
 *   runtime's stream (cuda_tensor.h).
 * - Row-major products through the column-major trick: C = A B is computed as C^T = B^T A^T,
 *   so a row-major operand is passed untransposed and a transposed (column-major) one with
 *   CUBLAS_OP_T, each with its own leading dimension; any other layout is made contiguous on
 *   the device first. Results are fresh contiguous device tensors.
 * - mm, addmm (beta * self broadcast + alpha * mat1 mat2) and matmul (1-d, 2-d and batched
 *   with broadcast batch dims, PyTorch's rules) for float32 (cublasSgemm) and float64
 *   (cublasDgemm). Other dtypes, mixed dtypes, shapes that do not multiply, sizes beyond int
 *   and a missing cuBLAS decline (RT_DEVICE_DECLINED), so the CPU kernel runs and says what
 *   is wrong. */
#ifndef JITSCOPE_CUDA_BLAS_H
#define JITSCOPE_CUDA_BLAS_H

#include "runtime/kernels.h"

bool cuda_kernel_mm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error);
bool cuda_kernel_addmm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error);
bool cuda_kernel_matmul(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                        RtValue *outs, guint n_outs, GError **error);

#endif
