/*
 * diff_fuzz.c - the GPU differential fuzzer: random epilogue programs on
 * random GEMM and conv problems, under every configuration family forced,
 * against the CPU interpreter.
 *
 * A case (seed S + i for case i of a run started at seed S) is one kernel:
 * one to --per-kernel random programs of tests/support/progen.c (every
 * builtin, shape and element type, params, several outputs, reductions),
 * their names prefixed (u0_, u1_, ...) and merged into one epilogue, so
 * that one NVRTC compile covers several programs; a mainloop (gemm with
 * f16 or bf16 operands in any layout, fp8 ones in one GEMM case in 8 on
 * sm_90a and sm_89 (e4m3 or e5m2 each, a row, b col), or conv2d_fprop); an
 * optimization level; a configuration family (mma_sync, wgmma, ws: warp-specialized,
 * pp: TMA producer/consumer, staged, splitk, auto: the planner's pick) and
 * one of its configurations that the planner admits for the kernel
 * (evt_kernel_config_check), forced; a row group; and one to three
 * problems.  A problem has ragged sizes (M, N, K mostly up to 300, now and
 * then up to 2048, and 0), padded leading dimensions, operands and
 * epilogue buffers at element offsets that break 16-byte alignment, params
 * set at launch, inputs full of NaN, infinities and subnormals, operands
 * of small multiples of 1/8 (an infinity or NaN now and then; fp8 ones
 * multiples of 1/4 in [-2, 2], K <= 2048) so that the accumulator is exact
 * in f32 whatever the order of its adds; now and then
 * a buffer one byte off or a param left unset, which validation must
 * refuse (counted as refusals); now and then a GEMM problem runs as a batch
 * of 2 or 3 copies of itself (batch_of), some operands and inputs shared.
 *
 * Every output is compared with the interpreter (evt_interp, f32) run on
 * the -O0 module and the f64 reference accumulator: element-wise outputs
 * and reduce_max / reduce_min bit for bit (NaN matching NaN, whatever the
 * payload), reduce_sum within (terms - 1) ulp-of-one times the sum of the
 * terms' magnitudes (the bound of any order of f32 additions; the terms
 * come from the interpreter on the program with each sum turned into an
 * [M, N] output).  Every byte of the launch's memory the kernel may not
 * write (row padding, the bytes around each buffer, the inputs) must come
 * back unchanged.
 *
 * A failure (a mismatch, an unexpected status, a compile error) is
 * reduced: statements dropped and sizes shrunk (tests/support/shrink.c)
 * while a fresh process replaying the candidate (--replay) still fails the
 * same way; the small .evt and its problem go to DIR/diff_fuzz-SEED.evt
 * and .txt and to standard output, with the command that replays them.
 *
 *   diff_fuzz [--seed S] [--count PROGRAMS] [--seconds T] [--jobs J]
 *             [--family F,F...] [--per-kernel P] [--out DIR] [-v]
 *   diff_fuzz --dry-run [--compile N] [--inject-fault [--self-test]] ...
 *   diff_fuzz --replay FILE.evt --problem 'SPEC' [--dry-run [--inject-fault]]
 *
 * On the GPU, J worker processes (default: the processors, at most 16)
 * take every J-th case and compile in parallel (NVRTC takes about a second
 * a kernel); the parent only supervises: it prints progress, kills a worker
 * whose case runs past --case-timeout (a hang, reported with its seed) and
 * sums the counts.  --dry-run needs no GPU: it generates, parses, plans
 * and emits every case, validates every launch (host memory standing in
 * for the device's) up to EVT_ERR_NO_GPU, computes every reference, lets
 * the interpreter on the optimized module play the GPU, compares as above,
 * and NVRTC-compiles the first --compile N kernels; --inject-fault then
 * flips a bit of the first output computed with gelu, and --self-test
 * checks that the fault was found and reduced to a handful of lines.
 *
 * Exit status: 0 no failure, 1 a failure (or bad arguments), 77 no GPU
 * (the ctest skip code); --replay: 0 as expected, 3 a mismatch, 4 an error.
 */
#define _GNU_SOURCE /* popen, strdup, readlink */
#include "tests/support/progen.h"
#include "tests/support/shrink.h"

#include <evt/evt.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- options ----------------------------------------------------------- */

enum family {
    FAM_MMA_SYNC, /* sm80_*: mma.sync, cp.async stages */
    FAM_WGMMA,    /* sm90_wg*: wgmma */
    FAM_WS,       /* *_ws*: warp-specialized persistent */
    FAM_PP,       /* sm90_pp*: a TMA producer and consumer warpgroups */
    FAM_STAGED,   /* *_staged: the producer also stages an [M, N] input */
    FAM_SPLITK,   /* a non-persistent configuration splitting K */
    FAM_AUTO,     /* nothing forced: the planner's pick */
    FAM_COUNT
};
static const char *const family_names[FAM_COUNT] = {"mma_sync", "wgmma", "ws",  "pp",
                                                    "staged",   "splitk", "auto"};

typedef struct options {
    uint64_t seed;
    long long count;      /* programs */
    double seconds;       /* no new case after this long (0: no limit) */
    double case_timeout;  /* a worker's case running longer is a hang */
    double shrink_seconds;
    int jobs;
    int per_kernel;       /* programs per kernel, at most */
    unsigned families;    /* bit set of enum family */
    int dry, compile, inject, self_test, verbose;
    const char *out_dir;
    const char *replay_evt, *replay_problem;
    char self[4096];      /* this executable, for the reducer's replays */
} options;

static options opt;

/* The family filter as --family takes it. */
static void families_arg(char *buf, size_t n)
{
    buf[0] = '\0';
    for (int f = 0; f < FAM_COUNT; f++)
        if (opt.families & (1u << f))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "", family_names[f]);
}


/* ---- deterministic values ------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    pg_rng r = {.s = a ^ (b * 0xd1342543de82ef95u)};
    return pg_next(&r);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = mix(h, (unsigned char)*s);
    return h;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- counts ------------------------------------------------------------------ */

typedef struct counters {
    long long cases, programs, kernels, skipped; /* skipped: no configuration of the family admitted */
    long long launches, outputs, elements;
    long long batched; /* launches of a batch of copies of the problem (batch_of) */
    long long fp8;     /* launches of an fp8 GEMM (gen_case) */
    long long refused_buffer, refused_unbound;
    long long loose_sums; /* sums whose terms may overflow f32 in some order: any result passes */
    long long compiles;   /* dry run: NVRTC compiles */
    long long failures, mismatches, errors, hangs; /* failures: mismatches + errors + hangs + crashes */
    long long reductions, reduced_lines; /* failures reduced; the most statements one kept */
    long long family_kernels[FAM_COUNT];
} counters;

/* Adds c's counts to *to (every field is a long long). */
static void add_counters(counters *to, const counters *c)
{
    const long long most = to->reduced_lines > c->reduced_lines ? to->reduced_lines : c->reduced_lines;
    long long *t = (long long *)to;
    const long long *f = (const long long *)c;
    for (size_t i = 0; i < sizeof *c / sizeof(long long); i++)
        t[i] += f[i];
    to->reduced_lines = most; /* a maximum, not a count */
}

/* ---- a case: the program -------------------------------------------------- */

enum { MAX_PROBLEMS = 3, MAX_SRC = 1 << 18 };

/* The problem's numbers, by name, with the smallest each may shrink to. */
#define PROBLEM_FIELDS(X)                                                                          \
    X(m, 0) X(n, 0) X(k, 0)                                   /* a GEMM's sizes */                 \
    X(cn, 1) X(ch, 1) X(cw, 1) X(cc, 1) X(ck, 1) X(cr, 1) X(cs, 1) /* a conv's */                   \
    X(pad, 0) X(stride, 1) X(dil, 1)                                                               \
    X(lda_pad, 0) X(ldb_pad, 0) X(mn_pad, 0) /* leading dimensions past the rows */                \
    X(a_off, 0) X(b_off, 0) /* the operands' element offsets past a 256-byte boundary */           \
    X(offsets, 0)  /* 0: every epilogue buffer 256-byte aligned; else offsets drawn from it */     \
    X(data, 0)     /* the seed of every value */                                                   \
    X(misalign, 0) /* > 0: one buffer one byte off (validation must refuse it) */                  \
    X(unset, 0)    /* 1: a param without default left unset (refused too) */

enum {
#define PF_ENUM(name, lo) PF_##name,
    PROBLEM_FIELDS(PF_ENUM)
#undef PF_ENUM
    PF_COUNT
};
static const char *const pf_names[PF_COUNT] = {
#define PF_NAME(name, lo) #name,
    PROBLEM_FIELDS(PF_NAME)
#undef PF_NAME
};
static const long long pf_lo[PF_COUNT] = {
#define PF_LO(name, lo) lo,
    PROBLEM_FIELDS(PF_LO)
#undef PF_LO
};

/* What runs the kernel: everything of a case but the program and problems. */
typedef struct tuning {
    char config[64]; /* "" : the planner's */
    int split_k, row_group, opt_level;
    int stream_k; /* evt_tuning.stream_k: 0 the planner's, 2 forced */
} tuning;

typedef struct fuzz_case {
    uint64_t seed;
    int nprograms, family;
    evt_mainloop mainloop;
    int a_col, b_col; /* a GEMM's operand layouts */
    int aligned;      /* every problem takes the fast path (else the guarded one): one compile a case */
    int fp8;          /* a GEMM of fp8 operands (e4m3, e5m2; a row, b col) */
    tuning t;
    int nproblems;
    long long problem[MAX_PROBLEMS][PF_COUNT];
    size_t len;
    char src[MAX_SRC];
} fuzz_case;

/* Programs in case `seed`: the parent counts them without generating. */
static int case_programs(uint64_t seed)
{
    return 1 + (int)(mix(seed, 0x9a1) % (uint64_t)opt.per_kernel);
}

/* Appends text to the case's source; 0 when it does not fit. */
static int put(fuzz_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(fuzz_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->src + c->len, sizeof c->src - c->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof c->src - c->len)
        return 0;
    c->len += (size_t)n;
    return 1;
}

/* Whether [p, p + n) is one of progen's names (i0, p1, l2, o3, r4), which
 * merging prefixes; i8 and i32 are element types (progen makes at most
 * four inputs). */
static int progen_name(const char *p, size_t n)
{
    if (n < 2 || !strchr("iplor", p[0]))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!isdigit((unsigned char)p[i]))
            return 0;
    return !((n == 2 && strncmp(p, "i8", 2) == 0) || (n == 3 && strncmp(p, "i32", 3) == 0));
}

/* Appends the statement lines of progen's epilogue `body` (between its
 * first line and its closing brace), its names prefixed with u<j>_. */
static int put_renamed(fuzz_case *c, const char *body, int j)
{
    for (const char *p = body; *p;) {
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            const char *s = p; /* a number, its exponent included */
            while (isdigit((unsigned char)*p) || *p == '.')
                p++;
            if ((*p == 'e' || *p == 'E') &&
                (isdigit((unsigned char)p[1]) || ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
                p += 2;
                while (isdigit((unsigned char)*p))
                    p++;
            }
            if (!put(c, "%.*s", (int)(p - s), s))
                return 0;
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            const int n = (int)(p - s);
            if (!(progen_name(s, (size_t)n) ? put(c, "u%d_%.*s", j, n, s) : put(c, "%.*s", n, s)))
                return 0;
        } else if (!put(c, "%c", *p++)) {
            return 0;
        }
    }
    return 1;
}

