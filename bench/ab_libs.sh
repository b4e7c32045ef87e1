#!/usr/bin/env bash
# ab_libs.sh - one benchmark command under two builds of libevt, in
# alternating processes (old, new, new, old, ...), each build with its own
# kernel cache and tuning database: a change to kernels/ (embedded in the library) or codegen/
# against the build before it, where one process cannot load both.  The
# command should time a peer in the same process (bench/batched_configs.py
# times torch.bmm, bench/ab.py the vendor kernel), so that each round's
# ratio to it, not its raw time alone, is compared across processes.
#
#     bash bench/ab_libs.sh OLD_LIBEVT NEW_LIBEVT [ROUNDS] -- COMMAND...
#
# e.g., with the old build's library carried beside the new build:
#     BB_CFGS=" " BB_ACTS=relu BB_CASES="1024x1024x128x64" \
#         bash bench/ab_libs.sh .carry/old/libevt.so build-gpu/libevt.so 2 -- python3 bench/batched_configs.py
#
# (Build the old library from a worktree of the commit before:
#     git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release &&
#     cmake --build /tmp/old/build --target evt_shared && cp -L /tmp/old/build/libevt.so .carry/old/)
# Round N runs old then new where N is odd, new then old where it is even.
# Prints "== old round N" / "== new round N" and the command's output;
# bench/ab_libs_table.py reads that into each row's old / new ratio.
set -u
old=${1:?ab_libs: the old libevt.so}
new=${2:?ab_libs: the new libevt.so}
shift 2
rounds=2
if [ "${1:-}" != -- ]; then
    rounds=${1:?ab_libs: ROUNDS or --}
    shift
fi
[ "${1:-}" = -- ] || { echo "ab_libs: -- COMMAND... expected" >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "ab_libs: no command" >&2; exit 2; }
for lib in "$old" "$new"; do
    [ -f "$lib" ] || { echo "ab_libs: no library at $lib" >&2; exit 2; }
done
old=$(cd "$(dirname "$old")" && pwd)/$(basename "$old")
new=$(cd "$(dirname "$new")" && pwd)/$(basename "$new")
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
rc=0
for ((r = 1; r <= rounds; r++)); do
    # old first in odd rounds, new first in even ones: a fixed order showed
    # as a 1.4% gain of the later build on kernels neither build changed
    # (session 87, docs/sm90.md), so even ROUNDS give each build each place
    order="old new"
    [ $((r % 2)) -eq 0 ] && order="new old"
    for side in $order; do
        lib=$old
        [ $side = new ] && lib=$new
        echo "== $side round $r"
        # a cache each: the tuning database beside it is keyed by the
        # library's version, which the two builds share, so one build's
        # records would steer the other's plans
        EVT_LIBRARY=$lib EVT_CACHE_DIR=$cache/$side "$@" || rc=$?
    done
done
exit $rc
