#!/bin/sh
# plan_query_test.sh - bench/plan_query.sh's lines have five fields, the last
# the persistent walk's end, so that plan_diff.sh sees a tail move: a plan
# without one says "-", the cooperative tile's quarter-wave tail (2048 x
# 11008: 28 tiles past 4 waves of 132, plan_coop_tail) "tail:28x4", and a
# refused plan as many fields.  exit 77 where no C compiler builds it.
#   sh tests/bench/plan_query_test.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
# no C compiler: nothing to build plan_query with (skipped); any other
# failure of plan_query (say, plan_grid.c not building) is this test's
command -v "${CC:-cc}" > /dev/null 2>&1 || { echo "plan_query: SKIP: no C compiler (${CC:-cc})"; exit 77; }
out=$(bash "$root/bench/plan_query.sh" gemm:2048x11008x2048:gelu gemm:4096x4096x4096:gelu \
    conv:64,7,7,512,2048,1,0,1 2>&1) || { echo "FAIL: plan_query: $out"; exit 1; }
echo "$out"
fail=0
want() { # line number, awk condition on it, what it means
    echo "$out" | sed -n "$1p" | awk "NF == 5 && ($2) { ok = 1 } END { exit !ok }" ||
        { echo "FAIL: line $1: $3"; fail=1; }
}
want 1 '$5 == "tail:28x4"' "the cooperative tile's tail, 28 tiles split 4 ways"
want 2 '$5 == "-"' "no tail, no stream-K"
want 3 '$5 == "-"' "a conv plan, no tail"
# random problems, refused ones among them (125 of these 2,000)
random=$(bash "$root/bench/plan_query.sh" random:2000 |
    awk 'NF != 5 { bad++ } $3 == "refused" { refused++ } END { print bad + 0, refused + 0 }')
[ "${random% *}" = 0 ] || { echo "FAIL: ${random% *} random lines without five fields"; fail=1; }
[ "${random#* }" -gt 0 ] || { echo "FAIL: no refused plan among the random ones, so none was checked"; fail=1; }
[ "$fail" = 0 ] && echo "plan_query_test: PASS"
exit "$fail"
