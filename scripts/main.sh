#!/usr/bin/env bash
# main.sh - build evt and compile every shipped example, from a bare machine.
#
#   bash scripts/main.sh
#
# Stages, each one function, run in the order of `stages` below:
#   bootstrap  install the build dependencies and graphviz when missing
#   build      Release build of libevt and evtc in build-release/
#   examples   compile examples/*.evt with evtc, once per kind in `emits`
#              (out/NAME.ir, out/NAME.dot), and render each epilogue's graph
#              to out/NAME.EPILOGUE.svg when graphviz's `dot` is installed
# A table of what each example produced ends the output; the exit status is
# 0 only when every example compiled.
#
# Later stages slot in the same way: CUDA emission joins `emits` (cuda, ptx,
# cubin per --target), and running each kernel on the GPU when one is present
# becomes a stage after `examples`, adding its own columns to the table.
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
stages=(bootstrap build examples)
emits=(ir dot)

rows=() # "example|kernels|epilogues|files|status" for the table
status=0

say() { printf '\n==> %s\n' "$*"; }

stage_bootstrap() {
    bash scripts/bootstrap.sh build main
}

stage_build() {
    # The same folder and options as scripts/test.sh's release step, which
    # also builds and runs the tests there.
    cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$build_dir" --target evtc -j "$jobs"
}

# Splits a DOT file of several digraphs into one SVG per epilogue.
render_svgs() {
    local dot_file=$1 prefix=$2
    awk -v prefix="$prefix" '
        /^digraph "/ { name = $2; gsub(/"/, "", name); file = prefix "." name ".gv" }
        file { print > file }
        /^}/ { close(file); file = "" }' "$dot_file"
    local gv
    for gv in "$prefix".*.gv; do
        dot -Tsvg "$gv" -o "${gv%.gv}.svg"
        rm -f "$gv"
    done
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
        if [ "$ok" -eq 1 ] && [ "$have_dot" -eq 1 ]; then
            rm -f "$out/$name".*.svg
            render_svgs "$out/$name.dot" "$out/$name"
            files+=("$(find "$out" -maxdepth 1 -name "$name.*.svg" | wc -l | tr -d ' ') svg")
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

print_table() {
    say "summary: $out/"
    printf '%-20s %7s %9s  %-7s %s\n' example kernels epilogues status files
    local row name kernels epilogues files st
    for row in "${rows[@]}"; do
        IFS='|' read -r name kernels epilogues files st <<<"$row"
        printf '%-20s %7s %9s  %-7s %s\n' "$name" "$kernels" "$epilogues" "$st" "$files"
    done
}

for stage in "${stages[@]}"; do
    say "$stage"
    "stage_$stage"
done
print_table
exit "$status"
