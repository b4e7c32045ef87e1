/* test_interp.c - the reference interpreter (evt_interp_*): the spec's examples in
 * f32 against f64 and against hand computations, broadcasts, every reduction
 * with NaN and degenerate sizes, the select and -0.0 rules, long DAGs, speed,
 * and every argument error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/common/evt_math.h"
#include "tests/support/progen.h"
#include <evt/evt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXAMPLES EVT_SOURCE_DIR "/tests/golden/examples.evt"

#include "module_fixture.h"

/* Parses src and makes an interpreter for its epilogue `name`. */
static evt_interp *interp_for(fixture *f, const char *src, const char *name)
{
    evt_interp_destroy(f->in);
    evt_module_destroy(f->m);
    f->in = NULL;
    f->m = NULL;
    evt_status st = evt_module_parse_buffer(f->ctx, "interp.evt", src, strlen(src), &f->m);
    if (st != EVT_OK)
        fail_msg("%s", evt_module_diag_text(f->m, EVT_DIAG_TEXT));
    const evt_epilogue *e = evt_module_find_epilogue(f->m, name);
    assert_non_null(e);
    assert_int_equal(evt_interp_create(e, &f->in), EVT_OK);
    return f->in;
}

static uint64_t rng = 88172645463325252u;

static uint32_t rnd32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static float uniform(float lo, float hi)
{
    return lo + (hi - lo) * (float)(rnd32() >> 8) / 16777216.0f;
}

/* A random value, one time in `special` a NaN, +-inf, -0.0 or a subnormal. */
static float random_value(int special)
{
    if (special && rnd32() % (unsigned)special == 0) {
        static const float odd[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-40f, -3e-39f, 0.0f};
        return odd[rnd32() % 7];
    }
    return uniform(-4.0f, 4.0f);
}

static unsigned long long shape_count(evt_shape s, long long m, long long n)
{
    return (unsigned long long)((s & EVT_SHAPE_M) ? m : 1) * (unsigned long long)((s & EVT_SHAPE_N) ? n : 1);
}

/* ---- the spec's examples -------------------------------------------------- */

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = malloc(1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return buf;
}

/*
 * Runs every epilogue of examples.evt in both modes on the same random
 * inputs (with `special` odd values), outputs bound as f64.  On finite
 * inputs the modes agree within f32 rounding; with odd inputs they agree on
 * where the NaNs are.
 */
static void run_examples(fixture *f, int special)
{
    char *src = read_file(EXAMPLES);
    assert_int_equal(evt_module_parse_buffer(f->ctx, "examples.evt", src, strlen(src), &f->m),
                     EVT_OK);
    const long long M = 19, N = 300; /* N crosses the interpreter's 256-column chunks */
    size_t ne = evt_module_epilogue_count(f->m);
    assert_true(ne >= 5);
    for (size_t ei = 0; ei < ne; ei++) {
        const evt_epilogue *e = evt_module_epilogue(f->m, ei);
        evt_interp *in;
        assert_int_equal(evt_interp_create(e, &in), EVT_OK);
        float *acc = malloc(M * N * sizeof *acc);
        for (long long i = 0; i < M * N; i++)
            acc[i] = random_value(special);
        assert_int_equal(evt_interp_set_acc(in, M, N, acc, M * N * sizeof *acc, N), EVT_OK);
        size_t nin = evt_epilogue_arg_count(e, EVT_ARG_INPUT);
        size_t nout = evt_epilogue_arg_count(e, EVT_ARG_OUTPUT);
        void *ins[8];
        double *outs[2][8];
        for (size_t i = 0; i < nin; i++) {
            const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_INPUT, i);
            unsigned long long cnt = shape_count(a->shape, M, N);
            float *v = malloc(cnt * sizeof *v);
            for (unsigned long long j = 0; j < cnt; j++)
                v[j] = random_value(special);
            ins[i] = malloc(cnt * evt_elem_size(a->elem));
            assert_int_equal(evt_convert_from_f32(a->elem, v, ins[i], cnt), EVT_OK);
            free(v);
            assert_int_equal(evt_interp_bind(in, a->name, ins[i], cnt * evt_elem_size(a->elem), N),
                             EVT_OK);
        }
        for (int mode = 0; mode < 2; mode++) {
            for (size_t o = 0; o < nout; o++) {
                const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, o);
                unsigned long long cnt = shape_count(a->shape, M, N);
                outs[mode][o] = malloc(cnt * sizeof(double));
                assert_int_equal(evt_interp_bind_f64(in, a->name, outs[mode][o],
                                                     cnt * sizeof(double), N),
                                 EVT_OK);
            }
            evt_status st = evt_interp_run(in, mode ? EVT_INTERP_F64 : EVT_INTERP_F32);
            if (st != EVT_OK)
                fail_msg("%s", evt_interp_last_error(in));
        }
        for (size_t o = 0; o < nout; o++) {
            const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, o);
            unsigned long long cnt = shape_count(a->shape, M, N);
            /* a sum adds up to M*N terms of size ~16 */
            double slack = a->reduce == EVT_REDUCE_SUM ? 1e-6 * (double)(M * N) * 16 : 0;
            for (unsigned long long j = 0; j < cnt; j++) {
                double x = outs[0][o][j], y = outs[1][o][j];
                if (special) {
                    if (isnan(x) != isnan(y))
                        fail_msg("%s.%s[%llu]: f32 %g, f64 %g", evt_epilogue_name(e), a->name, j,
                                 x, y);
                } else if (!(fabs(x - y) <= 1e-5 * (1 + fabs(y)) + slack)) {
                    fail_msg("%s.%s[%llu]: f32 %.9g, f64 %.9g", evt_epilogue_name(e), a->name, j,
                             x, y);
                }
            }
            free(outs[0][o]);
            free(outs[1][o]);
        }
        for (size_t i = 0; i < nin; i++)
            free(ins[i]);
        free(acc);
        evt_interp_destroy(in);
    }
    free(src);
}

