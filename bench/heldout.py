"""heldout.py - random GEMM shapes for a held-out check of a planner or kernel
change: drawn log-uniformly from a seed (the same seed, the same shapes), kept
where the heuristic's pick for an epilogue kind matches a pattern, or where it
differs between a revision and this tree (bench/plan_query.sh; CPU only).
Prints the shapes on one line, MxNxK separated by spaces, what
small_gemm.py's SMALL_GEMM_SHAPES and direct_ab.py's D_SHAPES take (with a
":f16" suffix for the latter, --suffix), and each kept shape's pick(s) on
stderr.

The protocol it serves (sessions 44-48, docs/sm90.md and docs/codegen.md):
write the criterion down first, then draw the shapes from a seed not used
before, time all of them, and report the set as drawn, met or not
(bench/heldout_table.py reads bench/ab.py's output of the run into the
table and the criterion's verdict).

    python3 bench/heldout.py --seed 4802 --count 12 --n 256,16384 --n-multiple 8 \\
        --n-not-multiple 64 --kind tanhfast --pick '^sm90_pp2|^sm90_coop2_(?!cl2)'
    python3 bench/heldout.py --seed 4752 --count 12 --moved-since afe8024 --kind gelu
    python3 bench/heldout.py --seed 5101 --count 12 --m 65,112 --k-residue 16:0 --pick '^sm90_wg1'
    python3 bench/heldout.py --seed 5502 --count 8 --m 64,4096 --n 256,8192 --n-multiple 128 \\
        --k-set 64,128 --batch 1,512 --max-outputs 134217728 --kind tanhfast --moved-since 4d63951~1

With --batch the shapes are batches, MxNxKxL (bench/batched_configs.py's
BB_CASES take them as they are printed); --max-outputs keeps the float64
check of each result within a device call (session 55's first draw held
batches of 3.2 G outputs, whose check alone ran past it).

Each kept shape's line on stderr says K mod 16: where it is 8 (K an odd
multiple of 8) the operand rows start 16 bytes off a 128-byte line, which
costs our kernels up to 1.6x (docs/sm90.md, "K an odd multiple of 8"), so a
set that mixes the two residues mixes two populations; --k-residue draws one.
"""
import argparse
import math
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def span(text):
    lo, hi = (int(x) for x in text.split(","))
    if not 1 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"{text}: want LO,HI with 1 <= LO <= HI")
    return lo, hi


