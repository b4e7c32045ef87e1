"""sass_loop_test.py - bench/sass_loop.py on a cuobjdump listing made up
here: it reports only entries with matrix instructions and, of their
loops, the innermost holding them; it counts every path of one trip
(a forward branch taken and not), marks a path through a nested loop,
ends none at a never-taken @!PT branch, drops paths that leave the
loop, gives per-64-k counts from the entry's k tile, and refuses a
missing file."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from log_tool import ROOT, fail, run_on  # noqa: E402


def listing(name, instructions):
    lines = [f"\t\tFunction : {name}", "\t.headerflags\t@\"EF_CUDA_SM90\""]
    for i, ins in enumerate(instructions):
        lines.append(f"        /*{i * 16:04x}*/                   {ins} ;"
                     f"                 /* 0x000fe20000000f00 */")
    return "\n".join(lines) + "\n"


# 0x00-0x10 prologue; the k loop 0x20-0xd0 (14 instructions): a wait, two
# MMAs, a branch over the copies (0x60 -> 0xa0, skipping 3), a predicated
# and an unpredicated copy, a never-taken branch, a nested spin loop
# (0xa0-0xb0) on one path only when 0x60 falls through, then the back edge
KLOOP = [
    "MOV R1, c[0x0][0x28]",                      # 00
    "S2R R0, SR_TID.X",                          # 10
    "DEPBAR.LE SB0, 0x5",                        # 20 loop head
    "BAR.SYNC.DEFER_BLOCKING 0x0",               # 30
    "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR20], R24",             # 40
    "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR24], R24, gsb0",       # 50
    "@P0 BRA 0xa0",                              # 60
    "LDGSTS.E.BYPASS.LTC128B.128 [R65], desc[UR14][R56.64], P4",  # 70
    "LDGSTS.E.BYPASS.LTC128B.128 [R65+0x800], desc[UR14][R58.64]",  # 80
    "@!PT BRA 0x200",                            # 90 never taken: not an exit
    "IADD3 R2, R2, 0x1, RZ",                     # a0
    "@P1 BRA 0xa0",                              # b0 nested loop (backward, inside)
    "LDGDEPBAR",                                 # c0
    "@!P2 BRA 0x20",                             # d0 back edge
    "@P3 BRA 0x10",                              # e0 an outer loop round the k loop
    "EXIT",                                      # f0
]
NO_MMA = ["MOV R1, c[0x0][0x28]", "IADD3 R2, R2, 0x1, RZ", "@P0 BRA 0x10", "EXIT"]
# a loop whose only path jumps out: no trip
LEAVES = ["HMMA.16816.F32.BF16 R4, R8, R12, R4", "BRA 0x40", "@P0 BRA 0x0", "NOP", "EXIT"]

TEXT = (listing("evt_k_gemm_sm90_wg1_64x64x128_s6_sm90a", KLOOP)
        + listing("evt_k_zero_fill", NO_MMA)
        + listing("evt_k_gemm_sm80_64x64x32_w4_s3_sm80", LEAVES))

rc, out, err = run_on("sass_loop.py", TEXT)
if rc != 0:
    fail(f"exit {rc}: {err}")
if "zero_fill" in out:
    fail("an entry without MMAs reported:\n" + out)
if "loop 0x0010-0x00e0" in out:
    fail("the outer loop reported, not only the innermost with the MMAs:\n" + out)
if "loop 0x0020-0x00d0: 12 instructions static" not in out:
    fail("the k loop's static size:\n" + out)
# taken at 0x60: 20 30 40 50 60 a0 b0 c0 d0 = 9, through the nested loop;
# not taken: 20..d0 = 12, the same nested loop, 2 copies (1 predicated)
want = [
    "path: 9 instructions + a nested loop's trips, 2 MMA, 0 LDGSTS (0 p), 4.5 per 64 k",
    "path: 12 instructions + a nested loop's trips, 2 MMA, 2 LDGSTS (1 p), 6.0 per 64 k",
]
for w in want:
    if w not in out:
        fail(f"missing '{w}':\n" + out)
if out.count("path:") != 2:
    fail("paths of the k loop other than the two:\n" + out)
if "no trip found" not in out.split("sm80_64x64x32")[1]:
    fail("the loop that only leaves has a trip:\n" + out)

rc, out, err = run_on("sass_loop.py", "")
if rc != 0 or out.strip():
    fail(f"an empty listing: exit {rc}, '{out}' '{err}'")
r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "sass_loop.py"), "/nonexistent.sass"],
                   capture_output=True, text=True)
if r.returncode == 0 or "sass_loop: /nonexistent.sass" not in r.stderr or "Traceback" in r.stderr:
    fail(f"a missing file: exit {r.returncode}, '{r.stderr}'")
print("ok")