static void test_examples_f32_vs_f64(void **state)
{
    run_examples(*state, 0);
}

static void test_examples_special_inputs(void **state)
{
    run_examples(*state, 5);
}

/* bias_relu_add by hand: values chosen so that every result is exact in f16. */
static void test_bias_relu_add_by_hand(void **state)
{
    fixture *f = *state;
    char *src = read_file(EXAMPLES);
    evt_interp *in = interp_for(f, src, "bias_relu_add");
    free(src);
    float acc[6] = {1, -2, 0, 3, -0.25f, NAN};
    float biasf[3] = {0.5f, 1, -1}, resf[6] = {1, 2, 3, 4, 5, 6};
    unsigned short bias[3], res[6], d[8] = {0};
    evt_convert_from_f32(EVT_F16, biasf, bias, 3);
    evt_convert_from_f32(EVT_F16, resf, res, 6);
    assert_int_equal(evt_interp_set_param(in, "alpha", 2.0f), EVT_OK);
    assert_int_equal(evt_interp_set_acc(in, 2, 3, acc, sizeof acc, 3), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "bias", bias, sizeof bias, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "residual", res, sizeof res, 3), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "D", d, sizeof d, 4), EVT_OK); /* ld 4: padded rows */
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    /* relu(2*acc + bias) + residual: 2.5+1, 0+2, 0+3 | 6.5+4, 0.5+5, NaN */
    assert_int_equal(d[0], 0x4300); /* 3.5 */
    assert_int_equal(d[1], 0x4000); /* 2 */
    assert_int_equal(d[2], 0x4200); /* 3 */
    assert_int_equal(d[3], 0);      /* padding untouched */
    assert_int_equal(d[4], 0x4940); /* 10.5 */
    assert_int_equal(d[5], 0x4580); /* 5.5 */
    assert_int_equal(d[6], 0x7fff); /* NaN, canonical */
    /* the default applies when the param is not set */
    evt_interp *in2 = NULL;
    assert_int_equal(evt_interp_create(evt_module_find_epilogue(f->m, "bias_relu_add"), &in2),
                     EVT_OK);
    evt_interp_set_acc(in2, 2, 3, acc, sizeof acc, 3);
    evt_interp_bind(in2, "bias", bias, sizeof bias, 0);
    evt_interp_bind(in2, "residual", res, sizeof res, 3);
    evt_interp_bind(in2, "D", d, sizeof d, 4);
    assert_int_equal(evt_interp_run(in2, EVT_INTERP_F64), EVT_OK);
    assert_int_equal(d[0], 0x4100); /* relu(1 + 0.5) + 1 = 2.5 */
    assert_int_equal(d[1], 0x4000); /* relu(-2 + 1) + 2 */
    assert_int_equal(d[6], 0x7fff);
    evt_interp_destroy(in2);
}

