"""log_tool.py - what the tests of bench/'s log readers (heldout_table.py,
ab_libs_table.py) share: running one on a log's text and failing."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_on(tool, text, *args):
    """bench/<tool> run on a file holding text, with args: (exit status, stdout, stderr)"""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", tool), f.name, *args],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return r.returncode, r.stdout, r.stderr


def fail(msg):
    print(f"FAIL {msg}")
    sys.exit(1)
