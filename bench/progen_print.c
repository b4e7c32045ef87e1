/* progen_print.c - writes the random programs of tests/support/progen.c for
 * seeds [FIRST, LAST) into DIR as pSEED.evt (kernel `k`), so a benchmark can
 * run programs nobody wrote for it (bench/heavy_probe.sh builds and runs it).
 * With --classes, it also parses each and prints a line for each that
 * parses: its path, then what the planner reads of kernel k's epilogue
 * (optimized, as evtc leaves it):
 * the costly (IR_COSTLY) [M, N] values, the reductions, the [M, N] inputs
 * read, the outputs, and whether plan_heavy_epilogue calls it heavy (0/1),
 * the planner's own answer rather than a restatement of it.
 *
 *     progen_print FIRST LAST DIR [--classes] */
#include "tests/support/progen.h"

#include "ir/ir.h"
#include "ir/ops.h"
#include "plan/plan.h"

#include <evt/evt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The class line of the program at path, or nothing where it does not parse or has no kernel k. */
static void classes(evt_ctx *ctx, const char *path)
{
    evt_module *m = NULL;
    /* optimized as evtc and the binding leave it before they plan (-O2) */
    if (evt_module_parse_file(ctx, path, &m) != EVT_OK || evt_module_optimize(m, 2) != EVT_OK) {
        evt_module_destroy(m);
        return;
    }
    const ir_kernel *k = evt_module_find_kernel(m, "k");
    if (k) {
        const ir_func *fn = k->epilogue;
        int costly = 0, reductions = 0, mn = 0;
        for (size_t j = 0; j < fn->nvalues; j++) {
            unsigned flags = ir_op_get(fn->values[j]->op)->flags;
            costly += (flags & IR_COSTLY) && fn->values[j]->shape == EVT_SHAPE_MN;
            reductions += (flags & IR_REDUCE) != 0;
        }
        for (size_t i = 0; i < fn->ninputs; i++)
            mn += fn->inputs[i].info.shape == EVT_SHAPE_MN && ir_func_reads_input(fn, i);
        printf("%s %d %d %d %zu %d\n", path, costly, reductions, mn, fn->noutputs, plan_heavy_epilogue(fn));
    }
    evt_module_destroy(m);
}

int main(int argc, char **argv)
{
    int list = argc == 5 && strcmp(argv[4], "--classes") == 0;
    if (argc != 4 && !list) {
        fprintf(stderr, "usage: progen_print FIRST LAST DIR [--classes]\n");
        return 2;
    }
    unsigned long long first = strtoull(argv[1], NULL, 10), last = strtoull(argv[2], NULL, 10);
    static pg_gen g; /* 64 KB of source: not on the stack */
    evt_ctx *ctx = list ? evt_ctx_create() : NULL;
    if (list && !ctx) {
        fprintf(stderr, "progen_print: no context (out of memory)\n");
        return 1;
    }
    for (unsigned long long s = first; s < last; s++) {
        pg_program(&g, s);
        if (g.overflow)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/p%llu.evt", argv[3], s);
        FILE *f = fopen(path, "w");
        if (!f || fputs(g.src, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "progen_print: cannot write %s\n", path);
            evt_ctx_destroy(ctx);
            return 1;
        }
        if (list)
            classes(ctx, path);
    }
    evt_ctx_destroy(ctx);
    return 0;
}
