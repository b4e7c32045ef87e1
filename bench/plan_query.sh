#!/usr/bin/env bash
# plan_query.sh - the heuristic's plan for shapes given on the command line
# (bench/plan_grid.c given shapes: gemm:MxNxK[xL][:gelu|light|bias] or
# conv:N,H,W,C,K,R,PAD,STRIDE), sm_90a, 132 SMs, TMA maps; CPU only, built
# from this tree's planner as bench/plan_diff.sh builds it.
#
#     bash bench/plan_query.sh gemm:256x4096x1024x8:bias conv:32,35,35,192,48,1,0,1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O1 -w -I"$root/plan" -I"$root/kernels" -I"$root/include" -I"$root" -I"$root/ir" \
    -I"$root/support" "$root/bench/plan_grid.c" "$root"/plan/*.c "$root/bench/plan_stubs.c" -o "$tmp/q" -lm
"$tmp/q" "$@"
