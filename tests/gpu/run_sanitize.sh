#!/usr/bin/env bash
# run_sanitize.sh - compute-sanitizer's memcheck, racecheck, synccheck and
# initcheck over one forced tile configuration of every family (mma.sync,
# wgmma, warp-specialized, TMA producer/consumer, staged, split-K): the runs
# of tests/gpu/sanitize_configs.c (a ragged GEMM both ways round, a conv on
# the fast and the guarded path, with an [M, N] input, a bias, a param, two
# outputs and two reductions).  Prints one line per configuration and tool:
# the errors the tool reported (0 expected) and its time.
#
#   bash tests/gpu/run_sanitize.sh BUILD [TOOL...]     (default: all four)
#
# First every configuration runs once without a tool, in parallel: that
# checks its results and fills the disk kernel cache, so that the tools'
# runs load cubins instead of compiling.  Exit status: 0 no tool reported an
# error and every run passed, 1 otherwise, 77 no GPU or no compute-sanitizer.
set -u
build=$(cd "${1:?usage: run_sanitize.sh BUILD [TOOL...]}" && pwd) || exit 1
shift
tools=${*:-memcheck racecheck synccheck initcheck}
driver=$build/tests/gpu/sanitize_configs
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
    echo "run_sanitize: no compute-sanitizer (not on PATH, not in /usr/local/cuda/bin): skipped"
    exit 77
fi
export EVT_CACHE_DIR=${EVT_CACHE_DIR:-/tmp/evt-sanitize-cache}
logs=$(mktemp -d)
mapfile -t rows < <("$driver" --families)

warm=$SECONDS
pids=()
for i in "${!rows[@]}"; do
    read -r family config split <<<"${rows[$i]}"
    "$driver" --split-k "$split" "$config" >"$logs/plain.$i.log" 2>&1 &
    pids[$i]=$!
done
status=0 skipped=0
for i in "${!rows[@]}"; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    [ $rc -eq 77 ] && skipped=1
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
        status=1
        echo "== ${rows[$i]} failed without a tool (exit $rc):"
        cat "$logs/plain.$i.log"
    fi
done
if [ $skipped -eq 1 ]; then
    tail -n 1 "$logs/plain.0.log"
    exit 77
fi
"$sanitizer" --version | tail -n 1
echo "every configuration without a tool: $([ $status -eq 0 ] && echo passed || echo FAILED)," \
    "$((SECONDS - warm)) s (compiles included)"

failed=()
printf '%-18s %-30s %-5s %-10s %6s %8s  %s\n' family config split tool errors seconds note
for i in "${!rows[@]}"; do
    read -r family config split <<<"${rows[$i]}"
    for tool in $tools; do
        log=$logs/$tool.$i.log
        start=$(date +%s%N)
        rc=0
        # 86: the tool found an error (any other failure is the driver's own exit status).
        "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 \
            "$driver" --split-k "$split" "$config" >"$log" 2>&1 || rc=$?
        ms=$((($(date +%s%N) - start) / 1000000))
        # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck:
        # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
        errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' "$log" | tail -n 1)
        race=$(sed -n 's/.*RACECHECK SUMMARY:.*(\([0-9][0-9]*\) errors*, \([0-9][0-9]*\) warnings*).*/\1 \2/p' \
            "$log" | tail -n 1)
        note=
        if [ -n "$race" ]; then
            errors=${race% *}
            [ "${race#* }" != 0 ] && note="${race#* } warnings"
        fi
        if [ -z "$errors" ]; then
            errors=?
            note="no summary"
        fi
        [ $rc -ne 0 ] && note="${note:+$note, }exit $rc"
        if [ $rc -ne 0 ] || [ "$errors" != 0 ]; then
            status=1
            note="${note:+$note, }FAIL"
            failed+=("$log")
        fi
        printf '%-18s %-30s %-5s %-10s %6s %5d.%d  %s\n' "$family" "$config" "$split" "$tool" "$errors" \
            $((ms / 1000)) $((ms % 1000 / 100)) "$note"
    done
done
# The failed runs' first reports: the first errors are what matters.
for log in "${failed[@]}"; do
    echo "== $log"
    head -n 60 "$log"
    [ -n "${OUT:-}" ] && cp "$log" "$OUT/sanitize.$(basename "$log")"
done
echo "logs in $logs"
exit $status
