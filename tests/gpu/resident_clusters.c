/*
 * resident_clusters.c - the clusters of two and of four CTAs that a launch
 * asks the driver for before planning (launch.c's device_clusters: a probe
 * entry at one CTA an SM), against what the driver says of the clustered
 * conv kernels themselves.  A layer of more stacks of M tiles than fit,
 * forced onto the ping-pong 128x128 tile in clusters of two and of four,
 * runs a grid of every resident cluster (plan_fit_clusters, from
 * cuOccupancyMaxActiveClusters of the loaded kernel): 2 x the probe's pairs
 * and 4 x its fours.  The odd-8 rule (plan/sm90_conv.c) weighs rounds of the
 * probe's counts, so a probe that counted otherwise than the kernels would
 * put layers in the wrong cluster size.
 *
 * The run's results are not read: what is checked is the grid launched.
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU, or not sm_90a.
 */
#include "api/launch.h"

#include <evt/evt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] = "epilogue e {\n"
                             "    in  bias : f16[N]\n"
                             "    out y    : f16[M, N] = relu(acc + bias)\n"
                             "}\n"
                             "kernel k = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

/* 64 x 56 x 56 pixels: 1568 M tiles of 128, 784 stacks of two and 392 of
 * four, more than any GPU holds; c = 64 takes the TMA maps. */
static const evt_conv_problem layer = {64, 56, 56, 64, 128, 3, 3, 1, 1, 1, 1, 1, 1};

static int failures;

/* The grid of l's last run ("... grid G splits ..."), or -1. */
static long long grid_of(evt_launch *l)
{
    const char *p = evt_launch_plan(l);
    const char *g = p ? strstr(p, " grid ") : NULL;
    return g ? atoll(g + 6) : -1;
}

int main(void)
{
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    evt_launch *l = NULL;
    void *x = NULL, *w = NULL, *bias = NULL, *y = NULL;
    evt_status st = ctx ? EVT_OK : EVT_ERR_NO_MEMORY;
    evt_target target = EVT_TARGET_SM80;
    if (st == EVT_OK)
        st = evt_device_target(ctx, &target, NULL, 0);
    if (st == EVT_ERR_NO_GPU || (st == EVT_OK && target != EVT_TARGET_SM90A)) {
        printf("resident_clusters: %s: skipped\n", st == EVT_OK ? "not an sm_90a device" : "no GPU");
        evt_ctx_destroy(ctx);
        return 77;
    }
    const long long pq = 56, mn = layer.n * pq * pq * layer.k;
    const size_t x_bytes = (size_t)(layer.n * layer.h * layer.w * layer.c) * 2;
    const size_t w_bytes = (size_t)(layer.k * layer.r * layer.s * layer.c) * 2;
    if (st == EVT_OK)
        st = evt_module_parse_buffer(ctx, "resident.evt", source, strlen(source), &m);
    if (st == EVT_OK)
        st = evt_launch_create(m, evt_module_find_kernel(m, "k"), &l);
    if (st == EVT_OK)
        st = evt_device_alloc(ctx, x_bytes, &x);
    if (st == EVT_OK)
        st = evt_device_alloc(ctx, w_bytes, &w);
    if (st == EVT_OK)
        st = evt_device_alloc(ctx, (size_t)layer.k * 2, &bias);
    if (st == EVT_OK)
        st = evt_device_alloc(ctx, (size_t)mn * 2, &y);
    if (st == EVT_OK)
        st = evt_launch_set_conv(l, &layer, x, x_bytes, w, w_bytes);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "bias", bias, (size_t)layer.k * 2, 0);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "y", y, (size_t)mn * 2, layer.k);
    launch_view v;
    plan_problem prob;
    rt_tune_key key;
    if (st == EVT_OK)
        st = launch_problem(l, &v, &prob, &key);
    if (st != EVT_OK)
        goto done;
    printf("resident_clusters: the probe: %d of two, %d of four\n", prob.resident.pairs, prob.resident.fours);
    if (prob.resident.pairs < 1 || prob.resident.fours < 1) {
        fprintf(stderr, "resident_clusters: the probe gave no counts on an sm_90a device\n");
        failures++;
    }
    static const struct {
        const char *config;
        int size;
    } forced[] = {{"sm90_pp2_cl2_128x128x64_s4", 2}, {"sm90_pp2_cl4_128x128x64_s4", 4}};
    for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++) {
        const evt_tuning t = {.config = forced[i].config};
        if ((st = evt_launch_set_tuning(l, &t)) != EVT_OK || (st = evt_launch_run(l, NULL)) != EVT_OK ||
            (st = evt_device_synchronize(ctx)) != EVT_OK)
            goto done;
        const long long want = (long long)forced[i].size * (forced[i].size == 2 ? prob.resident.pairs
                                                                                 : prob.resident.fours);
        const long long got = grid_of(l);
        printf("resident_clusters: %s: grid %lld, the probe's %lld\n", forced[i].config, got, want);
        if (got != want) {
            fprintf(stderr, "resident_clusters: %s ran a grid of %lld CTAs; the probe counted %lld (%s)\n",
                    forced[i].config, got, want, evt_launch_plan(l));
            failures++;
        }
    }
done:
    if (st != EVT_OK) {
        fprintf(stderr, "resident_clusters: %s: %s\n", evt_status_string(st), evt_ctx_last_error(ctx));
        failures++;
    }
    evt_device_free(ctx, x);
    evt_device_free(ctx, w);
    evt_device_free(ctx, bias);
    evt_device_free(ctx, y);
    evt_launch_destroy(l);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    printf("resident_clusters: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