static int pick(pg_rng *r, const int *weights, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += weights[i];
    int x = (int)pg_below(r, (unsigned)total);
    for (int i = 0; i < n; i++)
        if ((x -= weights[i]) < 0)
            return i;
    return n - 1;
}

/* One dimension: mostly ragged up to 300, now and then tiny, larger, or 0. */
static long long dim(pg_rng *r, int zero_percent)
{
    unsigned k = pg_below(r, 100);
    if (k < (unsigned)zero_percent)
        return 0;
    if (k < 15)
        return 1 + pg_below(r, 8);
    if (k < 80)
        return 1 + pg_below(r, 300);
    if (k < 95)
        return 1 + pg_below(r, 700);
    return 1 + pg_below(r, 2048);
}

/* A problem for the case's mainloop and family, into v: on the fast path
 * (contiguous extents, leading dimensions and the operands' offsets
 * multiples of 8 elements) when the case is aligned, else on the guarded
 * one (an odd leading dimension or channel count), so that a launch of
 * each of the case's problems needs the one entry point compiled. */
static void gen_problem(const fuzz_case *c, pg_rng *r, long long *v)
{
    for (int i = 0; i < PF_COUNT; i++)
        v[i] = pf_lo[i];
    const int aligned = c->aligned;
    if (c->mainloop == EVT_MAINLOOP_GEMM) {
        v[PF_m] = dim(r, 1);
        v[PF_n] = dim(r, 1);
        v[PF_k] = dim(r, 3);
        /* Keep the f64 reference (M N K multiply-adds) and the buffers affordable. */
        while (v[PF_m] * v[PF_n] > (1 << 21) || v[PF_m] * v[PF_n] * v[PF_k] > (1LL << 26)) {
            long long *big = v[PF_m] >= v[PF_n] && v[PF_m] >= v[PF_k] ? &v[PF_m]
                             : v[PF_n] >= v[PF_k]                    ? &v[PF_n]
                                                                     : &v[PF_k];
            *big /= 2;
        }
        if (aligned) {
            /* 16 bytes: 8 16-bit elements, 16 fp8 ones */
            const long long e = c->fp8 ? 16 : 8;
            long long *a_run = c->a_col ? &v[PF_m] : &v[PF_k], *b_run = c->b_col ? &v[PF_k] : &v[PF_n];
            *a_run = (*a_run + e - 1) / e * e;
            *b_run = (*b_run + e - 1) / e * e;
        }
    } else {
        for (int tries = 0; tries < 100; tries++) {
            v[PF_cn] = 1 + pg_below(r, 4);
            v[PF_ch] = 1 + pg_below(r, 24);
            v[PF_cw] = 1 + pg_below(r, 24);
            v[PF_cc] = aligned ? 8 * (1 + pg_below(r, 16)) : 1 + 2 * pg_below(r, 24);
            if (aligned && (c->family == FAM_PP || c->family == FAM_STAGED) && pg_chance(r, 50))
                v[PF_cc] = 64 * (1 + pg_below(r, 2)); /* what TMA's im2col boxes need */
            v[PF_ck] = 1 + pg_below(r, 160);
            static const int filters[] = {1, 1, 3, 3, 3, 5, 7};
            v[PF_cr] = filters[pg_below(r, 7)];
            v[PF_cs] = pg_chance(r, 80) ? v[PF_cr] : filters[pg_below(r, 7)];
            v[PF_pad] = pg_below(r, 4);
            v[PF_stride] = 1 + pg_below(r, 3);
            v[PF_dil] = pg_chance(r, 80) ? 1 : 2;
            const evt_conv_problem cp = {v[PF_cn], v[PF_ch], v[PF_cw], v[PF_cc], v[PF_ck], v[PF_cr], v[PF_cs],
                                         (int)v[PF_pad], (int)v[PF_pad], (int)v[PF_stride],
                                         (int)v[PF_stride], (int)v[PF_dil], (int)v[PF_dil]};
            long long p, q;
            if (evt_conv_output_size(&cp, &p, &q) == EVT_OK &&
                v[PF_cn] * p * q * v[PF_ck] * v[PF_cr] * v[PF_cs] * v[PF_cc] <= (1LL << 26))
                break;
        }
    }
    if (aligned) {
        v[PF_lda_pad] = (c->fp8 ? 16 : 8) * pg_below(r, 2);
        v[PF_ldb_pad] = (c->fp8 ? 16 : 8) * pg_below(r, 2);
        v[PF_mn_pad] = 8 * pg_below(r, 2);
    } else {
        /* An odd A leading dimension: the fast path needs one of 8 elements. */
        v[PF_lda_pad] = 1 + 2 * pg_below(r, 4);
        v[PF_ldb_pad] = pg_chance(r, 50) ? 0 : pg_below(r, 9);
        v[PF_mn_pad] = pg_chance(r, 40) ? 0 : 1 + pg_below(r, 8);
        v[PF_a_off] = pg_below(r, 4);
        v[PF_b_off] = pg_below(r, 4);
    }
    v[PF_offsets] = pg_chance(r, 50) ? 0 : 1 + pg_below(r, 1000);
    v[PF_data] = pg_next(r) >> 20;
    const unsigned bad = pg_below(r, 100);
    v[PF_misalign] = bad < 4 ? 1 + pg_below(r, 64) : 0;
    v[PF_unset] = bad >= 4 && bad < 8;
}

/* The staged configurations stage a 16-bit [M, N] input: a small program
 * that reads one, added when the family is staged. */
static int put_staged_program(fuzz_case *c, pg_rng *r)
{
    static const char *const exprs[] = {"relu(acc + s_res)", "acc * s_res", "s_res - acc",
                                        "max(acc, s_res) * 0.5", "gelu(acc) + s_res"};
    static const char *const elems[] = {"f16", "bf16", "f32", "e4m3"};
    return put(c, "    in s_res : %s[M, N]\n    out s_out : %s[M, N] = %s\n",
               pg_chance(r, 50) ? "f16" : "bf16", elems[pg_below(r, 4)], exprs[pg_below(r, 5)]);
}

/* Case `seed` on `target`: the program, the tuning but its configuration
 * (chosen once the kernel is parsed), the problems.  0 when the source does
 * not fit.  The target only decides whether a GEMM may be an fp8 one. */
static int gen_case(fuzz_case *c, uint64_t seed, evt_target target)
{
    memset(c, 0, offsetof(fuzz_case, src));
    c->src[0] = '\0';
    c->seed = seed;
    c->nprograms = case_programs(seed);
    pg_rng r = {.s = mix(seed, 0xca5e)};
    /* The family first: it decides what the kernel may be. */
    int fams[FAM_COUNT], nfam = 0;
    for (int f = 0; f < FAM_COUNT; f++)
        if (opt.families & (1u << f))
            fams[nfam++] = f;
    c->family = fams[pg_below(&r, (unsigned)nfam)];
    const int conv_only = c->family == FAM_WS; /* the staged tile runs GEMMs too (session 12) */
    c->mainloop = conv_only || pg_chance(&r, 30) ? EVT_MAINLOOP_CONV2D_FPROP : EVT_MAINLOOP_GEMM;
    /* Row groups of 1 and 2 compile fastest; 0 is the code generator's choice (2, 4 or 16). */
    static const int levels[] = {10, 10, 80}, groups[] = {25, 45, 20, 6, 3, 1};
    static const int group_of[] = {0, 1, 2, 4, 8, 16};
    c->t.opt_level = pick(&r, levels, 3);
    c->t.row_group = group_of[pick(&r, groups, 6)];
    c->t.split_k = c->family == FAM_SPLITK ? 2 + (int)pg_below(&r, 3) : c->family == FAM_AUTO ? 0 : 1;
    if (c->family == FAM_PP || c->family == FAM_WS || c->family == FAM_STAGED) {
        /* a persistent plan's tail, forced 2-4 ways in 2 cases of 5 (plan.h),
         * from a stream of its own so that the cases' other draws stay as they were */
        pg_rng rt = {.s = mix(seed, 0x7a11)};
        if (pg_chance(&rt, 40))
            c->t.split_k = 2 + (int)pg_below(&rt, 3);
        /* stream-K, in place of the tail, in 1 case of 3 (the cooperative
         * configurations take it, the others ignore it) */
        pg_rng rs = {.s = mix(seed, 0x5ce4)};
        if (pg_chance(&rs, 33))
            c->t.stream_k = 2;
    }

    static pg_gen g;
    int ok = put(c, "epilogue g {\n");
    for (int j = 0; ok && j < c->nprograms; j++) {
        pg_epilogue(&g, mix(seed, (uint64_t)j + 1));
        char *body = strchr(g.src, '\n');
        char *close = strrchr(g.src, '}');
        if (g.overflow || !body || !close)
            return 0;
        *close = '\0';
        ok = put_renamed(c, body + 1, j);
    }
    if (ok && c->family == FAM_STAGED)
        ok = put_staged_program(c, &r);
    /* NVRTC's time grows with the epilogue's code times the rows unrolled
     * per group: large epilogues get groups of 1 or 2 rows, so that the
     * few largest cases do not take most of the run. */
    if (ok && shrink_statements(c->src) > 12 && c->t.row_group != 1 && c->t.row_group != 2)
        c->t.row_group = 1 + (int)pg_below(&r, 2);
    const char *elem = pg_chance(&r, 60) ? "f16" : "bf16";
    c->aligned = pg_chance(&r, 40);
    /* One GEMM in 8 on an fp8 target has fp8 operands, drawn apart so that
     * the other cases are what they were. */
    pg_rng r8 = {.s = mix(seed, 0xf8)};
    c->fp8 = c->mainloop == EVT_MAINLOOP_GEMM && (target == EVT_TARGET_SM90A || target == EVT_TARGET_SM89) &&
             pg_below(&r8, 8) == 0;
    if (ok && c->fp8) {
        /* fp8 tensor cores read both operands K-contiguous, as wgmma does every type */
        static const char *const fp8s[] = {"e4m3", "e5m2"};
        c->a_col = 0, c->b_col = 1;
        ok = put(c, "}\nkernel k = gemm(a: %s row, b: %s col, acc: f32) with g\n", fp8s[pg_below(&r8, 2)],
                 fp8s[pg_below(&r8, 2)]);
    } else if (ok && c->mainloop == EVT_MAINLOOP_GEMM) {
        /* every layout: the wgmma families read a column-major A or a
         * row-major B MN-major (the transposed wgmma); their layouts are
         * drawn apart so that the other families' cases are what they were */
        const int wgmma = c->family == FAM_WGMMA || c->family == FAM_PP;
        pg_rng rl = {.s = mix(seed, 0x7a)};
        c->a_col = wgmma ? pg_chance(&rl, 50) : pg_chance(&r, 50);
        c->b_col = wgmma ? pg_chance(&rl, 50) : pg_chance(&r, 50);
        ok = put(c, "}\nkernel k = gemm(a: %s %s, b: %s %s, acc: f32) with g\n", elem,
                 c->a_col ? "col" : "row", elem, c->b_col ? "col" : "row");
    } else if (ok) {
        ok = put(c, "}\nkernel k = conv2d_fprop(x: %s, w: %s, acc: f32) with g\n", elem, elem);
    }
    static const int problems[] = {60, 30, 10};
    c->nproblems = 1 + pick(&r, problems, 3);
    for (int p = 0; p < c->nproblems; p++)
        gen_problem(c, &r, c->problem[p]);
    return ok;
}

/* ---- the problem spec: what --replay reads and failure reports print ------- */

