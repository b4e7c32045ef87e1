#!/bin/sh
# run.sh - runs a libFuzzer binary (built elsewhere, e.g. fuzz_parse from a
# -DEVT_FUZZ=ON build) for a bounded time over a copy of the golden corpus,
# and fails on any crash, leak, timeout or sanitizer report.  Builds nothing.
#
#   sh tests/fuzz/run.sh FUZZER [SECONDS]      (default 60 seconds)
#
# A failing input is kept in $TMPDIR/evt-fuzz-artifacts and printed in base64.
set -u

fuzzer=${1:?usage: run.sh FUZZER [SECONDS]}
seconds=${2:-60}
case $seconds in
'' | *[!0-9]* | 0) echo "run.sh: SECONDS must be a positive integer (libFuzzer reads 0 as forever)" >&2; exit 2 ;;
esac
[ -x "$fuzzer" ] || { echo "run.sh: $fuzzer is not executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/evt-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/corpus" "$work/artifacts"
# The seeds are copied: libFuzzer adds what it finds to the first folder.
for f in "$here"/../golden/*.evt "$here"/../../examples/*.evt; do
    [ -f "$f" ] && cp "$f" "$work/corpus/$(basename "$(dirname "$f")")_$(basename "$f")"
done

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$here/evt.dict" \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1
rc=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
found=$(ls "$work/artifacts")
if [ "$rc" = 0 ] && [ -z "$found" ] && [ -n "$runs" ]; then
    echo "fuzz: $runs inputs in ${seconds}s, no crash or leak"
    exit 0
fi

echo "fuzz: FAILED (exit status $rc)"
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|RELOAD)' "$work/log" | tail -n 80
keep=${TMPDIR:-/tmp}/evt-fuzz-artifacts
mkdir -p "$keep"
for f in "$work"/artifacts/*; do
    [ -f "$f" ] || continue
    cp "$f" "$keep/"
    echo "failing input $(basename "$f"), kept in $keep (base64):"
    head -c 4096 "$f" | base64
done
exit 1
