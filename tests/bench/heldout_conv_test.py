"""heldout_conv_test.py - bench/heldout_conv.py draws what it says: the same
layers for the same seed, each one's pick moved between the revision and
this tree (checked again through plan_query.sh), none from the mined
tables, the filters' multiple, the channel counts and the least K asked,
and a clear refusal of an unknown revision, of channel counts off 8 and
where nothing moves (HEAD's planner against this tree's, where the tree's
planner is HEAD's).  Exit 77 (skipped) where
bench/plan_query.sh cannot build (no C compiler) or the checkout lacks the
revision (a shallow clone)."""
import csv
import gzip
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bench", "heldout_conv.py")
QUERY = os.path.join(ROOT, "bench", "plan_query.sh")
# main before session 75's one-wave 64x128 rule (plan/sm90_conv.c), whose
# moves the draw finds
REV = "756353c"


def run(*args):
    r = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr


def fail(msg):
    print(f"FAIL {msg}")
    sys.exit(1)


def picks(layers, rev=None):
    extra = ["--rev", rev] if rev else []
    q = subprocess.run(["bash", QUERY, *extra] + ["conv:" + ",".join(map(str, x)) for x in layers],
                       capture_output=True, text=True, check=True)
    return q.stdout.strip().split("\n")


def main():
    if subprocess.run(["bash", QUERY, "conv:1,7,7,64,64,1,0,1"], capture_output=True).returncode != 0:
        print("skip: bench/plan_query.sh does not build here")
        return 77
    if subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", REV + "^{commit}"],
                      capture_output=True).returncode != 0:
        print(f"skip: {REV} is not in this checkout")
        return 77
    rc, out, err = run("no-such-revision", "1", "1")
    if rc == 0 or "plan_query.sh --rev no-such-revision failed" not in err or "Traceback" in err:
        fail(f"an unknown revision is refused clearly: rc {rc}, {err}")
    rc, out, err = run("HEAD", "1", "1", "--tries", "2")
    if rc == 0 or "does the change move any plan?" not in err:
        fail(f"nothing moves between HEAD and this tree, yet: rc {rc}, '{out}', {err}")
    args = [REV, "7", "3", "--filters-multiple", "16", "--min-k", "512"]
    rc, out, err = run(*args)
    rc2, out2, _ = run(*args)
    if rc != 0 or out != out2:
        fail(f"the same seed twice: rc {rc}, {rc2}; '{out}' against '{out2}'\n{err}")
    layers = [tuple(map(int, s.split(","))) for s in out.split()]
    if len(layers) != 3 or any(len(x) != 8 for x in layers):
        fail(f"3 layers of 8 numbers asked: '{out}'")
    mined = set()
    with gzip.open(os.path.join(ROOT, "bench", "mined", "conv_tune.csv.gz"), "rt") as f:
        for row in csv.DictReader(f):
            mined.add(tuple(int(v) for v in row["layer"].split()))
    for n, h, w, c, k, r, pad, st in layers:
        if k % 16 or c * r * r < 512 or h != w or pad != r // 2 or st not in (1, 2) or r not in (1, 3, 5, 7):
            fail(f"{n},{h},{w},{c},{k},{r},{pad},{st} is not what was asked")
    if mined & set(layers):
        fail(f"a mined layer drawn: {mined & set(layers)}")
    if any(a == b for a, b in zip(picks(layers, REV), picks(layers))):
        fail(f"a kept layer's plan did not move: {layers}")
    rc, out3, err = run(*args, "--exclude", " ".join(",".join(map(str, x)) for x in layers[:1]))
    if rc != 0 or layers[0] in [tuple(map(int, s.split(","))) for s in out3.split()]:
        fail(f"--exclude: rc {rc}, '{out3}'")
    rc, out4, err = run(REV, "7", "2", "--c-set", "64,128", "--min-k", "512")
    drawn = [tuple(map(int, s.split(","))) for s in out4.split()]
    if rc != 0 or len(drawn) != 2 or any(x[3] not in (64, 128) for x in drawn):
        fail(f"--c-set 64,128: rc {rc}, '{out4}'\n{err}")
    rc, _, err = run(REV, "7", "2", "--c-set", "60")
    if rc == 0 or "multiples of 8" not in err or "Traceback" in err:
        fail(f"--c-set 60 is refused clearly: rc {rc}, {err}")
    # --pick: a kernel change's draw, by this tree's pick, REV unused
    rc, out5, err = run("-", "7", "3", "--pick", "^sm90_pp2_128x128x64_s4$", "--max-gflop", "5")
    drawn = [tuple(map(int, s.split(","))) for s in out5.split()]
    if rc != 0 or len(drawn) != 3 or any(line.split()[2] != "sm90_pp2_128x128x64_s4" for line in picks(drawn)):
        fail(f"--pick: rc {rc}, '{out5}'\n{err}")
    for n, h, w, c, k, r, pad, st in drawn:
        p = (h + 2 * pad - r) // st + 1
        if 2 * n * p * p * k * c * r * r > 5e9:
            fail(f"--max-gflop 5: {n},{h},{w},{c},{k},{r},{pad},{st} is larger")
    rc, _, err = run("-", "7", "1", "--pick", "^no-such-configuration", "--tries", "1")
    if rc == 0 or "does any pick match --pick?" not in err:
        fail(f"a --pick nothing matches is refused clearly: rc {rc}, {err}")
    print("heldout_conv: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
