/* progen_print.c - writes the random programs of tests/support/progen.c for
 * seeds [FIRST, LAST) into DIR as pSEED.evt (kernel `k`), so a benchmark can
 * run programs nobody wrote for it (bench/heavy_probe.sh builds and runs it).
 *
 *     progen_print FIRST LAST DIR */
#include "tests/support/progen.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: progen_print FIRST LAST DIR\n");
        return 2;
    }
    unsigned long long first = strtoull(argv[1], NULL, 10), last = strtoull(argv[2], NULL, 10);
    static pg_gen g; /* 64 KB of source: not on the stack */
    for (unsigned long long s = first; s < last; s++) {
        pg_program(&g, s);
        if (g.overflow)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/p%llu.evt", argv[3], s);
        FILE *f = fopen(path, "w");
        if (!f || fputs(g.src, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "progen_print: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
