#!/bin/sh
# run.sh - golden tests: run evtc on every tests/golden/<case>.evt and diff the
# results against the expected files beside it.
#
#   <case>.ir    stdout of `evtc <case>.evt --emit=ir -O0`; the exit status must be 0
#   <case>.err   the text diagnostics on stderr; without <case>.ir the exit status
#                must be 1 and stdout empty (a case with warnings only has both)
#   <case>.json  stderr of `evtc <case>.evt --diagnostics=json -O0` (optional)
#   <case>.dot   stdout of `evtc <case>.evt --emit=dot -O0`, exit 0 (optional);
#                Graphviz's `dot` must accept it, where it is installed
#
# evtc runs from inside tests/golden, so file names in messages are relative.
# With no .ir, .err or .json golden, a case that exits 0 is expected to print
# nothing on stderr.
#
# EVTC=path/to/evtc sh tests/golden/run.sh            check
# UPDATE=1 EVTC=path/to/evtc sh tests/golden/run.sh   regenerate every golden
#                                                     (review the diff before committing)
# To add a .dot or .json golden, create the empty file and regenerate.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# run_evtc OUT ERR ARGS...: runs evtc; sets rc.
run_evtc() {
    o=$1 e=$2
    shift 2
    (cd "$here" && "$EVTC" "$@" >"$o" 2>"$e")
    rc=$?
}

have_dot=0
command -v dot >/dev/null 2>&1 && have_dot=1

cd "$here" || exit 2
for evt in *.evt; do
    [ -e "$evt" ] || continue
    c=${evt%.evt}
    ok=1

    run_evtc "$tmp/out" "$tmp/err" "$evt" --emit=ir -O0
    if [ "$rc" -ge 2 ]; then
        echo "FAIL $c: evtc exited with status $rc"
        sed 's/^/  /' "$tmp/err"
        fail=$((fail + 1))
        continue
    fi
    if [ "${UPDATE:-}" = 1 ]; then
        if [ "$rc" = 0 ]; then cp "$tmp/out" "$c.ir"; else rm -f "$c.ir"; fi
        if [ -s "$tmp/err" ]; then cp "$tmp/err" "$c.err"; else rm -f "$c.err"; fi
    fi

    if [ -e "$c.ir" ]; then
        [ "$rc" = 0 ] || { echo "FAIL $c: exit status $rc, want 0"; ok=0; }
        check "$c" "IR (stdout)" "$c.ir" "$tmp/out" || ok=0
    else
        [ "$rc" = 1 ] || { echo "FAIL $c: exit status $rc, want 1 (no $c.ir)"; ok=0; }
        [ -s "$tmp/out" ] && { echo "FAIL $c: stdout not empty on error"; ok=0; }
        [ -e "$c.err" ] || { echo "FAIL $c: no $c.ir and no $c.err golden"; ok=0; }
    fi
    if [ -e "$c.err" ]; then
        check "$c" "diagnostics (stderr)" "$c.err" "$tmp/err" || ok=0
    elif [ -s "$tmp/err" ]; then
        echo "FAIL $c: unexpected diagnostics:"
        sed 's/^/  /' "$tmp/err"
        ok=0
    fi

    if [ -e "$c.json" ]; then
        run_evtc "$tmp/out" "$tmp/err" "$evt" --diagnostics=json -O0
        [ "$rc" -lt 2 ] || { echo "FAIL $c: --diagnostics=json exited with status $rc"; ok=0; }
        check "$c" "JSON diagnostics" "$c.json" "$tmp/err" || ok=0
    fi

    if [ -e "$c.dot" ]; then
        run_evtc "$tmp/out" "$tmp/err" "$evt" --emit=dot -O0
        [ "$rc" = 0 ] || { echo "FAIL $c: --emit=dot exit status $rc, want 0"; ok=0; }
        check "$c" "DOT (stdout)" "$c.dot" "$tmp/out" || ok=0
        if [ "$have_dot" = 1 ] && ! dot -Tsvg -o /dev/null "$tmp/out" 2>"$tmp/dot.err"; then
            echo "FAIL $c: Graphviz's dot refuses the DOT:"
            sed 's/^/  /' "$tmp/dot.err"
            ok=0
        fi
    fi

    if [ "$ok" = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
done

# Goldens whose .evt is gone would never be checked again.
for g in *.ir *.err *.json *.dot; do
    [ -e "$g" ] || continue
    if [ ! -e "${g%.*}.evt" ]; then
        echo "FAIL $g: no ${g%.*}.evt beside it"
        fail=$((fail + 1))
    fi
done

[ "$have_dot" = 1 ] || echo "(Graphviz's dot is not installed: the .dot goldens were not rendered)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
