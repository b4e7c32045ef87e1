#!/usr/bin/env python3
"""plan_replay.py - a conv heuristic change checked against measured times,
without a GPU.

bench/mined/conv_tune.csv.gz holds `evtc tune --dry-run` tables: for each
of some 400 random conv layers (relu(conv + b + z), f16 NHWC, H200, sm_90a),
the time of every plan the tuner admits.  This script asks the planner of
REV (default HEAD) and this tree's for each mined layer's plan
(bench/plan_query.sh, as bench/plan_diff.sh does: 132 SMs, TMA maps), and prints, for every layer whose plan moves, the two plans' measured
times; then, over all layers, the heuristic's time over the best plan's
(geomean) for both trees.

It is a probe, not a held-out check: the tables were mined to find rules,
so a rule fitted on them will look good here.  Runs measured before session
38's checked-epilogue change (s37a, s38a, s38b) time edge tiles slower than
the current kernels do; --runs picks runs.  docs/conv2d_fprop.md, "Session
39", says how the tables were made.

    python3 bench/plan_replay.py [-v] [--runs s39a,s39b] [REV]
"""
import argparse
import csv
import gzip
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLES = os.path.join(ROOT, "bench", "mined", "conv_tune.csv.gz")


def load(runs):
    """{layer: {(config, splits): us}} for the runs asked for (all if None)."""
    data = {}
    with gzip.open(TABLES, "rt", newline="") as f:
        for row in csv.DictReader(f):
            if runs and row["run"] not in runs:
                continue
            data.setdefault(row["layer"], {})[(row["config"], int(row["splits"]))] = float(row["us"])
    return data


def picks(layers, rev=None):
    """Each layer's (configuration, splits) by REV's planner, or this tree's;
    None where REV is not a commit of this checkout (plan_query exits 77)."""
    args = ["conv:" + ",".join(l.split()) for l in layers]
    cmd = ["bash", os.path.join(ROOT, "bench", "plan_query.sh")] + (["--rev", rev] if rev else []) + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 77:
        sys.stderr.write(p.stderr)
        return None
    if p.returncode != 0:
        sys.exit(f"plan_replay: plan_query failed:\n{p.stderr}")
    out = p.stdout.splitlines()
    if len(out) != len(layers):
        sys.exit(f"plan_replay: {len(out)} plans for {len(layers)} layers")
    return [plan_key(l.split()[2:5]) for l in out]


def plan_key(fields):
    """A plan_query line's (configuration, splits), as the tuning tables key
    a plan: a persistent plan's tail split S ways is its configuration
    with S splits there (the tuner forces a tail through split-K); a
    stream-K plan, which they do not hold, keeps its fields whole."""
    config, splits, walk = fields
    if walk.startswith("tail:"):
        return (config, int(walk.rsplit("x", 1)[1]))
    if walk.startswith("sk:"):
        return (config, int(splits), walk)
    return (config, int(splits))


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", nargs="?", default="HEAD")
    ap.add_argument("-v", action="store_true", help="every mined layer's plans, moved or not")
    ap.add_argument("--runs", help="comma-separated runs of the tables (default: all)")
    a = ap.parse_args()
    data = load(set(a.runs.split(",")) if a.runs else None)
    if not data:
        sys.exit("plan_replay: no mined layers (--runs?)")
    layers = sorted(data)
    before = picks(layers, a.rev)
    if before is None:
        return 77
    after = picks(layers)
    ratios_old, ratios_new, moves, untimed = [], [], [], 0
    for layer, p, q in zip(layers, before, after):
        t = data[layer]
        best = min(t.values())
        to, tn = t.get(p), t.get(q)
        if to:
            ratios_old.append(to / best)
        if tn:
            ratios_new.append(tn / best)
        if p != q or a.v:
            if p != q and to and tn:
                moves.append(to / tn)
            elif p != q:
                untimed += 1
            fmt = lambda c, x: f"{c[0]}/{c[1]} {x:.1f}" if x else f"{c[0]}/{c[1]} untimed"
            print(f"{layer:28} {fmt(p, to)} -> {fmt(q, tn)}" + (f"  {to / tn:.2f}x" if to and tn else "") +
                  f"  (best {best:.1f} us)")
    print(f"{len(layers)} mined layers, {len(moves) + untimed} plans moved ({untimed} to or from an untimed plan); "
          f"old/new over the timed moves: geomean {geomean(moves):.3f}, min {min(moves, default=float('nan')):.2f}")
    print(f"heuristic / best plan, geomean: {a.rev} {geomean(ratios_old):.3f} ({len(ratios_old)} timed), "
          f"this tree {geomean(ratios_new):.3f} ({len(ratios_new)} timed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
