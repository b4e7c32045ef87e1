"""bench_batched.py - batched GEMM + bias + activation against torch.baddbmm + the
activation, the same under torch.compile, and torch.bmm alone, in one run.

    PYTHONPATH=bindings/python python3 bench/bench_batched.py [--quick] [--out FILE.md]
        [--dtype bf16|f16] [--rounds 5] [--compiles 1] [--nominal] [--fast-math] [--gelu erf|tanh]

The computation (the batched-GEMM issue's goal), for each of L problems l:

    y[l] = act(a[l] @ b[l] + bias)        act = GELU (erf, evt's gelu) or ReLU

(--gelu tanh: the GELU is the tanh form, evt's gelu_tanh and F.gelu's
approximate="tanh", ours and the peers' alike.  With --fast-math it runs on
the approximate ex2 and rcp: a few instructions against the erf form's 40-50, which
at short K is the whole difference to bmm (docs/benchmarks.md, session 42).)

with a [L, M, K] row-major, b = w[l].T where w [L, N, K] is contiguous (K
contiguous, as nn.Linear weights and attention's K are: evt's `b: col`), f32
accumulation and the output [L, M, N] in the operands' type (bf16 unless
--dtype f16).  The cases are attention-like (Q.K^T: M = N = sequence length,
K = head dim, L = batch x heads) and MoE-expert-like (L experts, a weight per
expert with a per-expert bias [L, N]; and a weight shared by the batch, a 2-D
[N, K] tensor, stride 0 over L, with a shared bias [N]), ragged shapes among
them.  The goal: at least 1.0x of baddbmm + the activation and at least 0.9x
of torch.bmm (cuBLAS's strided batched GEMM, no epilogue).

Peers, on the same logical matrices (b as a [L, K, N] view, expanded over L
where it is shared): "baddbmm" = act(torch.baddbmm(bias, a, b)) in eager
PyTorch; "compiled" = the same function under torch.compile (dynamic=False,
compiled afresh per case, the best of --compiles compiles; skipped with the
reason printed if compiling fails); "bmm" = torch.bmm(a, b) alone; and, where
the weight is shared, "linear" = act(F.linear(a, w, bias)), the one flat GEMM
with cuBLASLt's bias that a model would run for it.  Every time is the median
of CUDA-event timings (triton do_bench, L2 flushed), the median of --rounds
rounds alternating ours and the peers (bench.py's side_by_side).  Every one of
our results is first checked against a float64 reference of the same inputs
by evt.check (bench.py's check), so a fast wrong kernel never reaches the table.

floor/time = max(FLOPs / peak, bytes / bandwidth) / time, the fraction of the
roofline reached, with peak = cuBLAS's 8192^3 rate in the benchmark's type and
bandwidth = a device-to-device copy, both measured in this run as bench.py
does (--nominal: H200's datasheet figures, 989 TFLOP/s dense and 4.8 TB/s).
"""
import argparse
import datetime
import math
import sys

import torch
import torch.nn.functional as F

import evt
from bench import side_by_side, check, t, gelu_tanh_source, gelu_of

dev = torch.device("cuda")

# kernels {act}_{dtype}: the activation after a bias, in and out of one 16-bit type
EVT_SOURCE = "".join(
    f"""
epilogue bias_{act}_{dt} {{
    in  bias : {dt}[N]
    out y    : {dt}[M, N] = {act}(acc + bias)
}}
kernel {act}_{dt} = gemm(a: {dt} row, b: {dt} col, acc: f32) with bias_{act}_{dt}
"""
    for dt in ("bf16", "f16") for act in ("gelu", "relu"))

# evt's gelu is the erf form (docs/language.md), F.gelu's default.
ACTS = {"gelu": F.gelu, "relu": F.relu}

# (what, M, N, K, L, weight shared by the batch, bias per problem, activations)
CASES = [
    ("attention", 128, 128, 64, 512, False, False, ("gelu", "relu")),
    ("attention", 512, 512, 64, 256, False, False, ("gelu",)),
    ("attention", 1024, 1024, 128, 64, False, False, ("gelu", "relu")),
    ("attention", 2048, 2048, 128, 32, False, False, ("gelu",)),
    ("MoE up, W per expert", 256, 4096, 1024, 8, False, True, ("gelu", "relu")),
    ("MoE up, W shared", 256, 4096, 1024, 8, True, False, ("gelu", "relu")),
    ("MoE down, W per expert", 512, 1024, 4096, 8, False, True, ("gelu",)),
    ("MoE down, W shared", 512, 1024, 4096, 8, True, False, ("gelu",)),
    ("MoE up, 64 experts", 200, 1408, 2048, 64, False, True, ("gelu",)),
    ("ragged", 1000, 1000, 1000, 16, False, False, ("gelu", "relu")),
    ("ragged, W shared", 1000, 1000, 1000, 16, True, False, ("gelu",)),
    ("large", 4096, 4096, 4096, 8, False, False, ("gelu",)),
]
QUICK = [0, 4, 5, 9]  # indices into CASES, GELU only

