/* progen.c - the random program and data generator (see progen.h). */
#include "progen.h"

#include "ir/ir.h"
#include "support/splitmix.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pg_rng pg_rng_bytes(const uint8_t *bytes, size_t n, uint64_t seed)
{
    return (pg_rng){seed, bytes, n, 0};
}

/* The next k bytes of the input as a little-endian number (k <= 8, at least
 * one left). */
static uint64_t take(pg_rng *r, size_t k)
{
    uint64_t v = 0;
    for (size_t i = 0; i < k && r->pos < r->nbytes; i++)
        v |= (uint64_t)r->bytes[r->pos++] << (8 * i);
    return v;
}

uint64_t pg_next(pg_rng *r)
{
    if (r->pos < r->nbytes)
        return take(r, 8);
    return evt_splitmix64(&r->s);
}

unsigned pg_below(pg_rng *r, unsigned n)
{
    /* From input bytes, as few as cover n, so that one mutated byte is one
     * changed choice and the choices after it keep their bytes. */
    if (r->pos < r->nbytes)
        return (unsigned)(take(r, n <= 1u << 8 ? 1 : n <= 1u << 16 ? 2 : 4) % n);
    return (unsigned)(pg_next(r) % n);
}

int pg_chance(pg_rng *r, unsigned percent)
{
    return pg_below(r, 100) < percent;
}

/* ---- the program generator ------------------------------------------ */

void pg_put(pg_gen *g, const char *fmt, ...)
{
    if (g->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g->src + g->len, sizeof g->src - g->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof g->src - g->len) {
        g->overflow = 1;
        g->src[g->len] = '\0';
        return;
    }
    g->len += (size_t)n;
}

static void add_name(pg_gen *g, const char *name)
{
    if (g->nnames < PG_MAX_NAMES)
        snprintf(g->names[g->nnames++], sizeof g->names[0], "%s", name);
}

static const char *const elems[] = {"f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2"};
static const char *const shapes[] = {"[M, N]", "[M]", "[N]", ""};

/* Constants that sit on the edges of f32 and of the rules: zeros, ones,
 * powers of two, subnormals, huge values; NaN and ±inf come from 0/0, 1/0. */
static const char *const constants[] = {
    "0", "1", "2", "0.5", "0.25", "3", "4", "6", "8", "0.1", "1.5", "1e-40", "1.4e-45",
    "1e-38", "3e38", "1e30", "65504", "0.044715", "1024", "1e-20", "(0/0)", "(1/0)", "(-1/0)",
    "(-0)", "(-1)"};

/* Templates the simplifier (and its refusals) match; %1 is one subexpression. */
static const char *const templates[] = {
    "(%1 * 1)",        "(1 * %1)",           "(%1 / 1)",          "(%1 + -0)",
    "(-0 + %1)",       "(%1 - 0)",           "(%1 + 0)",          "(%1 - -0)",
    "(%1 * 0)",        "(%1 - %1)",          "(%1 * -1)",         "(%1 / -1)",
    "-(-%1)",          "relu(relu(%1))",     "abs(abs(%1))",      "abs(-%1)",
    "abs(relu(%1))",   "relu(abs(%1))",      "max(%1, 0)",        "max(0, %1)",
    "min(%1, 0)",      "max(%1, -0)",        "min(%1, %1)",       "max(%1, %1)",
    "(%1 / 8)",        "(%1 / 0.5)",         "(%1 / 3)",          "(%1 / 1e-40)",
    "(%1 / 2e38)",     "(%1 > 0 ? %1 : %1)", "(%1 < %1 ? 1 : 2)", "clamp(%1, 0, 6)",
    "clamp(%1, -inf_, inf_)", "clamp(%1, 1, 0)", "min(max(%1, 0), 6)", "relu(-(-%1))",
    "(%1 + %1)",       "(2 * %1)",           "(%1 * 0.5 + %1 * 0.5)",
};

static void gen_expr(pg_gen *g, int depth);

/* A template with every %1 the same subexpression text. */
static void gen_template(pg_gen *g, int depth)
{
    const char *t = templates[pg_below(&g->r, sizeof templates / sizeof templates[0])];
    size_t start = g->len;
    gen_expr(g, depth - 1);
    char sub[2048];
    size_t n = g->len - start;
    if (n >= sizeof sub) /* too long to repeat: keep it as it is */
        return;
    memcpy(sub, g->src + start, n);
    sub[n] = '\0';
    g->len = start;
    for (const char *p = t; *p; p++) {
        if (p[0] == '%' && p[1] == '1') {
            pg_put(g, "%s", sub);
            p++;
        } else if (strncmp(p, "inf_", 4) == 0) {
            pg_put(g, "(1/0)");
            p += 3;
        } else {
            pg_put(g, "%c", *p);
        }
    }
}

static void gen_leaf(pg_gen *g)
{
    if (g->nnames && pg_chance(&g->r, 75))
        pg_put(g, "%s", g->names[pg_below(&g->r, (unsigned)g->nnames)]);
    else
        pg_put(g, "%s", constants[pg_below(&g->r, sizeof constants / sizeof constants[0])]);
}

