/*
 * module_fixture.h - the cmocka fixture of the unit tests that work on a
 * parsed module: a context, the module under test and an interpreter, each
 * created by the test as it needs them and all released by teardown().
 * Include after cmocka.h and evt/evt.h.
 */
#ifndef EVT_TESTS_MODULE_FIXTURE_H
#define EVT_TESTS_MODULE_FIXTURE_H

#include <stdlib.h>

typedef struct fixture {
    evt_ctx *ctx;
    evt_module *m;
    evt_interp *in;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || !(f->ctx = evt_ctx_create())) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    evt_interp_destroy(f->in);
    evt_module_destroy(f->m);
    evt_ctx_destroy(f->ctx);
    free(f);
    return 0;
}

#endif
