"""heldout_table.py - a held-out run's table and its criterion, read from
bench/ab.py's output, or bench/batched_configs.py's (its groups may force
different old picks, one a run): the old pick forced by name (AB_GEMM or
BB_CFGS, the same configuration each time in a row, usually twice)
against the new pick, per epilogue kind; the ratio is the mean of the
forced times over the pick's (above 1: the new pick is faster).  Prints
one summary line a kind (geomean, least, most, and the peer's ratio to
the old and the new), the markdown table docs/sm90.md keeps, and, given
--geomean or --floor, whether the criterion written before the run is
met, kind by kind.

    python3 bench/heldout_table.py ho.log --geomean 1.05 --floor 0.95 \\
        --kinds "gemm+bias+gelu,gemm+bias+gelu_tanh fast,gemm"

The protocol (docs/sm90.md): write the criterion down and commit it, draw
the shapes (bench/heldout.py --moved-since), run bench/ab.py once, and
report the set as drawn, met or not.  Exit 0 where every kind asked meets
the criterion (or none was given), 1 where one misses, 2 where the log
holds no row or a row forces configurations that differ (a probe, not a
held-out run).
"""
import argparse
import math
import re
import sys

ROW = re.compile(r"^(?P<kind>\S.*?) (?P<shape>\d+x\d+x\d+(?:x\d+)?)\s+(?P<peer_name>cublas\S*|cudnn\S*|torch\S*) "
                 r"(?P<peer>[\d.]+)\s+pick (?P<pick>[\d.]+)\s+(?P<rest>.*)$")
FORCED = re.compile(r"(\S+): ([\d.]+)(?: \(grid \d+\))?")
# bench/batched_configs.py: its header names the forced configurations,
# each row gives bmm's time, the pick's and theirs, in that order
BATCHED_HEAD = re.compile(r"^case act \| bmm \| pick \| (?P<names>.*)$")
BATCHED_ROW = re.compile(r"^(?P<shape>\d+x\d+x\d+) L(?P<L>\d+)(?P<shared> shared)? (?P<act>\S+) \| "
                         r"(?P<peer>[\d.]+) \| (?P<pick>[\d.]+) \| (?P<rest>.*?)\s+\[pick [^\]]*\]$")


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def parse(lines):
    """{kind: {shape: (forced times, pick time, peer time)}}, the kinds and
    shapes in the log's order, and each row's forced configurations' names
    ({(kind, shape): names}).  Reads bench/ab.py's rows and
    bench/batched_configs.py's (kind "batched ACT", shape MxNxKxL with an
    "s" where B is shared, bmm the peer); a batched row where a forced
    configuration could not run ("-") is left out, with a warning."""
    rows, kinds, shapes, names = {}, [], [], {}
    batched_names = []

    def add(kind, shape, forced, pick, peer):
        if kind not in rows:
            rows[kind] = {}
            kinds.append(kind)
        if shape not in shapes:
            shapes.append(shape)
        rows[kind][shape] = ([float(t) for _, t in forced], float(pick), float(peer))
        names[(kind, shape)] = {name for name, _ in forced}

    for line in lines:
        line = line.rstrip("\n")
        h = BATCHED_HEAD.match(line)
        if h:
            batched_names = [c.strip() for c in h.group("names").split("|")]
            continue
        b = BATCHED_ROW.match(line)
        if b:
            times = [c.strip() for c in b.group("rest").split("|")]
            shape = f"{b.group('shape')}x{b.group('L')}" + ("s" if b.group("shared") else "")
            if not batched_names:
                # a log whose header was filtered out: the columns are taken
                # as one configuration forced, which the caller vouches for
                print("heldout_table: no batched_configs header before the first row: its forced columns "
                      "are taken as one configuration", file=sys.stderr)
                batched_names = ["(unnamed)"] * len(times)
            if len(times) != len(batched_names) or "-" in times:
                print(f"heldout_table: {shape} {b.group('act')}: a forced configuration did not run, or the "
                      "row does not match its header; left out", file=sys.stderr)
                continue
            add(f"batched {b.group('act')}", shape, list(zip(batched_names, times)), b.group("pick"), b.group("peer"))
            continue
        m = ROW.match(line)
        if not m:
            continue
        rest = m.group("rest").split("[", 1)[0]
        forced = FORCED.findall(rest)
        if forced:
            add(m.group("kind").strip(), m.group("shape"), forced, m.group("pick"), m.group("peer"))
    return rows, kinds, shapes, names


