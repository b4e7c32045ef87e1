/* emit_cuda.c - lowers a kernel's optimized epilogue IR to one CUDA C++
 * translation unit over the kernels/ headers: an argument struct, the
 * epilogue as straight-line code over 8-column chunks, and the entry points
 * that pair it with the mainloop for each tile configuration.
 *
 * Placement follows shape, so loop-invariant work is hoisted for free:
 * scalar values are computed once per thread before the tile loop, [N]
 * values once per thread for its column chunk, [M] values once per row,
 * [M, N] values per element.  A value with several users is one variable. */
#include "cg.h"
#include "layout.h"
#include "../support/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *storage_type(evt_elem e)
{
    switch (e) {
    case EVT_F32: return "float";
    case EVT_F16:
    case EVT_BF16: return "evt_u16";
    case EVT_I8: return "evt_i8";
    case EVT_I32: return "evt_i32";
    case EVT_E4M3:
    case EVT_E5M2: return "evt_u8";
    }
    return "void";
}

/* The element-type constant of kernels/epilogue.cuh. */
static const char *elem_const(evt_elem e)
{
    static const char *const names[] = {"EVT_E_F32",  "EVT_E_F16",  "EVT_E_BF16", "EVT_E_I8",
                                        "EVT_E_I32",  "EVT_E_E4M3", "EVT_E_E5M2"};
    return names[e];
}

static int is_vector(evt_shape s)
{
    return (s & EVT_SHAPE_N) != 0; /* [N] and [M, N] hold one value per chunk column */
}

typedef struct emitter {
    const ir_kernel *k;
    const ir_func *fn;
    const char *file;
    strbuf *sb;
    int indent;
    int fast_math; /* cg_select.fast_math */
    /* The register-direct epilogue (emit_direct) is being written: a chunk
     * is 2 columns, not EVT_VEC. */
    int direct;
    /* In the direct epilogue: the value acc + bias whose [N] bias the
     * consumers' accumulators start from (acc_fold), so it is the
     * accumulators; NULL where none is. */
    const ir_value *fold_add;
} emitter;

/* The columns of a chunk in the epilogue being written. */
static const char *vec_len(const emitter *e)
{
    return e->direct ? "2" : "EVT_VEC";
}

/* The value of v at chunk column `i` (or its only value). */
static void ref(const emitter *e, const ir_value *v)
{
    sb_printf(e->sb, is_vector(v->shape) ? "v%d[i]" : "v%d", v->id);
}

/* The erf GELU, at f32 or 16-bit precision (ir/narrow.c): one function,
 * evt_fast_gelu, under fast math. */
static int erf_gelu(ir_op op)
{
    return op == IR_GELU || op == IR_GELU16;
}

/* The builtins a fast-math compile takes from common/fast_math.h. */
static int fast_builtin(ir_op op)
{
    return op == IR_EXP || op == IR_SIGMOID || op == IR_SILU || op == IR_GELU_TANH || erf_gelu(op);
}

static void emit_expr(const emitter *e, const ir_value *v)
{
    strbuf *sb = e->sb;
    const ir_op_info *info = ir_op_get(v->op);
    static const char *const infix[IR_OP_COUNT] = {
        [IR_ADD] = " + ", [IR_SUB] = " - ", [IR_MUL] = " * ", [IR_DIV] = " / ",
        [IR_LT] = " < ",  [IR_LE] = " <= ", [IR_GT] = " > ",  [IR_GE] = " >= ",
        [IR_EQ] = " == ", [IR_NE] = " != ",
    };
    if (v->op == IR_CONST) {
        uint32_t bits;
        memcpy(&bits, &v->attr.f, sizeof bits);
        sb_printf(sb, "__uint_as_float(0x%08xu) /* %.9g */", bits, (double)v->attr.f);
    } else if (v->op == IR_NEG) {
        sb_puts(sb, "-");
        ref(e, v->args[0]);
    } else if (infix[v->op]) {
        ref(e, v->args[0]);
        sb_puts(sb, infix[v->op]);
        ref(e, v->args[1]);
    } else if (v->op == IR_SELECT && v->type != IR_BOOL) {
        /* evt_select, not ?:, for the bits of a -0 (evt_math.h) */
        sb_puts(sb, "evt_select(");
        ref(e, v->args[0]);
        sb_puts(sb, ", ");
        ref(e, v->args[1]);
        sb_puts(sb, ", ");
        ref(e, v->args[2]);
        sb_puts(sb, ")");
    } else if (v->op == IR_SELECT) {
        ref(e, v->args[0]);
        sb_puts(sb, " ? ");
        ref(e, v->args[1]);
        sb_puts(sb, " : ");
        ref(e, v->args[2]);
    } else {
        if (e->fast_math && fast_builtin(v->op))
            sb_printf(sb, "evt_fast_%s(", erf_gelu(v->op) ? "gelu" : info->name);
        else
            sb_printf(sb, "evt_%s(", info->name);
        for (int j = 0; j < v->nargs; j++) {
            if (j)
                sb_puts(sb, ", ");
            ref(e, v->args[j]);
        }
        sb_puts(sb, ")");
    }
}

static void line_start(emitter *e)
{
    for (int i = 0; i < e->indent; i++)
        sb_puts(e->sb, "    ");
}

/* Emits the definition of one computed or loaded value.  In the direct
 * epilogue (e->direct) a chunk is the 2 columns at col, the accumulator's
 * come from the segment's a[], and a row's loads from its load phase
 * without a row index j. */
static void emit_value(emitter *e, const ir_value *v)
{
    strbuf *sb = e->sb;
    const char *ty = v->type == IR_BOOL ? "bool" : "float";
    const char *vec = vec_len(e);
    line_start(e);
    if (v->op == IR_ACC || (e->direct && v == e->fold_add)) { /* (acc + a folded bias: the accumulators) */
        if (e->direct) {
            sb_printf(sb, "const float v%d[2] = {a[2 * g], a[2 * g + 1]};", v->id);
        } else {
            sb_printf(sb, "float v%d[EVT_VEC];\n", v->id);
            line_start(e);
            sb_printf(sb, "evt_load_acc(acc + r * ACC_LD + c, v%d);", v->id);
        }
    } else if (v->op == IR_INPUT) {
        const evt_arg_info *in = &e->fn->inputs[v->attr.index].info;
        int idx = v->attr.index;
        const char *ec = elem_const(in->elem);
        switch (in->shape) {
        case EVT_SHAPE_SCALAR:
            sb_printf(sb, "const float v%d = evt_elem<%s>::load(*p.in%d);", v->id, ec, idx);
            break;
        case EVT_SHAPE_N:
            if (e->direct) {
                sb_printf(sb, "float v%d[2];\n", v->id);
                line_start(e);
                sb_printf(sb, "evt_load_vec<%s, FAST, 2, true>(p.in%d + col, ncol, v%d);", ec, idx, v->id);
            } else {
                sb_printf(sb, "float v%d[EVT_VEC];\n", v->id);
                line_start(e);
                sb_printf(sb, "evt_load_vec<%s>(p.in%d + col0, ncol, v%d);", ec, idx, v->id);
            }
            break;
        case EVT_SHAPE_M: /* prefetched by the group's load phase */
            sb_printf(sb, "const float v%d = evt_elem<%s>::load(raw%d%s);", v->id, ec, idx,
                      e->direct ? "" : "[j]");
            break;
        case EVT_SHAPE_MN: /* (not in the direct epilogue: direct_ok) */
            sb_printf(sb, "float v%d[EVT_VEC];\n", v->id);
            line_start(e);
            sb_printf(sb, "evt_convert_vec<%s>(raw%d[j], v%d);", ec, idx, v->id);
            break;
        }
    } else if (v->op == IR_PARAM) {
        sb_printf(sb, "const float v%d = p.param%d;", v->id, v->attr.index);
    } else if (is_vector(v->shape)) {
        sb_printf(sb, "%s v%d[%s];\n", ty, v->id, vec);
        line_start(e);
        sb_puts(sb, "#pragma unroll\n");
        line_start(e);
        sb_printf(sb, "for (int i = 0; i < %s; ++i)\n", vec);
        line_start(e);
        sb_printf(sb, "    v%d[i] = ", v->id);
        emit_expr(e, v);
        sb_putc(sb, ';');
    } else {
        /* Scalar and [M] values have only scalar and [M] operands: no chunk index. */
        sb_printf(sb, "const %s v%d = ", ty, v->id);
        emit_expr(e, v);
        sb_putc(sb, ';');
    }
    sb_printf(sb, " // %s:%u\n", e->file, v->loc.line);
}

static const char *red_name(evt_reduce r)
{
    return r == EVT_REDUCE_SUM ? "EVT_RED_SUM" : r == EVT_REDUCE_MAX ? "EVT_RED_MAX" : "EVT_RED_MIN";
}

