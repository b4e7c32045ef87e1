"""heldout_test.py - bench/heldout.py draws what it says: the same shapes for
the same seed, inside the ranges, N and K rounded as asked, K of the
residue asked (and a residue out of range refused), batches (MxNxKxL) of
the L, K set and output count asked, every kept
shape's pick matching the pattern (checked again through plan_query.sh),
and no shape kept as moved where nothing moved (HEAD's planner against
this tree's, where the tree's planner is HEAD's).
Exit 77 (skipped) where bench/plan_query.sh cannot build (no C compiler)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bench", "heldout.py")


def run(*args):
    r = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr


def fail(msg):
    print(f"FAIL {msg}")
    sys.exit(1)


def main():
    if subprocess.run(["bash", os.path.join(ROOT, "bench", "plan_query.sh"), "gemm:64x64x64"],
                      capture_output=True).returncode != 0:
        print("skip: bench/plan_query.sh does not build here")
        return 77
    args = ["--seed", "48", "--count", "6", "--m", "100,5000", "--n", "300,9000", "--n-multiple", "8",
            "--n-not-multiple", "64", "--k", "200,3000", "--kind", "tanhfast", "--pick", "^sm90_pp2|^sm90_coop2"]
    rc, out, err = run(*args)
    rc2, out2, _ = run(*args)
    if rc != 0 or rc2 != 0 or out != out2:
        fail(f"the same seed twice: rc {rc}, {rc2}; '{out}' against '{out2}'\n{err}")
    shapes = [tuple(map(int, s.split("x"))) for s in out.split()]
    if len(shapes) != 6:
        fail(f"6 shapes asked, {len(shapes)} printed: {out}")
    for m, n, k in shapes:
        if not (100 <= m <= 5000 and 300 <= n <= 9000 and 200 <= k <= 3000):
            fail(f"{m}x{n}x{k} outside the ranges")
        if n % 8 or n % 64 == 0 or k % 8:
            fail(f"{m}x{n}x{k}: N not a multiple of 8 and not of 64, or K not of 8")
    q = subprocess.run(["bash", os.path.join(ROOT, "bench", "plan_query.sh")] +
                       [f"gemm:{m}x{n}x{k}:tanhfast" for m, n, k in shapes], capture_output=True, text=True)
    for line in q.stdout.strip().split("\n"):
        if not re.search("^sm90_pp2|^sm90_coop2", line.split()[2]):
            fail(f"a kept shape's pick does not match: {line}")
    rc, out, err = run("--seed", "48", "--count", "6", "--pick", "^sm90_pp2", "--suffix", ":f16")
    if rc != 0 or any(not s.endswith(":f16") for s in out.split()):
        fail(f"--suffix: rc {rc}, '{out}'")
    for mod, res in ((16, 8), (16, 0)):
        rc, out, err = run("--seed", "50", "--count", "5", "--k-residue", f"{mod}:{res}")
        ks = [int(s.split("x")[2]) for s in out.split()]
        if rc != 0 or len(ks) != 5 or any(k % mod != res for k in ks) or f"K mod 16 = {res}" not in err:
            fail(f"--k-residue {mod}:{res}: rc {rc}, '{out}'")
    rc, out, err = run("--seed", "50", "--count", "1", "--k-residue", "16:16")
    if rc != 2 or "0 <= R < M" not in err:
        fail(f"--k-residue 16:16 is refused: rc {rc}, {err}")
    # batches: MxNxKxL, L and K as asked, no more outputs than asked, the pick
    # asked of the batch (plan_query.sh given L)
    args = ["--seed", "55", "--count", "5", "--m", "64,2048", "--n", "256,4096", "--n-multiple", "128",
            "--k-set", "64,128", "--batch", "2,300", "--max-outputs", str(1 << 26), "--kind", "tanhfast",
            "--pick", "^sm90_pp2"]
    rc, out, err = run(*args)
    rc2, out2, _ = run(*args)
    shapes = [tuple(map(int, s.split("x"))) for s in out.split()]
    if rc != 0 or out != out2 or len(shapes) != 5 or any(len(s) != 4 for s in shapes):
        fail(f"--batch: rc {rc}, '{out}' against '{out2}'\n{err}")
    for m, n, k, batch in shapes:
        if not (64 <= m <= 2048 and 256 <= n <= 4096 and n % 128 == 0 and k in (64, 128) and 2 <= batch <= 300 and
                m * n * batch <= 1 << 26):
            fail(f"--batch: {m}x{n}x{k}x{batch} outside what was asked")
    q = subprocess.run(["bash", os.path.join(ROOT, "bench", "plan_query.sh")] +
                       [f"gemm:{m}x{n}x{k}x{b}:tanhfast" for m, n, k, b in shapes], capture_output=True, text=True)
    if any(not line.split()[2].startswith("sm90_pp2") for line in q.stdout.strip().split("\n")):
        fail(f"--batch: a kept batch's pick does not match:\n{q.stdout}")
    rc, out, err = run("--seed", "55", "--count", "1", "--k-set", "64,x")
    if rc != 2 or "--k-set" not in err:
        fail(f"--k-set 64,x is refused: rc {rc}, {err}")
    # (only where the planner is HEAD's: a change to it in the working tree may move plans)
    clean = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--", "plan", "kernels/tile_configs.h"],
                           capture_output=True).returncode == 0
    if clean:
        rc, out, err = run("--seed", "48", "--count", "2", "--moved-since", "HEAD", "--tries", "64")
        if rc != 1 or out or "only 0 of 2" not in err:
            fail(f"moved since HEAD, against itself: rc {rc}, '{out}', {err}")
    print(f"heldout: {7 if clean else 6} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
