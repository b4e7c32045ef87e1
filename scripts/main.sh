#!/usr/bin/env bash
# main.sh - build evt and compile every shipped example, from a bare machine.
#
#   bash scripts/main.sh
#
# Stages, each one function, run in the order of `stages` below:
#   bootstrap  install the build dependencies and graphviz when missing
#   build      Release build of evtc and the shared library libevt.so in
#              build-release/ (the Python package, bindings/python, loads it
#              from there), and a check that the package finds it
#   examples   compile examples/*.evt with evtc, once per kind in `emits`
#              (out/NAME.ir, out/NAME.dot), and render the graph of its
#              epilogues, a cluster each, to out/NAME.svg when graphviz's
#              `dot` is installed
#   kernels    compile every kernel of every example with NVRTC for the
#              default target (the GPU present, else sm_90a; EVT_TARGETS
#              overrides, e.g. "sm_80 sm_86 sm_89 sm_90a") into
#              out/KERNEL.TARGET.cubin: a line per kernel and target as it
#              compiles (tens of seconds in all), with its NVRTC time
#   run        with a GPU: evtc run --check on every kernel (a ragged GEMM
#              and a small conv), against the f64 CPU reference
# A table of what each example produced, and where the library is, ends the
# output; the exit status is 0 only when every example compiled and every
# check passed.
#
# Environment:
#   EVT_OUT   the output folder (default out)
#   EVT_JOBS  parallel build jobs (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=${EVT_JOBS:-2}
out=${EVT_OUT:-out}
build_dir=build-release
evtc=$build_dir/evtc
stages=(bootstrap build examples kernels run)
emits=(ir dot)

rows=()  # "example|kernels|epilogues|files|status" for the first table
krows=() # "kernel|step|target or size|detail|status" for the second
library="not built" # the shared library, and whether the Python package loads it
status=0

say() { printf '\n==> %s\n' "$*"; }

stage_bootstrap() {
    bash scripts/bootstrap.sh build main
}

stage_build() {
    # The same folder and options as scripts/test.sh's release step, which
    # also builds and runs the tests there.
    cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$build_dir" --target evtc evt_shared -j "$jobs"
    library="$build_dir/libevt.so"
    # The package looks in the source tree's build*/ folders, build/ first:
    # say which library it found.
    local loaded
    if ! command -v python3 >/dev/null 2>&1; then
        library+=" (no python3 to try the Python package)"
    elif loaded=$(PYTHONPATH=bindings/python python3 -c 'import evt; print(evt.library_path)' 2>&1); then
        library+=" (PYTHONPATH=bindings/python: import evt loads $loaded)"
    else
        echo "$loaded" >&2
        library+=" (the Python package cannot load it: FAIL)"
        status=1
    fi
    echo "library: $library"
}

stage_examples() {
    mkdir -p "$out"
    local have_dot=0
    if command -v dot >/dev/null 2>&1; then
        have_dot=1
    else
        echo "graphviz is not installed: no SVGs (bash scripts/bootstrap.sh main)"
    fi
    local src name kind files ok kernels epilogues
    for src in examples/*.evt; do
        name=$(basename "$src" .evt)
        say "$src"
        files=() ok=1
        # Diagnostics once, from a plain compile; each emit repeats them only if it fails.
        if "$evtc" "$src"; then
            for kind in "${emits[@]}"; do
                if "$evtc" "$src" --emit="$kind" -o "$out/$name.$kind" 2>"$out/.stderr"; then
                    files+=("$name.$kind")
                else
                    cat "$out/.stderr" >&2
                    ok=0
                fi
            done
            rm -f "$out/.stderr"
        else
            ok=0
        fi
        # One graph per example, each epilogue a cluster of it.
        if [ "$ok" -eq 1 ] && [ "$have_dot" -eq 1 ]; then
            if dot -Tsvg "$out/$name.dot" -o "$out/$name.svg"; then
                files+=("$name.svg")
            else
                ok=0
            fi
        fi
        kernels=$(grep -c '^kernel ' "$out/$name.ir" 2>/dev/null || true)
        epilogues=$(grep -c '^epilogue ' "$out/$name.ir" 2>/dev/null || true)
        if [ "$ok" -eq 1 ]; then
            rows+=("$name|${kernels:-0}|${epilogues:-0}|${files[*]}|ok")
        else
            rows+=("$name|-|-|${files[*]:-}|FAIL")
            status=1
        fi
    done
}

# Every kernel of every example: NAME|FILE|MAINLOOP.
example_kernels() {
    local src k ml
    for src in examples/*.evt; do
        sed -n 's/^kernel[ \t]*\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*=[ \t]*\(gemm\|conv2d_fprop\).*/\1 \2/p' "$src" |
            while read -r k ml; do echo "$k|$src|$ml"; done
    done
}

