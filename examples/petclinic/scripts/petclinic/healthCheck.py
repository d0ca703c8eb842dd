#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402


def signals(nid, rec):
    upd = {"interfaces": {"petclinic": {"signals": {"entrypoint": rec["entrypoint"]}}}}
    refs = {role: {"reference": {"mapping": "vms.vm-by-id", "key": vm}} for role, vm in sorted(rec.get("vms", {}).items())}
    if refs:
        upd["components"] = refs
    return upd


if __name__ == "__main__":
    tonomi.main(lambda doc: tonomi.check_all("petclinic", doc, signals))