static void emit_args_struct(emitter *e, const char *sname, const cg_layout *l)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    static const char *const ctype[] = {"", "evt_i64", "int", "float"};
    sb_printf(sb, "/* Launch arguments: the runtime packs them by codegen/layout.c. */\n");
    sb_printf(sb, "struct %s {\n", sname);
    sb_printf(sb, "    %s mainloop; /* the mainloop's problem */\n", cg_mainloop_args_type(e->k));
    for (size_t i = 0; i < l->nfields; i++) {
        const cg_field *f = &l->fields[i];
        if (f->role == CG_ROLE_OPERAND || f->role == CG_ROLE_OPERAND_LD || f->role == CG_ROLE_SIZE ||
            f->role == CG_ROLE_OPERAND_STRIDE || f->role == CG_ROLE_BATCH || f->role == CG_ROLE_BATCH_INDEX)
            continue;
        const evt_arg_info *info = NULL;
        if (f->role == CG_ROLE_INPUT)
            info = &fn->inputs[f->index].info;
        else if (f->role == CG_ROLE_OUTPUT)
            info = &fn->outputs[f->index].info;
        if (info)
            sb_printf(sb, "    %s%s *%s; /* %s %s: %s%s (%s:%u) */\n",
                      f->role == CG_ROLE_INPUT ? "const " : "", storage_type(info->elem), f->name,
                      f->role == CG_ROLE_INPUT ? "in" : "out", info->name,
                      evt_elem_name(info->elem), evt_shape_name(info->shape), e->file,
                      info->loc.line);
        else if (f->role == CG_ROLE_PARAM)
            sb_printf(sb, "    float %s; /* param %s */\n", f->name, fn->params[f->index].info.name);
        else if (f->role == CG_ROLE_WORKSPACE)
            sb_printf(sb, "    evt_u32 *%s; /* reduction workspace: one word per result */\n", f->name);
        else
            sb_printf(sb, "    %s %s;\n", ctype[f->type], f->name);
    }
    sb_puts(sb, "};\n");
    sb_printf(sb, "static_assert(sizeof(%s) == %zu, \"layout.c disagrees\");\n", sname, l->size);
    /* NVRTC has no offsetof; nvcc (tests/codegen) checks every field. */
    sb_puts(sb, "#ifndef __CUDACC_RTC__\n");
    for (size_t i = 0; i < l->nfields; i++)
        sb_printf(sb, "static_assert(__builtin_offsetof(%s, %s) == %zu, \"layout.c disagrees\");\n",
                  sname, l->fields[i].name, l->fields[i].offset);
    sb_puts(sb, "#endif\n\n");
}


/*
 * The bytes a thread's load phase holds for one row of a row group: an
 * EVT_VEC chunk of each [M, N] input the epilogue reads, an element of each
 * [M] one (0: the epilogue loads nothing per row).  A group's loads stay in
 * registers until the group is computed.
 */
#define VEC_COLS 8 /* EVT_VEC, kernels/common/epilogue.cuh: a thread's columns of a row */
static size_t row_load_bytes(const ir_func *fn)
{
    size_t bytes = 0;
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        if (ir_func_reads_input(fn, i) && (in->shape & EVT_SHAPE_M))
            bytes += evt_elem_size(in->elem) * (in->shape == EVT_SHAPE_MN ? VEC_COLS : 1);
    }
    return bytes;
}

/* The most bytes of loads a row group holds: 16 rows of one 16-bit [M, N]
 * input (64 registers), the case the group of 16 was measured on.  Past it
 * ptxas spills: a float [M, N] input beside an fp8 one, 16 rows a group,
 * 1.5 KB a thread on the 128x128 ping-pong tile, none at 4 rows
 * (docs/codegen.md, session 68). */
#define ROW_LOAD_BYTES 256

/*
 * Rows per group in the epilogue: G rows' global loads are issued before
 * any of them is computed, and the G rows' code is unrolled.  Unrolling
 * costs instruction fetch: a GELU epilogue at G = 8 is 64 inlined copies,
 * which made the 4096^3 GEMM + bias + GELU 30% slower than at G = 2 while
 * the builtins still branched (H200, bench/profile_gelu.py, docs/codegen.md).
 * Without per-row loads there is nothing to overlap: G = 2.  With loads,
 * G = 16 for cheap epilogues (the ResNet-50 1x1 convs with a residual ran
 * 3-5% faster than at 8), 4 for those with transcendental builtins.
 * Under fast math, where every costly builtin is one of fast_math.h's (8 to
 * 20 instructions an element in place of 19 to 50), G = 4 without loads
 * too: there the epilogue waits on its shared-memory reads and the SFU more
 * than on instruction fetch (4096x16384x256 + bias + gelu_tanh 1.07x
 * faster than at 2, never slower on six shapes; an exact GELU ran 1.12x
 * slower at 4; docs/codegen.md).  Groups are halved (to 2 at the least)
 * while their loads would hold more than ROW_LOAD_BYTES.
 * cg_select.row_group (evt_tuning.row_group) overrides it, for tuning.
 */
static int row_group(const ir_func *fn, size_t load_bytes, int fast_math, int forced)
{
    if (forced)
        return forced;
    int heavy = 0, exact_heavy = 0;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if ((ir_op_get(v->op)->flags & IR_COSTLY) && (v->shape & EVT_SHAPE_M)) {
            heavy = 1;
            exact_heavy |= !(fast_math && fast_builtin(v->op));
        }
    }
    if (!load_bytes)
        return heavy && !exact_heavy ? 4 : 2;
    int group = heavy ? 4 : 16;
    while (group > 2 && group * load_bytes > ROW_LOAD_BYTES)
        group /= 2;
    return group;
}

