/* shrink.c - delta debugging over a case's lines and numbers (see shrink.h). */
#define _POSIX_C_SOURCE 200809L
#include "shrink.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One line of a program: where it starts, its length (newline included), and
 * for a statement the name it defines and whether it is an output. */
typedef struct line {
    const char *text;
    size_t len;
    int statement, output;
    const char *name;
    size_t name_len;
} line;

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static size_t ident_len(const char *p, const char *end)
{
    size_t n = 0;
    if (p < end && (isalpha((unsigned char)*p) || *p == '_'))
        while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_'))
            n++;
    return n;
}

/* Splits src into lines (*out, malloc'd); the count, or -1 without memory. */
static int split_lines(const char *src, line **out)
{
    int cap = 16, n = 0;
    line *v = malloc(sizeof *v * (size_t)cap);
    for (const char *p = src; v && *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl + 1 : p + strlen(p);
        if (n == cap) {
            line *bigger = realloc(v, sizeof *v * (size_t)(cap *= 2));
            if (!bigger) {
                free(v);
                return -1;
            }
            v = bigger;
        }
        line *l = &v[n++];
        memset(l, 0, sizeof *l);
        l->text = p;
        l->len = (size_t)(end - p);
        /* stmt -> ("in" | "param" | "let" | "out") IDENT ... */
        const char *q = skip_blanks(p, end);
        size_t kw = ident_len(q, end);
        static const char *const keywords[] = {"in", "param", "let", "out"};
        for (int k = 0; k < 4; k++)
            if (kw == strlen(keywords[k]) && strncmp(q, keywords[k], kw) == 0) {
                const char *name = skip_blanks(q + kw, end);
                size_t len = ident_len(name, end);
                if (len) {
                    l->statement = 1;
                    l->output = k == 3;
                    l->name = name;
                    l->name_len = len;
                }
            }
        p = end;
    }
    *out = v;
    return v ? n : -1;
}

int shrink_statements(const char *src)
{
    line *v;
    int n = split_lines(src, &v), count = 0;
    for (int i = 0; i < n; i++)
        count += v[i].statement;
    free(v);
    return count;
}

/* Whether the identifier [p, p + n) is the name of a dropped statement. */
static int dropped_name(const line *v, int n, const unsigned char *dropped, const char *p, size_t len)
{
    for (int i = 0; i < n; i++)
        if (dropped[i] && v[i].name_len == len && strncmp(v[i].name, p, len) == 0)
            return 1;
    return 0;
}

