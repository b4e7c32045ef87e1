#!/usr/bin/env bash
# test.sh - everything that decides whether a change lands, from a bare machine.
#
#   bash scripts/test.sh
#
# 1. bootstrap   install the build and test dependencies when missing
# 2. debug       Debug build with -Werror, then the whole ctest suite but
#                the install test (the release pass runs it); tests labelled
#                gpu skip themselves when no GPU is present
# 3. release     Release build (the one scripts/main.sh uses), the whole suite
# 4. wheel       the Python package: pip wheel, installed into a fresh virtual
#                environment, imported from outside the tree, a kernel compiled
#                to PTX (tests/python/wheel.sh, in build-wheel/)
# 5. asan        ASan + UBSan build (-DEVT_SANITIZE=ON), the whole suite again
#                (the NVRTC compile test without the leak check)
# 6. tsan        ThreadSanitizer build (-DEVT_TSAN=ON, in build-tsan/) of the
#                threads test: contexts on several threads parsing, optimizing,
#                generating CUDA, compiling with NVRTC, validating launches and
#                sharing one disk kernel cache; any report fails
# 7. fuzz        clang build of the whole tree with -Werror (so what only
#                clang warns of fails here too), its libFuzzer targets (those
#                tests/fuzz/targets lists, EVT_JOBS at a time) each run for
#                its bounded time from its seeds
#                (tests/fuzz/run.sh), one summary row each; any crash, leak
#                or timeout fails, and the failing input is printed in base64
# A summary table ends the output, then one line "summary: N passed, N failed,
# N skipped" over every test run.  The exit status is 0 only if all passed.
#
# Environment:
#   EVT_FUZZ_SECONDS  how long the fuzzers run, as seconds per 60 of each
#                     target's time in tests/fuzz/targets (default 45: fuzz_parse
#                     45 s, fuzz_pipeline 67 s; 0 skips them; 45, not 60, keeps
#                     CI under 25 minutes since the codegen tests grew)
#   EVT_JOBS          parallel build and test jobs (default 2)
#   CI                when "true", print tool versions and more on failure
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=${EVT_JOBS:-2}
fuzz_seconds=${EVT_FUZZ_SECONDS:-45}
ci=${CI:-false}
ctest_timeout=600 # per test, for tests that set no TIMEOUT of their own

rows=()          # "step|status|seconds|detail" for the summary table
passed=0 failed=0 skipped=0
status=0

say() { printf '\n==> %s\n' "$*"; }

# Records one row of the summary table.
record() { rows+=("$1|$2|$3|$4"); }