static void format_spec(const tuning *t, const long long *v, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "config=%s split_k=%d row_group=%d O=%d",
                                  t->config[0] ? t->config : "auto", t->split_k, t->row_group,
                                  t->opt_level);
    if (t->stream_k && len < n) /* only where set, so that earlier specs read the same */
        len += (size_t)snprintf(buf + len, n - len, " stream_k=%d", t->stream_k);
    for (int i = 0; i < PF_COUNT && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, " %s=%lld", pf_names[i], v[i]);
}

static int parse_spec(const char *spec, tuning *t, long long *v)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < PF_COUNT; i++)
        v[i] = pf_lo[i];
    char *copy = strdup(spec), *save = NULL;
    int ok = copy != NULL;
    for (char *tok = copy ? strtok_r(copy, " ", &save) : NULL; ok && tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            ok = 0;
            break;
        }
        *eq = '\0';
        const char *val = eq + 1;
        int known = 1;
        if (strcmp(tok, "config") == 0)
            snprintf(t->config, sizeof t->config, "%s", strcmp(val, "auto") == 0 ? "" : val);
        else if (strcmp(tok, "split_k") == 0)
            t->split_k = atoi(val);
        else if (strcmp(tok, "row_group") == 0)
            t->row_group = atoi(val);
        else if (strcmp(tok, "stream_k") == 0)
            t->stream_k = atoi(val);
        else if (strcmp(tok, "O") == 0)
            t->opt_level = atoi(val);
        else {
            known = 0;
            for (int i = 0; i < PF_COUNT; i++)
                if (strcmp(tok, pf_names[i]) == 0) {
                    v[i] = strtoll(val, NULL, 10);
                    known = 1;
                }
        }
        if (!known) {
            fprintf(stderr, "diff_fuzz: unknown problem field '%s'\n", tok);
            ok = 0;
        }
    }
    free(copy);
    return ok;
}

/* ---- one launch's memory ---------------------------------------------------- */

enum { MAX_BUFFERS = 160, GUARD = 64, ALIGN = 256 };
enum { ROLE_A, ROLE_B, ROLE_INPUT, ROLE_OUTPUT };

typedef struct buffer {
    const char *name;
    int role;
    const evt_arg_info *info; /* inputs and outputs */
    evt_elem elem;
    size_t esize;
    long long rows, cols, ld;
    size_t extent;  /* elements: (rows - 1) ld + cols, 0 if empty */
    size_t start;   /* its slot in the block (ALIGN-aligned) */
    size_t at;      /* its first element, past the element offset */
} buffer;

/* The whole launch's memory in one block: each buffer at an element offset
 * past a 256-byte boundary, GUARD bytes after it. */
typedef struct launch_memory {
    int nbuf;
    buffer buf[MAX_BUFFERS];
    size_t bytes;
    long long m, n, k;
    int misaligned; /* the buffer one byte off, or -1 */
    const char *unset_param; /* the param left unset, or NULL */
} launch_memory;

static int is_float(evt_elem e)
{
    return e != EVT_I8 && e != EVT_I32;
}

static int elem_is_nan(evt_elem e, const unsigned char *p)
{
    float f;
    return is_float(e) && evt_convert_to_f32(e, p, &f, 1) == EVT_OK && isnan(f);
}

static void geometry(buffer *b, long long rows, long long cols, long long ld)
{
    b->rows = rows;
    b->cols = cols;
    b->ld = ld;
    b->extent = rows > 0 && cols > 0 ? (size_t)((rows - 1) * ld + cols) : 0;
}

/* Lays out the buffers of the kernel's launch on problem v; 0 when the
 * problem is not one (a conv without output pixels). */
static int lay_out(launch_memory *L, const evt_kernel *k, const long long *v)
{
    memset(L, 0, sizeof *L);
    L->misaligned = -1;
    const evt_epilogue *e = evt_kernel_epilogue(k);
    const evt_operand_info *oa = evt_kernel_operand(k, 0), *ob = evt_kernel_operand(k, 1);
    const int conv = evt_kernel_mainloop(k) == EVT_MAINLOOP_CONV2D_FPROP;
    buffer *a = &L->buf[0], *b = &L->buf[1];
    a->name = conv ? "x" : "a";
    b->name = conv ? "w" : "b";
    a->role = ROLE_A;
    b->role = ROLE_B;
    a->elem = oa->elem;
    b->elem = evt_kernel_operand(k, 1)->elem; /* fp8 GEMMs mix e4m3 and e5m2 */
    if (conv) {
        const evt_conv_problem cp = {v[PF_cn], v[PF_ch], v[PF_cw], v[PF_cc], v[PF_ck], v[PF_cr], v[PF_cs],
                                     (int)v[PF_pad], (int)v[PF_pad], (int)v[PF_stride],
                                     (int)v[PF_stride], (int)v[PF_dil], (int)v[PF_dil]};
        long long p, q;
        if (evt_conv_output_size(&cp, &p, &q) != EVT_OK)
            return 0;
        L->m = cp.n * p * q;
        L->n = cp.k;
        L->k = cp.r * cp.s * cp.c;
        geometry(a, cp.n * cp.h * cp.w, cp.c, cp.c);
        geometry(b, cp.k, L->k, L->k);
    } else {
        L->m = v[PF_m];
        L->n = v[PF_n];
        L->k = v[PF_k];
        if (oa->layout == EVT_LAYOUT_ROW)
            geometry(a, L->m, L->k, L->k + v[PF_lda_pad]);
        else
            geometry(a, L->k, L->m, L->m + v[PF_lda_pad]);
        if (ob->layout == EVT_LAYOUT_ROW)
            geometry(b, L->k, L->n, L->n + v[PF_ldb_pad]);
        else
            geometry(b, L->n, L->k, L->k + v[PF_ldb_pad]);
    }
    L->nbuf = 2;
    for (int kind = EVT_ARG_INPUT; kind <= EVT_ARG_OUTPUT; kind += EVT_ARG_OUTPUT - EVT_ARG_INPUT) {
        for (size_t i = 0; i < evt_epilogue_arg_count(e, (evt_arg_kind)kind); i++) {
            if (L->nbuf == MAX_BUFFERS)
                return 0;
            const evt_arg_info *info = evt_epilogue_arg(e, (evt_arg_kind)kind, i);
            buffer *x = &L->buf[L->nbuf++];
            x->name = info->name;
            x->info = info;
            x->role = kind == EVT_ARG_INPUT ? ROLE_INPUT : ROLE_OUTPUT;
            x->elem = info->elem;
            const long long pad = v[PF_mn_pad] ? (long long)(mix_str((uint64_t)v[PF_data], info->name) %
                                                             (uint64_t)(v[PF_mn_pad] + 1))
                                               : 0;
            switch (info->shape) {
            case EVT_SHAPE_MN: geometry(x, L->m, L->n, L->n + pad); break;
            case EVT_SHAPE_M: geometry(x, 1, L->m, L->m); break;
            case EVT_SHAPE_N: geometry(x, 1, L->n, L->n); break;
            default: geometry(x, 1, 1, 1); break;
            }
        }
    }
    /* Element offsets (alignment to the element is all validation asks). */
    static const int offsets[] = {0, 0, 1, 2, 3, 4, 8, 16};
    int candidates = 0;
    for (int i = 0; i < L->nbuf; i++) {
        buffer *x = &L->buf[i];
        x->esize = evt_elem_size(x->elem);
        const size_t off = i == 0                ? (size_t)v[PF_a_off]
                           : i == 1              ? (size_t)v[PF_b_off]
                           : v[PF_offsets] ? (size_t)offsets[mix_str((uint64_t)v[PF_offsets], x->name) % 8]
                                                 : 0;
        x->start = (L->bytes + ALIGN - 1) / ALIGN * ALIGN;
        x->at = x->start + off * x->esize;
        L->bytes = x->at + x->extent * x->esize + GUARD;
        candidates += x->esize > 1 && x->extent > 0;
    }
    if (v[PF_misalign] > 0 && candidates > 0) {
        int which = (int)((v[PF_misalign] - 1) % candidates);
        for (int i = 0; i < L->nbuf; i++) {
            buffer *x = &L->buf[i];
            if (x->esize > 1 && x->extent > 0 && which-- == 0) {
                x->at += 1; /* within its GUARD: the block's size holds */
                L->misaligned = i;
            }
        }
    }
    if (v[PF_unset])
        for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_PARAM) && !L->unset_param; i++)
            if (!evt_epilogue_arg(e, EVT_ARG_PARAM, i)->has_default)
                L->unset_param = evt_epilogue_arg(e, EVT_ARG_PARAM, i)->name;
    return 1;
}

/* An operand element: a multiple of 1/8 in [-1, 1], now and then an
 * infinity or a NaN: every product is exact, so is every sum of them.  An
 * fp8 one: a multiple of 1/4 in [-2, 2] (each exact in e4m3 and e5m2), no
 * infinity or NaN (e4m3 has no infinity): products are multiples of 1/16
 * up to 4, so any partial sum of K <= 4096 of them (2^18 sixteenths at
 * most) is exact in f32, as the cooperative wgmma configuration's adds of
 * each k tile's products in f32 need (tests/gpu/fp8_gemm.c). */
static float operand_value(uint64_t h, evt_elem elem)
{
    if (elem == EVT_E4M3 || elem == EVT_E5M2)
        return (float)((int)((h >> 20) % 17) - 8) / 4.0f;
    const unsigned k = (unsigned)(h % 1000);
    if (k < 5)
        return k % 2 ? INFINITY : -INFINITY;
    if (k < 7)
        return NAN;
    return (float)((int)((h >> 20) % 17) - 8) / 8.0f;
}

/* Fills the block: operands and inputs with their values (the padding
 * between rows with noise a kernel must not use), outputs and everything
 * between buffers with patterns a kernel must not leave or write. */
static int fill(const launch_memory *L, const long long *v, unsigned char *block)
{
    memset(block, 0x5a, L->bytes);
    for (int i = 0; i < L->nbuf; i++) {
        const buffer *x = &L->buf[i];
        unsigned char *p = block + x->at;
        const uint64_t base = mix_str((uint64_t)v[PF_data], x->name);
        if (x->role == ROLE_OUTPUT) {
            memset(p, 0xa5, x->extent * x->esize);
            continue;
        }
        if (x->role == ROLE_A || x->role == ROLE_B) {
            /* Converted out of place: a buffer one byte off is misaligned for its elements. */
            float *f = malloc(sizeof *f * (x->extent + 1));
            unsigned char *bits = malloc(x->extent * x->esize + 1);
            evt_status st = f && bits ? EVT_OK : EVT_ERR_NO_MEMORY;
            for (size_t e = 0; e < x->extent && st == EVT_OK; e++) {
                const long long r = (long long)e / x->ld, col = (long long)e % x->ld;
                f[e] = col < x->cols ? operand_value(mix(mix(base, (uint64_t)r), (uint64_t)col), x->elem) : NAN;
            }
            if (st == EVT_OK && (st = evt_convert_from_f32(x->elem, f, bits, x->extent)) == EVT_OK)
                memcpy(p, bits, x->extent * x->esize);
            free(f);
            free(bits);
            if (st != EVT_OK)
                return 0;
            continue;
        }
        for (size_t e = 0; e < x->extent; e++) {
            const long long r = (long long)e / x->ld, col = (long long)e % x->ld;
            pg_rng rr = {.s = mix(mix(base, (uint64_t)r), (uint64_t)col)};
            _Alignas(8) unsigned char one[8];
            pg_fill(&rr, x->elem, one, 1);
            memcpy(p + e * x->esize, one, x->esize);
        }
    }
    return 1;
}

