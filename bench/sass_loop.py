#!/usr/bin/env python3
"""sass_loop.py - the instructions a warp issues per trip of each kernel's
k loop, from `cuobjdump -sass`: the static count bench/sass_count.sh gives
is the whole entry (prologue, epilogue, both sides of every branch), while
a tile whose warps are issue-bound (one warp an SMSP, as the 64x64 wgmma
tile at small M) runs as fast as its k loop's one path allows.

    python3 bench/sass_loop.py FILE.sass [FILE.sass ...]
    python3 bench/sass_loop.py --evtc build/evtc --config sm90_wg1_64x64x64_s8 \\
        examples/examples.evt --kernel mlp_up [evtc options...]

The second form runs evtc --emit=ptx (EVT_CONFIG set to the configuration),
ptxas and cuobjdump ($CUOBJDUMP, else cuobjdump on PATH; the toolkit's
own; where the toolkit ships without it, the `nvidia-cuda-cuobjdump` and
`nvidia-cuda-nvdisasm` wheels' nvidia/cu13/bin/, side by side: cuobjdump
runs nvdisasm).

For every entry with matrix instructions (HGMMA, HMMA, QGMMA, IMMA), each
innermost loop that holds them (a backward branch to a target at or below
it) is printed with its static size and every path through one trip
(forward branches taken or not; a branch out of the loop ends a path
without a trip): instructions, MMAs, cp.async copies (LDGSTS; predicated
ones marked "p"), and, where the entry name gives the k tile (..._MxNxK_),
instructions per 64 k positions, so tiles of different k tiles compare.
"""
import os
import re
import subprocess
import sys
import tempfile

MMA = ("HGMMA", "HMMA", "QGMMA", "IMMA")
LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
FUNC = re.compile(r"\s*Function : (\S+)")
BRANCH = re.compile(r"^(@!?U?P\w+\s+)?BRA(\.\w+)*\s+(`\()?.*?(0x[0-9a-f]+)")


def functions(text):
    fns, name = {}, None
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            name = m.group(1)
            fns[name] = []
            continue
        m = LINE.match(line)
        if m and name:
            fns[name].append((int(m.group(1), 16), m.group(2)))
    return fns


def branch(ins):
    """(target, conditional) of a BRA, else None; @!PT never branches."""
    m = BRANCH.match(ins)
    if not m:
        return None
    pred = (m.group(1) or "").strip()
    if pred == "@!PT":
        return None
    return int(m.group(4), 16), pred not in ("", "@PT")


def paths(body, head, tail):
    """Every path from head to the back edge at tail, as (instructions,
    inner) pairs; forward branches inside the loop are followed both ways.
    A loop nested in it (a backward branch before tail) is counted once,
    its exit taken, and marks the path inner: its trips are not counted."""
    index = {a: i for i, (a, _) in enumerate(body)}
    out, stack = [], [(index[head], [], False)]
    while stack and len(out) < 256:
        i, path, inner = stack.pop()
        while True:
            a, ins = body[i]
            path = path + [ins]
            if a == tail:
                out.append((path, inner))
                break
            br = branch(ins)
            if br:
                target, cond = br
                inside = target in index and a < target <= tail
                if target <= a and target in index:
                    inner = True  # a nested loop: take its exit
                    i += 1
                    continue
                if cond:
                    if inside:
                        stack.append((index[target], path, inner))
                    i += 1
                    continue
                if not inside:
                    break  # an unconditional exit: no trip
                i = index[target]
                continue
            if ins.split()[0] in ("EXIT", "RET") or ins.startswith("RET"):
                break
            i += 1
    return out


def k_tile(name):
    m = re.search(r"_(\d+)x(\d+)x(\d+)_", name)
    return int(m.group(3)) if m else None


def report(label, text):
    for name, ins in functions(text).items():
        loops = []
        for a, t in ins:
            br = branch(t)
            if br and br[0] <= a:
                lo = br[0]
                body = [(x, s) for x, s in ins if lo <= x <= a]
                if any(s.split()[0].split(".")[0] in MMA for _, s in body):
                    loops.append((lo, a, body))
        inner = [l for l in loops
                 if not any(o is not l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
        bk = k_tile(name)
        for lo, hi, body in inner:
            print(f"{label}: {name}")
            print(f"  loop {lo:#06x}-{hi:#06x}: {len(body)} instructions static")
            seen, lines = set(), []
            for p, nested in sorted(paths(body, lo, hi), key=lambda x: len(x[0])):
                mma = sum(1 for s in p if s.split()[0].split(".")[0] in MMA)
                cp = [s for s in p if s.split()[0].startswith("LDGSTS")]
                pred = sum(1 for s in cp if re.search(r",\s*!?P\d\s*$", s))
                key = (len(p), mma, len(cp), pred, nested)
                if key in seen:
                    continue
                seen.add(key)
                per = f", {len(p) * 64 / bk:.1f} per 64 k" if bk else ""
                more = " + a nested loop's trips" if nested else ""
                lines.append(f"  path: {len(p)} instructions{more}, {mma} MMA, {len(cp)} LDGSTS ({pred} p){per}")
            if not lines:
                lines = ["  no trip found: every path leaves the loop (or more than 256 paths)"]
            if len(lines) > 6:  # the guarded loaders' element tests: the two ends tell enough
                lines[2:-2] = [f"  ... {len(lines) - 4} paths between"]
            print("\n".join(lines))


def main(argv):
    if argv[:1] == ["--evtc"]:
        if len(argv) < 5 or argv[2] != "--config":
            sys.exit("sass_loop: --evtc EVTC --config NAME FILE.evt [evtc options...]")
        evtc, config, rest = argv[1], argv[3], argv[4:]
        cuobjdump = os.environ.get("CUOBJDUMP", "cuobjdump")
        ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
        target = None  # evtc's --target T or --target=T, else sm_90a
        for i, a in enumerate(rest):
            if a == "--target" and i + 1 < len(rest):
                target = rest[i + 1]
            elif a.startswith("--target="):
                target = a[len("--target="):]
        if target is None:
            target = "sm_90a"
            rest = rest + ["--target", target]
        with tempfile.TemporaryDirectory() as tmp:
            ptx, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
            env = dict(os.environ, EVT_CONFIG=config)
            for what, cmd, cmd_env in (("evtc", [evtc] + rest + ["--emit=ptx", "-o", ptx], env),
                                       ("ptxas", [ptxas, f"-arch={target}", "-o", cubin, ptx], None)):
                try:
                    rc = subprocess.run(cmd, env=cmd_env).returncode
                except FileNotFoundError:
                    sys.exit(f"sass_loop: no {what} at {cmd[0]}")
                if rc != 0:  # (its own message is on standard error above)
                    sys.exit(f"sass_loop: {what} exited {rc}")
            try:
                run = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True)
            except FileNotFoundError:
                sys.exit("sass_loop: no cuobjdump (CUOBJDUMP=PATH; pip download nvidia-cuda-cuobjdump)")
            if run.returncode != 0:
                sys.exit(f"sass_loop: {cuobjdump} failed: {run.stderr.strip()}")
            sass = run.stdout
            report(config, sass)
        return
    if not argv:
        sys.exit(__doc__)
    for path in argv:
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            sys.exit(f"sass_loop: {path}: {e.strerror}")
        report(os.path.basename(path), text)


if __name__ == "__main__":
    main(sys.argv[1:])
