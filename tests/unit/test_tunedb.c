/* test_tunedb.c - the tuning database: records survive the process (a second
 * database reads what the first appended), the last record of a key wins,
 * keys differ in every field, lines of another library version or
 * malformed ones are skipped, and with the disk cache off records live in
 * memory only.  evt_launch_tune itself needs a GPU: tests/gpu/tune.c. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/tunedb.h"

#include <evt/evt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/evt-tunedb-%ld", (long)getpid());
    setenv("EVT_CACHE_DIR", dir, 1);
    unsetenv("EVT_DISABLE_CACHE");
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    remove(path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    remove(path);
    rmdir(dir);
    return 0;
}

static rt_tune_key key_of(long long m, long long n, long long k)
{
    rt_tune_key key;
    memset(&key, 0, sizeof key);
    key.kernel = 0x1234abcd5678ef90ull;
    key.sizes[0] = m;
    key.sizes[1] = n;
    key.sizes[2] = k;
    key.aligned = 1;
    snprintf(key.device, sizeof key.device, "NVIDIA H200");
    key.sms = 132;
    return key;
}

static rt_tune_choice choice_of(const char *config, int split, double ms)
{
    rt_tune_choice c;
    memset(&c, 0, sizeof c);
    snprintf(c.config, sizeof c.config, "%s", config);
    c.split_k = split;
    c.ms = ms;
    return c;
}

static int store(rt_tunedb **db, const rt_tune_key *key, rt_tune_choice c)
{
    return rt_tunedb_store(db, key, &c);
}

static void test_roundtrip_across_processes(void **state)
{
    (void)state;
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    assert_non_null(strstr(path, dir));
    rt_tunedb *a = NULL;
    rt_tune_key k1 = key_of(97, 83, 41), k2 = key_of(4096, 4096, 4096);
    rt_tune_choice got;
    assert_false(rt_tunedb_find(&a, &k1, &got));
    assert_true(store(&a, &k1, choice_of("sm80_64x64x32_w4_s4", 3, 0.0125)));
    assert_true(store(&a, &k2, choice_of("sm90_pp2_128x128x64_s4", 1, 0.204)));
    assert_true(store(&a, &k1, choice_of("sm80_128x64x32_w4_s4", 2, 0.011)));
    assert_true(rt_tunedb_find(&a, &k1, &got));
    assert_string_equal(got.config, "sm80_128x64x32_w4_s4");
    rt_tunedb_free(a);

    /* Another process: reads the file, the last record of k1 wins. */
    rt_tunedb *b = NULL;
    assert_true(rt_tunedb_find(&b, &k1, &got));
    assert_string_equal(got.config, "sm80_128x64x32_w4_s4");
    assert_int_equal(got.split_k, 2);
    assert_true(got.ms > 0.0109 && got.ms < 0.0111);
    assert_true(rt_tunedb_find(&b, &k2, &got));
    assert_string_equal(got.config, "sm90_pp2_128x128x64_s4");
    assert_int_equal(got.split_k, 1);
    /* Every field of the key tells keys apart. */
    rt_tune_key other = k2;
    other.sizes[2] = 4095;
    assert_false(rt_tunedb_find(&b, &other, &got));
    other = k2;
    other.aligned = 0;
    assert_false(rt_tunedb_find(&b, &other, &got));
    other = k2;
    other.sms = 114;
    assert_false(rt_tunedb_find(&b, &other, &got));
    other = k2;
    snprintf(other.device, sizeof other.device, "NVIDIA H100 80GB HBM3");
    assert_false(rt_tunedb_find(&b, &other, &got));
    other = k2;
    other.kernel ^= 1;
    assert_false(rt_tunedb_find(&b, &other, &got));
    other = k2;
    other.sizes[14] = 1; /* a conv's last size */
    assert_false(rt_tunedb_find(&b, &other, &got));
    rt_tunedb_free(b);
}

/* A stream-K plan's record: "stream-K" in the file's split-K field, read
 * back as stream-K with split-K 1; a plain record is not stream-K. */
static void test_stream_k_record(void **state)
{
    (void)state;
    rt_tunedb *a = NULL;
    rt_tune_key k = key_of(1000, 2560, 2560), plain = key_of(1000, 2560, 2561);
    rt_tune_choice c = choice_of("sm90_coop2_128x256x64_s3", 1, 0.0378);
    c.stream_k = 1;
    assert_true(store(&a, &k, c));
    assert_true(store(&a, &plain, choice_of("sm90_coop2_128x256x64_s3", 1, 0.04)));
    rt_tunedb_free(a);
    char path[512], line[1024];
    evt_tuning_db_path(path, sizeof path);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0;
    while (fgets(line, sizeof line, f))
        found += strstr(line, "1000,2560,2560,") && strstr(line, "\tsm90_coop2_128x256x64_s3\tstream-K\t") != NULL;
    fclose(f);
    assert_int_equal(found, 1);
    rt_tunedb *b = NULL;
    rt_tune_choice got;
    assert_true(rt_tunedb_find(&b, &k, &got));
    assert_string_equal(got.config, "sm90_coop2_128x256x64_s3");
    assert_int_equal(got.stream_k, 1);
    assert_int_equal(got.split_k, 1);
    assert_true(rt_tunedb_find(&b, &plain, &got));
    assert_int_equal(got.stream_k, 0);
    rt_tunedb_free(b);
}

