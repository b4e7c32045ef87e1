"""heldout_table_test.py - bench/heldout_table.py reads bench/ab.py's and
bench/batched_configs.py's rows as they are printed, takes the mean of the
forced runs over the pick's time, judges the criterion kind by kind (a
geomean under its bar, a shape under the floor), and refuses a log of no rows, of differing forced
configurations (a probe) or without a kind the criterion names."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from log_tool import fail, run_on  # noqa: E402

# bench/ab.py's rows, spacing as printed (two kinds, three shapes; the
# 100x200x300 row of the plain GEMM slower with the new pick)
LOG = """\
gemm+bias+gelu 100x200x300          cublasLt 10.0  pick 8.0  sm90_old: 9.0 (grid 80)  sm90_old: 11.0 (grid 80)   [pick = sm_90a sm90_new fast grid 80 splits 1]
  checked against float64: ok
gemm 100x200x300                    cublas 9.0  pick 10.0  sm90_old: 9.0 (grid 80)  sm90_old: 9.0 (grid 80)   [pick = sm_90a sm90_new fast grid 80 splits 1]
gemm+bias+gelu 400x500x600          cublasLt 20.0  pick 20.0  sm90_old: 22.0 (grid 90)  sm90_old: 22.0 (grid 90)   [pick = sm_90a sm90_new fast grid 90 splits 1]
gemm 400x500x600                    cublas 18.0  pick 16.0  sm90_old: 20.0 (grid 90)  sm90_old: 20.0 (grid 90)   [pick = sm_90a sm90_new fast grid 90 splits 1]
gemm+bias+gelu_tanh fast 7x8x9x2 cublasLt 5.0  pick 4.0  sm90_old: 4.4  sm90_old: 4.4   [pick = sm_90a sm90_new]
"""

# bench/batched_configs.py's rows: two groups, each forcing its old pick
# twice (the second group's first row has a configuration that could not
# run, and is left out)
BATCHED = """\
case act | bmm | pick | sm90_a | sm90_a
100x200x64 L8 gelu | 5.0 | 4.0 | 5.0 | 4.6  [pick sm90_new /1]
300x400x64 L2 shared gelu | 9.0 | 10.0 | 9.0 | 9.0  [pick sm90_new /1]
case act | bmm | pick | sm90_b | sm90_b
500x600x128 L4 gelu | 6.0 | 3.0 | - | 3.5  [pick sm90_new /1]
700x800x128 L16 gelu | 7.0 | 5.0 | 6.0 | 6.0  [pick sm90_new /1]
"""


def run(text, *args):
    return run_on("heldout_table.py", text, *args)


def main():
    rc, out, err = run(LOG)
    if rc != 0:
        fail(f"no criterion: rc {rc}\n{err}")
    # gelu: 10/8 = 1.25 and 22/20 = 1.1, geomean sqrt(1.375) = 1.173
    if "gemm+bias+gelu: 2 shapes, geomean 1.173 (1.100-1.250)" not in out:
        fail(f"gelu summary:\n{out}")
    # plain: 9/10 = 0.9 and 20/16 = 1.25, geomean 1.061; cuBLAS 9/9, 18/20 -> 9/10, 18/16
    if "gemm: 2 shapes, geomean 1.061 (0.900-1.250); peer / ours 0.949 -> 1.006" not in out:
        fail(f"plain summary:\n{out}")
    if "| 100×200×300 | 9.0 / 11.0 / 8.0 | 1.25 | 9.0 / 9.0 / 10.0 | 0.90 | – | – |" not in out:
        fail(f"table row:\n{out}")
    if "| 7×8×9×2 |" not in out or "4.4 / 4.4 / 4.0 | 1.10" not in out:
        fail(f"a batch's row:\n{out}")
    rc, out, _ = run(LOG, "--geomean", "1.05", "--floor", "0.95", "--kinds", "gemm+bias+gelu")
    if rc != 0 or "criterion: met" not in out:
        fail(f"gelu alone meets 1.05 and 0.95: rc {rc}\n{out}")
    rc, out, _ = run(LOG, "--geomean", "1.05", "--floor", "0.95", "--kinds", "gemm+bias+gelu,gemm")
    if rc != 1 or "gemm: missed: 1 under 0.95 (100x200x300)" not in out or "criterion: missed" not in out:
        fail(f"the plain row under the floor: rc {rc}\n{out}")
    rc, out, _ = run(LOG, "--geomean", "1.2", "--kinds", "gemm+bias+gelu")
    if rc != 1 or "gemm+bias+gelu: missed: geomean 1.173 < 1.2" not in out:
        fail(f"the gelu geomean under 1.2: rc {rc}\n{out}")
    rc, _, err = run(LOG, "--kinds", "gemm+bias+silu")
    if rc != 2 or "no rows of gemm+bias+silu" not in err:
        fail(f"a kind the log lacks: rc {rc}\n{err}")
    rc, _, err = run(LOG.replace("sm90_old: 22.0 (grid 90)  sm90_old", "sm90_other: 22.0 (grid 90)  sm90_old"))
    if rc != 2 or "differ" not in err:
        fail(f"two forced configurations: rc {rc}\n{err}")
    rc, _, err = run("nothing here\n")
    if rc != 2 or "no bench/ab.py row" not in err:
        fail(f"an empty log: rc {rc}\n{err}")
    # batched: 4.8/4 = 1.2, 9/10 = 0.9, 6/5 = 1.2; geomean (1.296)^(1/3) = 1.090
    rc, out, err = run(BATCHED, "--geomean", "1.05", "--floor", "0.95")
    if rc != 1 or "batched gelu: 3 shapes, geomean 1.090 (0.900-1.200)" not in out:
        fail(f"batched summary: rc {rc}\n{out}{err}")
    if "| 300×400×64×2s | 9.0 / 9.0 / 10.0 | 0.90 |" not in out or "500x600x128x4" not in err:
        fail(f"batched rows:\n{out}{err}")
    if "batched gelu: missed: 1 under 0.95 (300x400x64x2s)" not in out:
        fail(f"batched verdict:\n{out}")
    rc, _, err = run(BATCHED.replace("| sm90_a | sm90_a", "| sm90_a | sm90_c"))
    if rc != 2 or "differ" not in err:
        fail(f"a batched row forcing two configurations: rc {rc}\n{err}")
    print("heldout_table: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
