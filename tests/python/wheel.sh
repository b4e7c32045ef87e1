#!/usr/bin/env bash
# wheel.sh - the Python package as a user gets it: `pip wheel` of the source
# tree (scikit-build-core building libevt.so with CMake), installed into a
# fresh virtual environment and used from outside the tree.
#
#   bash tests/python/wheel.sh WORKDIR
#
# WORKDIR (emptied first) holds the virtual environment, the wheel and the
# logs.  Checks that `import evt` loads the libevt.so inside the installed
# package with no environment variable, that the wheel's version is the
# library's, and that a kernel compiles to PTX.  Exits 0 when all passed, 77
# when the PTX part was skipped (no NVRTC on this machine), 1 on a failure.
# pip's build isolation fetches scikit-build-core from PyPI; cmake and ninja
# are the system's when new enough.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:?usage: wheel.sh WORKDIR}
rm -rf "$work"
mkdir -p "$work/dist" "$work/outside"
work=$(cd "$work" && pwd)

python3 -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" wheel --no-deps -w "$work/dist" "$root"
wheels=("$work"/dist/evt_compiler-*.whl)
"${pip[@]}" install --no-deps "${wheels[@]}"

# -I: neither the current folder nor PYTHONPATH on sys.path, so only the
# installed package can answer `import evt`.
cd "$work/outside"
env -u EVT_LIBRARY -u EVT_NVRTC_LIBRARY "$work/venv/bin/python" -I - <<'EOF'
import importlib.metadata
import sys
import sysconfig
from pathlib import Path

import evt

site = Path(sysconfig.get_paths()["platlib"]).resolve()
lib = Path(evt.library_path).resolve()
assert lib.parent == Path(evt.__file__).resolve().parent, f"{lib} is not the packaged library"
assert site in lib.parents, f"{lib} is not inside {site}"
wheel_version = importlib.metadata.version("evt-compiler")
assert wheel_version == evt.library_version, \
    f"wheel {wheel_version} but libevt {evt.library_version}: CMakeLists.txt and evt.h disagree"
print(f"evt {evt.library_version} from {lib}")

m = evt.compile(source="""
    epilogue bias_relu { in bias : f16[N]  out y : f16[M, N] = relu(acc + bias) }
    kernel linear = gemm(a: f16 row, b: f16 col, acc: f32) with bias_relu
""")
try:
    ptx = m.kernel("linear").compile("sm_80", "ptx")
except evt.CompileError as e:
    if "cannot load NVRTC" not in str(e):
        raise
    print(f"PTX skipped: {e}")
    sys.exit(77)
lines = ptx.splitlines()
for want in (".version ", ".target sm_80", ".visible .entry evt_linear_gemm_"):
    assert any(line.startswith(want) for line in lines), f"no '{want}' line in the PTX"
print(f"PTX for sm_80: {len(ptx)} bytes, {sum('.entry' in l for l in lines)} entries")
EOF