# Runs ctest in build dir $2 for step $1 (further arguments go to ctest) and
# adds its counts to the totals.
run_ctest() {
    local step=$1 dir=$2 log="$2/ctest.log" start=$SECONDS rc=0
    shift 2
    ctest --test-dir "$dir" --output-on-failure --no-tests=error \
        --timeout "$ctest_timeout" -j "$jobs" "$@" 2>&1 | tee "$log" || rc=$?
    local total fail skip
    total=$(sed -n 's/.*tests failed out of \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
    fail=$(sed -n 's/.* \([0-9][0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n 1)
    skip=$(grep -c '\*\*\*Skipped' "$log" || true)
    total=${total:-0} fail=${fail:-0}
    if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
        fail=1 # ctest itself failed (no tests, a bad configuration): count it
        total=$((total + 1))
    fi
    passed=$((passed + total - fail - skip))
    failed=$((failed + fail))
    skipped=$((skipped + skip))
    if [ "$rc" -eq 0 ]; then
        record "$step" ok $((SECONDS - start)) "$((total - skip)) passed, $skip skipped"
    else
        record "$step" FAIL $((SECONDS - start)) "$fail of $total failed"
        status=1
        if [ "$ci" = true ] && [ -f "$dir/Testing/Temporary/LastTest.log" ]; then
            say "$step: the last 200 lines of LastTest.log"
            tail -n 200 "$dir/Testing/Temporary/LastTest.log"
        fi
    fi
}

# Configures dir $2 for step $1 with the cmake arguments after $3 and builds
# the targets $3 (separated by spaces) there; records a row and returns
# non-zero on failure.
build() {
    local step=$1 dir=$2 targets=$3 start=$SECONDS
    shift 3
    say "$step: configure and build $targets in $dir"
    # shellcheck disable=SC2086 # one --target, several names
    if cmake -S . -B "$dir" "$@" && cmake --build "$dir" --target $targets -j "$jobs"; then
        record "$step build" ok $((SECONDS - start)) "$dir"
        return 0
    fi
    record "$step build" FAIL $((SECONDS - start)) "see the compiler output above"
    failed=$((failed + 1))
    status=1
    return 1
}

print_summary() {
    say "summary"
    printf '%-14s %-7s %6s  %s\n' step status time detail
    local row step st secs detail
    for row in "${rows[@]}"; do
        IFS='|' read -r step st secs detail <<<"$row"
        printf '%-14s %-7s %5ss  %s\n' "$step" "$st" "$secs" "$detail"
    done
    printf 'total time %ss\n' "$SECONDS"
    echo "summary: $passed passed, $failed failed, $skipped skipped"
}

# --- 1. bootstrap ---------------------------------------------------------
say "bootstrap"
start=$SECONDS
if ! bash scripts/bootstrap.sh build test; then
    record bootstrap FAIL $((SECONDS - start)) "could not install the dependencies"
    failed=$((failed + 1))
    print_summary
    exit 1
fi
record bootstrap ok $((SECONDS - start)) ""

if [ "$ci" = true ]; then
    say "tools"
    uname -srm
    cc --version | head -n 1
    clang --version | head -n 1
    cmake --version | head -n 1
    flex --version
    bison --version | head -n 1
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "GPU present: tests labelled gpu run on it"
else
    echo "no GPU: tests labelled gpu skip themselves"
fi

# --- 2. Debug build, -Werror, the whole suite ------------------------------
if build debug build-debug all -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-Werror; then
    say "debug: ctest"
    # (the install test builds and installs evt again, three ways: the
    # release pass runs it, on the build that ships)
    run_ctest "debug ctest" build-debug -LE install
fi

# --- 3. Release build (what scripts/main.sh ships), the whole suite -------
# -O3 wakes warnings that -O0 does not (-Wformat-truncation, -Wmaybe-uninitialized),
# and the optimizer's exactness must hold when the library itself is optimized.
if build release build-release all -DCMAKE_BUILD_TYPE=Release; then
    say "release: ctest"
    # NVRTC's work does not change with how libevt is built: codegen runs once, in debug.
    run_ctest "release ctest" build-release -LE codegen
fi

# --- 4. the Python wheel, as pip users get it ------------------------------
say "wheel: build, install into a fresh venv, import, compile to PTX"
start=$SECONDS
rc=0
bash tests/python/wheel.sh build-wheel || rc=$?
case $rc in
0)
    record wheel ok $((SECONDS - start)) "installed, imported, PTX compiled"
    passed=$((passed + 1))
    ;;
77)
    record wheel skipped $((SECONDS - start)) "installed and imported; no NVRTC for the PTX"
    skipped=$((skipped + 1))
    ;;
*)
    record wheel FAIL $((SECONDS - start)) "exit $rc, see the output above"
    failed=$((failed + 1))
    status=1
    ;;
esac