/* bias_relu_aux_amax by hand: an auxiliary f16 store, an e4m3 store, an amax. */
static void test_aux_amax_by_hand(void **state)
{
    fixture *f = *state;
    char *src = read_file(EXAMPLES);
    evt_interp *in = interp_for(f, src, "bias_relu_aux_amax");
    free(src);
    float acc[4] = {1000, -7, 0.1f, 2};
    float biasf[2] = {0, 1};
    unsigned short bias[2], pre[4];
    unsigned char y[4];
    float amax = -1;
    evt_convert_from_f32(EVT_F16, biasf, bias, 2);
    evt_interp_set_acc(in, 2, 2, acc, sizeof acc, 2);
    evt_interp_bind(in, "bias", bias, sizeof bias, 0);
    evt_interp_bind(in, "pre", pre, sizeof pre, 2);
    evt_interp_bind(in, "y", y, sizeof y, 2);
    evt_interp_bind(in, "amax", &amax, sizeof amax, 0);
    assert_int_equal(evt_interp_set_param(in, "scale", 0.5f), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    /* z = 1000, -6, 0.1, 3 */
    assert_int_equal(pre[0], 0x63d0); /* 1000 */
    assert_int_equal(pre[1], 0xc600); /* -6 */
    assert_int_equal(pre[3], 0x4200); /* 3 */
    assert_int_equal(y[0], 0x7e);     /* relu(1000) * 0.5 = 500 saturates to 448 */
    assert_int_equal(y[1], 0x00);     /* relu(-6) = +0 */
    assert_int_equal(y[3], 0x3c);     /* 1.5 */
    assert_true(amax == 1000.0f);     /* the reduction sees the value before conversion */
    acc[2] = NAN;
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(isnan(amax));
    assert_int_equal(y[2], 0x7f);
}

/* dequant_rowsum by hand: the row sums in the documented sequential order. */
static void test_dequant_rowsum_by_hand(void **state)
{
    fixture *f = *state;
    char *src = read_file(EXAMPLES);
    evt_interp *in = interp_for(f, src, "dequant_rowsum");
    free(src);
    enum { M = 3, N = 700 };
    float *acc = malloc(M * N * sizeof *acc), sa[M], sb[N], sum[M];
    unsigned short *d = malloc(M * N * sizeof *d);
    for (int i = 0; i < M * N; i++)
        acc[i] = uniform(-100, 100);
    for (int i = 0; i < M; i++)
        sa[i] = uniform(0.5f, 2);
    for (int j = 0; j < N; j++)
        sb[j] = uniform(-1, 1);
    evt_interp_set_acc(in, M, N, acc, M * N * sizeof *acc, N);
    evt_interp_bind(in, "sa", sa, sizeof sa, 0);
    evt_interp_bind(in, "sb", sb, sizeof sb, 0);
    evt_interp_bind(in, "d", d, M * N * sizeof *d, N);
    evt_interp_bind(in, "sum", sum, sizeof sum, 0);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M; i++) {
        volatile float s = 0; /* f32 additions, one at a time, in column order */
        for (int j = 0; j < N; j++) {
            volatile float y = acc[i * N + j] * sa[i];
            y = y * sb[j];
            s = s + y;
            uint32_t u;
            float yy = y;
            memcpy(&u, &yy, 4);
            uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; /* bf16, ties to even */
            assert_int_equal(d[i * N + j], r);
        }
        assert_true(sum[i] == s);
    }
    free(acc);
    free(d);
}

/* bias_gelu against the erf formula in f64, to a bf16 rounding. */
static void test_bias_gelu_by_hand(void **state)
{
    fixture *f = *state;
    char *src = read_file(EXAMPLES);
    evt_interp *in = interp_for(f, src, "bias_gelu");
    free(src);
    enum { M = 4, N = 64 };
    float acc[M * N], bf[N];
    unsigned short b[N], y[M * N];
    for (int i = 0; i < M * N; i++)
        acc[i] = uniform(-6, 6);
    for (int j = 0; j < N; j++)
        bf[j] = uniform(-1, 1);
    evt_convert_from_f32(EVT_BF16, bf, b, N);
    evt_convert_to_f32(EVT_BF16, b, bf, N);
    evt_interp_set_acc(in, M, N, acc, sizeof acc, N);
    evt_interp_bind(in, "b", b, sizeof b, 0);
    evt_interp_bind(in, "y", y, sizeof y, N);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M * N; i++) {
        double x = (double)acc[i] + bf[i % N];
        double want = 0.5 * x * (1 + erf(x / sqrt(2.0)));
        float got;
        evt_convert_to_f32(EVT_BF16, &y[i], &got, 1);
        assert_true(fabs(got - want) <= fabs(want) * 0x1p-8 + 1e-30);
    }
}

/* ---- broadcasts, selects, -0.0 ---------------------------------------------- */

static const char broadcast_src[] =
    "epilogue bc {\n"
    "  in r : f32[M]\n"
    "  in c : f16[N]\n"
    "  in s : bf16\n"
    "  param k : f32\n"
    "  out y : f32[M, N] = acc * r + c - s * k\n"
    "  out z : f32[M, N] = r + c\n"
    "  out w : f32[M, N] = s\n"
    "}\n";

static void test_broadcasts(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, broadcast_src, "bc");
    enum { M = 3, N = 5 };
    float acc[M * 7], r[M] = {1, 2, -3}, cf[N] = {0.5f, -1, 2, 4, 8}, y[M * N], z[M * N], w[M * N];
    unsigned short c[N], s;
    float sf = 0.25f;
    for (int i = 0; i < M * 7; i++)
        acc[i] = (float)i;
    evt_convert_from_f32(EVT_F16, cf, c, N);
    evt_convert_from_f32(EVT_BF16, &sf, &s, 1);
    assert_int_equal(evt_interp_set_acc(in, M, N, acc, sizeof acc, 7), EVT_OK); /* acc rows 7 apart */
    evt_interp_bind(in, "r", r, sizeof r, 0);
    evt_interp_bind(in, "c", c, sizeof c, 0);
    evt_interp_bind(in, "s", &s, sizeof s, 0);
    evt_interp_bind(in, "y", y, sizeof y, N);
    evt_interp_bind(in, "z", z, sizeof z, N);
    evt_interp_bind(in, "w", w, sizeof w, N);
    assert_int_equal(evt_interp_set_param(in, "k", 4.0f), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = acc[i * 7 + j] * r[i] + cf[j] - 1.0f;
            assert_true(y[i * N + j] == want);
            assert_true(z[i * N + j] == r[i] + cf[j]);
            assert_true(w[i * N + j] == 0.25f);
        }
}

