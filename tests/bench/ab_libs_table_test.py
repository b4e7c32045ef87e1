"""ab_libs_table_test.py - bench/ab_libs_table.py reads bench/ab_libs.sh's
output of bench/ab.py (GEMM and conv rows, forced configurations), takes
each build's median over its processes, judges the criterion on the
column asked, and refuses a log of no rows, a run cut short (a row
without one build) or a column the log lacks."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from log_tool import fail, run_on  # noqa: E402

# three rounds as ab_libs.sh orders them (old, new; new, old; old, new),
# spacing as bench/ab.py prints; the old GEMM pick's median of 11, 13 and
# 20 is 13 (their mean, 14.7, is not what is compared)
GEMM = "gemm+bias+gelu 100x200x300         cublasLt {p:.1f}  pick {t:.1f}  sm90_x: {f:.1f} (grid 80)" \
    "   [pick = sm_90a sm90_a fast grid 80 splits 1]\n"
CONV = "conv 8x10x10x64->96 3x3/1           cudnn {p:.1f}  pick {t:.1f}  sm90_x: {f:.1f} (grid 60)" \
    "   [pick = sm_90a sm90_b fast tma grid 60 splits 1]\n"
LOG = ("== old round 1\n  checked: ok\n" + GEMM.format(p=10, t=11, f=30) + CONV.format(p=50, t=40, f=60)
       + "== new round 1\n" + GEMM.format(p=10, t=10, f=20) + CONV.format(p=50, t=40, f=60)
       + "== new round 2\n" + GEMM.format(p=10, t=10, f=20) + CONV.format(p=50, t=40, f=60)
       + "== old round 2\n" + GEMM.format(p=10, t=13, f=30) + CONV.format(p=50, t=40, f=60)
       + "== old round 3\n" + GEMM.format(p=10, t=20, f=30) + CONV.format(p=50, t=40, f=60)
       + "== new round 3\n" + GEMM.format(p=10, t=10, f=20) + CONV.format(p=50, t=40, f=60))


def run(text, *args):
    return run_on("ab_libs_table.py", text, *args)


def main():
    rc, out, err = run(LOG)
    if rc != 0:
        fail(f"no criterion: rc {rc}\n{err}")
    # GEMM pick: old median(11, 13, 20) = 13 over new 10 = 1.3; forced 30/20 = 1.5
    if "| gemm+bias+gelu 100x200x300 | 13.0 → 10.0 | 1.300 | 30.0 → 20.0 | 1.500 | 1.000 | sm_90a sm90_a fast |" \
            not in out:
        fail(f"the GEMM row:\n{out}")
    conv = "| conv 8x10x10x64->96 3x3/1 | 40.0 → 40.0 | 1.000 | 60.0 → 60.0 | 1.000 | 1.000 | sm_90a sm90_b fast tma |"
    if conv not in out:
        fail(f"the conv row:\n{out}")
    # pick: sqrt(1.3 x 1.0) = 1.140
    if "pick: 2 rows, geomean old / new 1.140 (1.000-1.300)" not in out:
        fail(f"the pick's summary:\n{out}")
    if "sm90_x: 2 rows, geomean old / new 1.225 (1.000-1.500)" not in out:
        fail(f"the forced column's summary:\n{out}")
    # the criterion: (arguments, exit status, verdict)
    for args, want_rc, verdict in (
            (("--geomean", "1.05", "--floor", "0.97"), 0, "criterion on pick: met"),
            (("--geomean", "1.15", "--floor", "1.01"), 1,
             "criterion on pick: missed: geomean 1.140 < 1.15; 1 under 1.01 (conv 8x10x10x64->96 3x3/1)"),
            (("--geomean", "1.2", "--column", "sm90_x"), 0, "criterion on sm90_x: met")):
        rc, out, _ = run(LOG, *args)
        if rc != want_rc or verdict not in out:
            fail(f"{' '.join(args)}: rc {rc}, want {want_rc} and '{verdict}'\n{out}")
    rc, _, err = run(LOG, "--geomean", "1.0", "--column", "sm90_y")
    if rc != 2 or "no column sm90_y" not in err:
        fail(f"a column the log lacks: rc {rc}\n{err}")
    cut = "== old round 1\n" + GEMM.format(p=10, t=11, f=30) + CONV.format(p=50, t=40, f=60) + \
        "== new round 1\n" + GEMM.format(p=10, t=10, f=20)
    rc, out, err = run(cut, "--geomean", "1.0")
    if rc != 2 or "1 rows lack a build (conv 8x10x10x64->96 3x3/1)" not in err:
        fail(f"a run cut short: rc {rc}\n{out}{err}")
    # an indented conv-as-GEMM row and an fp8 row (peer scaled_mm), no forced column
    extra = "  as gemm 800x96x64                cudnn 5.0  pick 4.0   [pick = sm_90a sm90_c grid 7]\n" \
        "fp8 64x64x64                       scaled_mm 3.0  pick 2.0   [pick = sm_90a sm90_d grid 1]\n"
    rc, out, err = run("== old round 1\n" + extra + "== new round 1\n" + extra.replace("pick 4.0", "pick 5.0"))
    if rc != 0 or "| as gemm 800x96x64 | 4.0 → 5.0 | 0.800 | 1.000 |" not in out or \
            "| fp8 64x64x64 | 2.0 → 2.0 | 1.000 | 1.000 |" not in out:
        fail(f"conv-as-GEMM and fp8 rows: rc {rc}\n{out}{err}")
    rc, _, err = run(GEMM.format(p=10, t=10, f=20))
    if rc != 2 or "no bench/ab.py row" not in err:
        fail(f"rows without a build's header: rc {rc}\n{err}")
    print("ab_libs_table: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