/* The value a param gets, or 0 to leave it at its default. */
static int param_value(const long long *v, const evt_arg_info *info, float *value)
{
    pg_rng r = {.s = mix_str((uint64_t)v[PF_data] ^ 0x9a7a, info->name)};
    *value = pg_f32(&r);
    return !info->has_default || pg_chance(&r, 70);
}

/* ---- outcomes ------------------------------------------------------------------ */

enum outcome_kind {
    OUT_OK,       /* compared, all equal */
    OUT_REFUSED,  /* validation refused what it had to */
    OUT_MISMATCH, /* an output differs, or memory the kernel may not write changed */
    OUT_ERROR     /* a status nothing explains: a compile error, a missing refusal, ... */
};

typedef struct outcome {
    int kind;
    char signature[64]; /* what a replay must show to count as the same failure */
    char message[1024];
} outcome;

static void outcome_set(outcome *o, int kind, const char *signature, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void outcome_set(outcome *o, int kind, const char *signature, const char *fmt, ...)
{
    if (o->kind >= OUT_MISMATCH)
        return; /* the first failure is the one reported */
    o->kind = kind;
    snprintf(o->signature, sizeof o->signature, "%s", signature);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
}

/* ---- the worker: a context, the device, the counts ------------------------- */

typedef struct worker {
    int index;
    evt_ctx *ctx;
    evt_target target;
    void *dev;        /* the device block, grown as needed */
    size_t dev_bytes;
    int context_lost; /* a sticky driver error: nothing more can run here */
    counters c;
    int reduced;      /* failures reduced so far */
    int to_parent;    /* the pipe to the supervisor, or -1 */
} worker;

/* ---- reduction sums: the terms, and the bound of any order of adds --------- */

/* The source with every reduce_sum output turned into an f32 [M, N] output
 * of its argument and every other reduction dropped: what the interpreter
 * needs to give the terms of each sum.  NULL without memory. */
static char *terms_source(const char *src)
{
    size_t cap = strlen(src) + 1;
    char *out = malloc(cap), *o = out;
    if (!out)
        return NULL;
    for (const char *p = src; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl + 1 : p + strlen(p);
        const char *red = strstr(p, "= reduce_");
        if (red && red < end && strncmp(p, "    out ", 8) == 0) {
            if (strncmp(red, "= reduce_sum(", 13) == 0) {
                /* out NAME : T[S] = reduce_sum(EXPR[, AXIS]) -> out NAME : f32[M, N] = EXPR */
                const char *name = p + 8, *colon = strchr(name, ':');
                const char *arg = red + 13, *q = arg;
                int depth = 0;
                while (q < end && !(depth == 0 && (*q == ',' || *q == ')'))) {
                    depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                    q++;
                }
                o += sprintf(o, "    out %.*s: f32[M, N] = %.*s\n", (int)(colon - name), name,
                             (int)(q - arg), arg);
            }
        } else {
            memcpy(o, p, (size_t)(end - p));
            o += end - p;
        }
        p = end;
    }
    *o = '\0';
    return out;
}

/* What the terms of one sum say the sum may be. */
typedef struct sum_bound {
    int nan, pinf, ninf;
    double exact, magnitude; /* the finite terms' sum (in f64) and sum of magnitudes */
    long long terms;
} sum_bound;

static void bound_add(sum_bound *s, float x)
{
    s->terms++;
    if (isnan(x))
        s->nan = 1;
    else if (isinf(x))
        *(x > 0 ? &s->pinf : &s->ninf) = 1;
    else {
        s->exact += x;
        s->magnitude += fabs(x);
    }
}

/* Whether `got` (one element of type e) is a sum the bound allows; *loose
 * is set where any result is: finite terms large enough to overflow f32 in
 * some order of their adds (and then -inf + inf = NaN too). */
static int sum_ok(const sum_bound *s, evt_elem e, const unsigned char *got, int *loose)
{
    double g;
    evt_convert_to_f64(e, got, &g, 1);
    *loose = 0;
    if (s->nan || (s->pinf && s->ninf)) {
        unsigned char nan[4];
        const double d = NAN;
        evt_convert_from_f64(e, &d, nan, 1);
        return is_float(e) ? isnan(g) : memcmp(got, nan, evt_elem_size(e)) == 0;
    }
    /* Any order's error: (n - 1) u times the sum of |terms| (u = 2^-24),
     * plus what atomics flushing subnormals to zero may lose. */
    const double err = (double)(s->terms > 1 ? s->terms - 1 : 0) * 0x1p-24 * s->magnitude * 1.0001 +
                       (double)s->terms * FLT_MIN;
    if (s->magnitude + err >= FLT_MAX / 2) {
        *loose = 1;
        return 1;
    }
    if (s->pinf || s->ninf) {
        const double inf = s->pinf ? INFINITY : -INFINITY;
        unsigned char want[4];
        evt_convert_from_f64(e, &inf, want, 1);
        return memcmp(got, want, evt_elem_size(e)) == 0;
    }
    /* Between the bound's ends rounded to the output's type (rounding is monotonic). */
    const double ends[2] = {s->exact - err, s->exact + err};
    unsigned char lo[4], hi[4];
    double lo_d, hi_d;
    evt_convert_from_f64(e, &ends[0], lo, 1);
    evt_convert_from_f64(e, &ends[1], hi, 1);
    evt_convert_to_f64(e, lo, &lo_d, 1);
    evt_convert_to_f64(e, hi, &hi_d, 1);
    return g >= lo_d && g <= hi_d;
}

/* ---- running a program on a problem ------------------------------------------ */

typedef struct program {
    evt_module *gpu, *ref, *terms; /* at the case's level, -O0, the sums' terms (-O0; NULL: no sums) */
    const evt_kernel *k;
    const char *src;
} program;

static void program_free(program *p)
{
    evt_module_destroy(p->gpu);
    evt_module_destroy(p->ref);
    evt_module_destroy(p->terms);
    memset(p, 0, sizeof *p);
}

/* Parses src into p at the tuning's level; an error outcome if it does not parse. */
static int program_parse(worker *w, program *p, const char *src, const tuning *t, outcome *o)
{
    memset(p, 0, sizeof *p);
    p->src = src;
    evt_status st = evt_module_parse_buffer(w->ctx, "fuzz.evt", src, strlen(src), &p->gpu);
    if (st == EVT_OK)
        st = evt_module_optimize(p->gpu, t->opt_level);
    if (st == EVT_OK)
        st = evt_module_parse_buffer(w->ctx, "fuzz.evt", src, strlen(src), &p->ref);
    if (st == EVT_OK && strstr(src, "reduce_sum(")) {
        char *aux = terms_source(src);
        st = aux ? evt_module_parse_buffer(w->ctx, "terms.evt", aux, strlen(aux), &p->terms)
                 : EVT_ERR_NO_MEMORY;
        free(aux);
    }
    if (st != EVT_OK) {
        evt_module *bad = p->terms ? p->terms : p->ref ? p->ref : p->gpu;
        outcome_set(o, OUT_ERROR, "error parse", "the program does not parse or optimize: %s: %s\n%s",
                    evt_status_string(st), evt_ctx_last_error(w->ctx),
                    bad ? evt_module_diag_text(bad, EVT_DIAG_TEXT) : "");
        program_free(p);
        return 0;
    }
    p->k = evt_module_kernel(p->gpu, 0);
    return 1;
}

/* Binds and runs the epilogue of `m` in the interpreter on the block's
 * inputs and params (as the launch sets them), writing its outputs into
 * `out` (a block of the same layout; NULL: outputs go to `scratch`, the
 * f32 [M, N] terms of a terms module). */
static evt_status interpret(evt_module *m, const launch_memory *L, const long long *v,
                            const float *acc, unsigned char *block, unsigned char *out,
                            float *scratch, char *why, size_t why_len)
{
    const evt_epilogue *e = evt_module_epilogue(m, 0);
    evt_interp *in = NULL;
    evt_status st = evt_interp_create(e, &in);
    if (st == EVT_OK)
        st = evt_interp_set_acc(in, L->m, L->n, acc, sizeof *acc * (size_t)(L->m * L->n), L->n);
    for (int i = 2; i < L->nbuf && st == EVT_OK; i++) {
        const buffer *x = &L->buf[i];
        if (x->role == ROLE_INPUT)
            st = evt_interp_bind(in, x->name, block + x->at, x->extent * x->esize, x->ld);
    }
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_PARAM) && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(e, EVT_ARG_PARAM, i);
        float value;
        if (param_value(v, info, &value))
            st = evt_interp_set_param(in, info->name, value);
    }
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_OUTPUT) && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(e, EVT_ARG_OUTPUT, i);
        if (out) {
            for (int b = 2; b < L->nbuf; b++)
                if (L->buf[b].role == ROLE_OUTPUT && strcmp(L->buf[b].name, info->name) == 0)
                    st = evt_interp_bind(in, info->name, out + L->buf[b].at,
                                         L->buf[b].extent * L->buf[b].esize, L->buf[b].ld);
        } else {
            const size_t mn = (size_t)(L->m * L->n);
            st = evt_interp_bind(in, info->name, scratch + i * mn, mn * sizeof(float), L->n);
        }
    }
    if (st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (st != EVT_OK)
        snprintf(why, why_len, "%s", in ? evt_interp_last_error(in) : evt_status_string(st));
    evt_interp_destroy(in);
    return st;
}

