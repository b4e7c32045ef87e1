/* ops.h - the IR's operations, one row each, with the properties passes query.
 *
 * X(op, mnemonic, arity, flags)
 *   mnemonic  the builtin's name in .evt source when IR_BUILTIN is set, and the
 *             name printed in IR text in every case
 *   arity     number of value operands
 *   flags     IR_LEAF       no operands; identity given by attr (not by operands)
 *             IR_BUILTIN    callable by name in .evt source
 *             IR_COMMUTE    operands may be swapped without changing a result bit
 *             IR_COMPARE    yields a boolean
 *             IR_REDUCE     a reduction (attr.axis says over which dimensions)
 *             IR_FOLD       constant operands fold: the host computes the result
 *                           bit-exactly as the GPU does (ir/passes/fold.c)
 *             IR_IDEMPOTENT op(op(x)) == op(x) bit for bit, on every x
 *             IR_COSTLY     tens of instructions an element (evt_math.h's
 *                           exp-based builtins): the planner keeps such an
 *                           epilogue off tiles that cost it (plan_light_epilogue),
 *                           and codegen takes fewer rows a group (row_group)
 */
#ifndef EVT_IR_OPS_H
#define EVT_IR_OPS_H

enum {
    IR_LEAF = 1 << 0,
    IR_BUILTIN = 1 << 1,
    IR_COMMUTE = 1 << 2,
    IR_COMPARE = 1 << 3,
    IR_REDUCE = 1 << 4,
    IR_FOLD = 1 << 5,
    IR_IDEMPOTENT = 1 << 6,
    IR_COSTLY = 1 << 7
};

#define IR_OPS(X)                                                                  \
    X(IR_CONST, "const", 0, IR_LEAF)                            /* attr.f */       \
    X(IR_ACC, "acc", 0, IR_LEAF)                                /* accumulator */  \
    X(IR_INPUT, "input", 0, IR_LEAF)                            /* attr.index */   \
    X(IR_PARAM, "param", 0, IR_LEAF)                            /* attr.index */   \
    X(IR_NEG, "neg", 1, IR_FOLD)                                /* -a */           \
    X(IR_ADD, "add", 2, IR_COMMUTE | IR_FOLD)                   /* a + b */        \
    X(IR_SUB, "sub", 2, IR_FOLD)                                /* a - b */        \
    X(IR_MUL, "mul", 2, IR_COMMUTE | IR_FOLD)                   /* a * b */        \
    X(IR_DIV, "div", 2, IR_FOLD)                                /* a / b */        \
    X(IR_LT, "lt", 2, IR_COMPARE)                               /* a < b */        \
    X(IR_LE, "le", 2, IR_COMPARE)                               /* a <= b */       \
    X(IR_GT, "gt", 2, IR_COMPARE)                               /* a > b */        \
    X(IR_GE, "ge", 2, IR_COMPARE)                               /* a >= b */       \
    X(IR_EQ, "eq", 2, IR_COMPARE | IR_COMMUTE)                  /* a == b */       \
    X(IR_NE, "ne", 2, IR_COMPARE | IR_COMMUTE)                  /* a != b */       \
    X(IR_SELECT, "select", 3, 0)                                /* c ? a : b */    \
    X(IR_RELU, "relu", 1, IR_BUILTIN | IR_IDEMPOTENT | IR_FOLD)                    \
    X(IR_LEAKY_RELU, "leaky_relu", 2, IR_BUILTIN | IR_FOLD)                        \
    X(IR_GELU, "gelu", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                        \
    X(IR_GELU_TANH, "gelu_tanh", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)              \
    X(IR_SILU, "silu", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                        \
    X(IR_SIGMOID, "sigmoid", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                  \
    X(IR_TANH, "tanh", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                        \
    X(IR_EXP, "exp", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                          \
    X(IR_LOG, "log", 1, IR_BUILTIN | IR_FOLD | IR_COSTLY)                          \
    X(IR_SQRT, "sqrt", 1, IR_BUILTIN | IR_FOLD)                                    \
    X(IR_RSQRT, "rsqrt", 1, IR_BUILTIN | IR_FOLD)                                  \
    X(IR_ABS, "abs", 1, IR_BUILTIN | IR_IDEMPOTENT | IR_FOLD)                      \
    X(IR_HARDSWISH, "hardswish", 1, IR_BUILTIN | IR_FOLD)                          \
    X(IR_MIN, "min", 2, IR_BUILTIN | IR_COMMUTE | IR_FOLD)                         \
    X(IR_MAX, "max", 2, IR_BUILTIN | IR_COMMUTE | IR_FOLD)                         \
    X(IR_CLAMP, "clamp", 3, IR_BUILTIN | IR_FOLD)                                  \
    X(IR_REDUCE_SUM, "reduce_sum", 1, IR_BUILTIN | IR_REDUCE)                      \
    X(IR_REDUCE_MAX, "reduce_max", 1, IR_BUILTIN | IR_REDUCE)                      \
    X(IR_REDUCE_MIN, "reduce_min", 1, IR_BUILTIN | IR_REDUCE)                      \
    X(IR_GELU16, "gelu16", 1, IR_FOLD | IR_COSTLY) /* gelu for 16-bit stores */

typedef enum ir_op {
#define IR_OP_ENUM(op, name, arity, flags) op,
    IR_OPS(IR_OP_ENUM)
#undef IR_OP_ENUM
    IR_OP_COUNT
} ir_op;

typedef struct ir_op_info {
    const char *name;
    int arity;
    unsigned flags;
} ir_op_info;

/* The row of `op`. */
const ir_op_info *ir_op_get(ir_op op);
/* The builtin called `name` in .evt source, or -1. */
int ir_op_builtin(const char *name);

#endif
