# lib.sh - what the golden drivers share, sourced by tests/golden/run.sh and
# tests/golden/passes/run.sh after they set `here`: EVTC made absolute and
# checked, a temporary folder $tmp removed on exit, the pass/fail counters
# and check().

: "${EVTC:?set EVTC to the evtc binary}"
case $EVTC in
/*) ;;
*) EVTC=$(pwd)/$EVTC ;;
esac
[ -x "$EVTC" ] || { echo "run.sh: $EVTC is not executable" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0

# check CASE WHAT WANT_FILE GOT_FILE: diff, or regenerate under UPDATE=1.
check() {
    if [ "${UPDATE:-}" = 1 ]; then
        cp "$4" "$3"
        return 0
    fi
    [ -e "$3" ] || { echo "FAIL $1: no $3 (regenerate with UPDATE=1)"; return 1; }
    diff -u "$3" "$4" >"$tmp/diff" && return 0
    echo "FAIL $1: $2 differs"
    cat "$tmp/diff"
    return 1
}