def misses(ratios, least_geomean, floor):
    """What of the criterion (a geomean of at least least_geomean, no ratio
    under floor; either None: not asked) {name: ratio} misses, as phrases;
    none where it is met."""
    out = []
    g = geomean(ratios.values())
    if least_geomean is not None and g < least_geomean:
        out.append(f"geomean {g:.3f} < {least_geomean}")
    low = [name for name, x in ratios.items() if floor is not None and x < floor]
    if low:
        out.append(f"{len(low)} under {floor} ({', '.join(low)})")
    return out


def ratio(cell):
    """the mean of the forced (old) times over the pick's (new)"""
    old, new, _ = cell
    return sum(old) / len(old) / new


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="bench/ab.py's or bench/batched_configs.py's output")
    ap.add_argument("--geomean", type=float, help="the criterion's least geomean of the ratios, per kind")
    ap.add_argument("--floor", type=float, help="the criterion's least ratio of any shape")
    ap.add_argument("--kinds", help="the kinds the criterion names, comma-separated (default: every kind)")
    args = ap.parse_args(argv)
    with open(args.log) as f:
        rows, kinds, shapes, names = parse(f)
    if not rows:
        print(f"heldout_table: no bench/ab.py row (nor bench/batched_configs.py row) with a forced configuration "
              f"in {args.log}", file=sys.stderr)
        return 2
    mixed = [f"{shape} ({', '.join(sorted(n))})" for (_, shape), n in names.items() if len(n) != 1]
    if mixed:
        print(f"heldout_table: the forced configurations of a row differ: {'; '.join(mixed)}: "
              "a held-out run forces each shape's old pick alone", file=sys.stderr)
        return 2
    asked = [k.strip() for k in args.kinds.split(",")] if args.kinds else kinds
    unknown = [k for k in asked if k not in rows]
    if unknown:
        print(f"heldout_table: no rows of {', '.join(unknown)}; the log has {', '.join(kinds)}", file=sys.stderr)
        return 2
    ratios = {kind: {shape: ratio(cell) for shape, cell in rows[kind].items()} for kind in kinds}
    for kind in kinds:
        r = list(ratios[kind].values())
        old = [peer / (sum(times) / len(times)) for times, _, peer in rows[kind].values()]
        new = [peer / pick for _, pick, peer in rows[kind].values()]
        print(f"{kind}: {len(r)} shapes, geomean {geomean(r):.3f} ({min(r):.3f}-{max(r):.3f}); "
              f"peer / ours {geomean(old):.3f} -> {geomean(new):.3f}")
    print()
    print("| M×N×K | " + " | ".join(f"{k}: old / new µs | ratio" for k in kinds) + " |")
    print("| --- |" + " --- | --- |" * len(kinds))
    for shape in shapes:
        cells = []
        for kind in kinds:
            if shape not in rows[kind]:
                cells.append("– | –")
                continue
            old, new, _ = rows[kind][shape]
            cells.append(" / ".join(f"{t:.1f}" for t in old) + f" / {new:.1f} | {ratios[kind][shape]:.2f}")
        print(f"| {shape.replace('x', '×')} | " + " | ".join(cells) + " |")
    if args.geomean is None and args.floor is None:
        return 0
    print()
    met = True
    for kind in asked:
        missed = misses(ratios[kind], args.geomean, args.floor)
        met = met and not missed
        print(f"{kind}: " + ("met" if not missed else "missed: " + "; ".join(missed)))
    print("criterion: " + ("met" if met else "missed"))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
