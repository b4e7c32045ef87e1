#!/usr/bin/env bash
# plan_diff.sh - which plans a change to the heuristic moves: builds the
# planner of REV (default HEAD) and the working tree's, each from its own
# plan/ and kernels/tile_configs.h (with this tree's include/ and ir/
# headers; bench/plan_query.sh builds both), runs bench/plan_grid.c's grid (4,620 GEMM shapes and
# 1,008 batches, each with four epilogues, and 15,840 conv layers; sm_90a, 132 SMs) through both and
# prints how many plans moved (configuration, split-K, or the persistent walk's
# tail or stream-K: plan_grid.c's fifth field), from what to what; with -v, every moved
# shape too; with --none, exits 1 if any plan moved (the test that runs it
# against HEAD).  With --random N, N random problems instead of the grid
# (plan_grid.c's random:N: every target, SM counts, alignment, TMA, fp8,
# conv, batches), for a change meant to move nothing anywhere.  CPU only,
# a few seconds; no GPU, no CUDA.  Outside a git checkout it exits 77
# (skipped).
#
#     bash bench/plan_diff.sh [-v] [--none] [--random N] [REV]
set -euo pipefail
verbose=0 none=0 grid=()
while [ $# -gt 0 ]; do
    case "$1" in
        -v) verbose=1; shift ;;
        --none) none=1; shift ;;
        --random) grid=("random:${2:?plan_diff: --random needs a count}"); shift 2 ;;
        -*) echo "plan_diff: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
rev=${1:-HEAD}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/bench/plan_query.sh" --rev "$rev" "${grid[@]}" > "$tmp/old.txt"
bash "$root/bench/plan_query.sh" "${grid[@]}" > "$tmp/new.txt"
paste -d' ' "$tmp/old.txt" "$tmp/new.txt" | awk -v verbose="$verbose" -v none="$none" '
    NF != 10 || $2 != $7 { print "plan_diff: the two grids differ in their shapes (line " NR ")"; exit 2 }
    { kind[$1]++ }
    $3 != $8 || $4 != $9 || $5 != $10 {
        moved[$1]++
        what[$1 " " $3 " -> " $8]++
        if (verbose) print $1, $2, $3 "/" $4 " " $5, "->", $8 "/" $9 " " $10
    }
    END {
        for (k in kind) {
            printf "%-20s %6d of %6d plans moved\n", k, moved[k] + 0, kind[k]
            total += moved[k]
        }
        for (w in what) printf "  %6d  %s\n", what[w], w
        if (NR == 0) { print "plan_diff: no plans"; exit 2 }
        if (none && total > 0) exit 1
    }'
