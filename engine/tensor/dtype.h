/* Element types and devices: the enums both tensors and IR tensor types carry. They keep the
 * IR's names (IrDtype, IR_DTYPE_*) because the IR's types and its text format spell them, but
 * live here, below the IR, so that tensors need no IR library (docs/architecture.md). */
#ifndef JITSCOPE_TENSOR_DTYPE_H
#define JITSCOPE_TENSOR_DTYPE_H

typedef enum {
  IR_DTYPE_FLOAT32,
  IR_DTYPE_FLOAT64,
  IR_DTYPE_FLOAT16,
  IR_DTYPE_INT64,
  IR_DTYPE_BOOL,
  IR_DTYPE_COUNT
} IrDtype;

typedef enum { IR_DEVICE_CPU, IR_DEVICE_CUDA } IrDevice;

/* The most dimensions a tensor, or a tensor type, has. */
#define IR_MAX_RANK 16

#endif
