#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402


def launch(doc):
    """Deploys PetClinic on the registry's VMs: the entrypoint signal and
    references to the load-balancer and Tomcat VMs by their natural ids,
    which the factory resolves through its vms.vm-by-id mapping."""
    vms = tonomi.list_ids("vm")
    out = {}
    for instance_id, req in sorted((doc.get("launch") or {}).items()):
        nid = tonomi.natural_id("petclinic-", instance_id)
        refs = {}
        for role, vm in zip(("haproxy-vm", "tomcat-vm"), vms):
            refs[role] = {"reference": {"mapping": "vms.vm-by-id", "key": vm}}
        ip = (tonomi.get("vm", vms[0]) or {}).get("ip") if vms else None
        rec = {
            "instanceId": instance_id,
            "name": nid,
            "configuration": (req or {}).get("configuration") or {},
            "entrypoint": "http://%s/" % (ip or "203.0.113.250"),
            "vms": {role: ref["reference"]["key"] for role, ref in refs.items()},
        }
        tonomi.save("petclinic", nid, rec)
        upd = {"instanceId": instance_id, "interfaces": {"petclinic": {"signals": {"entrypoint": rec["entrypoint"]}}}}
        if refs:
            upd["components"] = refs
        upd.update(tonomi.status(active=True))
        out[nid] = upd
    return {"instances": out}


if __name__ == "__main__":
    tonomi.main(launch)
