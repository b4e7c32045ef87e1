#!/usr/bin/env bash
# bootstrap.sh - install what building and testing evt needs, when it is missing.
#
#   bash scripts/bootstrap.sh [PROFILE...]
#
# Profiles (default: build test):
#   build  flex, bison, cmake, make, gcc, cmocka, pkg-config: enough to build and
#          run ctest (pkg-config: the install test)
#   test   clang and its runtime libraries (the sanitizer and libFuzzer builds),
#          python3 (the Python binding's tests), python3-venv (the wheel's test
#          installs it into a fresh virtual environment), graphviz (the DOT tests
#          render with `dot`; they skip without it)
#   main   graphviz: scripts/main.sh renders the epilogue graphs to SVG
#
# Debian 12 is the reference system.  Every package is checked with dpkg first,
# so a machine that has everything runs no apt-get at all, and running the
# script twice changes nothing.  Missing packages are installed with apt-get,
# non-interactively, as root or through sudo.
set -euo pipefail

packages_for() {
    case "$1" in
    build) echo flex bison cmake make gcc libc6-dev libcmocka-dev pkg-config ;;
    test) echo clang libclang-rt-14-dev python3 python3-venv graphviz ;;
    main) echo graphviz ;;
    *)
        echo "bootstrap: unknown profile '$1' (expected build, test or main)" >&2
        return 1
        ;;
    esac
}

profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(build test)

wanted=()
for p in "${profiles[@]}"; do
    read -r -a pkgs <<<"$(packages_for "$p")"
    wanted+=("${pkgs[@]}")
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    # Not Debian: check the commands and leave the installing to the user.
    missing=()
    for tool in flex bison cmake make cc pkg-config; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "bootstrap: not a Debian system and these are missing: ${missing[*]}" >&2
        echo "bootstrap: install the equivalents of: ${wanted[*]}" >&2
        exit 1
    fi
    echo "bootstrap: not a Debian system; assuming the equivalents of ${wanted[*]} are installed"
    exit 0
fi

missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: all present (${wanted[*]})"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "bootstrap: missing ${missing[*]}, and this is neither root nor has sudo" >&2
    exit 1
fi

echo "bootstrap: installing ${missing[*]}"
apt_opts=(-y -q -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-confdef
          -o Dpkg::Options::=--force-confold)
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
