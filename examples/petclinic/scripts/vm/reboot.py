#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402


def reboot(doc):
    """The control.reboot command: counts the reboot and returns an
    intermediate and a final result for each command id."""
    out = {}
    for nid, req in sorted((doc.get("instances") or {}).items()):
        rec = tonomi.get("vm", nid)
        commands = (req or {}).get("commands") or {}
        if rec is None:
            out[nid] = tonomi.status(failed=True, message="vm %s is not in the registry" % nid)
            continue
        pushes = {"activityLog": []}
        for cid in sorted(commands):
            rec["reboots"] = rec.get("reboots", 0) + 1
            pushes["commands." + cid] = [
                {"$intermediate": True, "state": "rebooting"},
                {"state": "rebooted", "reboots": rec["reboots"]},
            ]
            pushes["activityLog"].append({"severity": "INFO", "message": "vm %s rebooted" % nid})
        tonomi.save("vm", nid, rec)
        out[nid] = {"$pushAll": pushes}
    return {"instances": out}


if __name__ == "__main__":
    tonomi.main(reboot)
