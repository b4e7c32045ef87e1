/*
 * plan.h - deciding what runs: the targets' capabilities, the tile
 * configurations (kernels/tile_configs.h as data), whether a configuration
 * can run a kernel on a problem (fp8 operands on fp8 configurations and
 * targets only), the heuristic, split-K and the fallback
 * when the driver refuses a TMA map.
 *
 * Sits between ir/ and codegen/ + runtime/: codegen asks it which
 * configurations a kernel's full listing holds, the runtime asks it for a
 * launch's plan; neither chooses on its own.  Pure functions over const
 * tables: no state, no environment, no driver.
 */
#ifndef EVT_PLAN_PLAN_H
#define EVT_PLAN_PLAN_H

#include "evt/evt.h"
#include "../ir/ir.h"
#include "../kernels/tile_configs.h"

/* ---- targets: what each sm_XX can do ---------------------------------- */

typedef struct plan_target {
    evt_target target;    /* its spellings: support/names.c */
    int cc;               /* compute capability, 90 */
    int wgmma;            /* warpgroup MMAs (sm_90a) */
    int tma;              /* tensor-memory-accelerator copies and mbarrier tx counts */
    int fp8;              /* fp8 tensor-core operands */
    int smem_per_block;   /* most dynamic shared memory a CTA may opt into, bytes */
    int sms_default;      /* SMs assumed when the device does not say (plans for --emit) */
} plan_target;

/* The capabilities of target t; NULL for a value outside evt_target. */
const plan_target *plan_target_info(evt_target t);

/* ---- the tile configurations ------------------------------------------ */

typedef struct plan_config {
    enum evt_tile_id id; /* its row in kernels/tile_configs.h */
    const char *name;    /* "sm90_pp2_128x128x64_s4" */
    unsigned mainloops;  /* EVT_TILE_GEMM | EVT_TILE_CONV */
    int wgmma;           /* warpgroup MMAs (EVT_TILE_WGMMA, EVT_TILE_WGMMA_FP8) */
    int op_bytes;        /* operand bytes its MMAs take: 2 (f16, bf16) or 1 (fp8) */
    int swapped;         /* EVT_TILE_SWAPPED: B's rows as wgmma's M (K-contiguous operands only) */
    int bm, bn, bk, warps_m, warps_n, stages, min_blocks, ws, pp, staged, coop;
    int cluster;    /* CTAs of a thread-block cluster: 1, or 2 or 4 on top of each other */
    int threads;    /* EVT_TILE_THREADS */
    int sum_threads; /* EVT_TILE_SUM_THREADS: a split-K sum CTA's */
    int smem_bytes; /* EVT_TILE_SMEM_BYTES */
} plan_config;

/* The table, in tile_configs.h's order: plan_configs[EVT_TILE_<name>]. */
extern const plan_config plan_configs[EVT_TILE_COUNT];
/* A configuration by name; NULL if none has it. */
const plan_config *plan_config_find(const char *name);
/* Whether c keeps a persistent grid (warp-specialized or producer/consumer):
 * one CTA per slot walking tiles, never split. */
int plan_config_persistent(const plan_config *c);
/* Whether c's producer/consumer consumers share each tile (cooperative)
 * rather than take whole tiles in turn (ping-pong). */
int plan_config_coop(const plan_config *c);
/* Whether c runs stream-K (plan.sk_iters): the cooperative configurations
 * (evt_sm90::coop_run), with clusters or without, GEMM and conv. */
int plan_config_stream_k(const plan_config *c);
/* Whether c is one of mainloop ml's configurations (tile_configs.h's
 * mainloops column); NULL if it is, else why not. */
const char *plan_config_mainloop_refusal(const plan_config *c, evt_mainloop ml);
/* Output tiles of an m x n problem. */
long long plan_config_tiles(const plan_config *c, long long m, long long n);

/* ---- a kernel on a problem -------------------------------------------- */