static void test_select_and_zeros(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f,
                                "epilogue sel {\n"
                                "  out a : f32[M, N] = acc > 0 ? acc : -acc\n"
                                "  out b : f32[M, N] = relu(acc)\n"
                                "  out c : f32[M, N] = acc != acc ? 1 : 0\n"
                                "  out d : f32[M, N] = max(acc, -acc)\n"
                                "  out e : f32[M, N] = leaky_relu(acc, 0.5)\n"
                                "}\n",
                                "sel");
    float acc[4] = {-0.0f, 0.0f, NAN, -2.0f}, a[4], b[4], c[4], d[4], e[4];
    evt_interp_set_acc(in, 1, 4, acc, sizeof acc, 4);
    evt_interp_bind(in, "a", a, sizeof a, 4);
    evt_interp_bind(in, "b", b, sizeof b, 4);
    evt_interp_bind(in, "c", c, sizeof c, 4);
    evt_interp_bind(in, "d", d, sizeof d, 4);
    evt_interp_bind(in, "e", e, sizeof e, 4);
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(evt_interp_run(in, mode ? EVT_INTERP_F64 : EVT_INTERP_F32), EVT_OK);
        /* -(-0) = +0; -(+0) = -0; NaN > 0 is false so -NaN, stored as the canonical NaN */
        assert_false(signbit(a[0]));
        assert_true(signbit(a[1]));
        assert_int_equal(evt_f32_bits(a[2]), 0x7fffffffu);
        assert_true(a[3] == 2.0f);
        assert_false(signbit(b[0])); /* relu(-0) = +0 */
        assert_true(c[0] == 0 && c[2] == 1);
        assert_false(signbit(d[0]) || signbit(d[1])); /* max(-0, +0) = +0 */
        assert_int_equal(evt_f32_bits(d[2]), 0x7fffffffu);
        assert_true(signbit(e[0]) && e[3] == -1.0f);
    }
}

/* Every builtin in f32 mode is exactly evt_math.h's. */
static void test_builtins_are_evt_math(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f,
                                "epilogue b {\n"
                                "  out g : f32[M, N] = gelu(acc)\n"
                                "  out t : f32[M, N] = gelu_tanh(acc)\n"
                                "  out s : f32[M, N] = silu(acc) + sigmoid(acc)\n"
                                "  out l : f32[M, N] = log(acc) * exp(acc)\n"
                                "  out h : f32[M, N] = hardswish(acc) - tanh(acc)\n"
                                "  out q : f32[M, N] = sqrt(acc) / rsqrt(abs(acc))\n"
                                "  out c : f32[M, N] = clamp(acc, -1, min(acc, 2))\n"
                                "}\n",
                                "b");
    enum { N = 2000 };
    float *acc = malloc(N * sizeof *acc), *o[7];
    const char *names[7] = {"g", "t", "s", "l", "h", "q", "c"};
    for (int j = 0; j < N; j++)
        acc[j] = j % 3 ? uniform(-20, 20) : evt_bits_f32(rnd32());
    evt_interp_set_acc(in, 1, N, acc, N * sizeof *acc, N);
    for (int k = 0; k < 7; k++) {
        o[k] = malloc(N * sizeof *o[k]);
        evt_interp_bind(in, names[k], o[k], N * sizeof *o[k], N);
    }
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int j = 0; j < N; j++) {
        float x = acc[j];
        float want[7] = {
            evt_gelu(x),
            evt_gelu_tanh(x),
            evt_add(evt_silu(x), evt_sigmoid(x)),
            evt_mul(evt_log(x), evt_exp(x)),
            evt_sub(evt_hardswish(x), evt_tanh(x)),
            evt_div(evt_sqrt(x), evt_rsqrt(evt_abs(x))),
            evt_clamp(x, -1.0f, evt_min(x, 2.0f)),
        };
        for (int k = 0; k < 7; k++)
            assert_int_equal(evt_f32_bits(o[k][j]), evt_f32_bits(evt_store_f32(want[k])));
    }
    for (int k = 0; k < 7; k++)
        free(o[k]);
    free(acc);
}

/* ---- reductions --------------------------------------------------------------- */

static const char reduce_src[] =
    "epilogue red {\n"
    "  in b : f32[N]\n"
    "  out rs : f32[M] = reduce_sum(acc, N)\n"
    "  out rx : f32[M] = reduce_max(acc, N)\n"
    "  out rn : f32[M] = reduce_min(acc + b, N)\n"
    "  out cs : f32[N] = reduce_sum(acc, M)\n"
    "  out cx : bf16[N] = reduce_max(acc, M)\n"
    "  out cn : f32[N] = reduce_min(b, M)\n"
    "  out s : f32 = reduce_sum(acc)\n"
    "  out x : f32 = reduce_max(abs(acc))\n"
    "  out n : f32 = reduce_min(acc)\n"
    "}\n";

typedef struct red_out {
    float rs[8], rx[8], rn[8], cs[8], cn[8], s, x, n;
    unsigned short cx[8];
} red_out;