# --- 5. ASan + UBSan build, the whole suite --------------------------------
if build asan build-asan all -DCMAKE_BUILD_TYPE=Debug -DEVT_SANITIZE=ON; then
    say "asan: ctest"
    asan_options=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
    # The library answers a failed allocation with EVT_ERR_NO_MEMORY, and the
    # tests check that: ASan must return NULL for an impossible size, not abort.
    asan_options+=:allocator_may_return_null=1
    ASAN_OPTIONS=$asan_options \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_ctest "asan ctest" build-asan -LE codegen
    # The emitter and NVRTC driver under ASan + UBSan too, without the leak
    # check: LeakSanitizer itself crashes scanning NVRTC's threads now and
    # then (libevt's own leaks are the suite above's business).  The full
    # listings for sm_90a only, generated but not compiled (the forced jobs,
    # fp8's among them, still compile on every target), and no ptxas test:
    # the debug pass compiles every listing for every target and runs ptxas
    # on the same PTX.  NVRTC's work under a sanitized evtc is NVRTC's own
    # (not instrumented); with the listings compiled this pass took 18 of
    # CI's 58 minutes (session 46).
    ASAN_OPTIONS=${asan_options/detect_leaks=1/detect_leaks=0} \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CODEGEN_TARGETS=sm_90a CODEGEN_FULL=cuda \
        run_ctest "asan codegen" build-asan -L codegen -E codegen_ptxas
fi

# --- 6. ThreadSanitizer on the threads test ----------------------------------
# Only test_threads starts threads of its own (the rest of the suite is
# single-threaded, and TSan would watch nothing there); -O1 keeps its NVRTC
# compiles and the instrumented library quick.  TSan fails the test (exit
# 66) on any report.
if build tsan build-tsan test_threads -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
    -DEVT_TSAN=ON; then
    say "tsan: the threads test"
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        run_ctest "tsan ctest" build-tsan -R '^unit\.test_threads$'
fi

# --- 7. clang, and libFuzzer: every target of tests/fuzz/targets -------------
# NAME SECONDS ...: each target's time at the default EVT_FUZZ_SECONDS=60
mapfile -t fuzz_lines < <(awk '/^[a-z]/ { print $1, $2 }' tests/fuzz/targets)
if [ "$fuzz_seconds" -le 0 ]; then
    # libFuzzer reads -max_total_time=0 as "forever", so 0 means skip.
    say "fuzz: skipped, EVT_FUZZ_SECONDS=$fuzz_seconds"
    record fuzz skipped 0 "EVT_FUZZ_SECONDS=$fuzz_seconds"
    skipped=$((skipped + 1))
elif build fuzz build-fuzz all -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DEVT_FUZZ=ON; then
    # Each fuzzer is one process on one core: up to $jobs of them at once,
    # each for its own time, each into its own log, printed when it ends.
    fuzz_one() { # NAME SECONDS: one target; its status and time into build-fuzz/NAME.rc
        local name=$1 secs=$2 start=$SECONDS rc=0 fuzzer
        fuzzer=$(find build-fuzz/ -type f -name "$name" -perm -u+x | head -n 1)
        sh tests/fuzz/run.sh "$fuzzer" "$secs" > "build-fuzz/$name.log" 2>&1 || rc=$?
        echo "$rc $((SECONDS - start))" > "build-fuzz/$name.rc"
    }
    names=()
    for line in "${fuzz_lines[@]}"; do
        name=fuzz_${line%% *}
        secs=$(( ${line##* } * fuzz_seconds / 60 ))
        [ "$secs" -ge 1 ] || secs=1
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
            wait -n || true
        done
        say "fuzz: $name for ${secs}s"
        rm -f "build-fuzz/$name.rc"
        fuzz_one "$name" "$secs" &
        names+=("$name")
    done
    wait
    for name in "${names[@]}"; do
        say "fuzz: $name"
        cat "build-fuzz/$name.log"
        rc=1 secs=0
        [ -f "build-fuzz/$name.rc" ] && read -r rc secs < "build-fuzz/$name.rc"
        # run.sh's last line: "fuzz_NAME: N inputs in S s (R/s), ..." or "fuzz_NAME: FAILED ..."
        detail=$(tail -n 1 "build-fuzz/$name.log")
        detail=${detail#"$name: "}
        if [ "$rc" -eq 0 ]; then
            record "$name" ok "$secs" "$detail"
            passed=$((passed + 1))
        else
            record "$name" FAIL "$secs" "$detail"
            failed=$((failed + 1))
            status=1
        fi
    done
fi

print_summary
exit "$status"
