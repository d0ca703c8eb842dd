#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402


def reconfigure(doc):
    """Records the new configuration of each named VM."""
    out = {}
    for nid, req in sorted((doc.get("instances") or {}).items()):
        rec = tonomi.get("vm", nid)
        if rec is None:
            out[nid] = tonomi.status(failed=True, message="vm %s is not in the registry" % nid)
            continue
        rec["configuration"] = (req or {}).get("configuration") or {}
        tonomi.save("vm", nid, rec)
        out[nid] = tonomi.status(active=True)
    return {"instances": out}


if __name__ == "__main__":
    tonomi.main(reconfigure)