static void gen_expr(pg_gen *g, int depth)
{
    static const char *const binops[] = {"+", "-", "*", "/"};
    static const char *const cmps[] = {"<", "<=", ">", ">=", "==", "!="};
    if (depth <= 0 || pg_chance(&g->r, 25)) {
        gen_leaf(g);
        return;
    }
    unsigned k = pg_below(&g->r, 100);
    if (k < 30) {
        pg_put(g, "(");
        gen_expr(g, depth - 1);
        pg_put(g, " %s ", binops[pg_below(&g->r, 4)]);
        gen_expr(g, depth - 1);
        pg_put(g, ")");
    } else if (k < 35) {
        pg_put(g, "-");
        gen_expr(g, depth - 1);
    } else if (k < 65) {
        /* A builtin, found in the op table so that new ones are covered too. */
        int ops[IR_OP_COUNT], nops = 0;
        for (int op = 0; op < IR_OP_COUNT; op++) {
            unsigned f = ir_op_get((ir_op)op)->flags;
            if ((f & IR_BUILTIN) && !(f & IR_REDUCE))
                ops[nops++] = op;
        }
        const ir_op_info *info = ir_op_get((ir_op)ops[pg_below(&g->r, (unsigned)nops)]);
        pg_put(g, "%s(", info->name);
        for (int i = 0; i < info->arity; i++) {
            if (i)
                pg_put(g, ", ");
            gen_expr(g, depth - 1);
        }
        pg_put(g, ")");
    } else if (k < 80) {
        pg_put(g, "(");
        gen_expr(g, depth - 1);
        pg_put(g, " %s ", cmps[pg_below(&g->r, 6)]);
        gen_expr(g, depth - 1);
        pg_put(g, " ? ");
        gen_expr(g, depth - 1);
        pg_put(g, " : ");
        gen_expr(g, depth - 1);
        pg_put(g, ")");
    } else {
        gen_template(g, depth);
    }
}

void pg_epilogue(pg_gen *g, uint64_t seed)
{
    pg_epilogue_rng(g, (pg_rng){seed, NULL, 0, 0});
}

void pg_epilogue_rng(pg_gen *g, pg_rng r)
{
    g->r = r;
    g->len = 0;
    g->overflow = 0;
    g->src[0] = '\0';
    g->nnames = 0;
    add_name(g, "acc");
    pg_put(g, "epilogue g {\n");
    int ninputs = (int)pg_below(&g->r, 5), nparams = (int)pg_below(&g->r, 3);
    for (int i = 0; i < ninputs; i++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", i);
        /* one draw per statement: a call's arguments are unsequenced, and
         * clang drew them in another order than gcc, making another program
         * of the same seed; the order kept is gcc's */
        const char *shape = shapes[pg_below(&g->r, 4)];
        pg_put(g, "    in %s : %s%s\n", name, elems[pg_below(&g->r, 7)], shape);
        add_name(g, name);
    }
    for (int i = 0; i < nparams; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        pg_put(g, "    param %s : f32", name);
        if (pg_chance(&g->r, 60)) {
            const char *value = (const char *[]){"0", "1", "0.5", "3", "1e-40", "2e38"}[pg_below(&g->r, 6)];
            pg_put(g, " = %s%s", pg_chance(&g->r, 30) ? "-" : "", value);
        }
        pg_put(g, "\n");
        add_name(g, name);
    }
    int nstmts = 1 + (int)pg_below(&g->r, 8), nouts = 0;
    for (int i = 0; i < nstmts || nouts == 0; i++) {
        char name[16];
        unsigned k = pg_below(&g->r, 100);
        int depth = 1 + (int)pg_below(&g->r, 4);
        if (k < 50 && i < nstmts) {
            snprintf(name, sizeof name, "l%d", i);
            pg_put(g, "    let %s = ", name);
            gen_expr(g, depth);
            pg_put(g, "\n");
            add_name(g, name);
        } else if (k < 80 || i >= nstmts) {
            snprintf(name, sizeof name, "o%d", i);
            pg_put(g, "    out %s : %s[M, N] = ", name, elems[pg_below(&g->r, 7)]);
            gen_expr(g, depth);
            pg_put(g, "\n");
            add_name(g, name); /* later uses see the value before conversion */
            nouts++;
        } else {
            static const char *const kinds[] = {"reduce_sum", "reduce_max", "reduce_min"};
            static const char *const axes[] = {", N", ", M", ""};
            static const char *const reduced[] = {"[M]", "[N]", ""};
            unsigned axis = pg_below(&g->r, 3);
            const char *kind = kinds[pg_below(&g->r, 3)];
            const char *elem = pg_chance(&g->r, 70) ? "f32" : elems[pg_below(&g->r, 7)];
            pg_put(g, "    out r%d : %s%s = %s(", i, elem, reduced[axis], kind);
            gen_expr(g, depth);
            pg_put(g, "%s)\n", axes[axis]);
            nouts++;
        }
    }
    pg_put(g, "}\n");
}

void pg_program(pg_gen *g, uint64_t seed)
{
    pg_epilogue(g, seed);
    pg_put(g, "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g\n");
}

/* ---- random data ------------------------------------------------------------ */

float pg_f32(pg_rng *r)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
        0xff812345, 0x7fffffff, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
        0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x40400000, 0xc0400000, 0x42b20000,
        0xc2d00000, 0x41a00000, 0xc1a00000, 0x3f000000, 0x4b000000};
    unsigned k = pg_below(r, 100);
    uint32_t bits;
    if (k < 35)
        bits = special[pg_below(r, sizeof special / sizeof special[0])];
    else if (k < 60)
        bits = (uint32_t)pg_next(r);
    else {
        float f = ((float)pg_below(r, 2001) - 1000.0f) / 64.0f;
        memcpy(&bits, &f, sizeof bits);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* n random elements of type elem: f32 from random_f32, the other types as
 * raw bits (every NaN, infinity and subnormal encoding among them). */
void pg_fill(pg_rng *r, evt_elem elem, void *dst, size_t n)
{
    if (elem == EVT_F32) {
        for (size_t i = 0; i < n; i++)
            ((float *)dst)[i] = pg_f32(r);
        return;
    }
    unsigned char *p = dst;
    for (size_t i = 0; i < n * evt_elem_size(elem); i++)
        p[i] = (unsigned char)pg_next(r);
}