/* Appends line l to out, each use of a dropped name replaced by `acc`. */
static char *put_line(char *out, const line *l, const line *v, int n, const unsigned char *dropped)
{
    const char *p = l->text, *end = l->text + l->len;
    while (p < end) {
        if (isdigit((unsigned char)*p) || (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
            /* A number, its exponent included, so that 1e30's e30 is no name. */
            const char *s = p;
            while (p < end && (isdigit((unsigned char)*p) || *p == '.'))
                p++;
            if (p < end && (*p == 'e' || *p == 'E')) {
                const char *q = p + 1;
                if (q < end && (*q == '+' || *q == '-'))
                    q++;
                if (q < end && isdigit((unsigned char)*q))
                    for (p = q; p < end && isdigit((unsigned char)*p);)
                        p++;
            }
            memcpy(out, s, (size_t)(p - s));
            out += p - s;
        } else if (ident_len(p, end)) {
            size_t len = ident_len(p, end);
            if (l->statement && dropped_name(v, n, dropped, p, len)) {
                memcpy(out, "acc", 3);
                out += 3;
            } else {
                memcpy(out, p, len);
                out += len;
            }
            p += len;
        } else {
            *out++ = *p++;
        }
    }
    return out;
}

/* shrink_drop over split lines; `drop` has one flag per line here. */
static char *rebuild(const line *v, int n, const unsigned char *drop_line)
{
    size_t total = 1;
    for (int i = 0; i < n; i++)
        total += v[i].len * 3 + 8; /* a name of 1 character becomes "acc" */
    char *out = malloc(total), *p = out;
    for (int i = 0; out && i < n; i++)
        if (!drop_line[i])
            p = put_line(p, &v[i], v, n, drop_line);
    if (out)
        *p = '\0';
    return out;
}

char *shrink_drop(const char *src, const unsigned char *drop)
{
    line *v;
    int n = split_lines(src, &v);
    if (n < 0)
        return NULL;
    unsigned char *flags = calloc((size_t)n + 1, 1);
    char *out = NULL;
    if (flags) {
        for (int i = 0, s = 0; i < n; i++)
            if (v[i].statement)
                flags[i] = drop[s++];
        out = rebuild(v, n, flags);
    }
    free(flags);
    free(v);
    return out;
}

typedef struct run {
    shrink_fails_fn *fails;
    void *user;
    const shrink_budget *budget;
    shrink_stats *stats;
    struct timespec start;
} run;

static int budget_left(run *r)
{
    if (r->budget->max_probes > 0 && r->stats->probes >= r->budget->max_probes)
        return 0;
    if (r->budget->max_seconds > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double s = (double)(now.tv_sec - r->start.tv_sec) + 1e-9 * (double)(now.tv_nsec - r->start.tv_nsec);
        if (s >= r->budget->max_seconds)
            return 0;
    }
    return 1;
}

static int probe(run *r, const char *src, const long long *value)
{
    r->stats->probes++;
    return r->fails(r->user, src, value);
}

/*
 * ddmin over the statement lines of c->src: removes the complement's chunk
 * that keeps the failure, with chunks halving when none does.  Returns 0
 * without memory.
 */
static int drop_lines(run *r, shrink_case *c)
{
    line *v;
    int n = split_lines(c->src, &v);
    if (n < 0)
        return 0;
    unsigned char *drop = calloc((size_t)n + 1, 1), *cand = calloc((size_t)n + 1, 1);
    int *alive = malloc(sizeof *alive * ((size_t)n + 1));
    int ok = drop && cand && alive;
    int chunks = 2;
    while (ok && budget_left(r)) {
        int nalive = 0;
        for (int i = 0; i < n; i++)
            if (v[i].statement && !drop[i])
                alive[nalive++] = i;
        if (nalive == 0)
            break;
        if (chunks > nalive)
            chunks = nalive;
        const int size = (nalive + chunks - 1) / chunks;
        int progressed = 0;
        for (int ch = 0; ch * size < nalive && !progressed && budget_left(r); ch++) {
            memcpy(cand, drop, (size_t)n);
            for (int j = ch * size; j < nalive && j < (ch + 1) * size; j++)
                cand[alive[j]] = 1;
            int outputs = 0;
            for (int i = 0; i < n; i++)
                outputs += v[i].output && !cand[i];
            if (!outputs)
                continue;
            char *src = rebuild(v, n, cand);
            if (!src) {
                ok = 0;
                break;
            }
            if (probe(r, src, c->value)) {
                memcpy(drop, cand, (size_t)n);
                progressed = 1;
            }
            free(src);
        }
        if (progressed)
            chunks = chunks > 2 ? chunks - 1 : 2;
        else if (chunks >= nalive)
            break;
        else
            chunks = chunks * 2 < nalive ? chunks * 2 : nalive;
    }
    char *src = ok ? rebuild(v, n, drop) : NULL;
    if (src) {
        free(c->src);
        c->src = src;
    }
    free(drop);
    free(cand);
    free(alive);
    free(v);
    return src != NULL;
}

/* Each number towards its lower bound: the bound itself, halfway, one less. */
static void shrink_values(run *r, shrink_case *c)
{
    for (int changed = 1; changed && budget_left(r);) {
        changed = 0;
        for (int i = 0; i < c->nvalues && budget_left(r); i++) {
            const long long v = c->value[i], lo = c->lo[i];
            if (v <= lo)
                continue;
            const long long tries[3] = {lo, lo + (v - lo) / 2, v - 1};
            for (int t = 0; t < 3 && budget_left(r); t++) {
                if (t > 0 && (tries[t] == tries[t - 1] || tries[t] <= lo))
                    continue;
                long long cand[SHRINK_MAX_VALUES];
                memcpy(cand, c->value, sizeof cand);
                cand[i] = tries[t];
                if (probe(r, c->src, cand)) {
                    c->value[i] = tries[t];
                    changed = 1;
                    break;
                }
            }
        }
    }
}

int shrink_run(shrink_case *c, shrink_fails_fn *fails, void *user, const shrink_budget *budget,
               shrink_stats *stats)
{
    run r = {fails, user, budget, stats, {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &r.start);
    memset(stats, 0, sizeof *stats);
    stats->lines_before = shrink_statements(c->src);
    /* Lines first (fewer values make each probe cheaper), then numbers,
     * then lines again: a smaller problem may need fewer of them. */
    int ok = drop_lines(&r, c);
    if (ok) {
        shrink_values(&r, c);
        ok = drop_lines(&r, c);
    }
    stats->lines_after = shrink_statements(c->src);
    stats->out_of_budget = !budget_left(&r);
    return ok;
}