/* Compares the block the kernel left (`got`) with the reference's (`want`). */
static void compare(const program *pr, const launch_memory *L, const long long *v, const float *acc,
                    const unsigned char *host, unsigned char *got, const unsigned char *want,
                    counters *c, outcome *o)
{
    /* The sums' terms, when there are sums. */
    float *terms = NULL;
    const evt_epilogue *te = pr->terms ? evt_module_epilogue(pr->terms, 0) : NULL;
    const size_t mn = (size_t)(L->m * L->n);
    if (te) {
        const size_t nout = evt_epilogue_arg_count(te, EVT_ARG_OUTPUT);
        char why[256] = "";
        terms = malloc(sizeof *terms * (nout * mn + 1));
        if (!terms || interpret(pr->terms, L, v, acc, (unsigned char *)host, NULL, terms, why,
                                sizeof why) != EVT_OK) {
            outcome_set(o, OUT_ERROR, "error terms", "the interpreter failed on the sums' terms: %s", why);
            free(terms);
            return;
        }
    }
    for (int b = 2; b < L->nbuf; b++) {
        const buffer *x = &L->buf[b];
        if (x->role != ROLE_OUTPUT)
            continue;
        c->outputs++;
        const evt_reduce red = x->info->reduce;
        /* A sum's bound per element, from one pass over its terms. */
        sum_bound *bounds = NULL;
        if (red == EVT_REDUCE_SUM && terms) {
            size_t t = 0;
            for (size_t i = 0; i < evt_epilogue_arg_count(te, EVT_ARG_OUTPUT); i++)
                if (strcmp(evt_epilogue_arg(te, EVT_ARG_OUTPUT, i)->name, x->name) == 0)
                    t = i;
            const float *tt = terms + t * mn;
            bounds = calloc(x->extent + 1, sizeof *bounds);
            if (!bounds) {
                outcome_set(o, OUT_ERROR, "error memory", "out of memory for the sums' bounds");
                break;
            }
            const evt_shape sh = x->info->shape;
            for (long long i = 0; i < L->m; i++)
                for (long long j = 0; j < L->n; j++)
                    bound_add(&bounds[sh == EVT_SHAPE_M ? i : sh == EVT_SHAPE_N ? j : 0], tt[i * L->n + j]);
        }
        long long bad = 0, first = -1;
        const char *why = "";
        for (size_t e = 0; e < x->extent; e++) {
            const long long col = (long long)e % x->ld;
            if (col >= x->cols)
                continue; /* padding: compared with the rest of the block below */
            c->elements++;
            unsigned char *g = got + x->at + e * x->esize;
            const unsigned char *wt = want + x->at + e * x->esize;
            int ok = memcmp(g, wt, x->esize) == 0 || (elem_is_nan(x->elem, g) && elem_is_nan(x->elem, wt));
            if (bounds) {
                /* Any order of the adds is right: the GPU's within the bound, and
                 * the interpreter's too (else the bound, or it, is wrong). */
                int loose = 0, loose_want = 0;
                if (!ok)
                    ok = sum_ok(&bounds[e], x->elem, g, &loose);
                if (ok && !sum_ok(&bounds[e], x->elem, wt, &loose_want)) {
                    ok = 0;
                    why = " (the interpreter's own sum is outside the bound)";
                }
                c->loose_sums += loose || loose_want;
            }
            if (ok)
                memcpy(g, wt, x->esize); /* accepted: the block check below skips it */
            else if (bad++ == 0)
                first = (long long)e;
        }
        free(bounds);
        if (bad) {
            uint32_t gb = 0, wb = 0;
            memcpy(&gb, got + x->at + (size_t)first * x->esize, x->esize);
            memcpy(&wb, want + x->at + (size_t)first * x->esize, x->esize);
            double gd, wd;
            evt_convert_to_f64(x->elem, got + x->at + (size_t)first * x->esize, &gd, 1);
            evt_convert_to_f64(x->elem, want + x->at + (size_t)first * x->esize, &wd, 1);
            const char *sig = red == EVT_REDUCE_SUM ? (why[0] ? "mismatch sum bound" : "mismatch sum")
                              : red                 ? "mismatch reduction"
                                                    : "mismatch value";
            outcome_set(o, OUT_MISMATCH, sig,
                        "output %s (%s%s%s) differs at %lld of %zu elements; the first at row %lld, "
                        "column %lld: 0x%x (%.9g), want 0x%x (%.9g)%s",
                        x->name, evt_elem_name(x->elem), evt_shape_name(x->info->shape),
                        red == EVT_REDUCE_SUM ? " sum" : red == EVT_REDUCE_MAX ? " max" : red ? " min" : "",
                        bad, x->extent, first / x->ld, first % x->ld, gb, gd, wb, wd, why);
        }
    }
    free(terms);
    /* Everything else must be as it was: padding, guards, inputs. */
    if (memcmp(got, want, L->bytes) != 0) {
        size_t at = 0;
        while (got[at] == want[at])
            at++;
        const char *where = "between buffers";
        for (int b = 0; b < L->nbuf; b++)
            if (at >= L->buf[b].start && at < L->buf[b].at + L->buf[b].extent * L->buf[b].esize + GUARD)
                where = L->buf[b].name;
        outcome_set(o, OUT_MISMATCH, "mismatch stray",
                    "a byte the kernel may not write changed: offset %zu, near buffer '%s' (0x%02x, was "
                    "0x%02x)",
                    at, where, got[at], want[at]);
    }
}

/* The device block of at least `bytes`. */
static evt_status device_block(worker *w, size_t bytes)
{
    if (bytes <= w->dev_bytes)
        return EVT_OK;
    evt_device_free(w->ctx, w->dev);
    w->dev = NULL;
    w->dev_bytes = 0;
    size_t want = bytes < (64u << 20) ? (64u << 20) : bytes + bytes / 4;
    evt_status st = evt_device_alloc(w->ctx, want, &w->dev);
    if (st == EVT_OK)
        w->dev_bytes = want;
    return st;
}

/* Dry runs: where the GPU's results would be, the interpreter on the
 * optimized module; --inject-fault then spoils the first element of the
 * first output computed with gelu (found in the source's out lines). */
static evt_status emulate(const program *pr, const launch_memory *L, const long long *v,
                          const float *acc, unsigned char *block, char *why, size_t why_len)
{
    evt_status st = interpret(pr->gpu, L, v, acc, block, block, NULL, why, why_len);
    if (st != EVT_OK || !opt.inject)
        return st;
    for (const char *p = strstr(pr->src, "\n    out "); p; p = strstr(p + 1, "\n    out ")) {
        const char *nl = strchr(p + 1, '\n'), *g = strstr(p, "gelu(");
        if (!g || (nl && g > nl))
            continue;
        const char *name = p + 9;
        const size_t n = strcspn(name, " :");
        for (int b = 2; b < L->nbuf; b++) {
            const buffer *x = &L->buf[b];
            if (x->role == ROLE_OUTPUT && strlen(x->name) == n && strncmp(x->name, name, n) == 0 &&
                x->extent > 0) {
                block[x->at] ^= 1;
                if (x->esize == 1 || elem_is_nan(x->elem, block + x->at))
                    block[x->at] ^= 0x41; /* a NaN stays a NaN under one flipped bit */
                return EVT_OK;
            }
        }
    }
    return EVT_OK;
}

/* Runs the program's kernel on problem v under the tuning, compares, and
 * says how it went in *o. */
/*
 * A GEMM problem runs now and then as a batch (evt_launch_set_batch) of 2
 * or 3 copies of itself: the whole launch memory repeated `span` bytes
 * apart, every buffer's batch stride span / its element size, so problem j
 * finds its buffers where problem 0's are, j spans on, with the same values
 * (the problems' footprints never meet); A, B and each input now and then
 * shared (stride 0: problem 0's, the same values).  Each copy's memory is
 * then compared as one problem's.  Drawn from the problem's data seed, so a
 * replay runs the same batch.  1 for a conv and most GEMMs.
 */
static int batch_of(const program *pr, const long long *v)
{
    const uint64_t h = mix((uint64_t)v[PF_data], 0xba7c);
    return evt_kernel_mainloop(pr->k) == EVT_MAINLOOP_GEMM && h % 4 == 0 ? 2 + (int)(h / 4 % 2) : 1;
}

/* Whether buffer i of a batch is shared by its problems (stride 0): outputs never. */
static int shared_in_batch(const launch_memory *L, const long long *v, int i)
{
    return L->buf[i].role != ROLE_OUTPUT && mix_str(mix((uint64_t)v[PF_data], 0x5ba7), L->buf[i].name) % 3 == 0;
}

static void run_problem(worker *w, const program *pr, evt_launch *l, const long long *v, outcome *o)
{
    launch_memory *L = malloc(sizeof *L);
    unsigned char *host = NULL, *want = NULL, *got = NULL;
    float *acc = NULL;
    memset(o, 0, sizeof *o);
    if (!L || !lay_out(L, pr->k, v)) {
        outcome_set(o, OUT_ERROR, "error problem", "not a problem for this kernel (or out of memory)");
        free(L);
        return;
    }
    host = malloc(L->bytes);
    want = malloc(L->bytes);
    acc = malloc(sizeof *acc * ((size_t)(L->m * L->n) + 1));
    if (!host || !want || !acc || !fill(L, v, host)) {
        outcome_set(o, OUT_ERROR, "error memory", "out of host memory for %zu bytes", L->bytes);
        goto done;
    }
    memcpy(want, host, L->bytes);
    evt_status st = EVT_OK;
    const int batch = batch_of(pr, v);
    const size_t span = (L->bytes + 15) / 16 * 16; /* a batch's copies of the memory, this far apart */
    unsigned char *dev = host; /* a dry run's device memory: validation never dereferences */
    if (!opt.dry) {
        st = device_block(w, span * (size_t)batch);
        for (int j = 0; j < batch && st == EVT_OK; j++)
            st = evt_device_copy_to(w->ctx, (unsigned char *)w->dev + (size_t)j * span, host, L->bytes);
        dev = w->dev;
        if (st != EVT_OK) {
            outcome_set(o, OUT_ERROR, "error device", "device memory: %s", evt_ctx_last_error(w->ctx));
            goto done;
        }
    }

    /* The launch, bound as the problem says. */
    const buffer *a = &L->buf[0], *b = &L->buf[1];
    if (evt_kernel_mainloop(pr->k) == EVT_MAINLOOP_CONV2D_FPROP) {
        const evt_conv_problem cp = {v[PF_cn], v[PF_ch], v[PF_cw], v[PF_cc], v[PF_ck], v[PF_cr], v[PF_cs],
                                     (int)v[PF_pad], (int)v[PF_pad], (int)v[PF_stride],
                                     (int)v[PF_stride], (int)v[PF_dil], (int)v[PF_dil]};
        st = evt_launch_set_conv(l, &cp, dev + a->at, a->extent * a->esize, dev + b->at,
                                 b->extent * b->esize);
    } else {
        /* a buffer's stride in a batch, in elements (0: shared), and the bytes its problems span */
        long long stride[MAX_BUFFERS];
        size_t bytes[MAX_BUFFERS];
        for (int i = 0; i < L->nbuf; i++) {
            const buffer *x = &L->buf[i];
            stride[i] = batch > 1 && !shared_in_batch(L, v, i) ? (long long)(span / x->esize) : 0;
            bytes[i] = x->extent * x->esize + (stride[i] ? (size_t)(batch - 1) * span : 0);
        }
        st = evt_launch_set_gemm(l, L->m, L->n, L->k, dev + a->at, a->ld, bytes[0], dev + b->at, b->ld,
                                 bytes[1]);
        if (st == EVT_OK && batch > 1) {
            st = evt_launch_set_batch(l, batch, stride[0], stride[1]);
            w->c.batched++;
        }
        for (int i = 2; i < L->nbuf && st == EVT_OK; i++)
            st = evt_launch_bind_batched(l, L->buf[i].name, dev + L->buf[i].at, bytes[i], L->buf[i].ld,
                                         stride[i]);
    }
    for (int i = 2; i < L->nbuf && st == EVT_OK && evt_kernel_mainloop(pr->k) == EVT_MAINLOOP_CONV2D_FPROP; i++)
        st = evt_launch_bind(l, L->buf[i].name, dev + L->buf[i].at, L->buf[i].extent * L->buf[i].esize,
                             L->buf[i].ld);
    const evt_epilogue *e = evt_kernel_epilogue(pr->k);
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_PARAM) && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(e, EVT_ARG_PARAM, i);
        float value;
        if (param_value(v, info, &value) && !(L->unset_param && strcmp(info->name, L->unset_param) == 0))
            st = evt_launch_set_param(l, info->name, value);
    }
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(w->ctx);
    w->c.launches++;
    w->c.fp8 += evt_elem_size(evt_kernel_operand(pr->k, 0)->elem) == 1;

    /* Refusals: exactly what validation owes, nothing else. */
    const evt_status owed = L->misaligned >= 0 ? EVT_ERR_BAD_BUFFER : L->unset_param ? EVT_ERR_UNBOUND : EVT_OK;
    const evt_status ran = opt.dry ? EVT_ERR_NO_GPU : EVT_OK;
    if (owed != EVT_OK) {
        if (st == owed) {
            w->c.refused_buffer += owed == EVT_ERR_BAD_BUFFER;
            w->c.refused_unbound += owed == EVT_ERR_UNBOUND;
            outcome_set(o, OUT_REFUSED, owed == EVT_ERR_BAD_BUFFER ? "refused buffer" : "refused unbound",
                        "%s", evt_ctx_last_error(w->ctx));
        } else {
            outcome_set(o, OUT_ERROR, owed == EVT_ERR_BAD_BUFFER ? "error no refusal of a misaligned buffer"
                                                                 : "error no refusal of an unset param",
                        "validation owed %s (%s), the run said %s: %s", evt_status_string(owed),
                        L->misaligned >= 0 ? L->buf[L->misaligned].name : L->unset_param,
                        evt_status_string(st), evt_ctx_last_error(w->ctx));
        }
        goto done;
    }
    if (st != ran) {
        char sig[64];
        snprintf(sig, sizeof sig, "error %s", evt_status_string(st));
        outcome_set(o, OUT_ERROR, sig, "the run: %s: %s", evt_status_string(st), evt_ctx_last_error(w->ctx));
        if (st == EVT_ERR_DRIVER && evt_device_synchronize(w->ctx) != EVT_OK)
            w->context_lost = 1;
        goto done;
    }

    /* The reference: the f64 mainloop (exact here) and the -O0 epilogue. */
    const evt_operand_info *oa = evt_kernel_operand(pr->k, 0), *ob = evt_kernel_operand(pr->k, 1);
    if (evt_kernel_mainloop(pr->k) == EVT_MAINLOOP_CONV2D_FPROP) {
        const evt_conv_problem cp = {v[PF_cn], v[PF_ch], v[PF_cw], v[PF_cc], v[PF_ck], v[PF_cr], v[PF_cs],
                                     (int)v[PF_pad], (int)v[PF_pad], (int)v[PF_stride],
                                     (int)v[PF_stride], (int)v[PF_dil], (int)v[PF_dil]};
        st = evt_reference_conv2d(&cp, oa->elem, host + a->at, host + b->at, NULL, acc, L->n);
    } else {
        st = evt_reference_gemm_mixed(L->m, L->n, L->k, oa->elem, host + a->at, oa->layout, a->ld, ob->elem,
                                      host + b->at, ob->layout, b->ld, NULL, acc, L->n);
    }
    char why[256] = "";
    if (st == EVT_OK)
        st = interpret(pr->ref, L, v, acc, host, want, NULL, why, sizeof why);
    if (st != EVT_OK) {
        outcome_set(o, OUT_ERROR, "error reference", "the reference failed: %s %s", evt_status_string(st), why);
        goto done;
    }
    if (opt.dry) {
        got = host; /* the "device" memory, which the emulation writes */
        if ((st = emulate(pr, L, v, acc, got, why, sizeof why)) != EVT_OK) {
            outcome_set(o, OUT_ERROR, "error emulation", "the emulation failed: %s", why);
            goto done;
        }
    } else {
        got = malloc(span * (size_t)batch);
        if (!got || (st = evt_device_copy_from(w->ctx, got, w->dev, span * (size_t)batch)) != EVT_OK) {
            outcome_set(o, OUT_ERROR, "error device", "reading back: %s", evt_ctx_last_error(w->ctx));
            goto done;
        }
    }
    /* host's inputs are intact in either mode; each problem of a batch in its own copy (a dry
     * run's emulation wrote one) */
    for (int j = 0; j < (opt.dry ? 1 : batch); j++)
        compare(pr, L, v, acc, host, got + (size_t)j * span, want, &w->c, o);
    if (batch > 1 && o->kind >= OUT_MISMATCH) {
        const size_t len = strlen(o->message);
        snprintf(o->message + len, sizeof o->message - len, " (a batch of %d copies of the problem)", batch);
    }