static void emit_epilogue(emitter *e, const char *fname, const char *sname, int forced_group)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    sb_printf(sb, "/* Epilogue %s (%s:%u) over one BM x BN tile. */\n", fn->name, e->file,
              fn->loc.line);
    /* STAGED: the staged input (plan_staged_input) is read from the dense
     * BM x BN shared tile `staged` that pp_run's producer filled */
    sb_puts(sb, "template <int BM, int BN, class TEAM, int ACC_LD, bool FAST, bool STAGED = false>\n");
    sb_printf(sb, "static __device__ __forceinline__ void %s(const %s &p, int tile_m, int tile_n,\n"
                  "    const float *acc, float *scratch, const void *staged = nullptr)\n{\n",
              fname, sname);
    sb_puts(sb, "    constexpr int THREADS = TEAM::kThreads; /* evt_epi_team */\n"
                "    constexpr int CPR = BN / EVT_VEC;    /* threads per tile row */\n"
                "    constexpr int RPP = THREADS / CPR;   /* rows per pass */\n"
                "    static_assert(THREADS % CPR == 0 && BM % RPP == 0, \"tile/thread mismatch\");\n"
                "    const int tid = TEAM::tid();\n"
                "    const int c = (tid % CPR) * EVT_VEC;\n"
                "    const int col0 = tile_n * BN + c;\n"
                "    const int ncol = FAST ? EVT_VEC\n"
                "                   : p.n - col0 < 0 ? 0 : (p.n - col0 < EVT_VEC ? p.n - col0 : EVT_VEC);\n"
                "    (void)acc; (void)scratch; (void)staged;\n");
    e->indent = 1;
    /* Once per thread: scalars, then [N] values of this column chunk. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < fn->nvalues; i++) {
            const ir_value *v = fn->values[i];
            if (ir_op_get(v->op)->flags & IR_REDUCE)
                continue;
            if ((pass == 0 && v->shape == EVT_SHAPE_SCALAR) || (pass == 1 && v->shape == EVT_SHAPE_N))
                emit_value(e, v);
        }
    /* Reduction partials. */
    for (size_t o = 0; o < fn->noutputs; o++) {
        const ir_arg *out = &fn->outputs[o];
        if (out->info.reduce == EVT_REDUCE_NONE)
            continue;
        int axis = out->value->attr.axis;
        if (axis == EVT_SHAPE_M) {
            sb_printf(sb, "    float red%zu[EVT_VEC];\n#pragma unroll\n"
                          "    for (int i = 0; i < EVT_VEC; ++i)\n"
                          "        red%zu[i] = evt_red<%s>::identity();\n",
                      o, o, red_name(out->info.reduce));
        } else if (axis == EVT_SHAPE_MN) {
            sb_printf(sb, "    float red%zu = evt_red<%s>::identity();\n", o,
                      red_name(out->info.reduce));
        }
    }
    /* Rows go in groups of G: first every global load of the group is issued
     * (into raw storage), then the group is computed and stored, so the
     * loads' latencies overlap instead of adding up row after row.  A thread
     * stores exactly the [M, N] elements its own load phase read (its
     * column chunk of the group's rows), after reading them, and a staged
     * input's tile was copied whole before the tile's epilogue began: that
     * is what makes an [M, N] output written in place over an input safe
     * (evt.h, aliasing), and what a change to this split must keep. */
    const size_t load_bytes = row_load_bytes(fn);
    const int row_loads = load_bytes > 0;
    const int group = row_group(fn, load_bytes, e->fast_math, forced_group);
    /* The checked (edge-tile) instance takes smaller groups, its unrolled
     * code costing NVRTC time: one row at a time without per-row loads, else
     * a quarter of the fast instance's (4 of 16, 2 of 4).  One row at a time
     * made a tile's loads wait one after another, and where N is ragged the
     * edge tiles are a whole column of them: 1x1 convs of 200 filters at K
     * of 192-320 ran half as fast on the 128x128 producer/consumer tile as
     * on the staged one (session 38, docs/codegen.md). */
    const int checked = !row_loads ? 1 : group >= 16 ? 4 : group >= 4 ? 2 : 1;
    sb_printf(sb, "    constexpr int ITERS = BM / RPP;\n"
                  "    constexpr int G = ITERS < (FAST ? %d : %d) ? ITERS\n"
                  "                      : FAST ? evt_divisor_upto(ITERS, %d) : ITERS %% %d == 0 ? %d : 1;\n"
                  "    static_assert(ITERS %% G == 0, \"row groups must tile the rows\");\n"
                  "#pragma unroll 1\n"
                  "    for (int g = 0; g < ITERS; g += G) {\n",
              group, checked, group, checked, checked);
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        if (!ir_func_reads_input(fn, i) || !(in->shape & EVT_SHAPE_M))
            continue;
        if (in->shape == EVT_SHAPE_MN)
            sb_printf(sb, "        evt_elem<%s>::type raw%zu[G][EVT_VEC];\n", elem_const(in->elem), i);
        else
            sb_printf(sb, "        evt_elem<%s>::type raw%zu[G];\n", elem_const(in->elem), i);
    }
    if (row_loads) {
        sb_puts(sb, "#pragma unroll\n"
                    "        for (int j = 0; j < G; ++j) {\n"
                    "            const int row = tile_m * BM + tid / CPR + (g + j) * RPP;\n"
                    "            const bool row_ok = FAST || row < p.m;\n");
        const int staged_in = plan_staged_input(fn);
        for (size_t i = 0; i < fn->ninputs; i++) {
            const evt_arg_info *in = &fn->inputs[i].info;
            if (!ir_func_reads_input(fn, i) || !(in->shape & EVT_SHAPE_M))
                continue;
            if (in->shape == EVT_SHAPE_MN) {
                if ((int)i == staged_in) /* from shared memory where staged, else as any [M, N] input */
                    sb_printf(sb, "            if constexpr (STAGED) /* in %s, staged */\n"
                                  "                evt_load_raw<%s, true>(static_cast<const evt_elem<%s>::type *>(staged) + "
                                  "(row - tile_m * BM) * BN + c, EVT_VEC, raw%zu[j]);\n"
                                  "            else\n    ",
                              in->name, elem_const(in->elem), elem_const(in->elem), i);
                sb_printf(sb, "            evt_load_raw<%s, FAST>(p.in%zu + (evt_i64)row * p.ld_in%zu + col0, "
                              "row_ok ? ncol : 0, raw%zu[j]); /* in %s */\n",
                          elem_const(in->elem), i, i, i, in->name);
            } else {
                sb_printf(sb, "            raw%zu[j] = row_ok ? p.in%zu[row] : evt_elem<%s>::type(0); "
                              "/* in %s */\n",
                          i, i, elem_const(in->elem), in->name);
            }
        }
        sb_puts(sb, "        }\n");
    }
    sb_puts(sb, "#pragma unroll\n"
                "        for (int j = 0; j < G; ++j) {\n"
                "            const int r = tid / CPR + (g + j) * RPP;\n"
                "            const int row = tile_m * BM + r;\n"
                "            const bool row_ok = FAST || row < p.m;\n");
    e->indent = 3;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if (!(ir_op_get(v->op)->flags & IR_REDUCE) && (v->shape & EVT_SHAPE_M))
            emit_value(e, v);
    }
    for (size_t o = 0; o < fn->noutputs; o++) {
        const ir_arg *out = &fn->outputs[o];
        const evt_arg_info *oi = &out->info;
        const ir_value *v = out->value;
        if (oi->reduce == EVT_REDUCE_NONE) {
            sb_printf(sb, "            { /* out %s (%s:%u) */\n", oi->name, e->file, oi->loc.line);
            if (v->shape == EVT_SHAPE_MN) {
                sb_printf(sb, "                if (row_ok)\n"
                              "                    evt_store_vec<%s, FAST>(p.out%zu + (evt_i64)row * p.ld_out%zu + "
                              "col0, ncol, v%d);\n",
                          elem_const(oi->elem), o, o, v->id);
            } else {
                sb_puts(sb, "                float t[EVT_VEC];\n"
                            "#pragma unroll\n"
                            "                for (int i = 0; i < EVT_VEC; ++i)\n"
                            "                    t[i] = ");
                ref(e, v);
                sb_printf(sb, ";\n                if (row_ok)\n"
                              "                    evt_store_vec<%s, FAST>(p.out%zu + (evt_i64)row * p.ld_out%zu + "
                              "col0, ncol, t);\n",
                          elem_const(oi->elem), o, o);
            }
            sb_puts(sb, "            }\n");
            continue;
        }
        const ir_value *x = v->args[0];
        const char *rn = red_name(oi->reduce);
        int axis = v->attr.axis;
        sb_printf(sb, "            { /* out %s = %s (%s:%u) */\n", oi->name, ir_op_get(v->op)->name,
                  e->file, oi->loc.line);
        if (axis == EVT_SHAPE_N) { /* over columns: one result per row */
            sb_printf(sb, "                float part = evt_red<%s>::identity();\n"
                          "#pragma unroll\n"
                          "                for (int i = 0; i < EVT_VEC; ++i)\n"
                          "                    if (row_ok && i < ncol)\n"
                          "                        part = evt_red<%s>::op(part, ",
                      rn, rn);
            ref(e, x);
            sb_printf(sb, ");\n                part = evt_reduce_lanes<%s, CPR>(part);\n"
                          "                if (row_ok && c == 0)\n"
                          "                    evt_red<%s>::atomic(p.ws%zu + row, part);\n",
                      rn, rn, o);
        } else if (axis == EVT_SHAPE_M) { /* over rows: partials per column */
            sb_printf(sb, "#pragma unroll\n"
                          "                for (int i = 0; i < EVT_VEC; ++i)\n"
                          "                    if (row_ok && i < ncol)\n"
                          "                        red%zu[i] = evt_red<%s>::op(red%zu[i], ",
                      o, rn, o);
            ref(e, x);
            sb_puts(sb, ");\n");
        } else {
            sb_printf(sb, "#pragma unroll\n"
                          "                for (int i = 0; i < EVT_VEC; ++i)\n"
                          "                    if (row_ok && i < ncol)\n"
                          "                        red%zu = evt_red<%s>::op(red%zu, ",
                      o, rn, o);
            ref(e, x);
            sb_puts(sb, ");\n");
        }
        sb_puts(sb, "            }\n");
    }
    sb_puts(sb, "        }\n");
    sb_puts(sb, "    }\n");
    for (size_t o = 0; o < fn->noutputs; o++) {
        const ir_arg *out = &fn->outputs[o];
        if (out->info.reduce == EVT_REDUCE_NONE)
            continue;
        int axis = out->value->attr.axis;
        const char *rn = red_name(out->info.reduce);
        if (axis == EVT_SHAPE_M)
            sb_printf(sb, "    evt_reduce_cols<%s, BN, TEAM>(red%zu, scratch, c, ncol, p.ws%zu + "
                          "(col0 < p.n ? col0 : 0));\n",
                      rn, o, o);
        else if (axis == EVT_SHAPE_MN)
            sb_printf(sb, "    evt_reduce_block<%s, TEAM>(red%zu, scratch, p.ws%zu);\n", rn, o, o);
    }
    sb_puts(sb, "}\n\n");
}

/* Whether the direct epilogue runs fn: a per-element epilogue
 * (plan_per_element_epilogue).  A reduction needs the other threads' rows
 * or columns; an [M, N] input, read two columns a thread from 8 rows a
 * warp, made the ResNet-50 1x1 convs with a residual 1.05 to 1.12x slower
 * than the shared tile's 16-byte rows (H200, docs/codegen.md). */
static int direct_ok(const ir_func *fn)
{
    return plan_per_element_epilogue(fn);
}

/*
 * Whether the direct epilogue unrolls its segments (forced: the tuning's
 * row group, >= 4 unrolls): unrolled, each segment's accumulators are named
 * registers, but a costly builtin would be 64 to 128 inlined copies, too
 * much code for the instruction cache.  Measured on 4096x16384x256 + bias
 * (H200, docs/codegen.md): an exact GELU unrolled 1.31x slower than looped
 * (each segment's registers picked by selects, evt_pick_segment), and
 * looped still 1.14x slower than the shared tile (session 28); fast math's
 * gelu_tanh 1.05x faster unrolled, its erf GELU (twice the instructions)
 * 1.18x slower unrolled than the shared tile.  So only epilogues whose
 * costly builtins are fast math's cheap ones unroll, and only those run
 * direct (direct_runs).
 */
static int direct_unrolled(const ir_func *fn, int fast_math, int forced)
{
    if (forced)
        return forced >= 4;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if ((ir_op_get(v->op)->flags & IR_COSTLY) && (v->shape & EVT_SHAPE_M) &&
            !(fast_math && fast_builtin(v->op) && !erf_gelu(v->op)))
            return 0;
    }
    return 1;
}

/* Whether producer/consumer entries run fn's epilogue in registers: a
 * per-element one that unrolls (the looped form lost to the shared tile). */
static int direct_runs(const ir_func *fn, int fast_math, int forced)
{
    return direct_ok(fn) && direct_unrolled(fn, fast_math, forced);
}