GOALS = {"baddbmm": 1.0, "compiled": 1.0, "bmm": 0.9}


def short_plan(plan):
    """'sm90_pp2_128x128x64_s4 /1' (configuration, ' guarded' when it ran the
    guarded mainloop, split-K) from a launch's plan line ('sm_90a NAME fast tma
    grid G splits S')."""
    f = (plan or "").split()
    if len(f) < 2 or "splits" not in f:
        return plan or "?"
    return f"{f[1]}{' guarded' if 'guarded' in f else ''} /{f[f.index('splits') + 1]}"


def make_peer(act):
    def peer(bias, a, b):
        return act(torch.baddbmm(bias, a, b))
    return peer


def geomean(xs):
    xs = [x for x in xs if x == x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="four cases, GELU only")
    ap.add_argument("--out", default=None, help="write the table as markdown here")
    ap.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per case")
    ap.add_argument("--compiles", type=int, default=1,
                    help="torch.compile compiles per case, the fastest counted")
    ap.add_argument("--nominal", action="store_true",
                    help="roofline from H200's datasheet (989 TFLOP/s, 4.8 TB/s), not measured")
    ap.add_argument("--fast-math", action="store_true",
                    help="our kernels under fast math (GELU on the approximate ex2 and rcp), "
                         "still checked against the float64 reference")
    ap.add_argument("--gelu", choices=("erf", "tanh"), default="erf",
                    help="the GELU's form, ours and the peers' alike (tanh: gelu_tanh)")
    args = ap.parse_args()
    acts_of = dict(ACTS, gelu=gelu_of(args.gelu))
    dt = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    esize = 2

    p = torch.cuda.get_device_properties(0)
    header = (f"{p.name}, {p.multi_processor_count} SMs, torch {torch.__version__}, "
              f"evt {evt.library_version}, {datetime.date.today().isoformat()}")
    print("#", header, flush=True)

    if args.nominal:
        peak, bw = 989e12, 4.8e12
        ceilings = "H200 datasheet: 989 TFLOP/s dense, 4800 GB/s"
    else:  # measured now, as bench.py does
        x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
        y = torch.empty_like(x)
        bw = 2 * x.numel() / t(lambda: y.copy_(x))
        del x, y
        a = torch.randn(8192, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        peak = 2 * 8192 ** 3 / t(lambda: a @ b)
        del a, b
        ceilings = (f"measured in this run: copy {bw / 1e9:.0f} GB/s, cuBLAS {args.dtype} 8192^3 "
                    f"{peak / 1e12:.0f} TFLOP/s")
    print("# ceilings:", ceilings, flush=True)

    source = gelu_tanh_source(EVT_SOURCE) if args.gelu == "tanh" else EVT_SOURCE
    m = evt.compile(source=source, name="bench_batched.evt", fast_math=args.fast_math)
    gelu_note = ", the GELU in the tanh form (gelu_tanh) for us and the peers" if args.gelu == "tanh" else ""
    cases = [CASES[i] for i in QUICK] if args.quick else CASES
    lines = [f"## Batched GEMM + bias + activation ({args.dtype}, f32 accumulation"
             f"{', evt under fast math' if args.fast_math else ''}{gelu_note})\n",
             f"Measured by `bench/bench_batched.py` on {header}. Roofline ceilings: {ceilings}. "
             f"Times are medians of CUDA-event timings (triton do_bench, L2 flushed) in µs, each "
             f"the median of {args.rounds} rounds alternating evt and the peers; ratios are peer "
             "time / evt time (above 1: evt is faster). a [L, M, K] row-major; B a [L, N, K] "
             "weight (K contiguous) per problem, or a shared [N, K] one (stride 0 over L); bias "
             "[L, N] per expert in the per-expert MoE cases, else a shared [N]. baddbmm = "
             "act(torch.baddbmm(bias, a, b)) eager; compiled = the same under torch.compile; "
             "bmm = torch.bmm(a, b) alone (cuBLAS strided batched, no epilogue); linear = "
             "act(F.linear(a, W, bias)), only where W is shared. Goals: ≥ 1.0 against baddbmm, "
             "≥ 0.9 against bmm.\n",
             "| case | M×N×K | L | act | evt µs | TFLOP/s | floor/time | plan | baddbmm µs | ratio | "
             "compiled µs | ratio | bmm µs | ratio | linear µs | ratio |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
             "--- | --- |"]
    print("\n".join(lines[-2:]), flush=True)
    ratios = {k: [] for k in ("baddbmm", "compiled", "bmm", "linear")}
    compile_failed = []
    for what, M, N, K, L, shared, bias_per, acts in cases:
        if args.quick:
            acts = acts[:1]
        torch.manual_seed(0)
        a = torch.randn(L, M, K, device=dev, dtype=dt)
        if shared:
            w = (torch.randn(N, K, device=dev, dtype=dt) * K ** -0.5)
            b_evt = w.t()                                     # [K, N], shared by the batch
            b3 = w.t().unsqueeze(0).expand(L, K, N)          # the same for the torch peers
            b_ref = w.double().t()
        else:
            w = (torch.randn(L, N, K, device=dev, dtype=dt) * K ** -0.5)
            b_evt = b3 = w.transpose(1, 2)                    # [L, K, N], K contiguous
            b_ref = w.double().transpose(1, 2)
        if bias_per:
            bias = torch.randn(L, N, device=dev, dtype=dt)
            bias3 = bias[:, None, :]                          # [L, 1, N] for baddbmm
            bias_ref = bias.double()[:, None, :]
        else:
            bias = torch.randn(N, device=dev, dtype=dt)
            bias3 = bias
            bias_ref = bias.double()
        mm_ref = torch.matmul(a.double(), b_ref) + bias_ref
        fl = 2 * L * M * N * K
        by = esize * (L * M * K + (1 if shared else L) * N * K + L * M * N + bias.numel())
        floor = max(fl / peak, by / bw)
        for act_name in acts:
            act = acts_of[act_name]
            out = torch.empty(L, M, N, device=dev, dtype=dt)
            launch = m.kernel(f"{act_name}_{args.dtype}").bind(a, b_evt, bias=bias, y=out)
            launch.run()
            torch.cuda.synchronize()
            label = f"{what} {M}x{N}x{K} L={L} {act_name}"
            err = check(label, out, act(mm_ref))
            plan = short_plan(launch.plan)
            print(f"  {label}: checked (max rel err {err:.2e}), plan {plan}", flush=True)

            peer = make_peer(act)
            fns = [launch.run, lambda: peer(bias3, a, b3), lambda: torch.bmm(a, b3)]
            if shared:
                fns.append(lambda: act(F.linear(a, w, bias)))
            compiled = []
            try:
                for _ in range(args.compiles):
                    # Fresh static-shape compiles per case (bench.py: the same code
                    # object would otherwise be recompiled for dynamic shapes).
                    torch._dynamo.reset()
                    cf = torch.compile(make_peer(act), dynamic=False)
                    cf(bias3, a, b3)
                    compiled.append(lambda cf=cf: cf(bias3, a, b3))
            except Exception as e:  # report, do not hide
                msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                print(f"  torch.compile failed for {label}, column skipped: {msg}", flush=True)
                compile_failed.append(f"{label}: {msg}")
                compiled = []
            times = side_by_side(*fns, *compiled, rounds=args.rounds)
            ours, eager, bmm = times[:3]
            lin = times[3] if shared else float("nan")
            comp_times = times[4 if shared else 3:]
            if len(comp_times) > 1:
                print("  torch.compile, each compile:", " ".join(f"{c * 1e6:.1f}" for c in comp_times),
                      "us", flush=True)
            comp = min(comp_times) if comp_times else float("nan")
            ratios["baddbmm"].append(eager / ours)
            ratios["compiled"].append(comp / ours)
            ratios["bmm"].append(bmm / ours)
            if shared:
                ratios["linear"].append(lin / ours)

            def cell(x):
                return "–" if x != x else f"{x * 1e6:.1f}"

            def rcell(x):
                return "–" if x != x else f"{x / ours:.2f}"

            row = (f"| {what} | {M}×{N}×{K} | {L} | {act_name} | {ours * 1e6:.1f} | "
                   f"{fl / ours / 1e12:.0f} | {floor / ours:.2f} | {plan} | {cell(eager)} | "
                   f"{rcell(eager)} | {cell(comp)} | {rcell(comp)} | {cell(bmm)} | {rcell(bmm)} | "
                   f"{cell(lin)} | {rcell(lin)} |")
            print(row, flush=True)
            lines.append(row)
            launch.close()
            del out, compiled, fns
            torch._dynamo.reset()
        del a, w, b_evt, b3, b_ref, bias, bias3, bias_ref, mm_ref
        torch.cuda.empty_cache()

    lines += ["\n| against | rows | geomean ratio | min | goal | rows at the goal |",
              "| --- | --- | --- | --- | --- | --- |"]
    for k, rs in ratios.items():
        finite = [r for r in rs if r == r]
        goal = GOALS.get(k)
        at = f"{sum(r >= goal for r in finite)} of {len(finite)}" if goal else "–"
        row = (f"| {k} | {len(finite)} | {geomean(finite):.3f} | "
               f"{min(finite) if finite else float('nan'):.2f} | "
               f"{'≥ ' + format(goal, '.1f') if goal else '–'} | {at} |")
        lines.append(row)
    if compile_failed:
        lines.append("\ntorch.compile failed (its columns left empty): " + "; ".join(compile_failed))
    print("\n".join(lines[-(len(ratios) + 2 + bool(compile_failed)):]), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