done:
    if (got != host)
        free(got);
    free(host);
    free(want);
    free(acc);
    free(L);
}

/* ---- a kernel: configuration, code generation, its problems ------------------- */

static int config_family(const char *name)
{
    return strstr(name, "_staged")           ? FAM_STAGED
           : strncmp(name, "sm90_pp", 7) == 0 || strncmp(name, "sm90_coop", 9) == 0 ? FAM_PP
           : strstr(name, "_ws")             ? FAM_WS
           : strncmp(name, "sm90_wg", 7) == 0 ? FAM_WGMMA
                                              : FAM_MMA_SYNC;
}

/* Forces a configuration of the case's family that the planner admits for
 * the kernel on the target (the planner's own for auto); 0 if none is. */
static int choose_config(worker *w, fuzz_case *c, const program *pr)
{
    c->t.config[0] = '\0';
    if (c->family == FAM_AUTO)
        return 1;
    const char *admitted[EVT_TARGET_COUNT * 64];
    int n = 0;
    for (int i = 0; i < evt_config_count() && n < (int)(sizeof admitted / sizeof admitted[0]); i++) {
        const char *name = evt_config_name(i);
        const int f = config_family(name);
        const int member = c->family == FAM_SPLITK ? f == FAM_MMA_SYNC || f == FAM_WGMMA : f == c->family;
        if (member && evt_kernel_config_check(pr->gpu, pr->k, w->target, name) == EVT_OK)
            admitted[n++] = name;
    }
    if (!n)
        return 0;
    pg_rng r = {.s = mix(c->seed, 0xc0f)};
    snprintf(c->t.config, sizeof c->t.config, "%s", admitted[pg_below(&r, (unsigned)n)]);
    return 1;
}

static evt_tuning evt_tuning_of(const tuning *t)
{
    return (evt_tuning){.config = t->config[0] ? t->config : NULL, .split_k = t->split_k,
                        .row_group = t->row_group, .stream_k = t->stream_k};
}

/* Dry runs: the kernel's CUDA under its tuning, and NVRTC while --compile lasts. */
static void generate(worker *w, const program *pr, const tuning *t, outcome *o)
{
    const evt_tuning et = evt_tuning_of(t);
    evt_status st = evt_ctx_set_tuning(w->ctx, &et);
    const char *text = NULL;
    if (st == EVT_OK)
        st = evt_kernel_cuda(pr->gpu, pr->k, w->target, &text);
    if (st == EVT_OK && w->c.compiles < opt.compile) {
        void *bin = NULL;
        size_t size = 0;
        st = evt_kernel_compile(pr->gpu, pr->k, w->target, EVT_BINARY_CUBIN, &bin, &size, NULL);
        evt_free(bin);
        w->c.compiles++;
    }
    if (st != EVT_OK) {
        char sig[64];
        snprintf(sig, sizeof sig, "error %s", evt_status_string(st));
        outcome_set(o, OUT_ERROR, sig, "generating the kernel: %s\n%s", evt_ctx_last_error(w->ctx),
                    st == EVT_ERR_COMPILE ? evt_module_diag_text(pr->gpu, EVT_DIAG_TEXT) : "");
    }
    evt_ctx_set_tuning(w->ctx, NULL);
}

/* Runs src under tuning t on the problems in turn, until one fails; *failed
 * receives its index (-1: none). */
static void run_program(worker *w, const char *src, const tuning *t, long long (*problems)[PF_COUNT],
                        int nproblems, outcome *o, int *failed)
{
    program pr;
    memset(o, 0, sizeof *o);
    *failed = -1;
    if (!program_parse(w, &pr, src, t, o)) {
        *failed = 0;
        return;
    }
    const evt_tuning et = evt_tuning_of(t);
    evt_status st = EVT_OK;
    if (t->config[0] && (st = evt_kernel_config_check(pr.gpu, pr.k, w->target, t->config)) != EVT_OK)
        outcome_set(o, OUT_ERROR, "error config refused", "%s", evt_ctx_last_error(w->ctx));
    if (st == EVT_OK && opt.dry)
        generate(w, &pr, t, o);
    if (o->kind >= OUT_MISMATCH)
        *failed = 0;
    /* A launch per problem: params stay set once set, and a problem may
     * leave one unset (the context's cache keeps the compiled kernel). */
    for (int p = 0; p < nproblems && o->kind < OUT_MISMATCH && !w->context_lost; p++) {
        evt_launch *l = NULL;
        if ((st = evt_launch_create(pr.gpu, pr.k, &l)) != EVT_OK || (st = evt_launch_set_tuning(l, &et)) != EVT_OK)
            outcome_set(o, OUT_ERROR, "error launch", "creating the launch: %s", evt_ctx_last_error(w->ctx));
        else
            run_problem(w, &pr, l, problems[p], o);
        evt_launch_destroy(l);
        if (o->kind >= OUT_MISMATCH)
            *failed = p;
    }
    program_free(&pr);
}

/* ---- reducing a failure --------------------------------------------------------- */

typedef struct reducer {
    const tuning *t;
    const char *signature;
    char evt_path[4300];
    char last[64];
} reducer;

/* The shrinker's predicate: a fresh process replays the candidate (a
 * failure may leave the CUDA context unusable; a hang is killed). */
static int replay_fails(void *user, const char *src, const long long *v)
{
    reducer *r = user;
    FILE *f = fopen(r->evt_path, "w");
    if (!f)
        return 0;
    fputs(src, f);
    fclose(f);
    char spec[2048], cmd[16384];
    format_spec(r->t, v, spec, sizeof spec);
    /* coreutils' timeout kills a replay that hangs (exit 137); without it a hang hangs the reducer. */
    static int have_timeout = -1;
    if (have_timeout < 0)
        have_timeout = system("command -v timeout >/dev/null 2>&1") == 0;
    char limit[64] = "";
    if (have_timeout)
        snprintf(limit, sizeof limit, "timeout -s KILL %d ", (int)opt.case_timeout);
    snprintf(cmd, sizeof cmd, "%s'%s' --replay '%s' --problem '%s'%s%s 2>&1", limit, opt.self, r->evt_path,
             spec, opt.dry ? " --dry-run" : "", opt.inject ? " --inject-fault" : "");
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char line[4096];
    snprintf(r->last, sizeof r->last, "no outcome");
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "outcome: ", 9) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(r->last, sizeof r->last, "%.*s", (int)sizeof r->last - 1, line + 9);
        }
    const int status = pclose(p);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 137)
        snprintf(r->last, sizeof r->last, "hang");
    return strcmp(r->last, r->signature) == 0;
}

/* The output a mismatch names ("output NAME (..."), to try its program alone. */
static int failing_prefix(const outcome *o, char *prefix, size_t n)
{
    const char *name = strncmp(o->message, "output ", 7) == 0 ? o->message + 7 : NULL;
    if (!name)
        return 0;
    const char *us = strchr(name, '_');
    if (!us || us - name > 8)
        return 0;
    snprintf(prefix, n, "%.*s", (int)(us - name + 1), name);
    return 1;
}

/* The program with only the statements whose names start with prefix. */
static char *only_prefix(const char *src, const char *prefix)
{
    const int n = shrink_statements(src);
    unsigned char *drop = calloc((size_t)n + 1, 1);
    if (!drop)
        return NULL;
    int s = 0;
    for (const char *p = src; *p && s < n;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl + 1 : p + strlen(p);
        const char *q = p;
        while (*q == ' ')
            q++;
        static const char *const keywords[] = {"in ", "param ", "let ", "out "};
        for (int k = 0; k < 4; k++)
            if (strncmp(q, keywords[k], strlen(keywords[k])) == 0) {
                const char *name = q + strlen(keywords[k]);
                drop[s++] = strncmp(name, prefix, strlen(prefix)) != 0;
            }
        p = end;
    }
    char *out = shrink_drop(src, drop);
    free(drop);
    return out;
}

/* Reports the failure of case c on problem v (reducing it first while the
 * worker's budget lasts), into DIR/diff_fuzz-SEED.evt and .txt and stdout. */