int cg_direct_epilogue(const ir_func *fn, const plan_config *c, const cg_select *sel)
{
    /* epilogue warpgroups (ws beside pp) take each sub-tile through shared memory */
    return c->pp && !c->staged && !c->ws &&
           (sel->shared_epi < 0 ? direct_ok(fn)
                                : sel->shared_epi == 0 && direct_runs(fn, sel->fast_math, sel->row_group));
}

/*
 * The bias the direct epilogue's accumulators take: where the
 * accumulator's one use is acc + X, X an [N] input, the consumers load X's
 * columns once a tile before the mainloop and add them to the accumulators
 * after it (the entry's epi.bias and epi.add, NAME_direct_bias and
 * NAME_direct_add), and the epilogue takes acc + X to be the accumulators:
 * X is loaded once a tile a thread rather than once a row (docs/sm90.md,
 * session 58).  The sum is the same one in another order, as a different k
 * order would be.  Returns the add, and X's input in *input and whether
 * the add is X's only use in *only; NULL where there is no such add.
 * (Uses as the IR keeps them counted: ir_value.uses.)
 */
static const ir_value *acc_fold(const ir_func *fn, int *input, int *only)
{
    const ir_value *acc = NULL, *add = NULL;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if (v->op == IR_ACC) {
            if (acc)
                return NULL;
            acc = v;
        }
    }
    if (!acc || acc->uses != 1)
        return NULL;
    for (size_t i = 0; i < fn->nvalues && !add; i++) {
        const ir_value *v = fn->values[i];
        if (v->op == IR_ADD && v->type == IR_F32 && (v->args[0] == acc || v->args[1] == acc))
            add = v;
    }
    if (!add)
        return NULL;
    const ir_value *x = add->args[add->args[0] == acc ? 1 : 0];
    if (x->op != IR_INPUT || fn->inputs[x->attr.index].info.shape != EVT_SHAPE_N)
        return NULL;
    *input = x->attr.index;
    int reads = 0;
    for (size_t i = 0; i < fn->nvalues; i++)
        if (fn->values[i]->op == IR_INPUT && fn->values[i]->attr.index == x->attr.index)
            reads += fn->values[i]->uses;
    *only = reads == 1;
    return add;
}

/* Whether the direct epilogue's accumulators start from a bias (acc_fold). */
static int acc_init(const ir_func *fn)
{
    int input, only;
    return direct_ok(fn) && acc_fold(fn, &input, &only) != NULL;
}

/* NAME_direct_bias: the folded bias (acc_fold) at a consumer thread's
 * columns of the tile at col_t, raw (loaded before the tile's mainloop, so
 * that the loads' latency passes under it); NAME_direct_add: the
 * accumulators plus it, after the mainloop.  (Written into the
 * accumulators before the mainloop instead, it made ptxas serialize the
 * wgmmas, C7515: docs/sm90.md.) */
static void emit_direct_init(emitter *e, const char *fname, const char *sname, int input)
{
    strbuf *sb = e->sb;
    const evt_arg_info *in = &e->fn->inputs[input].info;
    const char *ec = elem_const(in->elem);
    sb_printf(sb, "/* acc + %s is the accumulators: %s's columns at col_t, and their sums with them. */\n"
                  "template <int NC> struct %s_direct_bias_t {\n"
                  "    evt_elem<%s>::type raw[NC / 8][2];\n"
                  "};\n"
                  "template <int NC>\n"
                  "static __device__ __forceinline__ %s_direct_bias_t<NC> %s_direct_bias(const %s &p, int col_t, int lane)\n"
                  "{\n"
                  "    %s_direct_bias_t<NC> b;\n"
                  "    const int cq = 2 * (lane & 3);\n"
                  "    if ((evt_i64)col_t + NC <= p.n && evt_vec_ok<%s, 2>(p.in%d, 0)) {\n"
                  "#pragma unroll\n"
                  "        for (int g = 0; g < NC / 8; ++g)\n"
                  "            evt_load_raw<%s, true, 2, true>(p.in%d + col_t + 8 * g + cq, 2, b.raw[g]);\n"
                  "    } else { /* past N: column N - 1's, never stored; no branches */\n"
                  "#pragma unroll\n"
                  "        for (int g = 0; g < NC / 8; ++g)\n"
                  "#pragma unroll\n"
                  "            for (int i = 0; i < 2; ++i) {\n"
                  "                const int col = col_t + 8 * g + cq + i;\n"
                  "                b.raw[g][i] = evt_ld<true>(p.in%d + (col < p.n ? col : p.n - 1));\n"
                  "            }\n"
                  "    }\n"
                  "    return b;\n"
                  "}\n"
                  "template <int NH, int NC>\n"
                  "static __device__ __forceinline__ void %s_direct_add(float (&acc)[NH][1][NC / 2], const %s_direct_bias_t<NC> &b)\n"
                  "{\n"
                  "#pragma unroll\n"
                  "    for (int g = 0; g < NC / 8; ++g) {\n"
                  "        float v[2];\n"
                  "        evt_convert_vec<%s, 2>(b.raw[g], v);\n"
                  "#pragma unroll\n"
                  "        for (int h = 0; h < NH; ++h) /* rows lane / 4 and 8 more: acc[h][0][4 g + 2 ri + i] */\n"
                  "#pragma unroll\n"
                  "            for (int i = 0; i < 4; ++i)\n"
                  "                acc[h][0][4 * g + i] += v[i & 1];\n"
                  "    }\n"
                  "}\n\n",
              in->name, in->name, fname, ec, fname, fname, sname, fname, ec, input, ec, input, input, fname, fname, ec);
}

/*
 * The register-direct epilogue (producer/consumer configurations, sm_90a):
 * a consumer warpgroup's thread runs the epilogue on its own wgmma
 * accumulators, as evt_pick_segment lays them out, with no round trip of
 * the f32 accumulators through a shared-memory tile and no barrier across
 * warps: each [M, N] element is loaded and computed by the thread that
 * holds it, two columns at a time.
 * The thread's rows go in segments of W <= 128 columns (the 256-wide
 * tile's rows in two, the 192-wide one's in three of 64); [N] values are
 * computed in each segment again, as [M, N] ones: held over the thread's
 * rows (2 W / 8 registers each beside the 128 of the accumulators) a bias
 * alone made the ResNet block's epilogue spill 528 bytes, and their loads
 * hit L1.  [N] and [M] inputs are read through the non-coherent path
 * (ld.global.nc): evt_launch's aliasing rule keeps every output apart from
 * them, so they are read-only for the kernel's whole run, and their loads
 * may move ahead of the stores of the rows before, which plain loads, as
 * far as the compiler knows aliased by the outputs, may not (docs/sm90.md,
 * session 34).  Where the tile's columns are inside the problem and
 * aligned (FAST) each output's pairs go to the warp's staging buffer in
 * shared memory (direct_stage, the shared tile the epilogue no longer needs) and
 * from there to memory as the rows of the warp's 8 that are inside the
 * problem, 16 bytes a lane; an output that does not fit there, and every
 * output of a tile with edge columns, is stored a pair at a time.
 * There is no [M, N] input (direct_ok), so no output in place over one.
 * Columns below col_lo are computed but not stored: a GEMM's last tile
 * column, where N is not whole tiles, runs at N - NC (evt_sm90::tile_col;
 * rounded up to even), wholly inside the problem and so, where aligned,
 * on the unrolled instance, and the
 * columns it shares with the tile before are that tile's.
 */
