#!/usr/bin/env bash
# sass_count.sh - each entry point's SASS instruction count, registers and
# spill bytes for one .evt file, on this machine (no GPU, no cuobjdump):
# evtc's PTX through the toolkit's ptxas, counted from the cubin's .text
# sections (sm_80 and later encode every instruction in 16 bytes).  A
# static check of a kernels/ or codegen/ change before device time is
# spent on it: a change that leaves the counts as they were (ptxas already
# made the same code) needs no timing.
#
#     bash bench/sass_count.sh [--evtc PATH] [--target sm_90a] FILE.evt [evtc options...]
#     bash bench/sass_count.sh --evtc /tmp/old/build/evtc f.evt > old.txt
#     bash bench/sass_count.sh f.evt > new.txt; join old.txt new.txt
#
# Prints "entry instructions registers spill_bytes" a line, sorted by entry
# (spill bytes: stores plus loads, as ptxas -v reports them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
evtc=$root/build/evtc
target=sm_90a
while [ $# -gt 0 ]; do
    case $1 in
    --evtc) evtc=${2:?sass_count: --evtc PATH}; shift 2 ;;
    --target) target=${2:?sass_count: --target T}; shift 2 ;;
    *) break ;;
    esac
done
file=${1:?sass_count: FILE.evt}
shift
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$evtc" ] || { echo "sass_count: no evtc at $evtc (--evtc PATH)" >&2; exit 2; }
[ -x "$ptxas" ] || { echo "sass_count: no ptxas (PTXAS=PATH)" >&2; exit 2; }
command -v readelf > /dev/null || { echo "sass_count: needs readelf (binutils)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$evtc" "$file" --emit=ptx --target "$target" -o "$tmp/k.ptx" "$@"

"$ptxas" -arch="$target" -v "$tmp/k.ptx" -o "$tmp/k.cubin" 2> "$tmp/ptxas.log"
# .text.<entry> sizes (hex bytes) -> instructions
readelf -S -W "$tmp/k.cubin" 2> /dev/null | awk '$2 ~ /^\.text\./ { sub(/^\.text\./, "", $2); print $2, $6 }' |
    while read -r name hex; do echo "$name $((16#$hex / 16))"; done | sort > "$tmp/sizes"
# ptxas -v: "Compiling entry function 'NAME'", "... N bytes spill stores, M bytes spill loads", "Used R registers"
awk '/Compiling entry function/ { e = $7; gsub(/\047/, "", e) }
     /spill stores/ { sp[e] = $5 + $9 }
     /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") print e, $(i + 1), sp[e] + 0 }' \
    "$tmp/ptxas.log" | sort > "$tmp/regs"
join "$tmp/sizes" "$tmp/regs"
