"""ab_libs_table.py - a two-library A/B's table and its criterion, read from
bench/ab_libs.sh's output of bench/ab.py: for each row (GEMM or conv) and
each column (the pick, then each configuration forced by name), the old
build's time over the new build's, each the median of that build's
processes' medians (above 1: the new build is faster).  The peer, timed in
every process, shows drift between the processes: its old / new is printed
beside each row and in the summary, and should be near 1.

    bash bench/ab_libs.sh OLD NEW 2 -- python3 bench/ab.py gemm conv > ab.log
    python3 bench/ab_libs_table.py ab.log --geomean 1.02 --floor 0.97

With --geomean or --floor, the criterion (written down before the run) is
judged on the pick's column, or on --column NAME's.  Exit 0 where it is met
(or none was given), 1 where it is missed, 2 where the log holds no row or
a row lacks one of the builds (a run cut short: a criterion over a partial
set is not judged).
"""
import argparse
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_table import geomean, misses  # noqa: E402  (the held-out runs' criterion, judged alike)

SIDE = re.compile(r"^== (old|new) round \d+")
# bench/ab.py's row: a label (kind and shape, "conv ...", or an indented
# "as gemm ..." under its conv), the peer and its time, the pick's time,
# any forced configurations', then the pick's plan
ROW = re.compile(r"^\s*(?P<label>\S.*?)\s+(?P<peer_name>cublasLt|cublas|cudnn|eager|scaled_mm|no peer) (?P<peer>[\d.]+)"
                 r"\s+pick (?P<pick>[\d.]+)(?P<rest>.*?)\s+\[pick = (?P<plan>[^\]]*)\]\s*$")
FORCED = re.compile(r"(\S+): ([\d.]+) \(grid \d+\)")


def parse(lines):
    """[(label, {column: {"old": [µs...], "new": [µs...]}}, plans)] in the
    log's order; the peer is column "peer", the pick "pick"."""
    rows, index, side = [], {}, None
    for line in lines:
        line = line.rstrip("\n")
        s = SIDE.match(line)
        if s:
            side = s.group(1)
            continue
        m = ROW.match(line)
        if not m or side is None:
            continue
        label = re.sub(r"\s+", " ", m.group("label").strip())
        if label not in index:
            index[label] = len(rows)
            rows.append((label, {}, {}))
        _, cols, plans = rows[index[label]]
        cells = [("peer", m.group("peer")), ("pick", m.group("pick"))] + FORCED.findall(m.group("rest"))
        for name, t in cells:
            cols.setdefault(name, {"old": [], "new": []})[side].append(float(t))
        plans[side] = m.group("plan").split(" grid ")[0]
    return rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="bench/ab_libs.sh's output of bench/ab.py")
    ap.add_argument("--geomean", type=float, help="the criterion's least geomean of old / new")
    ap.add_argument("--floor", type=float, help="the criterion's least old / new of any row")
    ap.add_argument("--column", default="pick", help="the column the criterion judges (default: pick)")
    args = ap.parse_args(argv)
    with open(args.log) as f:
        rows = parse(f)
    if not rows:
        print(f"ab_libs_table: no bench/ab.py row under an '== old/new round' line in {args.log}", file=sys.stderr)
        return 2
    partial = [label for label, cols, _ in rows if any(not c["old"] or not c["new"] for c in cols.values())]
    names = []
    for _, cols, _ in rows:
        names += [c for c in cols if c not in names]
    # old / new per column and row, each build's median of its processes'
    # medians; the peer's column is the drift between the processes
    times, ratios = {}, {c: {} for c in names}
    for label, cols, _ in rows:
        for c, v in cols.items():
            if v["old"] and v["new"]:
                times[label, c] = statistics.median(v["old"]), statistics.median(v["new"])
                ratios[c][label] = times[label, c][0] / times[label, c][1]
    columns = [c for c in names if c != "peer"]
    print("| row | " + " | ".join(f"{c}: old → new µs | old / new" for c in columns)
          + " | peer old / new | plan (new) |")
    print("| --- |" + " --- | --- |" * len(columns) + " --- | --- |")
    for label, _, plans in rows:
        cells = [f"{times[label, c][0]:.1f} → {times[label, c][1]:.1f} | {ratios[c][label]:.3f}"
                 if (label, c) in times else "– | –" for c in columns]
        peer = f"{ratios['peer'][label]:.3f}" if label in ratios["peer"] else "–"
        print(f"| {label} | " + " | ".join(cells) + f" | {peer} | {plans.get('new', plans.get('old', ''))} |")
    print()
    for c in columns:
        r = ratios[c]
        if r:
            print(f"{c}: {len(r)} rows, geomean old / new {geomean(r.values()):.3f} "
                  f"({min(r.values()):.3f}-{max(r.values()):.3f})")
    if ratios["peer"]:
        print(f"peer: geomean old / new {geomean(ratios['peer'].values()):.3f} (near 1 where the processes ran alike)")
    if args.geomean is None and args.floor is None:
        return 0
    if partial:
        print(f"ab_libs_table: {len(partial)} rows lack a build ({', '.join(partial)}): the run was cut short; "
              "the criterion is not judged on a partial set", file=sys.stderr)
        return 2
    if args.column not in ratios or not ratios[args.column]:
        print(f"ab_libs_table: no column {args.column}; the log has {', '.join(columns)}", file=sys.stderr)
        return 2
    missed = misses(ratios[args.column], args.geomean, args.floor)
    print(f"criterion on {args.column}: " + ("met" if not missed else "missed: " + "; ".join(missed)))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