static void emit_direct(emitter *e, const char *fname, const char *sname, int forced_group)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    const int unrolled = direct_unrolled(fn, e->fast_math, forced_group);
    int fold_in = -1, fold_only = 0;
    e->fold_add = acc_fold(fn, &fold_in, &fold_only);
    if (e->fold_add)
        emit_direct_init(e, fname, sname, fold_in);
    sb_printf(sb, "/* Epilogue %s (%s:%u) on a consumer's NH m64 x NC wgmma accumulators, in registers. */\n",
              fn->name, e->file, fn->loc.line);
    sb_puts(sb, "template <int NH, int NC, bool FAST, int STAGE>\n");
    sb_printf(sb, "static __device__ __forceinline__ void %s_direct(const %s &p, int row0, int col_t, int col_lo,\n"
                  "    const float (&acc)[NH][1][NC / 2], int warp, int lane, unsigned char *stage)\n{\n",
              fname, sname);
    sb_printf(sb, "    constexpr int W = EVT_TILE_EPI_WIDEST(NC); /* columns a segment: the sub-tiles' widest */\n"
                  "    constexpr int PARTS = NC / W, GROUPS = W / 8;\n"
                  "    const int rq = 16 * warp + (lane >> 2), cq = 2 * (lane & 3);\n"
                  "    (void)row0; (void)col_t; (void)col_lo; (void)acc; (void)rq; (void)cq; (void)stage;\n");
    /* each output's 8 rows by W columns of a segment in the warp's staging
     * buffer: rows ROWB bytes apart (16 past the row, so that the pairs
     * of the warp's 8 rows fall in different banks), at OFF */
    sb_puts(sb, "    constexpr int OFF0 = 0;\n");
    for (size_t o = 0; o < fn->noutputs; o++)
        sb_printf(sb, "    constexpr int ROWB%zu = W * (int)sizeof(evt_elem<%s>::type) + 16, OFF%zu = OFF%zu + 8 * ROWB%zu;\n",
                  o, elem_const(fn->outputs[o].info.elem), o + 1, o, o);
    e->indent = 1;
    e->direct = 1;
    for (size_t i = 0; i < fn->nvalues; i++)
        if (fn->values[i]->shape == EVT_SHAPE_SCALAR)
            emit_value(e, fn->values[i]);
    /* the checked (edge-column) instance runs on few tiles: one segment at
     * a time, as the row groups' (a second unrolled instance would cost
     * NVRTC time and put a coop2 entry over codegen_ptxas's 128 KB) */
    /* each output's row group at rg rows past the warp's first: a multiple
     * of ld apart, a constant one where the loops unroll (rather than each
     * row group's row * ld in 64 bits) */
    for (size_t o = 0; o < fn->noutputs; o++)
        sb_printf(sb, "    evt_elem<%s>::type *const obase%zu = p.out%zu + (evt_i64)(row0 + 16 * warp) * p.ld_out%zu + col_t;\n"
                      "    (void)obase%zu;\n",
                  elem_const(fn->outputs[o].info.elem), o, o, o, o);
    sb_printf(sb, "    constexpr int UNROLL = FAST ? %s : 1; /* the trips of either loop, or 1 */\n"
                  "#pragma unroll (UNROLL)\n"
                  "    for (int part = 0; part < PARTS; ++part) {\n",
              unrolled ? "2 * NH * PARTS" : "1");
    e->indent = 2;
    sb_puts(sb, "#pragma unroll (UNROLL)\n"
                "        for (int r = 0; r < 2 * NH; ++r) {\n"
                "            const int row = row0 + 64 * (r >> 1) + rq + 8 * (r & 1);\n"
                "            const bool row_ok = row < p.m; /* FAST too: edge rows are cheap to bound */\n"
                "            float a[W / 4];\n"
                "            evt_pick_segment<NH, NC, W>(acc, r * PARTS + part, a);\n");
    /* the segment's row loads */
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        if (!ir_func_reads_input(fn, i) || !(in->shape & EVT_SHAPE_M))
            continue;
        const char *ec = elem_const(in->elem);
        /* (no [M, N] input: direct_ok) */
        sb_printf(sb, "            const evt_elem<%s>::type raw%zu = row_ok ? evt_ld<true>(p.in%zu + row) : evt_elem<%s>::type(0); "
                      "/* in %s */\n",
                  ec, i, i, ec, in->name);
    }
    e->indent = 3;
    for (size_t i = 0; i < fn->nvalues; i++)
        if (fn->values[i]->shape == EVT_SHAPE_M)
            emit_value(e, fn->values[i]);
    /* a 16-bit output's staged pairs, packed, go in after the groups,
     * four groups a stmatrix (evt_stage_groups); not on 256-wide tiles,
     * where holding a segment's packed pairs made ptxas spill the
     * cooperative 128x256 GELU entries (docs/sm90.md, session 64) */
    sb_puts(sb, "            constexpr bool STM = NC <= 192;\n");
    for (size_t o = 0; o < fn->noutputs; o++)
        if (evt_elem_size(fn->outputs[o].info.elem) == 2)
            sb_printf(sb, "            evt_u32 pk%zu[GROUPS];\n"
                          "            (void)pk%zu;\n",
                      o, o);
    sb_puts(sb, "#pragma unroll\n"
                "            for (int g = 0; g < GROUPS; ++g) {\n"
                "                const int col = col_t + part * W + 8 * g + cq;\n"
                "                const int ncol = FAST ? 2 : col < col_lo || p.n - col < 0 ? 0 : (p.n - col < 2 ? p.n - col : 2);\n"
                "                (void)ncol;\n");
    e->indent = 4;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        /* acc and a bias the accumulators start from are the folded add's alone */
        if (e->fold_add && (v->op == IR_ACC || (fold_only && v->op == IR_INPUT && v->attr.index == fold_in)))
            continue;
        if (v->shape == EVT_SHAPE_MN || v->shape == EVT_SHAPE_N)
            emit_value(e, v);
    }
    for (size_t o = 0; o < fn->noutputs; o++) {
        const evt_arg_info *oi = &fn->outputs[o].info;
        const ir_value *v = fn->outputs[o].value;
        const char *ec = elem_const(oi->elem);
        sb_printf(sb, "                { /* out %s (%s:%u) */\n", oi->name, e->file, oi->loc.line);
        if (v->shape == EVT_SHAPE_MN) {
            sb_printf(sb, "                    const float (&t)[2] = v%d;\n", v->id);
        } else {
            sb_puts(sb, "                    float t[2];\n"
                        "#pragma unroll\n"
                        "                    for (int i = 0; i < 2; ++i)\n"
                        "                        t[i] = ");
            ref(e, v);
            sb_puts(sb, ";\n");
        }
        if (evt_elem_size(oi->elem) == 2)
            sb_printf(sb, "                    if constexpr (FAST && OFF%zu <= STAGE && STM)\n"
                          "                        pk%zu[g] = evt_pack_pair<%s>(t);\n"
                          "                    else ",
                      o + 1, o, ec);
        else
            sb_puts(sb, "                    ");
        sb_printf(sb, "if constexpr (FAST && OFF%zu <= STAGE)\n"
                      "                        evt_stage_pair<%s>(stage + OFF%zu, ROWB%zu, lane, 8 * g + cq, t);\n",
                  o + 1, ec, o, o);
        sb_printf(sb, "                    else if (row_ok && col >= col_lo)\n"
                      "                        evt_store_vec<%s, FAST, 2>(p.out%zu + (evt_i64)row * p.ld_out%zu + col, "
                      "ncol, t);\n"
                      "                }\n",
                  ec, o, o);
    }
    /* the staged outputs' rows, 16 bytes a lane: whole sectors, as the
     * shared-memory epilogue stores them (two columns a thread straight
     * from the registers ran 1.3 to 1.8x slower where the epilogue is the
     * bottleneck, docs/codegen.md) */
    sb_puts(sb, "            }\n"
                "            if constexpr (FAST) {\n");
    for (size_t o = 0; o < fn->noutputs; o++)
        if (evt_elem_size(fn->outputs[o].info.elem) == 2)
            sb_printf(sb, "                if constexpr (OFF%zu <= STAGE && STM)\n"
                          "                    evt_stage_groups<GROUPS>(stage + OFF%zu, ROWB%zu, lane, pk%zu);\n",
                      o + 1, o, o, o);
    sb_puts(sb, "                __syncwarp();\n"
                "                const int wrow = row - (lane >> 2); /* the warp's first of the 8 */\n"
                "                const int rg = 64 * (r >> 1) + 8 * (r & 1); /* its offset from the warp's first row */\n");
    for (size_t o = 0; o < fn->noutputs; o++)
        sb_printf(sb, "                if constexpr (OFF%zu <= STAGE)\n"
                      "                    evt_stage_copy<%s, W>(stage + OFF%zu, ROWB%zu, lane,\n"
                      "                        obase%zu + rg * p.ld_out%zu + part * W, p.ld_out%zu, p.m - wrow,\n"
                      "                        col_lo - col_t - part * W);\n",
                  o + 1, elem_const(fn->outputs[o].info.elem), o, o, o, o, o);
    sb_puts(sb, "                __syncwarp(); /* the copies' reads are done before the next segment's writes */\n"
                "            }\n"
                "        }\n    }\n}\n\n");
    e->direct = 0;
    e->fold_add = NULL;

    /* The tile's instance: FAST where the tile's columns are inside the
     * problem, every [N] input is aligned for 2-element access and every
     * output's rows for 16-byte pieces.  Edge rows do not count: looped
     * and storing pairs straight from the registers, the checked instance
     * made problems with edge rows 1.2-2x slower (docs/codegen.md). */
    sb_puts(sb, "template <int NH, int NC, int STAGE>\n");
    /* A shifted last tile column (N - NC) may start anywhere: col_t must
     * keep every [N] input's pairs and every output's 16-byte pieces whole
     * (tested on col_t itself: the pointers' sums, p.out + col_t, held
     * over the unrolled segments, made the cooperative 128x256 tile's
     * consumers spill 104 bytes) */
    sb_printf(sb, "static __device__ __forceinline__ void %s_direct_tile(const %s &p, int row0, int col_t, int col_lo,\n"
                  "    const float (&acc)[NH][1][NC / 2], int warp, int lane, unsigned char *stage)\n{\n"
                  "    if ((evt_i64)col_t + NC <= p.n && col_t %% %d == 0",
              fname, sname, plan_shift_cols(fn));
    for (size_t i = 0; i < fn->ninputs; i++)
        if (fn->inputs[i].info.shape == EVT_SHAPE_N && ir_func_reads_input(fn, i) &&
            !(fold_only && (int)i == fold_in)) /* (direct_bias checks its own) */
            sb_printf(sb, " &&\n        evt_vec_ok<%s, 2>(p.in%zu, 0)", elem_const(fn->inputs[i].info.elem), i);
    for (size_t o = 0; o < fn->noutputs; o++)
        sb_printf(sb, " &&\n        evt_line_ok<%s>(p.out%zu, p.ld_out%zu)", elem_const(fn->outputs[o].info.elem), o,
                  o);
    sb_printf(sb, ")\n"
                  "        %s_direct<NH, NC, true, STAGE>(p, row0, col_t, col_lo, acc, warp, lane, stage);\n"
                  "    else\n"
                  "        %s_direct<NH, NC, false, STAGE>(p, row0, col_t, col_lo, acc, warp, lane, stage);\n"
                  "}\n\n",
              fname, fname);
}

