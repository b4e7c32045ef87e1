#!/bin/sh
# embed_digest.sh - the digest codegen/embed.cmake writes beside the kernels/
# headers (cg_embedded_headers_digest), which the kernel cache's key takes
# (runtime/cache.c): the same for the same headers, and different when one
# header's contents change or a header is renamed, so that a library built
# from changed templates never loads a cubin cached by an earlier build.
#
#   CMAKE=cmake sh tests/codegen/embed_digest.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cmake=${CMAKE:-cmake}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$top/kernels" "$tmp/k"

digest() {
    files=$(find "$tmp/k" -type f \( -name '*.cuh' -o -name '*.h' \) | LC_ALL=C sort | tr '\n' '|' | sed 's/|$//')
    "$cmake" "-DOUT=$tmp/embedded.c" "-DROOT=$tmp/k" "-DFILES=$files" -P "$top/codegen/embed.cmake"
    sed -n 's/^const char cg_embedded_headers_digest\[\] = "\([0-9a-f]*\)";$/\1/p' "$tmp/embedded.c"
}

fail() {
    echo "FAIL: $*"
    exit 1
}

d0=$(digest)
[ ${#d0} -eq 32 ] || fail "no 32-digit digest in embed.cmake's output (got '$d0')"
[ "$(digest)" = "$d0" ] || fail "the same headers gave two digests"
# one byte more in one header
printf ' ' >> "$tmp/k/common/epilogue.cuh"
d1=$(digest)
[ "$d1" != "$d0" ] || fail "a changed header left the digest as it was"
cp "$top/kernels/common/epilogue.cuh" "$tmp/k/common/epilogue.cuh"
[ "$(digest)" = "$d0" ] || fail "restoring the header did not restore the digest"
# the same contents under another name
mv "$tmp/k/common/epilogue.cuh" "$tmp/k/common/epilogue2.cuh"
[ "$(digest)" != "$d0" ] || fail "a renamed header left the digest as it was"
echo "embed_digest: PASS ($d0)"