/* What the planner needs to know of a kernel; plan_kernel_of fills it from the IR. */
typedef struct plan_kernel {
    evt_mainloop mainloop;
    int k_contiguous; /* both operands K-contiguous (A row-major, B column-major; every conv) */
    int stageable;    /* the epilogue reads a 16-bit [M, N] input a staged configuration can stage */
    int fp8;          /* fp8 operands (e4m3, e5m2): fp8 configurations, fp8 targets only */
    int light;        /* plan_light_epilogue */
    int per_element;  /* plan_per_element_epilogue */
    int broadcast;    /* plan_broadcast_input: the epilogue reads an [M] or [N] input */
    int fast_light;   /* plan_fast_light_epilogue, and the kernel built under fast math */
    /* the multiple of 16-byte pieces every output's rows (and 2-element
     * pairs every [N] input's) come in, in columns: where N is one, a
     * GEMM's last tile column can run shifted to N - BN in registers
     * (plan.direct_tiles); 0: never */
    int shift_cols;
    int heavy; /* plan_heavy_epilogue */
} plan_kernel;

/* The planner's view of kernel k. */
plan_kernel plan_kernel_of(const ir_kernel *k);
/* Whether target t can run kernel k at all (fp8 operands need sm_89 or
 * sm_90a): NULL, or why not (a static sentence naming what is missing). */
const char *plan_kernel_target_refusal(const plan_kernel *k, evt_target t);
/* The epilogue input a staged configuration copies into shared memory ahead
 * of the epilogue: the first [M, N] f16 or bf16 input the epilogue reads;
 * -1 if none. */
int plan_staged_input(const ir_func *fn);
/* Whether epilogue fn is light: a few instructions an element, no costly
 * builtin (IR_COSTLY in ir/ops.h: gelu, gelu_tanh, silu, sigmoid, tanh,
 * exp, log, 19 to 50 each), no reduction, and no [M, N] input to wait for.  The
 * heuristic gives such an epilogue the four-stage cooperative tile, whose
 * narrower epilogue sub-tiles slowed a GELU's and a residual's
 * (docs/sm90.md). */
int plan_light_epilogue(const ir_func *fn);
/* The columns (2, 4, 8 or 16) whose multiples keep every [M, N] output's
 * rows in whole 16-byte pieces and every [N] input in pairs: where a
 * shifted last tile column (evt_sm90::tile_col) starts on one, the direct
 * epilogue's staged instance runs it (plan_kernel.shift_cols). */
int plan_shift_cols(const ir_func *fn);
/* Whether epilogue fn is per element and its costly builtins are all
 * gelu_tanh or silu, which fast math computes on the approximate ex2 and
 * rcp (x sigmoid(2u), x sigmoid(x); kernels/common/fast_math.h), a few
 * instructions an element: cheap enough under fast math that the
 * heuristic treats such an epilogue apart from the exact GELU's (at mid K,
 * the ping-pong tile; docs/sm90.md, session 44).  tanh stays exact under
 * fast math, and the erf GELU's polynomial stays (measured: still costly);
 * sigmoid and exp alone were not measured. */
int plan_fast_light_epilogue(const ir_func *fn);
/* plan_kernel_of for a kernel built with fast math on or off (fast_light). */
plan_kernel plan_kernel_built(const ir_kernel *k, int fast_math);
/* Whether epilogue fn reads an [M] or [N] input (a bias, a row scale). */
int plan_broadcast_input(const ir_func *fn);
/* Whether epilogue fn computes each output element from its accumulator and
 * broadcast inputs alone: no reduction, no [M, N] input (a light epilogue,
 * or one with costly builtins).  At long K the heuristic gives such an
 * epilogue the four-stage cooperative tile too (docs/sm90.md). */
int plan_per_element_epilogue(const ir_func *fn);
/* Whether epilogue fn is heavy: not per element (it reduces or reads an
 * [M, N] input) and computes two [M, N] values or more of costly builtins
 * (IR_COSTLY).  The three-stage cooperative 128x256 tile's consumers,
 * which keep half of their accumulators through the epilogue, spill there
 * and ran such epilogues 1.28x slower than the six-stage ping-pong tile
 * (session 70, docs/codegen.md, "Heavy epilogues"). */
int plan_heavy_epilogue(const ir_func *fn);

/*
 * Whether the operands allow the fast path (16-byte cp.async or TMA loads):
 * a GEMM's contiguous extents and leading dimensions multiples of 8
 * elements and both bases 16-byte aligned (a_col / b_col: the operand is
 * column-major); a conv's c a multiple of 8 and x, w 16-byte aligned.  The
 * guarded path takes anything else.
 */
