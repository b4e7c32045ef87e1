#!/usr/bin/env bash
# plan_query.sh - the heuristic's plan for shapes given on the command line
# (bench/plan_grid.c given shapes: gemm:MxNxK[xL][:gelu|light|bias|tanhfast|residual] or
# conv:N,H,W,C,K,R,PAD,STRIDE), or for its whole grid given none; sm_90a,
# 132 SMs, TMA maps; CPU only.  A line a shape: the kind, the shape, the
# configuration, its split-K shares and the persistent walk's end ("-",
# "tail:TxS" or "sk:I@F": plan_grid.c's print_plan).  Built from this tree's planner, or with
# --rev REV from REV's plan/ and kernels/tile_configs.h (this tree's
# include/ and ir/ headers): bench/plan_diff.sh and bench/plan_replay.py
# compare the two.  Exits 77 where REV is not a commit of this checkout.
#
#     bash bench/plan_query.sh [--rev REV] gemm:256x4096x1024x8:bias conv:32,35,35,192,48,1,0,1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tree=$root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --rev ]; then
    rev=${2:?plan_query: --rev needs a revision}
    shift 2
    if ! git -C "$root" rev-parse --verify -q "$rev^{commit}" > /dev/null 2>&1; then
        echo "plan_query: $rev is not a commit of a git checkout at $root: skipped" >&2
        exit 77
    fi
    tree=$tmp/rev
    mkdir -p "$tree"
    git -C "$root" archive "$rev" plan kernels/tile_configs.h | tar -x -C "$tree"
fi
${CC:-cc} -std=c11 -O1 -w -I"$tree/plan" -I"$tree/kernels" -I"$root/include" -I"$root" -I"$root/ir" \
    -I"$root/support" "$root/bench/plan_grid.c" "$tree"/plan/*.c "$root/bench/plan_stubs.c" -o "$tmp/q" -lm
"$tmp/q" "$@"
