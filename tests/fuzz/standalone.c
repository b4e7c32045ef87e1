/* standalone.c - main() for a fuzz target built without libFuzzer (any
 * compiler, the Debug and ASan builds): replays the files and folders given,
 * then runs the inputs of `--seeds N` generated seeds, so ctest can check a
 * corpus, and a failing input reproduces without clang.
 *
 *   fuzz_NAME_replay [--seeds N] [--first S] [FILE | FOLDER]...
 *
 * Seeds need the target's fuzz_seed_input (fuzz_pipeline has one; without
 * one --seeds is ignored).  A
 * failure is the target's abort() or a sanitizer's report, as under
 * libFuzzer; the last line says how many inputs ran and how fast. */
#define _POSIX_C_SOURCE 200809L /* opendir, clock_gettime */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Writes the input of seed `seed` into buf (cap bytes), returns its size;
 * weak, so that targets without a generator link too. */
__attribute__((weak)) size_t fuzz_seed_input(uint64_t seed, uint8_t *buf, size_t cap);

static unsigned long long inputs;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *p = realloc(buf, cap *= 2);
            if (!p)
                free(buf);
            buf = p;
        }
    }
    int err = ferror(f) || !buf;
    fclose(f);
    if (err) {
        fprintf(stderr, "cannot read %s\n", path);
        free(buf);
        return 1;
    }
    /* an exact copy, so that ASan sees a read past the input's end */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact)
        return 1;
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    inputs++;
    return 0;
}

static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "cannot find %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    int err = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(len);
        if (!child) {
            err = 1;
            break;
        }
        snprintf(child, len, "%s/%s", path, e->d_name);
        err |= replay(child);
        free(child);
    }
    closedir(d);
    return err;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long long seeds = 0, first = 1;
    int err = 0;
    double start = now();
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "--seeds") == 0 || strcmp(argv[i], "--first") == 0) && i + 1 < argc) {
            *(argv[i][2] == 's' ? &seeds : &first) = strtoull(argv[i + 1], NULL, 0);
            i++;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [--seeds N] [--first S] [FILE | FOLDER]...\n", argv[0]);
            return 2;
        } else {
            err |= replay(argv[i]);
        }
    }
    if (seeds && !fuzz_seed_input) { /* so that one ctest line serves every target */
        printf("no generator in this target: --seeds ignored\n");
        seeds = 0;
    }
    uint8_t buf[64];
    for (unsigned long long s = first; s < first + seeds; s++) {
        size_t n = fuzz_seed_input(s, buf, sizeof buf);
        LLVMFuzzerTestOneInput(buf, n);
        inputs++;
    }
    /* the CPU time too: on a shared machine it is the steadier figure */
    double secs = now() - start, cpu = (double)clock() / CLOCKS_PER_SEC;
    printf("%llu inputs in %.2f s (%.0f/s), %.2f s of CPU (%.0f/s)%s\n", inputs, secs,
           secs > 0 ? (double)inputs / secs : 0.0, cpu, cpu > 0 ? (double)inputs / cpu : 0.0,
           err ? "; some files could not be read" : "");
    return err;
}