static void bind_red(evt_interp *in, red_out *o, float *b)
{
    evt_interp_bind(in, "b", b, 8 * sizeof *b, 0);
    evt_interp_bind(in, "rs", o->rs, sizeof o->rs, 0);
    evt_interp_bind(in, "rx", o->rx, sizeof o->rx, 0);
    evt_interp_bind(in, "rn", o->rn, sizeof o->rn, 0);
    evt_interp_bind(in, "cs", o->cs, sizeof o->cs, 0);
    evt_interp_bind(in, "cx", o->cx, sizeof o->cx, 0);
    evt_interp_bind(in, "cn", o->cn, sizeof o->cn, 0);
    evt_interp_bind(in, "s", &o->s, sizeof o->s, 0);
    evt_interp_bind(in, "x", &o->x, sizeof o->x, 0);
    evt_interp_bind(in, "n", &o->n, sizeof o->n, 0);
}

static void test_reductions(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, reduce_src, "red");
    /* 3 x 4, NaN at (1, 2) */
    float acc[12] = {1, 2, 3, 4, -5, 6, NAN, 8, 9, -10, 11, 0.5f};
    float b[8] = {0, 0, 0, -100, 0, 0, 0, 0};
    red_out o;
    memset(&o, 0, sizeof o);
    bind_red(in, &o, b);
    evt_interp_set_acc(in, 3, 4, acc, sizeof acc, 4);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(o.rs[0] == 10 && isnan(o.rs[1]) && o.rs[2] == 10.5f);
    assert_true(o.rx[0] == 4 && isnan(o.rx[1]) && o.rx[2] == 11);
    assert_true(o.rn[0] == -96 && isnan(o.rn[1]) && o.rn[2] == -99.5f);
    assert_true(o.cs[0] == 5 && o.cs[1] == -2 && isnan(o.cs[2]) && o.cs[3] == 12.5f);
    assert_int_equal(o.cx[0], 0x4110); /* 9 in bf16 */
    assert_int_equal(o.cx[2], 0x7fff); /* NaN in bf16, canonical */
    assert_true(o.cn[3] == -100 && o.cn[0] == 0);
    assert_true(isnan(o.s) && isnan(o.x) && isnan(o.n));
    /* without the NaN, and the same in f64 */
    acc[6] = 7;
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(evt_interp_run(in, mode ? EVT_INTERP_F64 : EVT_INTERP_F32), EVT_OK);
        assert_true(o.rs[1] == 16 && o.rx[1] == 8 && o.cs[2] == 21);
        assert_true(o.s == 36.5f && o.x == 11 && o.n == -10);
    }
    /* M = 1 and N = 1 */
    evt_interp_set_acc(in, 1, 4, acc, sizeof acc, 4);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(o.rs[0] == 10 && o.cs[3] == 4 && o.cx[1] == 0x4000 && o.n == 1);
    evt_interp_set_acc(in, 3, 1, acc, sizeof acc, 4);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(o.rs[0] == 1 && o.rs[1] == -5 && o.rs[2] == 9 && o.cs[0] == 5 && o.x == 9);
    /* M = 0: the column reductions hold their identities */
    evt_interp_set_acc(in, 0, 4, NULL, 0, 4);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(o.cs[0] == 0 && isinf(o.cn[0]) && o.cn[0] > 0 && o.cx[0] == 0xff80);
    assert_true(o.s == 0 && isinf(o.x) && o.x < 0 && isinf(o.n) && o.n > 0);
    assert_true(signbit(o.s) == 0);
}

/* A sum over 10^6 values adds in row-major order, one f32 addition at a time. */
static void test_sum_order(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, "epilogue s { out t : f32 = reduce_sum(acc) }\n", "s");
    enum { M = 1000, N = 1000 };
    float *acc = malloc(M * N * sizeof *acc), t;
    for (int i = 0; i < M * N; i++)
        acc[i] = uniform(0, 1);
    evt_interp_set_acc(in, M, N, acc, M * N * sizeof *acc, N);
    evt_interp_bind(in, "t", &t, sizeof t, 0);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    volatile float s = 0;
    for (int i = 0; i < M * N; i++)
        s = s + acc[i];
    assert_true(t == s);
    free(acc);
}

/* ---- scale: a long DAG and a 1024 x 1024 problem -------------------------------- */

static void test_long_chain(void **state)
{
    fixture *f = *state;
    enum { LETS = 20000 };
    char *src = malloc(LETS * 48 + 200), *p = src;
    p += sprintf(p, "epilogue chain {\n  let v0 = acc\n");
    for (int i = 1; i < LETS; i++)
        p += sprintf(p, "  let v%d = v%d * 0.5 + v%d\n", i, i - 1, i - 1 > 0 ? i - 2 : 0);
    sprintf(p, "  out y : f32[M, N] = v%d\n}\n", LETS - 1);
    evt_interp *in = interp_for(f, src, "chain");
    free(src);
    float acc[2] = {0, 1e-30f}, y[2];
    evt_interp_set_acc(in, 1, 2, acc, sizeof acc, 2);
    evt_interp_bind(in, "y", y, sizeof y, 2);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(y[0] == 0);
    assert_true(isinf(y[1])); /* grows by ~1.6x per step */
}