def picks(shapes, kind, rev=None):
    """The heuristic's 'config splits' for each of shapes, (M, N, K, L)
    (sm_90a, 132 SMs), by this tree's planner or revision rev's."""
    if not shapes:
        return []
    cmd = ["bash", os.path.join(ROOT, "bench", "plan_query.sh")]
    if rev:
        cmd += ["--rev", rev]
    cmd += [f"gemm:{m}x{n}x{k}x{batch}:{kind}" for m, n, k, batch in shapes]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"heldout: plan_query failed ({out.returncode}): {out.stderr.strip()}")
    lines = out.stdout.strip().split("\n")
    if len(lines) != len(shapes):
        sys.exit(f"heldout: plan_query gave {len(lines)} lines for {len(shapes)} shapes")
    return [" ".join(line.split()[2:]) for line in lines]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--m", type=span, default=(256, 16384), help="LO,HI (default 256,16384)")
    ap.add_argument("--n", type=span, default=(256, 16384))
    ap.add_argument("--k", type=span, default=(256, 16384))
    ap.add_argument("--n-multiple", type=int, default=1, help="N rounded down to a multiple of this")
    ap.add_argument("--n-not-multiple", type=int, default=0, help="and then kept only if not a multiple of this")
    ap.add_argument("--k-multiple", type=int, default=8, help="K rounded down to a multiple of this (default 8)")
    ap.add_argument("--k-set", metavar="K1,K2,...", help="K drawn uniformly from these instead of --k")
    ap.add_argument("--batch", type=span, help="LO,HI: a batch count L drawn log-uniformly (default: none, L = 1)")
    ap.add_argument("--max-outputs", type=int, default=0, help="keep only shapes of M N L outputs or fewer")
    ap.add_argument("--k-residue", metavar="M:R", help="keep only K with K %% M == R, e.g. 16:8 (K an odd "
                    "multiple of 8: operand rows 16 bytes off a 128-byte line, docs/sm90.md) or 16:0")
    ap.add_argument("--kind", default="gelu", choices=["gelu", "light", "bias", "tanhfast"],
                    help="the epilogue kind the picks are asked for (plan_grid.c's)")
    ap.add_argument("--pick", help="keep shapes whose pick ('config splits') matches this regular expression")
    ap.add_argument("--moved-since", metavar="REV", help="keep shapes whose pick differs from REV's")
    ap.add_argument("--suffix", default="", help="appended to every printed shape, e.g. :f16")
    ap.add_argument("--tries", type=int, default=2000, help="shapes drawn at most (default 2000)")
    a = ap.parse_args(argv)
    if a.count < 1 or a.n_multiple < 1 or a.k_multiple < 1 or a.n_not_multiple < 0:
        ap.error("--count, --n-multiple and --k-multiple must be positive, --n-not-multiple not negative")
    k_mod = k_res = None
    if a.k_residue:
        try:
            k_mod, k_res = (int(x) for x in a.k_residue.split(":"))
        except ValueError:
            ap.error(f"--k-residue {a.k_residue}: want M:R, two integers")
        if k_mod < 1 or not 0 <= k_res < k_mod:
            ap.error(f"--k-residue {a.k_residue}: want M >= 1 and 0 <= R < M")
    k_set = None
    if a.k_set:
        try:
            k_set = [int(x) for x in a.k_set.split(",")]
        except ValueError:
            ap.error(f"--k-set {a.k_set}: want integers separated by commas")
        if not k_set or min(k_set) < 1:
            ap.error(f"--k-set {a.k_set}: want positive integers")
    if a.max_outputs < 0:
        ap.error("--max-outputs must not be negative")
    pattern = re.compile(a.pick) if a.pick else None
    rng = random.Random(a.seed)

    def draw(lo_hi, mult=1):
        lo, hi = lo_hi
        v = int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1))))
        return max(mult, min(hi, v) // mult * mult)

    def name(s):
        return f"{s[0]}x{s[1]}x{s[2]}" + (f"x{s[3]}" if a.batch else "")

    kept, tried = [], 0
    while len(kept) < a.count and tried < a.tries:
        # a batch of candidates a call: plan_query compiles the planner each time
        batch = []
        while len(batch) < 64 and tried < a.tries:
            tried += 1
            # (the draws in this order: a seed's shapes stay what they were)
            s = (draw(a.m), draw(a.n, a.n_multiple), rng.choice(k_set) if k_set else draw(a.k, a.k_multiple),
                 draw(a.batch) if a.batch else 1)
            if a.n_not_multiple and s[1] % a.n_not_multiple == 0:
                continue
            if k_mod and s[2] % k_mod != k_res:
                continue
            if a.max_outputs and s[0] * s[1] * s[3] > a.max_outputs:
                continue
            batch.append(s)
        now = picks(batch, a.kind)
        old = picks(batch, a.kind, a.moved_since) if a.moved_since else now
        for s, p, q in zip(batch, now, old):
            if len(kept) == a.count:
                break
            if pattern and not pattern.search(p):
                continue
            if a.moved_since and p == q:
                continue
            kept.append(s)
            print(f"{name(s)} (K mod 16 = {s[2] % 16})  {q + ' -> ' if a.moved_since else ''}{p}", file=sys.stderr)
    if len(kept) < a.count:
        print(f"heldout: only {len(kept)} of {a.count} shapes in {tried} draws", file=sys.stderr)
    print(" ".join(f"{name(s)}{a.suffix}" for s in kept))
    return 0 if len(kept) == a.count else 1


if __name__ == "__main__":
    sys.exit(main())