static void report(worker *w, const fuzz_case *c, const long long *v, int problem, const outcome *o)
{
    char base[4200], spec[2048], text[16384];
    /* A bug that fails every case of a family must not flood the log: past
     * a worker's first few failures, one line each. */
    enum { REPORTS_IN_FULL = 5 };
    if (w->c.failures > REPORTS_IN_FULL) {
        int n = snprintf(text, sizeof text, "diff_fuzz: FAILURE in case %llu (family %s, %s): %s: %.300s\n",
                         (unsigned long long)c->seed, family_names[c->family],
                         c->t.config[0] ? c->t.config : "auto", o->signature, o->message);
        if (n > 0 && write(STDOUT_FILENO, text, strlen(text)) < 0)
            perror("diff_fuzz: stdout");
        return;
    }
    snprintf(base, sizeof base, "%s/diff_fuzz-%llu", opt.out_dir, (unsigned long long)c->seed);
    format_spec(&c->t, v, spec, sizeof spec);
    shrink_case sc = {strdup(c->src), PF_COUNT, {0}, {0}};
    memcpy(sc.value, v, sizeof(long long) * PF_COUNT);
    const int conv = c->mainloop == EVT_MAINLOOP_CONV2D_FPROP;
    for (int i = 0; i < PF_COUNT; i++) {
        const int gemm_size = i <= PF_k, conv_size = i >= PF_cn && i <= PF_dil;
        sc.lo[i] = (conv && gemm_size) || (!conv && conv_size) || i == PF_data ? v[i] : pf_lo[i];
    }
    shrink_stats stats = {0};
    const char *how = "not reduced (this worker reduced its share already)";
    char note[256] = "";
    const double start = now();
    if (sc.src && w->reduced < 1 && strncmp(o->signature, "error parse", 11) != 0) {
        w->reduced++;
        reducer r = {&c->t, o->signature, "", ""};
        snprintf(r.evt_path, sizeof r.evt_path, "%s.probe.evt", base);
        if (!replay_fails(&r, sc.src, sc.value)) {
            how = "not reduced: a fresh process replaying it";
            snprintf(note, sizeof note, " saw '%s'", r.last);
        } else {
            char prefix[16];
            char *alone = failing_prefix(o, prefix, sizeof prefix) ? only_prefix(sc.src, prefix) : NULL;
            if (alone && replay_fails(&r, alone, sc.value)) {
                free(sc.src);
                sc.src = alone;
            } else {
                free(alone);
            }
            const shrink_budget budget = {0, opt.shrink_seconds};
            shrink_run(&sc, replay_fails, &r, &budget, &stats);
            how = stats.out_of_budget ? "reduced (out of time)" : "reduced";
            w->c.reductions++;
            if (stats.lines_after > w->c.reduced_lines)
                w->c.reduced_lines = stats.lines_after;
        }
        remove(r.evt_path);
    }
    format_spec(&c->t, sc.value, spec, sizeof spec);
    /* Reports of up to PIPE_BUF bytes reach a shared pipe whole (tee, the device's log). */
    const int shown = sc.src && strlen(sc.src) < 2500;
    int n = snprintf(text, sizeof text,
                     "diff_fuzz: FAILURE in case %llu (family %s, %s), problem %d of %d: %s\n"
                     "  %s\n"
                     "  %s%s in %d probes, %.0f s: %d -> %d statements\n"
                     "  replay: %s --replay %s.evt --problem '%s'%s%s\n"
                     "  ---- %s.evt%s\n%s",
                     (unsigned long long)c->seed, family_names[c->family],
                     c->t.config[0] ? c->t.config : "the planner's configuration", problem + 1, c->nproblems,
                     o->signature, o->message, how, note, stats.probes, now() - start,
                     shrink_statements(c->src), sc.src ? shrink_statements(sc.src) : 0, opt.self, base, spec,
                     opt.dry ? " --dry-run" : "", opt.inject ? " --inject-fault" : "", base,
                     shown ? "" : " (too long to show here)", shown ? sc.src : "");
    if (n < 0 || (size_t)n >= sizeof text)
        n = (int)strlen(text);
    /* One write, so that the workers' reports do not interleave. */
    if (write(STDOUT_FILENO, text, (size_t)n) < 0)
        perror("diff_fuzz: stdout");
    char path[4300];
    snprintf(path, sizeof path, "%s.evt", base);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(sc.src ? sc.src : c->src, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s.txt", base);
    f = fopen(path, "w");
    if (f) {
        char orig[2048];
        format_spec(&c->t, v, orig, sizeof orig);
        char fams[128];
        families_arg(fams, sizeof fams);
        fprintf(f, "%.*s%s\n---- the case as generated: %s --seed %llu --count %d --per-kernel %d "
                   "--family %s --jobs 1 -v%s%s\nproblem: %s\n%s",
                n, text, shown ? "" : sc.src, opt.self, (unsigned long long)c->seed, c->nprograms,
                opt.per_kernel, fams, opt.dry ? " --dry-run" : "", opt.inject ? " --inject-fault" : "",
                orig, c->src);
        fclose(f);
    }
    free(sc.src);
}

/* ---- workers and their supervisor ---------------------------------------------- */

enum {
    MSG_START,    /* a case begins: the supervisor's clock for it starts */
    MSG_REDUCING, /* a failure is being reduced: a longer leash */
    MSG_COUNTS    /* the sender's totals so far */
};

typedef struct message {
    int type;
    int slot;        /* the sender's incarnation */
    long long index; /* the case */
    counters c;
} message;

static void send_message(const worker *w, int type, long long index)
{
    if (w->to_parent < 0)
        return;
    message m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.slot = w->index;
    m.index = index;
    m.c = w->c;
    /* One write of less than PIPE_BUF bytes: atomic beside the other workers'. */
    if (write(w->to_parent, &m, sizeof m) != (ssize_t)sizeof m)
        perror("diff_fuzz: to the supervisor");
}

/* A context on the GPU (or, dry, none) for worker index; EVT_ERR_NO_GPU when there is none. */
static evt_status worker_init(worker *w, int index, int to_parent)
{
    memset(w, 0, sizeof *w);
    w->index = index;
    w->to_parent = to_parent;
    w->target = EVT_TARGET_SM90A;
    if (!(w->ctx = evt_ctx_create()))
        return EVT_ERR_NO_MEMORY;
    /* evtc's environment variables, for a machine whose NVRTC or driver is elsewhere. */
    evt_ctx_set_library_path(w->ctx, EVT_LIBRARY_NVRTC, getenv("EVT_NVRTC_LIBRARY"));
    evt_ctx_set_library_path(w->ctx, EVT_LIBRARY_CUDA_DRIVER, getenv("EVT_CUDA_DRIVER"));
    return opt.dry ? EVT_OK : evt_device_target(w->ctx, &w->target, NULL, 0);
}

static void worker_free(worker *w)
{
    if (w->dev)
        evt_device_free(w->ctx, w->dev);
    evt_ctx_destroy(w->ctx);
}

/* Cases first, first + step, ... below ncases, until the deadline. */
static void fuzz(worker *w, long long first, long long step, long long ncases, double deadline)
{
    fuzz_case *c = malloc(sizeof *c);
    for (long long i = first; c && i < ncases && !w->context_lost; i += step) {
        if (deadline > 0 && now() > deadline)
            break;
        send_message(w, MSG_START, i);
        const double t0 = now();
        if (!gen_case(c, opt.seed + (uint64_t)i, w->target)) {
            w->c.skipped++;
            continue;
        }
        program pr;
        outcome o = {0};
        int failed = -1;
        if (!program_parse(w, &pr, c->src, &c->t, &o)) {
            failed = 0;
        } else {
            const int admitted = choose_config(w, c, &pr);
            program_free(&pr);
            if (!admitted) {
                w->c.skipped++;
                if (opt.verbose)
                    printf("case %llu: no %s configuration admits the kernel\n",
                           (unsigned long long)c->seed, family_names[c->family]);
                send_message(w, MSG_COUNTS, i);
                continue;
            }
            run_program(w, c->src, &c->t, c->problem, c->nproblems, &o, &failed);
        }
        w->c.cases++;
        w->c.programs += c->nprograms;
        w->c.kernels++;
        w->c.family_kernels[c->family]++;
        if (opt.verbose)
            printf("case %llu: %d programs, %s %s split %d group %d -O%d, %d problems: %s (%.1f s)\n",
                   (unsigned long long)c->seed, c->nprograms, family_names[c->family],
                   c->t.config[0] ? c->t.config : "auto", c->t.split_k, c->t.row_group, c->t.opt_level,
                   c->nproblems, o.kind >= OUT_MISMATCH ? o.signature : "ok", now() - t0);
        if (o.kind >= OUT_MISMATCH) {
            w->c.failures++;
            w->c.mismatches += o.kind == OUT_MISMATCH;
            w->c.errors += o.kind == OUT_ERROR;
            send_message(w, MSG_REDUCING, i);
            report(w, c, c->problem[failed], failed, &o);
        }
        send_message(w, MSG_COUNTS, i);
    }
    free(c);
    fflush(stdout);
}

/* What --jobs 1 in a dry run and each worker process run. */
static int worker_main(int index, long long first, long long step, long long ncases, double deadline,
                       int to_parent, counters *out)
{
    worker w;
    evt_status st = worker_init(&w, index, to_parent);
    int rc = 0;
    if (st == EVT_ERR_NO_GPU) {
        if (index == 0)
            printf("diff_fuzz: no GPU (%s): skipped\n", evt_ctx_last_error(w.ctx));
        rc = 77;
    } else if (st != EVT_OK) {
        fprintf(stderr, "diff_fuzz: %s: %s\n", evt_status_string(st), w.ctx ? evt_ctx_last_error(w.ctx) : "");
        rc = 1;
    } else {
        fuzz(&w, first, step, ncases, deadline);
        rc = w.context_lost ? 3 : 0;
    }
    send_message(&w, MSG_COUNTS, -1);
    if (out)
        *out = w.c;
    worker_free(&w);
    return rc;
}

enum { MAX_SLOTS = 512 };

typedef struct slot {
    pid_t pid;
    int alive;
    int reducing;     /* its case failed and is being reduced */
    long long index;  /* the case it runs (-1: none yet) */
    double since;     /* when that case (or its reduction) started */
    counters c;       /* its last totals */
} slot;

/* Starts a worker for the cases first, first + jobs, ... in slot s. */
static int spawn(slot *slots, int s, long long first, long long ncases, double deadline, int pipe_w)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0)
        _exit(worker_main(s, first, opt.jobs, ncases, deadline, pipe_w, NULL));
    slots[s] = (slot){pid, 1, 0, -1, now(), {0}};
    return 1;
}

/* Reads every message waiting, waiting up to `ms` for the first. */
static void drain(int fd, slot *slots, int nslots, int ms)
{
    struct pollfd pfd = {fd, POLLIN, 0};
    while (poll(&pfd, 1, ms) > 0) {
        message m;
        if (read(fd, &m, sizeof m) != (ssize_t)sizeof m)
            break;
        ms = 0;
        if (m.slot < 0 || m.slot >= nslots)
            continue;
        slot *sl = &slots[m.slot];
        if (m.type != MSG_COUNTS) {
            sl->index = m.index;
            sl->since = now();
            sl->reducing = m.type == MSG_REDUCING;
        }
        sl->c = m.c;
    }
}

/*
 * Forks the workers and watches them: progress every 30 s; a case running
 * past --case-timeout (its reduction past --shrink-seconds more) is killed
 * as a hang; a worker killed, crashed or left without a CUDA context is
 * replaced by one that goes on after its case.  The totals into *total.
 */
