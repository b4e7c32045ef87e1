#!/usr/bin/env python3
"""heldout_conv.py - random conv layers for a held-out check of a conv
planner change: drawn from a seed (the same seed, the same layers), kept
where this tree's heuristic pick differs from REV's (bench/plan_query.sh,
132 SMs, TMA maps; CPU only), or, for a kernel change that moves no plan,
where this tree's pick matches --pick (REV then unused), and the layer is
neither in the mined tables
(bench/mined/conv_tune.csv.gz, which rules are fitted on) nor given with
--exclude.  Prints the layers on one line in bench/ab.py's AB_CONV_SHAPES
form (N,H,W,C,K,R,PAD,STRIDE), and each one's two picks and K = C*R*R on
stderr.

The draw: batch log-uniform in 1-256, H = W uniform in 7-75, C = 8 x
log-uniform 1-128, filters = 8 x log-uniform 1-256, R of 1, 3, 5 or 7
with pad R/2, stride 1 or 2; --filters-multiple F draws the filters as F
x log-uniform 1-2048/F instead, --c-set draws C uniformly from the
channel counts given, --min-k K keeps only layers of C*R*R >= K (a
rule's domain, where a uniform draw seldom moves a plan) and --max-gflop G
only layers of 2 M N K / 1e9 <= G (a device call's time); without
--c-set a seed draws what it drew before the option existed.
The protocol is bench/heldout.py's: write
the criterion down first, then draw from a seed not used before, time
every layer drawn, report the set as drawn, met or not.

    python3 bench/heldout_conv.py main 7501 10 [--exclude "2,66,66,80,368,1,0,2 ..."]
    python3 bench/heldout_conv.py main 7502 8 --filters-multiple 128 --min-k 16384
    python3 bench/heldout_conv.py c1c47ac 7602 8 --filters-multiple 128 --c-set 32,96
    python3 bench/heldout_conv.py - 8304 12 --pick '^sm90_(pp2|coop2)_(?!.*staged)' --max-gflop 40
"""
import argparse
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan_replay  # noqa: E402  (the mined tables and plan_query.sh's picks)


def layers(text):
    return {tuple(int(x) for x in s.split(",")) for s in text.split()}


def channels(text):
    cs = [int(x) for x in text.split(",")]
    if not cs or any(c < 8 or c % 8 for c in cs):
        raise argparse.ArgumentTypeError(f"{text}: want channel counts, multiples of 8 from 8 on")
    return cs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", help="the revision whose planner the change is compared with")
    ap.add_argument("seed", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--exclude", type=layers, default=set(), help='layers not to draw, "N,H,W,C,K,R,PAD,STRIDE ..."')
    ap.add_argument("--filters-multiple", type=int, default=8, help="filters a multiple of this (8 to 2048)")
    ap.add_argument("--min-k", type=int, default=0, help="only layers of C*R*R at least this")
    ap.add_argument("--c-set", metavar="C1,C2,...", type=channels,
                    help="input channels drawn uniformly from these (multiples of 8) instead of 8 to 1024")
    ap.add_argument("--pick", help="keep layers whose pick (this tree's configuration) matches this regular "
                    "expression, moved or not (REV unused)")
    ap.add_argument("--max-gflop", type=float, default=0, help="only layers of 2 M N K / 1e9 at most this")
    ap.add_argument("--tries", type=int, default=50, help="draws of 400 layers before giving up")
    a = ap.parse_args()
    pattern = re.compile(a.pick) if a.pick else None
    mined = {tuple(int(x) for x in layer.split()) for layer in plan_replay.load(None)}
    rng = random.Random(a.seed)
    f = a.filters_multiple

    def logu(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    kept, tries = [], 0
    while len(kept) < a.count:
        tries += 1
        if tries > a.tries:
            sys.exit(f"heldout_conv: {len(kept)} of {a.count} layers after {tries - 1} draws of 400: " +
                     ("does any pick match --pick?" if pattern else "does the change move any plan?"))
        cand = []
        for _ in range(400):
            n, h = logu(1, 256), rng.randint(7, 75)
            c = rng.choice(a.c_set) if a.c_set else 8 * logu(1, 128)
            k = f * logu(1, max(1, 2048 // f))
            r, st = rng.choice([1, 3, 5, 7]), rng.choice([1, 2])
            p = (h + 2 * (r // 2) - r) // st + 1  # output rows and columns
            if c * r * r >= a.min_k and (not a.max_gflop or 2 * n * p * p * k * c * r * r <= a.max_gflop * 1e9):
                cand.append((n, h, h, c, k, r, r // 2, st))
        names = [" ".join(map(str, x)) for x in cand]
        after = plan_replay.picks(names)  # (configuration, splits) each
        before = after if pattern else plan_replay.picks(names, a.rev)  # None: REV unknown
        if before is None:
            sys.exit(f"heldout_conv: bench/plan_query.sh --rev {a.rev} failed (exit 77)")
        for x, old, new in zip(cand, before, after):
            wanted = pattern.search(new[0]) if pattern else old != new
            if wanted and x not in mined and x not in a.exclude and x not in kept and len(kept) < a.count:
                kept.append(x)
                print(x, *((new[0],) if pattern else (old[0], "->", new[0])), "K =", x[3] * x[5] * x[5],
                      file=sys.stderr)
    print(" ".join(",".join(map(str, x)) for x in kept))


if __name__ == "__main__":
    main()
