/* dce.c - dead-code elimination.
 *
 * Rule: a value no output needs, directly or through other values, is
 * removed: unused lets, values that rewrites left unused, and the leaves
 * (acc, inputs, params, constants) only those read.  Exact because values
 * have no side effects: nothing but an output can observe one.
 *
 * fn->inputs, fn->params and fn->outputs stay as declared: they are the
 * kernel's launch interface, which does not depend on the optimization
 * level; an input no output needs is still bound at launch, just never read. */
#include "passes.h"

#include <stdlib.h>

void ir_pass_dce(ir_func *fn)
{
    unsigned char *live = calloc(fn->nvalues + 1, 1);
    if (!live) {
        fn->arena->failed = 1;
        return;
    }
    for (size_t i = 0; i < fn->noutputs; i++)
        live[fn->outputs[i].value->id] = 1;
    /* Users come after their operands: one backward walk marks everything. */
    for (size_t i = fn->nvalues; i-- > 0;)
        if (live[i])
            for (int j = 0; j < fn->values[i]->nargs; j++)
                live[fn->values[i]->args[j]->id] = 1;
    ir_func_compact(fn, live);
    free(live);
}