static void test_foreign_and_broken_lines(void **state)
{
    (void)state;
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* another version, then garbage, a short line, a bad size list, a line
     * too long for the reader, then one good line */
    fprintf(f, "0.0.1\tNVIDIA H200\t132\t1234abcd5678ef90\t97,83,41,0,0,0,0,0,0,0,0,0,0,0,0,0\t1"
               "\tsm80_64x64x32_w4_s4\t1\t0.01\n");
    fprintf(f, "garbage\n\n\t\t\t\n%s\tNVIDIA H200\t132\n", evt_version());
    fprintf(f, "%s\tNVIDIA H200\t132\t1234abcd5678ef90\t97,x,41\t1\tsm80_64x64x32_w4_s4\t1\t0.01\n",
            evt_version());
    for (int i = 0; i < 3000; i++)
        fputc('x', f);
    fputc('\n', f);
    fprintf(f, "%s\tNVIDIA H200\t132\t1234abcd5678ef90\t97,83,41,0,0,0,0,0,0,0,0,0,0,0,0,0\t1"
               "\tsm80_64x64x32_w4_s4\t4\t0.01\n",
            evt_version());
    fclose(f);
    rt_tunedb *db = NULL;
    rt_tune_choice got;
    rt_tune_key k = key_of(97, 83, 41);
    assert_true(rt_tunedb_find(&db, &k, &got));
    assert_string_equal(got.config, "sm80_64x64x32_w4_s4");
    assert_int_equal(got.split_k, 4);
    rt_tunedb_free(db);
}

/* A batched GEMM's records: the batch count is part of the key, written as a
 * tenth field (a plain launch's line keeps its nine, as before batches), and
 * read back by another process; a line of nine is a batch of one. */
static void test_batch_in_the_key(void **state)
{
    (void)state;
    rt_tunedb *a = NULL;
    rt_tune_key plain = key_of(97, 83, 41), batched = plain, zeroed = plain;
    batched.batch = 64;
    plain.batch = 1;
    zeroed.batch = 0; /* a key zeroed without a batch: a plain launch's */
    rt_tune_choice got;
    assert_true(store(&a, &plain, choice_of("sm80_64x64x32_w4_s4", 1, 0.01)));
    assert_true(store(&a, &batched, choice_of("sm90_pp2_128x128x64_s4", 1, 0.2)));
    assert_true(rt_tunedb_find(&a, &zeroed, &got));
    assert_string_equal(got.config, "sm80_64x64x32_w4_s4");
    rt_tunedb_free(a);
    char path[512], line[1024];
    evt_tuning_db_path(path, sizeof path);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int fields[2] = {0, 0};
    for (int i = 0; i < 2 && fgets(line, sizeof line, f); i++) {
        fields[i] = 1;
        for (const char *c = line; *c; c++)
            fields[i] += *c == '\t';
    }
    fclose(f);
    assert_int_equal(fields[0], 9);
    assert_int_equal(fields[1], 10);
    rt_tunedb *b = NULL;
    assert_true(rt_tunedb_find(&b, &batched, &got));
    assert_string_equal(got.config, "sm90_pp2_128x128x64_s4");
    assert_true(rt_tunedb_find(&b, &plain, &got));
    assert_string_equal(got.config, "sm80_64x64x32_w4_s4");
    rt_tune_key other = batched;
    other.batch = 63;
    assert_false(rt_tunedb_find(&b, &other, &got));
    rt_tunedb_free(b);
    /* a tenth field that is no batch count: the line is skipped */
    f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "%s\tNVIDIA H200\t132\t1234abcd5678ef90\t5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0\t1"
               "\tsm80_64x64x32_w4_s4\t1\t0.01\t1\n",
            evt_version());
    fclose(f);
    rt_tunedb *c = NULL;
    rt_tune_key five = key_of(5, 5, 5);
    assert_false(rt_tunedb_find(&c, &five, &got));
    rt_tunedb_free(c);
}

static void test_disk_cache_off(void **state)
{
    (void)state;
    setenv("EVT_DISABLE_CACHE", "1", 1);
    char path[512] = "x";
    evt_tuning_db_path(path, sizeof path);
    assert_string_equal(path, "");
    rt_tunedb *db = NULL;
    rt_tune_key k = key_of(1, 2, 3);
    rt_tune_choice got;
    assert_true(store(&db, &k, choice_of("sm80_64x64x32_w4_s4", 1, 1.0)));
    assert_true(rt_tunedb_find(&db, &k, &got));
    rt_tunedb_free(db);
    db = NULL;
    assert_false(rt_tunedb_find(&db, &k, &got)); /* memory only */
    rt_tunedb_free(db);
    unsetenv("EVT_DISABLE_CACHE");
}

/* A file that cannot be written (here a folder in its place, which stops
 * root too): the record is kept in memory, and the store says it is there
 * only (2), so that evt_launch_tune's caller is not told it was saved. */
static void test_file_not_written(void **state)
{
    (void)state;
    rt_tunedb *db = NULL;
    rt_tune_key k = key_of(7, 8, 9);
    rt_tune_choice got;
    assert_int_equal(store(&db, &k, choice_of("sm80_64x64x32_w4_s4", 1, 1.0)), 1);
    rt_tunedb_free(db);
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    assert_int_equal(remove(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    db = NULL;
    assert_int_equal(store(&db, &k, choice_of("sm80_64x64x32_w4_s4", 2, 0.5)), 2);
    assert_int_equal(rt_tunedb_find(&db, &k, &got), 1);
    assert_int_equal(got.split_k, 2);
    rt_tunedb_free(db);
    db = NULL;
    assert_int_equal(rt_tunedb_find(&db, &k, &got), 0); /* another process finds nothing */
    rt_tunedb_free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_across_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_k_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_and_broken_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disk_cache_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_in_the_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_not_written, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