static void test_speed_1024(void **state)
{
    fixture *f = *state;
    char *src = read_file(EXAMPLES);
    evt_interp *in = interp_for(f, src, "bias_gelu");
    free(src);
    enum { M = 1024, N = 1024 };
    float *acc = malloc(M * N * sizeof *acc);
    unsigned short *y = malloc(M * N * sizeof *y), b[N] = {0};
    for (int i = 0; i < M * N; i++)
        acc[i] = uniform(-5, 5);
    evt_interp_set_acc(in, M, N, acc, M * N * sizeof *acc, N);
    evt_interp_bind(in, "b", b, sizeof b, 0);
    evt_interp_bind(in, "y", y, M * N * sizeof *y, N);
    clock_t t0 = clock();
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("bias_gelu 1024 x 1024 in f32: %.3f s\n", s);
    assert_true(s < 5.0); /* well under a second in an optimized build */
    free(acc);
    free(y);
}

/* ---- aliasing ------------------------------------------------------------------------ */

/* Two outputs written in place over the inputs they replace, both inputs
 * read again by the other output and by a reduction after. */
static const char in_place_src[] =
    "epilogue ip {\n"
    "  in  r : f16[M, N]\n"
    "  in  s : f32[M, N]\n"
    "  in  b : bf16[N]\n"
    "  out y : f16[M, N] = relu(acc + r * b) - r\n"
    "  out t : f32[M, N] = s * r + acc\n"
    "  out u : f32[N] = reduce_sum(r * s + y, M)\n"
    "}\n";

/* In place and out of place give the same bits, in both modes, on random
 * data (every NaN, infinity and subnormal encoding among it); rows pad ld,
 * and N crosses the interpreter's 256-column chunks. */
static void test_in_place_matches_out_of_place(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, in_place_src, "ip");
    enum { M = 5, N = 300, LD = N + 3, CELLS = (M - 1) * LD + N };
    pg_rng rng = {.s = 0x1b2a5eedu};
    float *acc = malloc(M * N * sizeof *acc), *s = malloc(CELLS * sizeof *s);
    float *t = malloc(CELLS * sizeof *t), *ts = malloc(CELLS * sizeof *ts);
    unsigned short *r = malloc(CELLS * sizeof *r), *y = malloc(CELLS * sizeof *y);
    unsigned short *yr = malloc(CELLS * sizeof *yr), b[N];
    float u[N], u_in_place[N];
    pg_fill(&rng, EVT_F32, acc, M * N);
    pg_fill(&rng, EVT_F16, r, CELLS);
    pg_fill(&rng, EVT_F32, s, CELLS);
    pg_fill(&rng, EVT_BF16, b, N);
    assert_int_equal(evt_interp_set_acc(in, M, N, acc, M * N * sizeof *acc, N), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "b", b, sizeof b, 0), EVT_OK);
    for (int mode = 0; mode < 2; mode++) {
        const evt_interp_mode md = mode ? EVT_INTERP_F64 : EVT_INTERP_F32;
        memcpy(y, r, CELLS * sizeof *y); /* the padding of both stays r's and s's */
        memcpy(t, s, CELLS * sizeof *t);
        assert_int_equal(evt_interp_bind(in, "r", r, CELLS * sizeof *r, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "s", s, CELLS * sizeof *s, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "y", y, CELLS * sizeof *y, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "t", t, CELLS * sizeof *t, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "u", u, sizeof u, 0), EVT_OK);
        assert_int_equal(evt_interp_run(in, md), EVT_OK);

        memcpy(yr, r, CELLS * sizeof *yr);
        memcpy(ts, s, CELLS * sizeof *ts);
        assert_int_equal(evt_interp_bind(in, "r", yr, CELLS * sizeof *yr, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "s", ts, CELLS * sizeof *ts, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "y", yr, CELLS * sizeof *yr, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "t", ts, CELLS * sizeof *ts, LD), EVT_OK);
        assert_int_equal(evt_interp_bind(in, "u", u_in_place, sizeof u_in_place, 0), EVT_OK);
        if (evt_interp_run(in, md) != EVT_OK)
            fail_msg("%s", evt_interp_last_error(in));
        assert_memory_equal(yr, y, CELLS * sizeof *y);
        assert_memory_equal(ts, t, CELLS * sizeof *t);
        assert_memory_equal(u_in_place, u, sizeof u);
    }
    free(acc);
    free(s);
    free(t);
    free(ts);
    free(r);
    free(y);
    free(yr);
}