# compile_cubin KERNEL SRC TARGET LOG: evtc --emit=cubin --time into
# out/KERNEL.TARGET.cubin, stderr into LOG; TARGET "" is evtc's default.
compile_cubin() {
    if [ -n "$3" ]; then
        "$evtc" "$2" --kernel "$1" --target "$3" --emit=cubin --time -o "$out/$1.$3.cubin" 2>"$4"
    else
        (cd "$out" && "$root/$evtc" "$root/$2" --kernel "$1" --emit=cubin --time) 2>"$4"
    fi
}

stage_kernels() {
    local targets=(${EVT_TARGETS:-})
    local kernels=() line k src ml t log got what n=0 total
    mapfile -t kernels < <(example_kernels)
    total=$((${#kernels[@]} * (${#targets[@]} > 0 ? ${#targets[@]} : 1)))
    for line in "${kernels[@]}"; do
        IFS='|' read -r k src ml <<<"$line"
        for t in "${targets[@]:-}"; do
            n=$((n + 1))
            # Each compile takes seconds: a line as it starts, ended by its time.
            printf '[%d/%d] %s (%s) for %s ... ' "$n" "$total" "$k" "$(basename "$src")" \
                "${t:-the default target}"
            log=$out/$k.${t:-default}.log
            if compile_cubin "$k" "$src" "$t" "$log"; then
                # evtc --time: "evtc: KERNEL TARGET: NVRTC 1.234 s" -> "TARGET 1.234 s"
                got=$(sed -n 's/^evtc: [^ ]* \([^:]*\): NVRTC \([0-9.]*\) s$/\1 \2 s/p' "$log")
                echo "${got:-done}"
                what=${got%% *}
                [ -n "$t" ] || what+=" (default)"
                krows+=("$k|cubin|$what|${got#* }|ok")
            else
                echo FAIL
                cat "$log" >&2
                krows+=("$k|cubin|${t:-default}|-|FAIL")
                status=1
            fi
        done
    done
}

stage_run() {
    if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "no GPU: nothing to run (the kernels are compiled above)"
        return 0
    fi
    local k src ml size log
    while IFS='|' read -r k src ml; do
        if [ "$ml" = gemm ]; then size="--gemm 1000,1037,520"; else size="--conv 4,21,19,64,72,3,3,1,1,1"; fi
        log=$out/$k.run.log
        if "$evtc" run "$src" --kernel "$k" $size --check >"$log" 2>&1; then
            krows+=("$k|run --check|$size|$(grep -c ': PASS' "$log") outputs|PASS")
        else
            cat "$log" >&2
            krows+=("$k|run --check|$size|-|FAIL")
            status=1
        fi
    done < <(example_kernels)
}

print_table() {
    say "summary: $out/"
    echo "library: $library"
    printf '%-20s %7s %9s  %-7s %s\n' example kernels epilogues status files
    local row name kernels epilogues files st
    for row in "${rows[@]}"; do
        IFS='|' read -r name kernels epilogues files st <<<"$row"
        printf '%-20s %7s %9s  %-7s %s\n' "$name" "$kernels" "$epilogues" "$st" "$files"
    done
    [ ${#krows[@]} -gt 0 ] || return 0
    printf '\n%-22s %-12s %-30s %-12s %s\n' kernel step 'target / size' detail status
    local k step what detail
    for row in "${krows[@]}"; do
        IFS='|' read -r k step what detail st <<<"$row"
        printf '%-22s %-12s %-30s %-12s %s\n' "$k" "$step" "$what" "$detail" "$st"
    done
}

for stage in "${stages[@]}"; do
    say "$stage"
    "stage_$stage"
done
print_table
exit "$status"