int plan_gemm_aligned(int a_col, int b_col, long long m, long long n, long long k,
                      unsigned long long a_addr, long long lda, unsigned long long b_addr,
                      long long ldb);
/* The same for operands of esize bytes (2, or 1 for fp8): extents and
 * leading dimensions multiples of 16 bytes, 16 / esize elements. */
int plan_gemm_aligned_elem(int a_col, int b_col, long long m, long long n, long long k,
                           unsigned long long a_addr, long long lda, unsigned long long b_addr,
                           long long ldb, int esize);
int plan_conv_aligned(long long c, unsigned long long x_addr, unsigned long long w_addr);

/* Whether a conv of c input channels (an aligned one: c % 8 == 0) loads
 * through TMA on configuration cfg: a tap's channels go in k tiles of
 * cfg->bk, the last zero-filled past c, so c a multiple of cfg->bk, or more
 * than cfg->bk with the zero-filled channels at most a quarter of the
 * loaded ones (96, 160, 200 channels at BK = 64; not 72 or 136, nor the 8 of
 * a padded RGB stem, whose k tiles would be nearly all zeros). */
int plan_conv_tma_channels(long long c, const plan_config *cfg);

/* The clusters of two and of four CTAs the device holds at once, at one
 * CTA an SM (cuOccupancyMaxActiveClusters): its GPCs decide it, and no
 * SM count does.  pairs 0: not known (the planner then takes the H100's
 * and H200's counts, scaled by the SMs); fours 0 beside pairs: no cluster
 * of four fits. */
typedef struct plan_clusters {
    int pairs, fours;
} plan_clusters;

/* A launch's problem on a device. */
typedef struct plan_problem {
    evt_target target;
    int sms;               /* the device's multiprocessors; 0: the target's default */
    long long m, n, k;     /* the GEMM view: a conv's m = n p q, n = k, k = r s c */
    long long conv_c;      /* a conv's input channels (its TMA maps need c % bk == 0); 0 for a GEMM */
    int aligned;           /* the operands allow the fast path (kernels' fast-path test) */
    int driver_tma;        /* the driver can make the tensor maps this kernel's TMA loads need */
    long long batch;       /* problems of a batch, each m x n x k (0 or 1: one); they share the grid */
    long long conv_stride; /* a conv's larger stride (1: unit strides); 0 for a GEMM or where not known */
    long long conv_r, conv_s; /* a conv's filter rows and columns; 0 for a GEMM or where not known */
    plan_clusters resident;   /* the device's resident clusters; zeros where not known */
} plan_problem;

/* What the heuristic weighs of a conv beyond its GEMM view (plan_problem's
 * conv_ fields); every field 0 where not known, and for a GEMM. */
typedef struct plan_conv_view {
    long long c;      /* input channels (kk = r s c, so kk > c means more than one tap) */
    long long stride; /* the larger stride */
    long long r, s;   /* filter rows and columns */
} plan_conv_view;

/* The caller's choices; zero-initialized means the planner decides everything. */
typedef struct plan_options {
    const plan_config *config; /* forced; NULL: the heuristic's */
    int split_k;               /* 0: the planner's, 1: never, n >= 2: n ways where K allows;
                                * of a persistent configuration, its tail's (plan.tail_*) */
    int stream_k;              /* 0: the planner's (none), 1: never, 2: where the configuration
                                * has it (plan_config_stream_k), in place of a tail */
} plan_options;

