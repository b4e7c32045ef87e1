#!/bin/sh
# run.sh - runs one libFuzzer binary (built elsewhere: fuzz_NAME from a
# -DEVT_FUZZ=ON build) for a bounded time, from a copy of its seeds and with
# its flags as tests/fuzz/targets lists them for NAME, and fails on any
# crash, leak, timeout or sanitizer report.  Builds nothing.
#
#   sh tests/fuzz/run.sh FUZZER [SECONDS]   (default: the target's SECONDS)
#
# The last line sums the run up: "fuzz_NAME: N inputs in S s (R/s), ..." or
# "fuzz_NAME: FAILED ...".  A failing input is kept in
# $TMPDIR/evt-fuzz-artifacts and printed in base64 (its first 4 KiB).
set -u

fuzzer=${1:?usage: run.sh FUZZER [SECONDS]}
want_seconds=${2:-}
[ -x "$fuzzer" ] || { echo "run.sh: $fuzzer is not executable" >&2; exit 2; }
fuzzer=$(cd "$(dirname "$fuzzer")" && pwd)/$(basename "$fuzzer")
name=$(basename "$fuzzer")
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2

# NAME SECONDS [-FLAG...] SEEDS..., globs relative to the repository
line=$(grep -E "^${name#fuzz_}[[:space:]]" tests/fuzz/targets | head -n 1)
[ -n "$line" ] || { echo "run.sh: ${name#fuzz_} is not in tests/fuzz/targets" >&2; exit 2; }
# shellcheck disable=SC2086 # split into fields, globs expanded
set -- $line
seconds=${want_seconds:-$2}
shift 2
flags=''
work=$(mktemp -d "${TMPDIR:-/tmp}/evt-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/corpus" "$work/artifacts"
for field in "$@"; do
    case $field in
    -*) flags="$flags $field" ;;
    *)
        # Seeds are copied: libFuzzer adds what it finds to the first folder.
        # tests/golden/a.evt -> tests_golden_a.evt: no clashes between folders
        if [ -d "$field" ]; then
            for f in "$field"/*; do
                [ -f "$f" ] && cp "$f" "$work/corpus/$(echo "$f" | tr / _)"
            done
        elif [ -f "$field" ]; then
            cp "$field" "$work/corpus/$(echo "$field" | tr / _)"
        fi
        ;;
    esac
done
case $seconds in
'' | *[!0-9]* | 0) echo "run.sh: SECONDS must be a positive integer (libFuzzer reads 0 as forever)" >&2; exit 2 ;;
esac

# shellcheck disable=SC2086 # the flags are words
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    $flags -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1
rc=$?

final_stat() { sed -n "s/^stat::$1: *//p" "$work/log" | tail -n 1; }
runs=$(final_stat number_of_executed_units)
found=$(ls "$work/artifacts")
if [ "$rc" = 0 ] && [ -z "$found" ] && [ -n "$runs" ]; then
    # the last status line: "#N DONE cov: C ft: F corp: K/SIZE ..."
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/log" | tail -n 1)
    cov=$(echo "$done_line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    corp=$(echo "$done_line" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    echo "$name: $runs inputs in ${seconds}s ($(final_stat average_exec_per_sec)/s), cov ${cov:-?}, corpus ${corp:-?}; no crash or leak"
    exit 0
fi

# Progress lines and the dictionary say only that coverage grew; the rest is worth reading.
awk '/^###### Recommended dictionary/ { dict = 1 }
     !dict && !/^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|RELOAD)/
     /^###### End of recommended dictionary/ { dict = 0 }' "$work/log" | tail -n 80
keep=${TMPDIR:-/tmp}/evt-fuzz-artifacts
mkdir -p "$keep"
for f in "$work"/artifacts/*; do
    [ -f "$f" ] || continue
    cp "$f" "$keep/"
    echo "failing input $(basename "$f"), kept in $keep (base64):"
    head -c 4096 "$f" | base64
done
echo "$name: FAILED (exit status $rc); inputs kept: ${found:-none}"
exit 1