/* Every other sharing with an output is refused, naming both, before anything is written. */
static void test_aliasing_is_refused(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, in_place_src, "ip");
    enum { M = 3, N = 8 };
    float acc[M * N], s[M * N], t[M * N], u[N];
    /* r has room past its M x N for every output bound into it below, so
     * that a run that wrongly went ahead would still write inside it */
    _Alignas(double) unsigned short r[M * N * 4 + 8];
    unsigned short y[M * N], b[N];
    double y64[M * N];
    pg_rng rng = {.s = 0xa11a5u};
    pg_fill(&rng, EVT_F32, acc, M * N);
    pg_fill(&rng, EVT_F32, s, M * N);
    pg_fill(&rng, EVT_F16, r, sizeof r / sizeof *r);
    pg_fill(&rng, EVT_BF16, b, N);
    for (int i = 0; i < M * N; i++)
        t[i] = 42.0f;
    evt_interp_set_acc(in, M, N, acc, sizeof acc, N);
    evt_interp_bind(in, "r", r, sizeof r, N);
    evt_interp_bind(in, "s", s, sizeof s, N);
    evt_interp_bind(in, "b", b, sizeof b, 0);
    evt_interp_bind(in, "y", y, sizeof y, N);
    evt_interp_bind(in, "t", t, sizeof t, N);
    evt_interp_bind(in, "u", u, sizeof u, 0);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M * N; i++)
        t[i] = 42.0f;
    static const struct {
        const char *name;
        size_t offset; /* bytes into `at` */
        int f64;
        const char *message;
    } cases[] = {
        {"y", 2 * 3, 0, "output 'y' overlaps input 'r' without being the same buffer"},
        {"y", 0, 1, "output 'y' overlaps input 'r'"}, /* doubles are not in place */
        {"u", 4, 0, "output 't' overlaps output 'u'"},
        {"t", 0, 0, "output 't' overlaps the accumulator"}, /* never in place */
        {"u", 2, 0, "output 'u' overlaps input 'r'"},
    };
    void *const at[] = {r, r, t, acc, r};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned char *p = (unsigned char *)at[c] + cases[c].offset;
        if (cases[c].f64)
            assert_int_equal(evt_interp_bind_f64(in, cases[c].name, (double *)(void *)p,
                                                 sizeof y64, N),
                             EVT_OK);
        else
            assert_int_equal(evt_interp_bind(in, cases[c].name, p, sizeof t, N), EVT_OK);
        assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_INVALID_ARGUMENT);
        if (!strstr(evt_interp_last_error(in), cases[c].message))
            fail_msg("case %zu: \"%s\"", c, evt_interp_last_error(in));
        if (strcmp(cases[c].name, "y") == 0) /* put it back */
            evt_interp_bind(in, "y", y, sizeof y, N);
        else if (strcmp(cases[c].name, "t") == 0)
            evt_interp_bind(in, "t", t, sizeof t, N);
        else
            evt_interp_bind(in, "u", u, sizeof u, 0);
    }
    for (int i = 0; i < M * N; i++)
        assert_true(t[i] == 42.0f); /* nothing was written */
    /* inputs only read: they may share with each other and the accumulator */
    evt_interp_bind(in, "s", acc, sizeof acc, N);
    evt_interp_bind(in, "b", r, sizeof b, 0);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
}

/* ---- rebinding ------------------------------------------------------------------- */

/* A second bind of a name replaces the first whole: the run writes the
 * second buffer, with its ld, as the element type or as doubles as the
 * latest bind said, and leaves the first alone. */
static void test_rebind_replaces_the_binding(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, "epilogue a { out y : f32[M, N] = acc * 2 }\n", "a");
    enum { M = 2, N = 3 };
    float acc[M * N], first[M * N], second[M * 4];
    double wide[M * N];
    pg_rng rng = {.s = 0x4eb1du};
    for (int i = 0; i < M * N; i++)
        acc[i] = pg_f32(&rng);
    for (int i = 0; i < M * 4; i++)
        second[i] = -1.0f;
    assert_int_equal(evt_interp_set_acc(in, M, N, acc, sizeof acc, N), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "y", first, sizeof first, N), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M * N; i++)
        first[i] = 42.0f;
    assert_int_equal(evt_interp_bind(in, "y", second, sizeof second, 4), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < 4; j++) {
            float want = j < N ? evt_store_f32(evt_mul(acc[i * N + j], 2.0f)) : -1.0f;
            assert_int_equal(evt_f32_bits(second[i * 4 + j]), evt_f32_bits(want));
        }
    for (int i = 0; i < M * N; i++)
        assert_true(first[i] == 42.0f);
    /* as doubles, then as the element type again: the latest bind counts */
    assert_int_equal(evt_interp_bind_f64(in, "y", wide, sizeof wide, N), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F64), EVT_OK);
    const double want4 = (double)acc[4] * 2;
    assert_true(isnan(want4) ? isnan(wide[4]) : wide[4] == want4);
    assert_int_equal(evt_interp_bind(in, "y", first, sizeof first, N), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_int_equal(evt_f32_bits(first[4]), evt_f32_bits(evt_store_f32(evt_mul(acc[4], 2.0f))));
    /* a failed bind changes nothing: the bytes one short are what a run sees */
    assert_int_equal(evt_interp_bind(in, "y", first, sizeof first - 1, N), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "nope", first, sizeof first, N), EVT_ERR_NOT_FOUND);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_BAD_BUFFER);
}

/* ---- errors ---------------------------------------------------------------------- */

/* The accumulator's byte size covers the (M - 1) * ld + N elements a run
 * reads, or the run is refused naming the sizes, with nothing written. */
