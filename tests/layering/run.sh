#!/bin/sh
# run.sh - the folders are the pipeline's stages, and a stage uses only
# stages below it:
#
#   support < grammar < ir < ir/passes < interp < plan < codegen < runtime < api < tools
#
# and inside tools/, evtc_common < evtc_reach < evtc_run_state < evtc_check
# < evtc_run < evtc (main dispatches to the subcommands; both use the
# common helpers; evtc_check is evtc run --check, evtc_reach its look at
# what a reference reaches, evtc_run_state what run and check share).
# kernels/ (CUDA headers whose constants host code shares) and include/
# (the public evt.h) are not stages: any stage may include them, and they
# include no stage.
#
# Checked twice: every #include "..." of the sources (resolved as the compiler
# does: beside the file, then from the repository root, include/, grammar/ and
# codegen/), and, given the build's object folders, every symbol an object
# uses against the file that defines it (evt.h declares the whole public API,
# so a call up through it shows only there).  Any use of a higher stage fails,
# listed, unless it is an exception below.
#
# sh tests/layering/run.sh [LIBRARY_OBJECT_DIR [EVTC_OBJECT_DIR]]
#   (CMake's CMakeFiles/evt_objects.dir and CMakeFiles/evtc.dir; ctest passes them)
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

# Allowed uses of a higher stage, "FILE STAGE" one a line, each with its reason:
exceptions='
'

# The stage of a repository path and its rank; nothing for kernels/, include/.
stage() {
    case $1 in
    support/*) echo "support 0" ;;
    grammar/*) echo "grammar 10" ;;
    ir/passes/*) echo "ir/passes 30" ;;
    ir/*) echo "ir 20" ;;
    interp/*) echo "interp 40" ;;
    plan/*) echo "plan 50" ;;
    codegen/*) echo "codegen 60" ;;
    runtime/*) echo "runtime 70" ;;
    api/*) echo "api 80" ;;
    tools/evtc_common.*) echo "tools/evtc_common 90" ;;
    tools/evtc_reach.*) echo "tools/evtc_reach 91" ;;
    tools/evtc_run_state.*) echo "tools/evtc_run_state 92" ;;
    tools/evtc_check.*) echo "tools/evtc_check 93" ;;
    tools/evtc_run.*) echo "tools/evtc_run 94" ;;
    tools/evtc.*) echo "tools/evtc 95" ;;
    tools/*) echo "? 0" ;; # a new file: give it its place above
    kernels/* | include/*) ;;
    *) echo "? 0" ;;
    esac
}

uses=$(mktemp) || exit 2
trap 'rm -f "$uses"' EXIT

# ---- includes: "FILE TARGET #include "x"" lines into $uses
for f in $(find support grammar ir interp plan codegen runtime api tools kernels include -type f \
                \( -name '*.[chly]' -o -name '*.cuh' \) | sort); do
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        target=
        for base in "$(dirname "$f")" . include grammar codegen kernels; do
            if [ -f "$base/$inc" ]; then
                target=$(realpath -m --relative-to=. "$base/$inc")
                break
            fi
        done
        case $target,$inc in
        ,parser.h | ,lexer.h) ;; # bison's and flex's, in the build folder
        ,*) echo "$f ? #include \"$inc\" (found nowhere)" ;;
        *) echo "$f $target #include \"$inc\"" ;;
        esac
    done
done >"$uses"

# ---- symbols: "FILE DEFINING_FILE symbol" lines for each object folder given
for objects in "$@"; do
    if [ ! -d "$objects" ] || ! command -v nm >/dev/null; then
        echo "layering: no object folder $objects (or no nm)"
        exit 2
    fi
    (cd "$objects" && find . -name '*.o' | sed 's|^\./||' | sort | while read -r o; do
         nm --defined-only -g "$o" | awk -v f="${o%.o}" 'NF == 3 { print "D", $3, f }'
         nm -u "$o" | awk -v f="${o%.o}" '{ print "U", $NF, f }'
     done) >"$uses.nm"
    # The library's definitions stay known while evtc's objects are read.
    cat "$uses.nm" >>"$uses.defs"
    awk 'FILENAME != ARGV[2] { if ($1 == "D") def[$2] = $3; next }
         $1 == "U" && ($2 in def) && def[$2] != $3 { print $3, def[$2], $2 }' \
        "$uses.defs" "$uses.nm" >>"$uses"
done
rm -f "$uses.nm" "$uses.defs"

# ---- the check
failures=0
while read -r file target what; do
    from=$(stage "$file")
    to=$(stage "$target")
    [ -n "$to" ] || continue
    if [ -z "$from" ]; then
        echo "layering: $file (not a stage) uses $target: $what"
        failures=$((failures + 1))
        continue
    fi
    set -- $from $to
    case $exceptions in *"
$file ${3%%/*}
"*) continue ;; esac
    if [ "$1" = "?" ] || [ "$3" = "?" ]; then
        echo "layering: $file uses $target ($what): a file this script does not place"
        failures=$((failures + 1))
    elif [ "$4" -gt "$2" ]; then
        echo "layering: $file ($1) uses $3 above it: $what"
        failures=$((failures + 1))
    fi
done <"$uses"

if [ "$failures" -gt 0 ]; then
    echo "layering: $failures use(s) of a higher stage"
    exit 1
fi
echo "layering: ok"
