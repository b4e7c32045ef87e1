/* tunedb.c - the tuning database (see tunedb.h).
 *
 * A line: the library version, the device, its SMs, the kernel hash, the
 * sizes, the alignment, then the choice: configuration, split-K (or
 * "stream-K"), time.
 *   0.1.0<TAB>NVIDIA H200<TAB>132<TAB>9f3c...<TAB>4096,4096,4096,...<TAB>1<TAB>sm90_pp2_128x128x64_s4<TAB>1<TAB>0.2041
 * A batched launch's record (batch > 1) has the batch count as a tenth
 * field, after the time; a line of nine is a plain launch's, as lines were
 * before batches, so earlier databases keep their records.
 * A line of another library version is skipped: the configurations and the
 * kernels they time may have changed. */
#define _POSIX_C_SOURCE 200809L
#include "tunedb.h"
#include "cache.h"

#include <evt/evt.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct record {
    rt_tune_key key;
    rt_tune_choice choice;
} record;

struct rt_tunedb {
    record *records;
    size_t n, cap;
};

void rt_tunedb_path(char *path, size_t n)
{
    char dir[4096];
    path[0] = '\0';
    if (rt_cache_dir(dir, sizeof dir)) {
        int len = snprintf(path, n, "%s/tuning.tsv", dir);
        if (len < 0 || (size_t)len >= n)
            path[0] = '\0';
    }
}

/* A key's batch count; 0 (a key zeroed without one) is a plain launch, 1. */
static long long batch_of(const rt_tune_key *k)
{
    return k->batch > 1 ? k->batch : 1;
}

static int same_key(const rt_tune_key *a, const rt_tune_key *b)
{
    return a->kernel == b->kernel && a->aligned == b->aligned && a->sms == b->sms &&
           batch_of(a) == batch_of(b) &&
           memcmp(a->sizes, b->sizes, sizeof a->sizes) == 0 && strcmp(a->device, b->device) == 0;
}

/* Adds or replaces key's record. */
static int put(rt_tunedb *db, const rt_tune_key *key, const rt_tune_choice *choice)
{
    for (size_t i = 0; i < db->n; i++)
        if (same_key(&db->records[i].key, key)) {
            db->records[i].choice = *choice;
            return 1;
        }
    if (db->n == db->cap) {
        size_t cap = db->cap ? 2 * db->cap : 16;
        record *r = realloc(db->records, cap * sizeof *r);
        if (!r)
            return 0;
        db->records = r;
        db->cap = cap;
    }
    db->records[db->n++] = (record){*key, *choice};
    return 1;
}

/* One line into key and choice; 0 for a line of another version or a malformed one. */
static int parse_line(char *line, rt_tune_key *key, rt_tune_choice *choice)
{
    char *field[10] = {0};
    int nf = 0;
    for (char *p = line; nf < 10;) {
        field[nf++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (nf < 9 || strcmp(field[0], EVT_VERSION_STRING) != 0)
        return 0;
    memset(key, 0, sizeof *key);
    memset(choice, 0, sizeof *choice);
    if (strlen(field[1]) >= sizeof key->device || strlen(field[6]) >= sizeof choice->config)
        return 0;
    strcpy(key->device, field[1]);
    strcpy(choice->config, field[6]);
    char *end;
    key->sms = (int)strtol(field[2], &end, 10);
    key->kernel = strtoull(field[3], &end, 16);
    if (*end)
        return 0;
    char *p = field[4];
    for (int i = 0; i < RT_TUNE_SIZES; i++) {
        key->sizes[i] = strtoll(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0'))
            return 0;
        p = *end ? end + 1 : end;
    }
    key->aligned = atoi(field[5]);
    /* stream-K's records carry it in the split-K field (a build before it read 0: the planner's) */
    choice->stream_k = strcmp(field[7], "stream-K") == 0;
    choice->split_k = choice->stream_k ? 1 : atoi(field[7]);
    choice->ms = strtod(field[8], NULL);
    key->batch = 1;
    if (nf == 10) {
        key->batch = strtoll(field[9], &end, 10);
        if (end == field[9] || *end || key->batch < 2)
            return 0;
    }
    return choice->split_k >= 0;
}

static rt_tunedb *load(void)
{
    rt_tunedb *db = calloc(1, sizeof *db);
    char path[4200];
    rt_tunedb_path(path, sizeof path);
    FILE *f = db && path[0] ? fopen(path, "r") : NULL;
    if (!f)
        return db;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\n");
        if (line[len] != '\n' && !feof(f)) { /* longer than any record: skip all of it */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        line[len] = '\0';
        rt_tune_key key;
        rt_tune_choice choice;
        if (parse_line(line, &key, &choice) && !put(db, &key, &choice)) {
            /* not kept with records missing: the next lookup reads the file again */
            fclose(f);
            rt_tunedb_free(db);
            return NULL;
        }
    }
    fclose(f);
    return db;
}

int rt_tunedb_find(rt_tunedb **db, const rt_tune_key *key, rt_tune_choice *out)
{
    if (!*db && !(*db = load()))
        return -1;
    for (size_t i = 0; i < (*db)->n; i++)
        if (same_key(&(*db)->records[i].key, key)) {
            *out = (*db)->records[i].choice;
            return 1;
        }
    return 0;
}

int rt_tunedb_store(rt_tunedb **db, const rt_tune_key *key, const rt_tune_choice *choice)
{
    if ((!*db && !(*db = load())) || !put(*db, key, choice))
        return 0;
    char path[4200], line[1024];
    rt_tunedb_path(path, sizeof path);
    if (!path[0])
        return 1;
    if (strchr(key->device, '\t') || strchr(key->device, '\n'))
        return 2;
    int n = snprintf(line, sizeof line, "%s\t%s\t%d\t%016llx\t", EVT_VERSION_STRING, key->device,
                     key->sms, key->kernel);
    for (int i = 0; i < RT_TUNE_SIZES && n > 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%lld", i ? "," : "", key->sizes[i]);
    char split[16]; /* split-K's ways, or stream-K's word */
    snprintf(split, sizeof split, choice->stream_k ? "stream-K" : "%d", choice->split_k);
    if (n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "\t%d\t%s\t%s\t%.6g", key->aligned, choice->config,
                      split, choice->ms);
    if (n > 0 && (size_t)n < sizeof line && key->batch > 1)
        n += snprintf(line + n, sizeof line - (size_t)n, "\t%lld", key->batch);
    if (n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "\n");
    if (n <= 0 || (size_t)n >= sizeof line)
        return 2;
    /* O_APPEND: one line per write, whole, whatever other processes append.
     * A file that cannot be written (a full disk, a folder that is not one)
     * loses the record for other processes, not the run: the caller says so. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return 2;
    const ssize_t w = write(fd, line, (size_t)n);
    const int closed = close(fd) == 0;
    return w == (ssize_t)n && closed ? 1 : 2;
}

void rt_tunedb_free(rt_tunedb *db)
{
    if (db) {
        free(db->records);
        free(db);
    }
}