/* The L2 prefetch of a tile's [M, N] inputs (warp-specialized entries run it
 * a tile ahead): one 128-byte line per thread and step, rows and columns
 * inside the problem only. */
static void emit_prefetch(emitter *e, const char *fname, const char *sname)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    sb_puts(sb, "template <int BM, int BN, class TEAM>\n");
    sb_printf(sb, "static __device__ __forceinline__ void %s_prefetch(const %s &p, int tile_m, int tile_n)\n{\n"
                  "    (void)p; (void)tile_m; (void)tile_n;\n",
              fname, sname);
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        if (in->shape != EVT_SHAPE_MN || !ir_func_reads_input(fn, i))
            continue;
        sb_printf(sb, "    { /* in %s */\n"
                      "        constexpr int EPL = 128 / (int)sizeof(evt_elem<%s>::type); /* elements per line */\n"
                      "        constexpr int LPR = (BN + EPL - 1) / EPL;                   /* lines per tile row */\n"
                      "        for (int x = TEAM::tid(); x < BM * LPR; x += TEAM::kThreads) {\n"
                      "            const int row = tile_m * BM + x / LPR, col = tile_n * BN + x %% LPR * EPL;\n"
                      "            if (row < p.m && col < p.n)\n"
                      "                evt_prefetch_l2(p.in%zu + (evt_i64)row * p.ld_in%zu + col);\n"
                      "        }\n"
                      "    }\n",
                  in->name, elem_const(in->elem), i, i);
    }
    sb_puts(sb, "}\n\n");
}

/* The words of a reduction output of shape s for one problem: its extent
 * (cg_reduction_dims, as the runtime sizes them). */
static const char *reduction_extent(evt_shape s)
{
    return s == EVT_SHAPE_M ? "p.m" : s == EVT_SHAPE_N ? "p.n" : "1";
}

/* BASE_at(p, l): the arguments of problem l of a batch, every pointer moved
 * by its batch stride (0: shared by the batch) and each reduction's
 * workspace by one problem's words; what every entry point hands the
 * mainloop and the epilogue of a tile of problem l.  The strides are 0 for
 * a batch of one (the runtime packs them so), where it changes nothing. */
static void emit_problem_at(emitter *e, const char *base, const char *sname)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    sb_printf(sb, "/* Problem l of a batch: pointers moved by their batch strides. */\n"
                  "static __device__ __forceinline__ %s %s_at(const %s &p0, int l)\n{\n"
                  "    %s p = p0;\n"
                  "    p.mainloop = p0.mainloop.at(l);\n",
              sname, base, sname, sname);
    for (size_t i = 0; i < fn->ninputs; i++)
        sb_printf(sb, "    p.in%zu += (evt_i64)l * p0.bs_in%zu;\n", i, i);
    for (size_t o = 0; o < fn->noutputs; o++) {
        sb_printf(sb, "    p.out%zu += (evt_i64)l * p0.bs_out%zu;\n", o, o);
        if (fn->outputs[o].info.reduce != EVT_REDUCE_NONE)
            sb_printf(sb, "    p.ws%zu += (evt_i64)l * (evt_i64)%s;\n", o,
                      reduction_extent(fn->outputs[o].info.shape));
    }
    sb_puts(sb, "    return p;\n}\n\n");
}

/* Kernels that set the workspace to each reduction's identity, and that
 * convert the finished workspace into the outputs. */
static void emit_reduce_kernels(emitter *e, const char *base, const char *sname)
{
    strbuf *sb = e->sb;
    const ir_func *fn = e->fn;
    for (int finish = 0; finish < 2; finish++) {
        sb_printf(sb, "extern \"C\" __global__ void %s_reduce_%s(const %s p)\n{\n", base,
                  finish ? "finish" : "init", sname);
        sb_puts(sb, "    const evt_i64 t = (evt_i64)blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "    const evt_i64 stride = (evt_i64)gridDim.x * blockDim.x;\n");
        /* a batch's problems one after the other: problem l's words at l * extent */
        sb_puts(sb, "    for (int l = 0; l < p.mainloop.batches(); ++l) {\n");
        for (size_t o = 0; o < fn->noutputs; o++) {
            const evt_arg_info *oi = &fn->outputs[o].info;
            if (oi->reduce == EVT_REDUCE_NONE)
                continue;
            const char *extent = reduction_extent(oi->shape);
            const char *rn = red_name(oi->reduce);
            sb_printf(sb, "        for (evt_i64 j = t; j < (evt_i64)%s; j += stride) /* out %s */\n", extent,
                      oi->name);
            if (finish)
                sb_printf(sb, "            p.out%zu[l * p.bs_out%zu + j] = evt_elem<%s>::store(evt_red<%s>::finish("
                              "p.ws%zu[l * (evt_i64)%s + j]));\n",
                          o, o, elem_const(oi->elem), rn, o, extent);
            else
                sb_printf(sb, "            p.ws%zu[l * (evt_i64)%s + j] = evt_red<%s>::init_word();\n", o,
                          extent, rn);
        }
        sb_puts(sb, "    }\n");
        sb_puts(sb, "}\n\n");
    }
}

int cg_has_reductions(const ir_func *fn)
{
    for (size_t o = 0; o < fn->noutputs; o++)
        if (fn->outputs[o].info.reduce != EVT_REDUCE_NONE)
            return 1;
    return 0;
}

void cg_kernel_basename(const ir_kernel *k, strbuf *sb)
{
    sb_printf(sb, "evt_%s_%s", k->name, evt_mainloop_name(k->mainloop));
}

/* What follows the basename in an entry point's name (cg_entry_name). */
static void entry_suffix(evt_target target, const plan_config *c, int aligned, int split, strbuf *sb)
{
    sb_printf(sb, "_%s%s%s_%s", c->name, aligned ? "" : "_guarded",
              split == 1 ? "_splitk" : split == 2 ? "_splitsum" : "", names_target_suffix(target));
}

void cg_entry_name(const ir_kernel *k, evt_target target, const plan_config *c, int aligned,
                   int split, strbuf *sb)
{
    cg_kernel_basename(k, sb);
    entry_suffix(target, c, aligned, split, sb);
}

void cg_cache_init(cg_cache *c)
{
    c->k = NULL;
    c->row_group = 0;
    c->fast_math = 0;
    strbuf *texts[] = {&c->base, &c->sname, &c->fname, &c->head, &c->common, &c->fast, &c->reduce};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        sb_init(texts[i]);
}

void cg_cache_free(cg_cache *c)
{
    strbuf *texts[] = {&c->base, &c->sname, &c->fname, &c->head, &c->common, &c->fast, &c->reduce};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        sb_free(texts[i]);
    cg_cache_init(c);
}

/* Fills c with kernel k's texts that no target changes; 0 with the reason
 * in err when k cannot be generated, or with a text's `failed` set. */
static int emit_shared(emitter *e, int row_group, cg_cache *c, strbuf *err)
{
    const ir_func *fn = e->fn;
    cg_kernel_basename(e->k, &c->base);
    const char *base = sb_str(&c->base);
    sb_printf(&c->sname, "%s_args", base);
    sb_printf(&c->fname, "%s_epilogue", base);
    const char *sname = sb_str(&c->sname), *fname = sb_str(&c->fname);

    sb_printf(&c->head, "/*\n * Generated by evt %s from %s: do not edit.\n *\n * ", evt_version(),
              e->file);
    ir_print_kernel(e->k, &c->head);

    cg_layout *layout = malloc(sizeof *layout);
    if (!layout)
        return 0; /* no reason given: memory ran out (cg_emit_cuda) */
    if (!cg_layout_of(e->k, layout)) {
        sb_printf(err, "kernel '%s' has too many arguments", e->k->name);
        free(layout);
        return 0;
    }
    e->sb = &c->common;
    emit_args_struct(e, sname, layout);
    free(layout);
    emit_problem_at(e, base, sname);
    emit_epilogue(e, fname, sname, row_group);
    if (direct_ok(fn)) /* the entries call it where direct_runs says, or where forced */
        emit_direct(e, fname, sname, row_group);
    emit_prefetch(e, fname, sname);

    /* The FAST epilogue's condition (evt_vec_ok): a whole tile, every [M, N]
     * operand aligned for vector access. */
    strbuf *fast = &c->fast;
    /* kEpiBM x kEpiBN: the tiles the epilogue runs on (kBM x kBN but under
     * a cooperative configuration, whose consumers hand it 64-row sub-tiles
     * of at most 128 columns) */
    sb_puts(fast, "(evt_i64)(tile_m + 1) * Cfg::kEpiBM <= p.m && (evt_i64)(tile_n + 1) * Cfg::kEpiBN <= p.n");
    for (size_t i = 0; i < fn->ninputs; i++)
        if (fn->inputs[i].info.shape == EVT_SHAPE_MN && ir_func_reads_input(fn, i))
            sb_printf(fast, " &&\n        evt_vec_ok<%s>(p.in%zu, p.ld_in%zu)",
                      elem_const(fn->inputs[i].info.elem), i, i);
    for (size_t o = 0; o < fn->noutputs; o++)
        if (fn->outputs[o].info.reduce == EVT_REDUCE_NONE)
            sb_printf(fast, " &&\n        evt_vec_ok<%s>(p.out%zu, p.ld_out%zu)",
                      elem_const(fn->outputs[o].info.elem), o, o);

    e->sb = &c->reduce;
    if (cg_has_reductions(fn))
        emit_reduce_kernels(e, base, sname);
    strbuf *texts[] = {&c->base, &c->sname, &c->fname, &c->head, &c->common, &c->fast, &c->reduce};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i]->failed)
            return 0;
    return 1;
}