typedef struct plan {
    const plan_config *config;
    int aligned;     /* fast path; else the guarded entry (element by element) */
    int tma;         /* the fast path loads through TMA maps (a producer/consumer configuration) */
    int splits;      /* CTAs per tile (split-K), 1: none */
    long long tiles; /* output tiles, of every problem of a batch */
    long long grid;  /* CTAs of the main entry */
    /* The sm_90a producer/consumer tiles' register-direct epilogue runs
     * here (api/launch.c): N is whole tiles of the configuration (its
     * instance for edge columns is looped and stores pairs, up to 1.1x
     * slower than the shared tile; edge rows cost it nothing: GEMMs, docs/codegen.md,
     * session 29), or, for a GEMM but on the clustered cooperative tiles,
     * a multiple of plan_kernel.shift_cols over one tile, whose last tile
     * column then runs shifted to N - BN, wholly inside
     * (evt_sm90::tile_col); for a conv M must be whole tiles too (its edge
     * rows in registers are not measured). */
    int direct_tiles;
    /* A persistent configuration's tail (a tail-wave split): the tiles from
     * tail_first on, its last wave, are split tail_splits ways along K by
     * the split-K entry of tail_config (a configuration of the same tile
     * shape, kernels/sched/tiles.cuh's evt_tile_limited), and summed, in
     * share order, by its _splitsum entry, after the persistent launch of
     * tiles 0 .. tail_first - 1.  tail_splits 1: no tail, tail_first = tiles. */
    const plan_config *tail_config;
    long long tail_first;
    int tail_splits;
    int tail_aligned; /* the tail's fast path (cp.async loads) */
    /* Stream-K (kernels/sched/tiles.cuh, evt_stream_k): the walk's tiles
     * (under clusters, its stacks of `cluster` tiles) before sk_first run
     * whole, a unit (a CTA, or a cluster) each at a time, and the k tiles of
     * those from sk_first on, sk_iters of them, are shared out evenly among
     * the units, a tile's pieces summed in unit order by the CTA holding its
     * first k tile.  sk_k_tiles: a tile's k tiles, so that the shared tiles
     * are sk_iters / sk_k_tiles (what plan_fit_clusters shares again).
     * sk_iters 0: none (sk_first = tiles). */
    long long sk_first;
    long long sk_iters;
    long long sk_k_tiles;
} plan;

/* Persistent plan *pl under clusters, for a device that holds `resident`
 * of its clusters at once (cuOccupancyMaxActiveClusters; 0: unknown): a
 * grid of no more clusters than that (more would run as a second wave),
 * and stream-K's shares over the clusters launched.  Stream-K needs every
 * cluster resident (an owner waits for later ones), so where `resident`
 * is unknown the plan runs its tiles whole instead. */
void plan_fit_clusters(plan *pl, long long resident);

/* ---- the heuristics (heuristic.c; sm80.c, sm90_gemm.c, sm90_conv.c) ---- */

/*
 * The configuration the heuristic picks for kernel k on target t for a
 * batch of `batch` m x n x kk problems (a conv's GEMM view; batch 1 for one
 * problem, whose tile counts the heuristic weighs batch times) on sms
 * multiprocessors (> 0) holding `resident` clusters at once (NULL: not
 * known);
 * tma: PLAN_TMA_MAPS where the producer/consumer configurations' TMA maps
 * can be made (the fast path, a driver with tensor maps, a conv's c a
 * multiple of their BK); PLAN_TMA_PARTIAL_TAPS for a conv whose maps can be
 * made but whose taps end in zero-filled k tiles (plan_conv_tma_channels
 * with c not a multiple of BK), which only the narrow producer/consumer
 * tile's rule takes; PLAN_TMA_K32 for a conv whose maps can be made only
 * in k tiles of 32 channels (c of 32: plan_conv_tma_channels), which only
 * the 128x128 tile in such k tiles takes; PLAN_TMA_NONE otherwise.
 * conv: a conv's channels, stride and taps (NULL, or zeros, where not
 * known; ignored for a GEMM).
 * Always one that fits t's shared memory; NULL only for t outside evt_target.
 */
enum { PLAN_TMA_NONE = 0, PLAN_TMA_MAPS = 1, PLAN_TMA_PARTIAL_TAPS = 2, PLAN_TMA_K32 = 3 };
const plan_config *plan_pick(const plan_kernel *k, evt_target t, long long m, long long n,
                             long long kk, long long batch, int sms, const plan_clusters *resident, int tma,
                             const plan_conv_view *conv);
/* The output tiles of a batch of `batch` m x n problems (saturating at LLONG_MAX). */
long long plan_config_batch_tiles(const plan_config *c, long long m, long long n, long long batch);
/* The stacks of c->cluster tiles on top of each other that a clustered
 * persistent grid walks (evt_tile_walk), of every problem of a batch. */
long long plan_config_stacks(const plan_config *c, long long m, long long n, long long batch);
/* Whether c is among the configurations plan_pick can return for k on t
 * (declared as data beside the heuristic, checked against it by the tests). */