static int supervise(long long ncases, double deadline, counters *total)
{
    int fds[2];
    slot *slots = calloc(MAX_SLOTS, sizeof *slots);
    if (!slots || pipe(fds) != 0) {
        free(slots);
        return 1;
    }
    int nslots = 0, no_gpu = 0, crashed = 0;
    long long hangs = 0;
    for (int j = 0; j < opt.jobs && j < ncases; j++)
        if (spawn(slots, nslots, j, ncases, deadline, fds[1]))
            nslots++;
    double last_progress = now();
    const double start = now();
    char fams[128];
    families_arg(fams, sizeof fams);
    for (int alive = nslots; alive;) {
        drain(fds[0], slots, nslots, 1000);
        for (int s = 0; s < nslots; s++) {
            slot *sl = &slots[s];
            const double leash = opt.case_timeout + (sl->reducing ? opt.shrink_seconds + opt.case_timeout : 0);
            if (!sl->alive || sl->index < 0 || now() - sl->since <= leash)
                continue;
            kill(sl->pid, SIGKILL);
            const unsigned long long seed = opt.seed + (uint64_t)sl->index;
            printf("diff_fuzz: FAILURE: case %llu ran for more than %.0f s%s (a hang?): replay it with\n"
                   "  %s --seed %llu --count 1 --per-kernel %d --family %s --jobs 1 -v --case-timeout 1e9\n",
                   seed, leash, sl->reducing ? ", its reduction included" : "", opt.self, seed,
                   opt.per_kernel, fams);
            hangs++;
            sl->since = now() + 1e9; /* reaped below; killed once */
        }
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            drain(fds[0], slots, nslots, 0); /* its last words first */
            for (int s = 0; s < nslots; s++) {
                slot *sl = &slots[s];
                if (sl->pid != pid || !sl->alive)
                    continue;
                sl->alive = 0;
                alive--;
                const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                if (code == 77)
                    no_gpu = 1;
                if (code == 0 || code == 77)
                    continue;
                if (WIFEXITED(status) && code != 3) {
                    crashed++;
                    printf("diff_fuzz: worker %d ended with exit %d in case %lld\n", s, code, sl->index);
                } else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
                    crashed++;
                    printf("diff_fuzz: FAILURE: a worker died of signal %d in case %llu\n", WTERMSIG(status),
                           (unsigned long long)(opt.seed + (uint64_t)sl->index));
                }
                /* Lost its CUDA context, hung or died: a new worker goes on after that case. */
                const long long next = sl->index + opt.jobs;
                if (sl->index >= 0 && next < ncases && nslots < MAX_SLOTS && (deadline <= 0 || now() < deadline) &&
                    spawn(slots, nslots, next, ncases, deadline, fds[1])) {
                    nslots++;
                    alive++;
                }
            }
        }
        if (now() - last_progress >= 30) {
            counters t = {0};
            for (int s = 0; s < nslots; s++)
                add_counters(&t, &slots[s].c);
            printf("diff_fuzz: %.0f s: %lld programs (%.1f/s) in %lld kernels, %lld launches, %lld failures\n",
                   now() - start, t.programs, (double)t.programs / (now() - start), t.kernels, t.launches,
                   t.failures + hangs + crashed);
            last_progress = now();
        }
    }
    drain(fds[0], slots, nslots, 0);
    for (int s = 0; s < nslots; s++)
        add_counters(total, &slots[s].c);
    total->hangs += hangs;
    total->failures += hangs + crashed;
    close(fds[0]);
    close(fds[1]);
    free(slots);
    if (no_gpu && total->kernels == 0)
        return 77;
    return crashed ? 1 : 0;
}

/* ---- replaying one case --------------------------------------------------------------- */

static int replay_main(void)
{
    FILE *f = fopen(opt.replay_evt, "rb");
    if (!f) {
        fprintf(stderr, "diff_fuzz: cannot read %s: %s\n", opt.replay_evt, strerror(errno));
        return 1;
    }
    static char src[MAX_SRC];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = '\0';
    tuning t;
    long long v[1][PF_COUNT];
    if (!parse_spec(opt.replay_problem, &t, v[0]))
        return 1;
    worker w;
    evt_status st = worker_init(&w, 0, -1);
    if (st != EVT_OK) {
        printf("outcome: error %s\n%s\n", evt_status_string(st), evt_ctx_last_error(w.ctx));
        worker_free(&w);
        return st == EVT_ERR_NO_GPU ? 77 : 4;
    }
    outcome o;
    int failed;
    run_program(&w, src, &t, v, 1, &o, &failed);
    printf("outcome: %s\n%s\n", o.kind == OUT_OK ? "ok" : o.signature, o.message);
    worker_free(&w);
    return o.kind == OUT_MISMATCH ? 3 : o.kind == OUT_ERROR ? 4 : 0;
}

/* ---- main ---------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: diff_fuzz [--seed S] [--count PROGRAMS] [--seconds T] [--jobs J] [--family F,...]\n"
            "                 [--per-kernel P] [--out DIR] [--case-timeout T] [--shrink-seconds T] [-v]\n"
            "                 [--dry-run [--compile N] [--inject-fault [--self-test]]]\n"
            "       diff_fuzz --replay FILE.evt --problem 'SPEC' [--dry-run [--inject-fault]]\n"
            "families: mma_sync wgmma ws pp staged splitk auto (default: all)\n");
    return 1;
}

static int parse_families(const char *list)
{
    opt.families = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *f = copy ? strtok_r(copy, ",", &save) : NULL; f; f = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < FAM_COUNT; i++)
            if (strcmp(f, family_names[i]) == 0) {
                opt.families |= 1u << i;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "diff_fuzz: unknown family '%s'\n", f);
            free(copy);
            return 0;
        }
    }
    free(copy);
    return opt.families != 0;
}

int main(int argc, char **argv)
{
    int seeded = 0, counted = 0, jobs_given = 0;
    opt.per_kernel = 5;
    opt.families = (1u << FAM_COUNT) - 1;
    opt.case_timeout = 180;
    opt.shrink_seconds = 120;
    opt.out_dir = getenv("OUT") && getenv("OUT")[0] ? getenv("OUT") : ".";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE(name) (strcmp(a, name) == 0 && val && (i++, 1))
        if (VALUE("--seed"))
            opt.seed = strtoull(val, NULL, 0), seeded = 1;
        else if (VALUE("--count"))
            opt.count = atoll(val), counted = 1;
        else if (VALUE("--seconds"))
            opt.seconds = atof(val);
        else if (VALUE("--jobs"))
            opt.jobs = atoi(val), jobs_given = 1;
        else if (VALUE("--family")) {
            if (!parse_families(val))
                return usage();
        } else if (VALUE("--per-kernel"))
            opt.per_kernel = atoi(val);
        else if (VALUE("--out"))
            opt.out_dir = val;
        else if (VALUE("--case-timeout"))
            opt.case_timeout = atof(val);
        else if (VALUE("--shrink-seconds"))
            opt.shrink_seconds = atof(val);
        else if (VALUE("--compile"))
            opt.compile = atoi(val);
        else if (VALUE("--replay"))
            opt.replay_evt = val;
        else if (VALUE("--problem"))
            opt.replay_problem = val;
        else if (strcmp(a, "--dry-run") == 0)
            opt.dry = 1;
        else if (strcmp(a, "--inject-fault") == 0)
            opt.inject = 1;
        else if (strcmp(a, "--self-test") == 0)
            opt.self_test = 1;
        else if (strcmp(a, "-v") == 0)
            opt.verbose = 1;
        else
            return usage();
#undef VALUE
    }
    if (opt.per_kernel < 1 || opt.per_kernel > 8 || (opt.self_test && !opt.inject) ||
        (opt.inject && !opt.dry) || !opt.replay_evt != !opt.replay_problem)
        return usage();
    ssize_t len = readlink("/proc/self/exe", opt.self, sizeof opt.self - 1);
    if (len <= 0)
        snprintf(opt.self, sizeof opt.self, "%s", argv[0]);
    else
        opt.self[len] = '\0';
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (opt.replay_evt)
        return replay_main();

    if (!seeded)
        opt.seed = (uint64_t)time(NULL);
    if (!counted)
        opt.count = opt.dry ? 100 : 10000;
    if (!jobs_given) {
        long procs = sysconf(_SC_NPROCESSORS_ONLN);
        opt.jobs = opt.dry ? 1 : procs < 1 ? 1 : procs > 16 ? 16 : (int)procs;
    }
    if (opt.jobs < 1)
        return usage();
    mkdir(opt.out_dir, 0755);
    /* The cases that hold `count` programs, so that each worker knows its share. */
    long long ncases = 0, programs = 0;
    while (programs < opt.count)
        programs += case_programs(opt.seed + (uint64_t)ncases++);
    char fams[128];
    families_arg(fams, sizeof fams);
    printf("diff_fuzz: --seed %llu --count %lld (%lld kernels of 1-%d programs) --jobs %d --family %s%s%s",
           (unsigned long long)opt.seed, opt.count, ncases, opt.per_kernel, opt.jobs, fams,
           opt.dry ? " --dry-run" : "", opt.inject ? " --inject-fault" : "");
    if (opt.seconds > 0)
        printf(" --seconds %.0f", opt.seconds);
    printf("\n");

    const double start = now(), deadline = opt.seconds > 0 ? start + opt.seconds : 0;
    counters total = {0};
    int rc = opt.dry && opt.jobs == 1 ? worker_main(0, 0, 1, ncases, deadline, -1, &total)
                                      : supervise(ncases, deadline, &total);
    const double secs = now() - start;
    if (rc == 77)
        return 77;
    printf("diff_fuzz: %lld programs in %lld kernels (", total.programs, total.kernels);
    for (int f = 0; f < FAM_COUNT; f++)
        printf("%s%s %lld", f ? ", " : "", family_names[f], total.family_kernels[f]);
    printf("), %lld launches%s (%lld of them batches of copies of the problem, %lld of fp8 GEMMs), %lld "
           "outputs (%lld elements) compared\n",
           total.launches, opt.dry ? " (validated, the interpreter playing the GPU)" : "", total.batched,
           total.fp8, total.outputs, total.elements);
    printf("diff_fuzz: refused as owed: %lld misaligned buffers, %lld unset params; %lld cases "
           "skipped (no configuration of the family admitted); %lld sum elements whose terms may "
           "overflow f32 in some order (any result passes)\n",
           total.refused_buffer, total.refused_unbound, total.skipped, total.loose_sums);
    if (opt.dry)
        printf("diff_fuzz: %lld kernels compiled with NVRTC\n", total.compiles);
    printf("diff_fuzz: %lld failures (%lld mismatches, %lld errors, %lld hangs), %lld reduced; %.1f s, "
           "%.1f programs/s\n",
           total.failures, total.mismatches, total.errors, total.hangs, total.reductions, secs,
           secs > 0 ? (double)total.programs / secs : 0.0);
    if (opt.self_test) {
        /* The injected fault must have been found and reduced to its cause. */
        const int ok = total.failures > 0 && total.reductions > 0 && total.reduced_lines >= 1 &&
                       total.reduced_lines <= 3;
        printf("diff_fuzz: self-test %s (%lld failures, %lld reduced, at most %lld statements left)\n",
               ok ? "passed" : "FAILED", total.failures, total.reductions, total.reduced_lines);
        return ok ? 0 : 1;
    }
    return rc == 0 && total.failures == 0 ? 0 : 1;
}