/* An operand's EVT_DT_* (kernels/common/evt_common.cuh). */
static const char *operand_dt(evt_elem e)
{
    switch (e) {
    case EVT_BF16: return "EVT_DT_BF16";
    case EVT_E4M3: return "EVT_DT_E4M3";
    case EVT_E5M2: return "EVT_DT_E5M2";
    default: return "EVT_DT_F16";
    }
}

int cg_emit_cuda(const ir_kernel *k, const char *file, evt_target target, const cg_select *sel,
                 cg_cache *cache, strbuf *sb, strbuf *err)
{
    const ir_func *fn = k->epilogue;
    const int conv = k->mainloop == EVT_MAINLOOP_CONV2D_FPROP;
    const char *slash = strrchr(file, '/');
    emitter e = {k, fn, slash ? slash + 1 : file, sb, 0, sel->fast_math, 0, NULL};
    cg_cache own;
    cg_cache_init(&own);
    cg_cache *sh = cache ? cache : &own;
    if (sh->k != k || sh->row_group != sel->row_group || sh->fast_math != sel->fast_math) {
        cg_cache_free(sh);
        if (!emit_shared(&e, sel->row_group, sh, err)) {
            if (!err->len)
                sb->failed = 1; /* no reason given: memory ran out */
            cg_cache_free(sh);
            return 0;
        }
        e.sb = sb;
        sh->k = k;
        sh->row_group = sel->row_group;
        sh->fast_math = sel->fast_math;
    }
    const char *base = sb_str(&sh->base), *sname = sb_str(&sh->sname), *fname = sb_str(&sh->fname);

    sb_putn(sb, sb_str(&sh->head), sh->head.len);
    sb_printf(sb, " * Target %s.  Entry points: %s_<config>[_guarded]_sm<NN>; the guarded\n"
                  " * variants load operands element by element (any alignment, any K).\n",
              evt_target_name(target), base);
    /* What NVRTC is given, spelled for nvcc (docs/install.md): -gencode
     * because CUDA 13's -arch=sm_90a also builds compute_90 PTX, where the
     * sm_90a-only tiles refuse to compile. */
    const char *digits = evt_target_name(target) + 3;
    if (sel->fast_math)
        sb_puts(sb, " * Fast math: exp, sigmoid, silu, gelu_tanh and gelu on ex2.approx and rcp.approx\n"
                    " * (common/fast_math.h), not bit for bit the interpreter's.\n");
    sb_printf(sb, " * nvcc: -std=c++17 --fmad=false -gencode arch=compute_%s,code=sm_%s\n"
                  " *       -I PREFIX/include/evt/kernels\n */\n",
              digits, digits);
    sb_puts(sb, "#include \"common/evt_common.cuh\"\n#include \"common/evt_math.h\"\n");
    if (sel->fast_math)
        sb_puts(sb, "#include \"common/fast_math.h\"\n");
    sb_puts(sb, "#include \"common/epilogue.cuh\"\n");
    sb_puts(sb, conv ? "#include \"mainloops/conv2d_fprop.cuh\"\n" : "#include \"mainloops/gemm.cuh\"\n");
    sb_putc(sb, '\n');
    sb_putn(sb, sb_str(&sh->common), sh->common.len);
    const char *fast = sb_str(&sh->fast);

    const evt_operand_info *a = &k->operands[0], *b = &k->operands[1];
    const char *dt = operand_dt(a->elem), *dt_b = operand_dt(b->elem);
    const char *al = a->layout == EVT_LAYOUT_COL ? "EVT_COL_MAJOR" : "EVT_ROW_MAJOR";
    const char *bl = b->layout == EVT_LAYOUT_COL ? "EVT_COL_MAJOR" : "EVT_ROW_MAJOR";
    const char *ml = conv ? "conv" : "gemm";
    /* sel's configuration, or the full listing: what the planner may pick */
    const plan_kernel pk = plan_kernel_of(k);
    for (int id = 0; id < EVT_TILE_COUNT; id++)
        for (int aligned = 1; aligned >= 0; aligned--)
            for (int split = 0; split <= 1; split++) {
                const plan_config *c = &plan_configs[id];
                if ((sel->config ? sel->config != c : !plan_listed(c, &pk, target)) ||
                    (sel->aligned >= 0 && aligned != sel->aligned) ||
                    (sel->split != 2 && split != sel->split))
                    continue;
                const int pp = c->pp;
                /* a producer/consumer fast path loads with TMA: it takes the tensor maps */
                const int tma = pp && aligned;
                const int ws = plan_config_persistent(c);
                if (ws && split)
                    continue; /* a persistent configuration never splits K */
                char cfg[200];
                snprintf(cfg, sizeof cfg, "%s_%s%s_cfg", base, c->name, aligned ? "" : "_guarded");
                if (conv)
                    sb_printf(sb, "typedef evt_conv_cfg<evt_tile_%s, %s, %s>\n"
                                  "    %s;\n",
                              c->name, dt, aligned ? "true" : "false", cfg);
                else
                    sb_printf(sb,
                              "typedef evt_gemm_cfg<evt_tile_%s, %s, %s, %s, %s%s%s>\n"
                              "    %s;\n",
                              c->name, dt, al, bl, aligned ? "true" : "false",
                              strcmp(dt, dt_b) ? ", " : "", strcmp(dt, dt_b) ? dt_b : "", cfg);
                for (int part = 0; part <= split; part++) {
                    /* split: part 0 is the split main entry, part 1 the sum */
                    if (split && part == 1) /* the sum: one CTA a tile, kSumThreads of them */
                        sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(%s::kSumThreads, 1)\n", cfg);
                    else
                        sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(%s::kCtaThreads, %s::kMinBlocks)\n",
                                  cfg, cfg);
                    if (c->cluster > 1) /* launched as whole clusters of consecutive CTAs */
                        sb_printf(sb, "__cluster_dims__(%d, 1, 1)\n", c->cluster);
                    sb_puts(sb, base);
                    entry_suffix(target, c, aligned, split ? 1 + part : 0, sb);
                    sb_printf(sb, "(const %s p0%s)\n{\n"
                                  "    typedef %s Cfg;\n"
                                  "    extern __shared__ __align__(128) unsigned char smem[];\n"
                                  "%s",
                              sname,
                              split ? ", float *split_ws, int splits, int tile0"
                              : tma ? ", const __grid_constant__ evt_tma_maps tma, int tile_end, const evt_stream_k sk"
                              : ws  ? ", int tile_end, const evt_stream_k sk"
                                    : "",
                              cfg,
                              ws ? "" : "    int tile_m, tile_n;\n");
                    if (ws) {
                        /* the epilogue runs on the epilogue warps (pp: each
                         * consumer warpgroup), tile after tile; ws_run's L2
                         * prefetch on the epilogue warps (pp_run has none);
                         * a staged configuration's producer calls stage() */
                        const int st = c->staged ? plan_staged_input(fn) : -1;
                        /* each tile's problem of a batch moves the arguments (BASE_at) */
                        /* a producer/consumer configuration's consumers run the
                         * epilogue on their accumulators in registers
                         * (emit_direct) where direct_runs says, or wherever it
                         * can when the tuning forces it (shared_epi < 0); never
                         * on a staged input's tile, and never where the launch
                         * (edge columns) or the tuning keeps the shared-memory
                         * tile (cg_direct_epilogue); then the shared tile's
                         * epilogue is not written
                         * (pp_run and coop_run do not call it) */
                        const int direct = tma && cg_direct_epilogue(fn, c, sel);
                        sb_printf(sb, "    struct epi {\n"
                                      "%s"
                                      "        const %s &p0;\n"
                                      "        const evt_tma_maps *tma;\n",
                                  pp ? "        typedef evt_wg_team Team;\n"
                                     : "        typedef evt_epi_team<Cfg::kEpiThreads, Cfg::kThreads, EVT_BAR_EPI> Team;\n",
                                  sname);
                        if (!direct)
                            sb_printf(sb, "        __device__ __forceinline__ void operator()(int tile_m, int tile_n, int problem, float *acc,\n"
                                          "                                                   const void *staged = nullptr) const\n"
                                          "        {\n"
                                          "            const %s p = %s_at(p0, problem);\n"
                                          "            if (%s)\n"
                                          "                %s<Cfg::kEpiBM, Cfg::kEpiBN, Team, Cfg::kAccLd, true, %s>(p, tile_m, tile_n, acc, acc, staged);\n"
                                          "            else\n"
                                          "                %s<Cfg::kEpiBM, Cfg::kEpiBN, Team, Cfg::kAccLd, false, %s>(p, tile_m, tile_n, acc, acc, staged);\n"
                                          "        }\n",
                                      sname, base, fast, fname, st >= 0 ? "true" : "false", fname,
                                      st >= 0 ? "true" : "false");
                        sb_printf(sb, "        __device__ __forceinline__ void prefetch(int tile_m, int tile_n, int problem) const\n"
                                      "        {\n"
                                      "            %s_prefetch<Cfg::kBM, Cfg::kBN, Team>(%s_at(p0, problem), tile_m, tile_n);\n"
                                      "        }\n",
                                  fname, base);
                        /* the consumers start the accumulators from a bias (acc_fold) */
                        const int init = direct && acc_init(fn);
                        sb_printf(sb, "        enum { kDirect = %d, kAccInit = %d };\n", direct, init);
                        if (direct)
                            sb_printf(sb, "        enum { NH = Cfg::kCoop ? Cfg::kBM / 128 : Cfg::kBM / 64, NC = Cfg::kBN,\n"
                                          "               STAGE = evt_sm90::direct_stage<Cfg>::kBytes };\n"
                                          "        __device__ __forceinline__ void direct(int row0, int col_t, int col_lo, int problem,\n"
                                          "                                               const float (&acc)[NH][1][NC / 2], int warp, int lane,\n"
                                          "                                               unsigned char *stage) const\n"
                                          "        {\n"
                                          "            %s_direct_tile<NH, NC, STAGE>(%s_at(p0, problem), row0, col_t, col_lo, acc, warp, lane,\n"
                                          "                                         stage);\n"
                                          "        }\n",
                                      fname, base);
                        if (init)
                            sb_printf(sb, "        typedef %s_direct_bias_t<NC> Bias;\n"
                                          "        __device__ __forceinline__ Bias bias(int col_t, int problem, int lane) const\n"
                                          "        {\n"
                                          "            return %s_direct_bias<NC>(%s_at(p0, problem), col_t, lane);\n"
                                          "        }\n"
                                          "        __device__ __forceinline__ void add(float (&acc)[NH][1][NC / 2], const Bias &b) const\n"
                                          "        {\n"
                                          "            %s_direct_add<NH, NC>(acc, b);\n"
                                          "        }\n",
                                      fname, fname, base, fname);
                        if (st >= 0)
                            sb_printf(sb, "        __device__ __forceinline__ void stage(evt_u32 dst, evt_u32 bar, int tile_m, int tile_n,\n"
                                          "                                              int problem, int tid) const\n"
                                          "        { /* in %s: a rank-3 map where it differs per problem */\n"
                                          "            const %s p = %s_at(p0, problem);\n"
                                          "            evt_sm90::stage_tile<Cfg>(dst, bar, tile_m, tile_n, tid, tma ? &tma->staged : nullptr,\n"
                                          "                                       p.in%d, p.ld_in%d, p.m, p.n, p.bs_in%d ? problem : -1);\n"
                                          "        }\n",
                                      fn->inputs[st].info.name, sname, base, st, st, st);
                        sb_printf(sb, "    };\n"
                                      "    const epi e = {p0, %s};\n"
                                      "    evt_%s_persistent<Cfg>(p0.mainloop, smem, e, %s, tile_end, sk);\n"
                                      "}\n\n",
                                  tma ? "&tma" : "nullptr", ml, tma ? "&tma" : "nullptr");
                        continue;
                    }
                    /* the tile's problem of a batch moves the arguments (BASE_at) */
                    if (!split)
                        sb_printf(sb, "    const %s p = %s_at(p0, evt_tile_coord<Cfg>((int)blockIdx.x, p0.m, p0.n, &tile_m, &tile_n));\n"
                                      "    evt_%s_mainloop<Cfg>(p.mainloop, tile_m, tile_n, smem);\n",
                                  sname, base, ml);
                    else if (part == 0) {
                        /* share blockIdx.x % splits of tile tile0 + blockIdx.x / splits, to slot
                         * blockIdx.x (tile0: the first tile of a persistent launch's tail) */
                        sb_printf(sb, "    const %s p = %s_at(p0, evt_tile_coord<Cfg>(tile0 + (int)blockIdx.x / splits, p0.m, p0.n, &tile_m, &tile_n));\n"
                                      "    evt_%s_mainloop<Cfg>(p.mainloop, tile_m, tile_n, smem, (int)blockIdx.x %% splits, splits);\n",
                                  sname, base, ml);
                        if (target == EVT_TARGET_SM90A)
                            /* launched in clusters of `splits` CTAs (api/launch.c):
                             * the shares meet in shared memory, and each CTA runs
                             * the epilogue on its slices of the tile's rows */
                            sb_printf(sb, "    if (evt_sm90::cluster_ctas() > 1) {\n"
                                          "        typedef Cfg Whole;\n"
                                          "        typedef evt_sm90::cluster_slices<Whole::kBM, Whole::kBN, Whole::kThreads> Slices;\n"
                                          "        const int rank = (int)blockIdx.x %% splits, whole_m = tile_m;\n"
                                          "        float *const whole = reinterpret_cast<float *>(smem);\n"
                                          "        evt_sm90::cluster_split_sum<Whole::kBM, Whole::kBN, Whole::kThreads, Whole::kAccLd>(whole, splits, rank);\n"
                                          "        for (int i = rank; i < Slices::kCount; i += splits) {\n"
                                          "            typedef evt_sm90::cluster_slice_cfg<Whole> Cfg; /* the slice's rows: kEpiBM */\n"
                                          "            const int tile_m = whole_m * Slices::kCount + i;\n"
                                          "            float *const acc = whole + i * Slices::kRows * Cfg::kAccLd;\n"
                                          "            if (%s)\n"
                                          "                %s<Cfg::kEpiBM, Cfg::kBN, evt_epi_team<Cfg::kThreads>, Cfg::kAccLd, true>(p, tile_m, tile_n, acc, acc);\n"
                                          "            else\n"
                                          "                %s<Cfg::kEpiBM, Cfg::kBN, evt_epi_team<Cfg::kThreads>, Cfg::kAccLd, false>(p, tile_m, tile_n, acc, acc);\n"
                                          "        }\n"
                                          "        return;\n"
                                          "    }\n",
                                      fast, fname, fname);
                        sb_puts(sb, "    evt_split_store<Cfg::kBM, Cfg::kBN, Cfg::kThreads, Cfg::kAccLd>(\n"
                                    "        reinterpret_cast<const float *>(smem), split_ws + (evt_i64)blockIdx.x * Cfg::kBM * Cfg::kBN);\n"
                                    "}\n\n");
                        continue;
                    } else {
                        sb_printf(sb, "    /* tile tile0 + blockIdx.x: the sum of its partial tiles */\n"
                                      "    const %s p = %s_at(p0, evt_tile_coord<Cfg>(tile0 + (int)blockIdx.x, p0.m, p0.n, &tile_m, &tile_n));\n",
                                  sname, base);
                        sb_puts(sb, "    evt_split_sum<Cfg::kBM, Cfg::kBN, Cfg::kSumThreads, Cfg::kAccLd>(\n"
                                    "        split_ws + (evt_i64)blockIdx.x * splits * Cfg::kBM * Cfg::kBN, splits,\n"
                                    "        reinterpret_cast<float *>(smem));\n");
                    }
                    /* the epilogue's team: the CTA's threads (a sum CTA's kSumThreads) */
                    const char *team = split ? "Cfg::kSumThreads" : "Cfg::kThreads";
                    sb_printf(sb, "    const float *acc = reinterpret_cast<const float *>(smem);\n"
                                  "    float *scratch = reinterpret_cast<float *>(smem);\n"
                                  "    if (%s)\n"
                                  "        %s<Cfg::kBM, Cfg::kBN, evt_epi_team<%s>, Cfg::kAccLd, true>(p, tile_m, tile_n, acc, scratch);\n"
                                  "    else\n"
                                  "        %s<Cfg::kBM, Cfg::kBN, evt_epi_team<%s>, Cfg::kAccLd, false>(p, tile_m, tile_n, acc, scratch);\n"
                                  "}\n\n",
                              fast, fname, team, fname, team);
                }
            }
    sb_putn(sb, sb_str(&sh->reduce), sh->reduce.len);
    /* the runtime's repack of operands whose rows are not 16-byte aligned,
     * ahead of a fast-path GEMM (api/launch.c) */
    if (!conv && sel->aligned != 0)
        sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(256) %s_repack(\n"
                      "    const evt_operand_storage<%d>::type *src, evt_i64 ld, evt_operand_storage<%d>::type *dst,\n"
                      "    evt_i64 rows, evt_i64 e, evt_i64 e8)\n"
                      "{\n"
                      "    evt_gemm_repack(src, ld, dst, rows, e, e8);\n"
                      "}\n",
                  base, (int)evt_elem_size(a->elem), (int)evt_elem_size(a->elem));
    cg_cache_free(&own);
    return !sb->failed;
}