int plan_candidate(const plan_config *c, const plan_kernel *k, evt_target t);
/* The configuration whose split-K entries run persistent configuration c's
 * tail for k on t: not persistent, no clusters, the same tile shape and
 * operand bytes, runnable (wgmma preferred for 16-bit operands, mma.sync for
 * fp8, whose wgmma sums lack f32 precision: docs/fp8.md); NULL if none. */
const plan_config *plan_tail_config(const plan_config *c, const plan_kernel *k, evt_target t);
/* The plan whose split-K entries run persistent plan pl's tail (pl's
 * tail_config, tail_aligned, tail_splits): what its entry points are
 * resolved and compiled by. */
plan plan_tail_plan(const plan *pl);
/* Split-K where the planner decides: CTAs per tile for `tiles` output tiles
 * on sms multiprocessors holding per_sm CTAs each, K long in k tiles of bk;
 * gemm: a GEMM's rule, else a conv's; cluster: a tile's shares may sum in
 * their cluster (sm_90a, kernels/sm90/cluster_split.cuh). */
int plan_split_k(long long tiles, int per_sm, int sms, long long k, int bk, int gemm, int cluster);
/* The GEMM tiles few enough that split-K's clusters give them two shares or
 * more each (plan_split_k with cluster set): at most this many. */
long long plan_cluster_split_tiles(int sms);
/* The tiles of the last wave that the planner splits itself, as a
 * persistent plan's tail, when cooperative 16-bit configuration c runs
 * `tiles` tiles of K = k on sms SMs of sm_90a (the tail's shares summing in
 * their clusters); 0 where it leaves the plan whole.  *splits (if not
 * NULL): the ways, 1 for none. */
long long plan_coop_tail(const plan_config *c, long long tiles, int sms, long long k, int *splits);
/* The same for any persistent configuration c running kernel k on `batch`
 * problems: plan_coop_tail's, and the unstaged 128x64 ping-pong tile's on
 * one GEMM problem, on the same terms. */
long long plan_own_tail(const plan_config *c, const plan_kernel *k, long long batch, long long tiles, int sms,
                        long long kk, int *splits);
/* plan_split_k's shares for non-persistent configuration c running kernel
 * k on `batch` problems (cluster: sm_90a's sums in the shares' cluster),
 * and the one-warpgroup 64x64 tile's exception: unsplit on one GEMM
 * problem at K <= 512. */
int plan_own_split(const plan_config *c, const plan_kernel *k, long long batch, long long tiles, int sms,
                   long long kk, int cluster);

/*
 * Whether configuration c can run kernel k on target t at all, whatever the
 * problem: its mainloop has it, the target has its instructions (wgmma is
 * sm_90a's) and the shared memory, the operands are K-contiguous where its
 * MMAs need that, a staged configuration has an input to stage.  1, or 0
 * with a one-sentence reason in *why (a static string) when why is not NULL.
 */
int plan_can_run(const plan_config *c, const plan_kernel *k, evt_target t, const char **why);

/*
 * Whether the heuristic can ever pick c for k on t: the configurations a
 * full listing (--emit, evt_kernel_cuda) holds.  A subset of plan_can_run.
 */
int plan_listed(const plan_config *c, const plan_kernel *k, evt_target t);

/*
 * The plan of one launch: the forced configuration (which must pass
 * plan_can_run, else 0 and *why) or the heuristic's, the fast or guarded
 * path, TMA, split-K, tiles and grid.  1 on success.
 */
int plan_make(const plan_kernel *k, const plan_problem *p, const plan_options *o, plan *out,
              const char **why);

/*
 * The driver refused the TMA maps of *pl (made by plan_make with pl->tma):
 * a forced configuration falls back to its guarded entry, the heuristic's
 * pick is made again without TMA.  Updates *pl.
 */
void plan_tma_refused(const plan_kernel *k, const plan_problem *p, const plan_options *o, plan *pl);

/* One line for evt_launch_plan: "sm_90a sm90_pp2_128x128x64_s4 fast tma grid 132 splits 1". */
void plan_describe(const plan *pl, evt_target t, char *buf, size_t n);

#endif
