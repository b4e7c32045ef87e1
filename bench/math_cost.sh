#!/usr/bin/env bash
# math_cost.sh - what each builtin of kernels/common/evt_math.h costs on the GPU,
# without a GPU: one kernel per builtin, y[i] = f(x[i]), compiled as the
# generated epilogues are (--fmad=false, -std=c++17) with nvcc -cubin for the
# target, then counted in SASS with nvdisasm.  Prints, per builtin, the
# instructions per element (the kernel's count less the y[i] = x[i] kernel's),
# the FP32 arithmetic among them (FFMA/FMUL/FADD/FMNMX/FSEL/FSETP...), the
# branches (BRA/BSSY: each is a divergence point that keeps the compiler from
# interleaving elements) and the registers ptxas reports.  The count is static:
# every instruction of the function once, which for branch-free code is what
# each element executes.
#
# usage: bench/math_cost.sh [sm_90a] [header]   (default: this tree's evt_math.h)
# needs: nvcc (CUDA_HOME or /usr/local/cuda) and nvdisasm (PATH, $NVDISASM, or
#        the pip wheel nvidia-cuda-nvdisasm).  Without nvdisasm it counts PTX.
set -euo pipefail
arch=${1:-sm_90a}
root=$(cd "$(dirname "$0")/.." && pwd)
header=${2:-$root/kernels/common/evt_math.h}
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
nvdisasm=${NVDISASM:-$(command -v nvdisasm || true)}
if [ -z "$nvdisasm" ]; then
    nvdisasm=$(python3 - <<'EOF' 2>/dev/null || true
import glob, os, nvidia
for p in nvidia.__path__:
    for f in glob.glob(os.path.join(p, "*", "bin", "nvdisasm")):
        print(f); raise SystemExit
EOF
)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fns="id exp log tanh sigmoid silu gelu gelu_tanh hardswish rsqrt"
{
    printf '#include "%s"\n' "$header"
    for f in $fns; do
        expr="evt_$f(x[i])"
        [ "$f" = id ] && expr="x[i]"
        printf 'extern "C" __global__ void k_%s(const float *__restrict__ x, float *__restrict__ y, int n)\n' "$f"
        printf '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = %s; }\n' "$expr"
    done
} >"$work/cost.cu"

"$nvcc" -std=c++17 --fmad=false -O3 -arch="$arch" -cubin -Xptxas -v -o "$work/cost.cubin" "$work/cost.cu" \
    2>"$work/ptxas.txt"
declare -A regs
cur=
while IFS= read -r line; do
    case $line in
    *"Compiling entry function '"*) cur=${line#*\'k_}; cur=${cur%%\'*} ;;
    *"Used "*" registers"*) r=${line#*Used }; regs[$cur]=${r%% *} ;;
    esac
done <"$work/ptxas.txt"

if [ -n "$nvdisasm" ]; then
    "$nvdisasm" -c "$work/cost.cubin" >"$work/cost.sass"
    unit=SASS
    # one line per instruction: "fn opcode", NOPs and the trailing self-branch dropped
    awk '
        /^\.text\.k_/ { fn = $1; sub(/^\.text\.k_/, "", fn); sub(/:$/, "", fn); next }
        /\/\*[0-9a-f]+\*\// && fn != "" {
            line = $0; sub(/.*\*\/ +/, "", line); sub(/ *;.*/, "", line)
            n = split(line, w, " "); op = w[1]; if (op ~ /^@/) op = w[2]
            if (op == "NOP") next
            if (op == "BRA" && line ~ /\.L_x_/ && prev == "EXIT") next
            print fn, op; prev = op
        }' "$work/cost.sass" >"$work/ops.txt"
else
    "$nvcc" -std=c++17 --fmad=false -O3 -arch="$arch" -ptx -o "$work/cost.ptx" "$work/cost.cu"
    unit=PTX
    awk '
        /^\.visible \.entry k_/ { fn = $3; sub(/^k_/, "", fn); sub(/\(.*/, "", fn); next }
        fn != "" && /^\t[a-z@]/ && !/^\t\.|^\t\/\// {
            line = $0; sub(/^\t+/, "", line); split(line, w, /[ \t]+/); op = w[1]
            if (op ~ /^@/) op = w[2]
            print fn, op
        }' "$work/cost.ptx" >"$work/ops.txt"
fi

printf 'evt_math.h builtins on %s (%s instructions per element, y[i] = f(x[i]) less y[i] = x[i])\n' "$arch" "$unit"
printf '%-10s %6s %6s %6s %5s\n' builtin instr fp32 branch regs
base=$(awk '$1 == "id"' "$work/ops.txt" | wc -l)
for f in $fns; do
    [ "$f" = id ] && continue
    awk -v f="$f" -v base="$base" -v regs="${regs[$f]:-?}" '
        $1 == f { n++
                  if ($2 ~ /^(FFMA|FMUL|FADD|FMNMX|FSEL|FSETP|FRND|FCHK|MUFU|fma|mul|add|sub|min|max|selp|setp)/) fp++
                  if ($2 ~ /^(BRA|BSSY|bra)/) br++ }
        END { printf "%-10s %6d %6d %6d %5s\n", f, n - base, fp, br, regs }' "$work/ops.txt"
done
