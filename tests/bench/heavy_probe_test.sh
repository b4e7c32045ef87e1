#!/bin/sh
# heavy_probe_test.sh - bench/heavy_probe.sh on the CPU: `select` lists the
# random programs that are heavy (not per element, two costly builtins or
# more) and only those; `spills` reads ptxas's spill bytes of a listed
# program's fast entry; `time` runs the pick and a forced tile under the
# fake driver (nothing computed: it checks the plumbing, one line a variant
# naming the plan run, not a time).
#   sh tests/bench/heavy_probe_test.sh BUILD_DIR
set -u
build=${1:?usage: heavy_probe_test.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-heavy.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$build/tests/progen_print" ] || { echo "heavy_probe: SKIP: no $build/tests/progen_print"; exit 77; }
"$build/evtc" "$root/tests/gpu/cases/layouts.evt" --kernel rc_f16 --target sm_90a --emit ptx -o "$tmp/probe.ptx" \
    >/dev/null 2>&1
[ $? -ne 2 ] || { echo "heavy_probe: SKIP: NVRTC cannot be loaded"; exit 77; }
BUILD=$build bash "$root/bench/heavy_probe.sh" select 1 80 "$tmp/p" 2 >"$tmp/select.out" 2>&1 ||
    { echo "FAIL: select"; cat "$tmp/select.out"; exit 1; }
n=$(wc -l <"$tmp/p/list")
[ "$n" -ge 1 ] || { echo "FAIL: no heavy program among seeds 1-79"; exit 1; }
# every listed program: two costly builtins or more, and a reduction or an [M, N] input
bad=$(awk '$2 < 2 || $3 + $4 < 1' "$tmp/p/list")
[ -z "$bad" ] || { echo "FAIL: listed but not heavy: $bad"; exit 1; }
# the list is the planner's answer (progen_print --classes): its heavy ones, all of them at MIN_COSTLY 2
want=$(awk '$6 == 1' "$tmp/p/classes" | wc -l)
[ "$want" = "$n" ] || { echo "FAIL: $n listed, the planner calls $want heavy"; exit 1; }
# and, read from the optimized IR independently of the planner's C, a
# program is listed exactly when it is heavy: a per-element program never is
ops=$(grep 'IR_COSTLY)' "$root/ir/ops.h" | sed -E 's/.*X\(IR_[A-Z0-9_]+, "([a-z0-9_]+)".*/\1/' | paste -sd'|')
[ -n "$ops" ] || { echo "FAIL: no IR_COSTLY builtin read from ir/ops.h"; exit 1; }
for f in "$tmp"/p/p*.evt; do
    ir=$("$build/evtc" "$f" --emit=ir 2>/dev/null) || continue
    c=$(printf '%s\n' "$ir" | grep -cE "= ($ops) .*\[M, N\]")
    r=$(printf '%s\n' "$ir" | grep -cE "= reduce_|= input .*\[M, N\]")
    heavy=$([ "$c" -ge 2 ] && [ "$r" -ge 1 ] && echo 1 || echo 0)
    listed=$(grep -q "^$f " "$tmp/p/list" && echo 1 || echo 0)
    [ "$heavy" = "$listed" ] || { echo "FAIL: $f: heavy $heavy by its IR, listed $listed"; exit 1; }
done
head -n 1 "$tmp/p/list" >"$tmp/one"
# a program that fails (here, a file that is gone) gets an ERR line, and the programs after it still run
{ echo "$tmp/p/gone.evt 2 1 0 1"; cat "$tmp/one"; } >"$tmp/two"
CONFIGS=sm90_pp2_128x128x64_s4 BUILD=$build bash "$root/bench/heavy_probe.sh" spills "$tmp/one" >"$tmp/spills.out" 2>&1
grep -Eq "sm90_pp2_128x128x64_s4 [0-9]+/[0-9]+ sm90_pp2_128x128x64_s4:g2 [0-9]+/[0-9]+$" "$tmp/spills.out" ||
    { echo "FAIL: spills"; cat "$tmp/spills.out"; exit 1; }
EVT_CUDA_DRIVER=$build/tests/libevt_fakecuda.so EVT_CACHE_DIR=$tmp/cache VARIANTS="P P4" BUILD=$build \
    bash "$root/bench/heavy_probe.sh" time "$tmp/one" 300,200,100 1 1 >"$tmp/time.out" 2>&1
[ "$(grep -c "^R 1 " "$tmp/time.out")" = 2 ] && grep -q " P4 [0-9.]* sm90_pp2_128x128x64_s4/1$" "$tmp/time.out" ||
    { echo "FAIL: time"; cat "$tmp/time.out"; exit 1; }
EVT_CUDA_DRIVER=$build/tests/libevt_fakecuda.so EVT_CACHE_DIR=$tmp/cache VARIANTS="P4" BUILD=$build \
    bash "$root/bench/heavy_probe.sh" time "$tmp/two" 300,200,100 1 1 >"$tmp/time2.out" 2>&1
grep -q "^R 1 gone 300,200,100 P4 ERR" "$tmp/time2.out" && grep -q " P4 [0-9.]* sm90_pp2_128x128x64_s4/1$" "$tmp/time2.out" ||
    { echo "FAIL: time after a failed run"; cat "$tmp/time2.out"; exit 1; }
echo "heavy_probe: ok ($n heavy programs of seeds 1-79)"
