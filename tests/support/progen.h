/* progen.h - random .evt programs and random data for the tests and fuzzers.
 *
 * One generator, so the property test, the pipeline fuzzer and the GPU
 * differential fuzzer cover the same language: DAGs over every builtin (found
 * in the op table, so new builtins are covered without edits here), operators,
 * ?: with comparisons, inputs of every shape and element type, params with and
 * without defaults, lets used several times, several outputs, reductions of
 * every kind and axis, and templates the simplifier's rules match.
 *
 * Everything is deterministic in the seed: program i of a run is seed + i, so
 * a failure reproduces from one number. */
#ifndef EVT_TESTS_PROGEN_H
#define EVT_TESTS_PROGEN_H

#include <evt/evt.h>

#include <stddef.h>
#include <stdint.h>

/* splitmix64: small, fast, and every seed gives a full-period stream.
 *
 * A fuzzer's rng draws from its input bytes first (pg_rng_bytes), so that
 * libFuzzer's byte mutations become changes of the generator's choices, one
 * choice per byte or few; when they run out it goes on as splitmix from its
 * seed.  `{.s = seed}`, with no bytes, is the plain splitmix stream. */
typedef struct pg_rng {
    unsigned long long s; /* splitmix state (support/splitmix.h) */
    const uint8_t *bytes; /* drawn from first; NULL or none left: splitmix */
    size_t nbytes, pos;
} pg_rng;

/* An rng that draws from bytes[0..n) (borrowed, must outlive it), then
 * from splitmix at seed. */
pg_rng pg_rng_bytes(const uint8_t *bytes, size_t n, uint64_t seed);
uint64_t pg_next(pg_rng *r);
unsigned pg_below(pg_rng *r, unsigned n); /* in [0, n); n > 0 */
int pg_chance(pg_rng *r, unsigned percent);

enum { PG_MAX_NAMES = 48, PG_MAX_SRC = 1 << 16 };

typedef struct pg_gen {
    pg_rng r;
    char src[PG_MAX_SRC];
    size_t len;
    int overflow; /* src filled up: the program was cut and must not be used */
    char names[PG_MAX_NAMES][16]; /* names usable in expressions */
    int nnames;
} pg_gen;

/* Appends printf-formatted text to g->src (sets g->overflow when it does not fit). */
void pg_put(pg_gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A random epilogue named `g` from `seed`, replacing g->src; the caller
 * appends the kernel that uses it (pg_program does both). */
void pg_epilogue(pg_gen *g, uint64_t seed);
/* As pg_epilogue, drawing from the rng r (pg_rng_bytes: a fuzzer's input). */
void pg_epilogue_rng(pg_gen *g, pg_rng r);

/* pg_epilogue and `kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g`. */
void pg_program(pg_gen *g, uint64_t seed);

/* f32 values on the edges: zeros, infinities, NaNs of both signs with
 * payloads, subnormals, the largest and smallest normals, values near the
 * builtins' thresholds; otherwise random bits or small numbers. */
float pg_f32(pg_rng *r);

/* n random elements of type elem: f32 from pg_f32, the other types as raw
 * bits (every NaN, infinity and subnormal encoding among them). */
void pg_fill(pg_rng *r, evt_elem elem, void *dst, size_t n);

#endif
