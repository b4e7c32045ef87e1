"""repro_binding.py - runs the named tests of tests/python/test_binding.py one
by one, each announced first, with faulthandler on, to find the one that
crashes.  REPRO_SPLITK=n forces split-K n on every module the tests compile
(Module.set_tuning; 0, the default, leaves the planner's choice).

    PYTHONPATH=bindings/python python3 bench/repro_binding.py test_gpu_launch_plan ...
"""
import faulthandler
import os
import sys

faulthandler.enable()
sys.path.insert(0, "tests/python")
import test_binding as t  # noqa: E402

t.AS_SCRIPT = True
split_k = int(os.environ.get("REPRO_SPLITK", "0"))
if split_k:
    compile_module = t.evt.compile

    def compile_split(*args, **kw):
        module = compile_module(*args, **kw)
        module.set_tuning(split_k=split_k)
        return module
    t.evt.compile = compile_split
for name in sys.argv[1:]:
    print("running", name, "split_k", split_k, flush=True)
    getattr(t, name)()
    print("ok", name, flush=True)
