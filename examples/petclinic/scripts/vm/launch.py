#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402


def launch(doc):
    """Creates one VM record per launch request and reports it active
    with its ip signal."""
    out = {}
    for instance_id, req in sorted((doc.get("launch") or {}).items()):
        conf = (req or {}).get("configuration") or {}
        nid = tonomi.natural_id("i-", instance_id)
        rec = tonomi.get("vm", nid) or {"reboots": 0}
        rec.update({
            "instanceId": instance_id,
            "name": "vm " + nid,
            "configuration": conf,
            "ip": "203.0.113.%d" % (int(nid[2:], 16) % 250 + 1),
        })
        tonomi.save("vm", nid, rec)
        upd = {"instanceId": instance_id, "interfaces": {"compute": {"signals": {"ip": rec["ip"]}}}}
        upd.update(tonomi.status(active=True))
        out[nid] = upd
    return {"instances": out}


if __name__ == "__main__":
    tonomi.main(launch)
