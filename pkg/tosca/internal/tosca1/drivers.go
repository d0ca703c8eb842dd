package tosca1

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// The 1.x side of choosing a node's driver (internal/core's drivers.go):
// which operations run an artifact of an Ansible type, the operation_host
// of an implementation, and the host a playbook runs on.

// markPlaybook records that the operation at path runs an artifact of
// type t, when t is an Ansible implementation.
func (c *compiler) markPlaybook(path string, t *typeDef) {
	if t == nil || !c.derivesName(t, core.AnsibleArtifactType) {
		return
	}
	c.MarkPlaybook(path)
}

// ansibleHost is the value of graph.InputAnsibleHost for operations that
// run on nt's host: following HostedOn requirements from nt to a
// tosca.nodes.Compute, its address candidates (the attribute
// public_address as an operation reported it, else as the template
// assigns it, else the property; then private_address alike) and its
// endpoint's credential user. nil runs on this machine: no Compute below
// nt, or nt is the Compute itself, whose operations (creating the
// machine) cannot run on it.
func (c *compiler) ansibleHost(nt *nodeTpl) graph.Value {
	if nt == nil {
		return nil
	}
	for h, hops := nt, 0; hops < 64; hops++ {
		next := c.hostOf(h, "")
		if next == nil || next == h {
			return nil
		}
		if c.derivesName(next.typ, "tosca.nodes.Compute") {
			return core.HostValue(next.name, next.attrs)
		}
		h = next
	}
	return nil
}

// noteOperationHost records the operation_host keyname of the operation
// at path (TOSCA 1.2+ implementation definition: SELF, HOST, SOURCE,
// TARGET or ORCHESTRATOR), which says where an Ansible playbook runs.
func (c *compiler) noteOperationHost(n *yamlsrc.Node, path string) {
	v, ok := n.String()
	if !ok {
		return
	}
	switch v {
	case "SELF", "HOST", "SOURCE", "TARGET", "ORCHESTRATOR":
	default:
		c.warnf(n.Range, path+".implementation.operation_host", core.CodeValue,
			"operation_host must be SELF, HOST, SOURCE, TARGET or ORCHESTRATOR, found %q; the operation runs where it would without it", v)
		return
	}
	if c.opHosts == nil {
		c.opHosts = map[string]string{}
	}
	c.opHosts[path] = v
}

// operationHost returns the host of the operation at path: that of
// runsOn (the node, or for a target-side relationship operation the
// target), unless its operation_host says otherwise: ORCHESTRATOR runs on
// this machine, SELF, HOST and SOURCE on source's host (the node's),
// TARGET on target's.
func (c *compiler) operationHost(path string, runsOn, source, target *nodeTpl) func() graph.Value {
	switch c.opHosts[path] {
	case "ORCHESTRATOR":
		return func() graph.Value { return nil }
	case "SELF", "HOST", "SOURCE":
		runsOn = source
	case "TARGET":
		if target != nil {
			runsOn = target
		}
	}
	return func() graph.Value { return c.ansibleHost(runsOn) }
}
