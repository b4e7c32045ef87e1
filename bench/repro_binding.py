import faulthandler, sys, os
faulthandler.enable()
sys.path.insert(0, "tests/python")
import test_binding as t
t.AS_SCRIPT = True
for name in sys.argv[1:]:
    print("running", name, "EVT_SPLITK=", os.environ.get("EVT_SPLITK"), flush=True)
    getattr(t, name)()
    print("ok", name, flush=True)
