/* tunedb.h - measured tile selections, kept on disk beside the kernel cache.
 *
 * A tuning run times the configurations that can run one kernel on one
 * problem and records the fastest; later launches of that kernel, problem
 * and device take the record instead of the heuristic's pick.  The file is
 * text, one record per line, appended (one write(2) of one line, so several
 * processes may tune at once); the last record of a key wins. */
#ifndef EVT_RUNTIME_TUNEDB_H
#define EVT_RUNTIME_TUNEDB_H

#include <stddef.h>

enum { RT_TUNE_SIZES = 16 };

/* What a record is for.  Shapes are exact, not bucketed: a configuration
 * that wins at one size can lose badly a few rows away (a partial wave). */
typedef struct rt_tune_key {
    unsigned long long kernel; /* a hash of the kernel's IR and operands */
    long long sizes[RT_TUNE_SIZES]; /* the mainloop's problem, unused ones 0 */
    long long batch;                /* problems of a batched launch; 1 (or 0): a plain one */
    int aligned;                    /* the fast path's alignment held */
    char device[96];                /* cuDeviceGetName */
    int sms;
} rt_tune_key;

typedef struct rt_tune_choice {
    char config[48]; /* a tile configuration's name */
    int split_k;     /* as evt_tuning's: 1 never, n >= 2 n ways */
    int stream_k;    /* 1: stream-K (the file's split-K field reads "stream-K") */
    double ms;       /* its median time when tuned */
} rt_tune_choice;

typedef struct rt_tunedb rt_tunedb;

/* The records of *db (read from the file on first use; an empty database
 * when the disk cache is off or the file is missing) for key: 1 and *out,
 * 0, or -1 when memory ran out reading the file (read again next time). */
int rt_tunedb_find(rt_tunedb **db, const rt_tune_key *key, rt_tune_choice *out);
/* Records choice for key in *db and appends it to the file (which a disk
 * cache that is off skips: the record then lives as long as *db).  1, or 2
 * where the file could not be written (the record lives in *db only), or 0
 * when out of memory. */
int rt_tunedb_store(rt_tunedb **db, const rt_tune_key *key, const rt_tune_choice *choice);
/* The file's path ("" when the disk cache is off). */
void rt_tunedb_path(char *path, size_t n);
void rt_tunedb_free(rt_tunedb *db);

#endif