static void test_accumulator_size(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, "epilogue a { out y : f32[M, N] = acc * 2 }\n", "a");
    enum { M = 3, N = 5, LD = 7, NEED = (M - 1) * LD + N };
    float acc[M * LD], y[M * N];
    double acc64[M * LD];
    for (int i = 0; i < M * LD; i++)
        acc64[i] = acc[i] = random_value(0);
    for (int i = 0; i < M * N; i++)
        y[i] = 42.0f;
    assert_int_equal(evt_interp_bind(in, "y", y, sizeof y, N), EVT_OK);

    assert_int_equal(evt_interp_set_acc(in, M, N, acc, (NEED - 1) * sizeof *acc, LD), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_interp_last_error(in), "accumulator is too small: 72 bytes"));
    assert_non_null(strstr(evt_interp_last_error(in), "3 x 5 with ld 7 needs 76"));
    for (int i = 0; i < M * N; i++)
        assert_true(y[i] == 42.0f);
    /* exactly the elements read: the last row's padding need not exist */
    assert_int_equal(evt_interp_set_acc(in, M, N, acc, NEED * sizeof *acc, LD), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_true(y[2 * N + 4] == acc[2 * LD + 4] * 2);

    /* an f64 accumulator counts doubles: the floats' byte size is short */
    assert_int_equal(evt_interp_set_acc_f64(in, M, N, acc64, NEED * sizeof *acc, LD), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F64), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_interp_last_error(in), "76 bytes, M x N = 3 x 5 with ld 7 needs 152"));
    assert_int_equal(evt_interp_set_acc_f64(in, M, N, acc64, NEED * sizeof *acc64, LD), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F64), EVT_OK);

    /* elements that fit in a long long but whose bytes do not fit in size_t */
    const long long huge = 1LL << 61;
    assert_int_equal(evt_interp_set_acc_f64(in, 2, 1, acc64, SIZE_MAX, huge), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F64), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_interp_last_error(in), "needs 2305843009213693953 elements of 8"));
    /* M = 0: nothing is read, a NULL accumulator of 0 bytes will do */
    assert_int_equal(evt_interp_set_acc(in, 0, N, NULL, 0, LD), EVT_OK);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
}

static void test_errors(void **state)
{
    fixture *f = *state;
    evt_interp *in = interp_for(f, broadcast_src, "bc");
    float acc[4] = {0}, r[2] = {0}, y[4], z[4], w[4];
    unsigned short c[2] = {0}, s = 0;
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_UNBOUND);
    assert_non_null(strstr(evt_interp_last_error(in), "accumulator"));
    assert_int_equal(evt_interp_set_acc(in, 2, 2, acc, sizeof acc, 1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_acc(in, 2, 2, NULL, 0, 2), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_acc(in, -1, 2, acc, sizeof acc, 2), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_acc(in, 2, 2, acc, sizeof acc, 2), EVT_OK);
    assert_int_equal(evt_interp_bind(in, "nope", r, sizeof r, 0), EVT_ERR_NOT_FOUND);
    assert_non_null(strstr(evt_interp_last_error(in), "nope"));
    assert_int_equal(evt_interp_bind(in, "k", r, sizeof r, 0), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_bind_f64(in, "r", NULL, 0, 0), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_param(in, "r", 1.0f), EVT_ERR_NOT_FOUND);
    assert_int_equal(evt_interp_bind(in, NULL, r, sizeof r, 0), EVT_ERR_INVALID_ARGUMENT);
    evt_interp_bind(in, "c", c, sizeof c, 0);
    evt_interp_bind(in, "s", &s, sizeof s, 0);
    evt_interp_bind(in, "y", y, sizeof y, 2);
    evt_interp_bind(in, "z", z, sizeof z, 2);
    evt_interp_bind(in, "w", w, sizeof w, 2);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_UNBOUND);
    assert_non_null(strstr(evt_interp_last_error(in), "param 'k' has no default"));
    evt_interp_set_param(in, "k", 1.0f);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_UNBOUND);
    assert_non_null(strstr(evt_interp_last_error(in), "input 'r'"));
    evt_interp_bind(in, "r", r, sizeof r - 1, 0);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_interp_last_error(in), "'r'"));
    evt_interp_bind(in, "r", r, sizeof r, 0);
    evt_interp_bind(in, "y", y, sizeof y, 1);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_INVALID_ARGUMENT);
    evt_interp_bind(in, "y", NULL, sizeof y, 2);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_ERR_UNBOUND);
    evt_interp_bind(in, "y", y, sizeof y, 2);
    assert_int_equal(evt_interp_run(in, (evt_interp_mode)7), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_run(in, EVT_INTERP_F32), EVT_OK);
    assert_string_equal(evt_interp_last_error(in), "");
    /* NULL handles */
    evt_interp *none = (evt_interp *)1;
    assert_int_equal(evt_interp_create(NULL, &none), EVT_ERR_INVALID_ARGUMENT);
    assert_null(none);
    assert_int_equal(evt_interp_run(NULL, EVT_INTERP_F32), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_bind(NULL, "r", r, 8, 0), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_param(NULL, "k", 1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_interp_set_acc(NULL, 1, 1, acc, sizeof acc, 1), EVT_ERR_INVALID_ARGUMENT);
    evt_interp_destroy(NULL);
    assert_non_null(evt_interp_last_error(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_examples_f32_vs_f64, setup, teardown),
        cmocka_unit_test_setup_teardown(test_examples_special_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bias_relu_add_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aux_amax_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dequant_rowsum_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bias_gelu_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadcasts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_and_zeros, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builtins_are_evt_math, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reductions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sum_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_speed_1024, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_place_matches_out_of_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aliasing_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rebind_replaces_the_binding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accumulator_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
