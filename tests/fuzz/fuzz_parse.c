/* fuzz_parse.c - libFuzzer target for the whole front end: parse, check,
 * render the diagnostics both ways and print the IR and DOT of any input.
 * ASan/UBSan (the EVT_FUZZ build) turn memory errors and leaks into crashes. */
#include <evt/evt.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every byte of s, so that a dangling or unterminated text is caught. */
static size_t touch(const char *s)
{
    return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    evt_ctx *ctx = evt_ctx_create();
    if (!ctx)
        return 0;
    evt_module *m = NULL;
    evt_status st = evt_module_parse_buffer(ctx, "fuzz.evt", (const char *)data, size, &m);
    if ((st == EVT_OK || st == EVT_ERR_SOURCE) != (m != NULL))
        abort(); /* the documented contract of evt_module_parse_buffer */
    if (m) {
        size_t n = touch(evt_module_diag_text(m, EVT_DIAG_TEXT));
        n += touch(evt_module_diag_text(m, EVT_DIAG_JSON));
        for (size_t i = 0; i < evt_module_diag_count(m); i++)
            n += touch(evt_module_diag(m, i)->message);
        const char *ir = evt_module_ir_text(m);
        const char *dot = evt_module_dot_text(m);
        if ((st == EVT_OK) != (ir != NULL) || (st == EVT_OK) != (dot != NULL))
            abort();
        if ((st == EVT_ERR_SOURCE) != (evt_module_error_count(m) > 0))
            abort();
        n += touch(ir) + touch(dot);
        for (size_t i = 0; i < evt_module_epilogue_count(m); i++) {
            const evt_epilogue *e = evt_module_epilogue(m, i);
            if (evt_module_find_epilogue(m, evt_epilogue_name(e)) != e)
                abort(); /* epilogue names are unique in a valid module */
            for (int k = EVT_ARG_INPUT; k <= EVT_ARG_OUTPUT; k++)
                for (size_t j = 0; j < evt_epilogue_arg_count(e, (evt_arg_kind)k); j++)
                    n += touch(evt_epilogue_arg(e, (evt_arg_kind)k, j)->name);
        }
        for (size_t i = 0; i < evt_module_kernel_count(m); i++) {
            const evt_kernel *k = evt_module_kernel(m, i);
            if (evt_module_find_kernel(m, evt_kernel_name(k)) != k || !evt_kernel_epilogue(k))
                abort();
        }
        (void)n;
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    return 0;
}
