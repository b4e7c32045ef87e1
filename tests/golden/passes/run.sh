#!/bin/sh
# run.sh - optimizer goldens: every tests/golden/passes/<pipeline>_<case>.evt
# beside the IR expected before and after the pipeline its name starts with.
#
#   <name>.O0.ir  stdout of `evtc <name>.evt --emit=ir -O0`: the IR before
#   <name>.ir     stdout of `evtc <name>.evt --emit=ir` after <pipeline>:
#                 a pass name (fold, simplify, cse, strength, hoist), or
#                 several joined by '+', runs those passes, then dce to
#                 clear away what they left unused (fold+simplify_x.evt:
#                 --passes=fold,simplify,dce), so that the diff shows their
#                 effect; dce runs alone; O1 or O2 runs that level
#   <name>.print  (optional) stderr of the same run with --print-after-all
#
# evtc must exit 0.  Warnings on stderr are allowed (they are the front end's
# business: tests/golden/run.sh checks them).
#
# EVTC=path/to/evtc sh tests/golden/passes/run.sh            check
# UPDATE=1 EVTC=path/to/evtc sh tests/golden/passes/run.sh   regenerate every golden
#                                                            (review the diff before committing)
# To add a .print golden, create the empty file and regenerate.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# evtc_ok CASE OUT ERR ARGS...: runs evtc; fails unless it exits 0.
evtc_ok() {
    c=$1 o=$2 e=$3
    shift 3
    "$EVTC" "$@" >"$o" 2>"$e" && return 0
    echo "FAIL $c: evtc $* exited with status $?"
    sed 's/^/  /' "$e"
    return 1
}

cd "$here" || exit 2
for evt in *.evt; do
    [ -e "$evt" ] || continue
    c=${evt%.evt}
    case ${c%%_*} in
    O0 | O1 | O2) pipeline=-${c%%_*} ;;
    dce) pipeline=--passes=dce ;;
    *) pipeline=--passes=$(echo "${c%%_*}" | tr + ,),dce ;;
    esac
    ok=1
    evtc_ok "$c" "$tmp/out" "$tmp/err" "$evt" --emit=ir -O0 &&
        check "$c" "IR before (-O0)" "$c.O0.ir" "$tmp/out" || ok=0
    evtc_ok "$c" "$tmp/out" "$tmp/err" "$evt" --emit=ir "$pipeline" &&
        check "$c" "IR after ($pipeline)" "$c.ir" "$tmp/out" || ok=0
    if [ -e "$c.print" ]; then
        evtc_ok "$c" "$tmp/out" "$tmp/err" "$evt" "$pipeline" --print-after-all &&
            check "$c" "--print-after-all (stderr)" "$c.print" "$tmp/err" || ok=0
    fi
    if [ "$ok" = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
done

# Goldens whose .evt is gone would never be checked again.
for g in *.ir *.print; do
    [ -e "$g" ] || continue
    base=${g%.print}
    base=${base%.ir}
    base=${base%.O0}
    if [ ! -e "$base.evt" ]; then
        echo "FAIL $g: no $base.evt beside it"
        fail=$((fail + 1))
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
