package tosca

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Which driver runs a node template's operations (graph.Driver.Name), and
// the warnings of implementations no driver can run.
//
// A playbook is an implementation whose file ends in .yaml or .yml, or
// that names an artifact whose type is or derives from
// tosca.artifacts.Implementation.Ansible (xOpera's convention, which
// TOSCA 1.x and 2.0 templates written for it follow). A node whose
// implemented operations are all playbooks runs with the Ansible driver;
// one without playbooks with exec; a node that mixes the two cannot run
// its playbooks (exec runs scripts, Ansible runs playbooks: one driver
// per resource) and is warned of (CodeNoDriver), as is an exec
// implementation that is no .sh, .bash or .py file and has no #! line.

// ansibleArtifactType is the artifact type of a playbook.
const ansibleArtifactType = "tosca.artifacts.Implementation.Ansible"

// opSite is where an operation is written (its diagnostic path) and the
// host it runs on (computed only for the Ansible driver): that of the node
// for its own operations and the source-side relationship operations,
// the requirement's target's for the target-side ones.
type opSite struct {
	path string
	host func() graph.Value
	// rel is the graph.InputAnsibleRelationship value of a relationship's
	// operation, nil for a node's own.
	rel graph.Value
}

// targetSideOps are the Configure operations TOSCA runs on the target's
// host (1.3 §5.8.4.4: pre_configure_target, post_configure_target,
// add_source, remove_source).
var targetSideOps = map[string]bool{
	"pre_configure_target": true, "post_configure_target": true, "add_source": true, "remove_source": true,
}

// markPlaybook records that the operation at path runs an artifact of
// type t, when t is an Ansible implementation.
func (c *compiler) markPlaybook(path string, t *typeDef) {
	if t == nil || !c.derivesName(t, ansibleArtifactType) {
		return
	}
	if c.playbookOps == nil {
		c.playbookOps = map[string]bool{}
	}
	c.playbookOps[path] = true
}

// isPlaybook reports whether an implementation is a playbook, by its
// file's extension or the artifact type markPlaybook recorded at path.
func isPlaybook(impl string, marked bool) bool {
	switch strings.ToLower(filepath.Ext(impl)) {
	case ".yaml", ".yml":
		return true
	}
	return marked
}

// chooseDriver returns the driver of the operations ops of node template
// name (declared in file; where says where each operation is written and
// runs) and warns of those no driver can run; for the Ansible driver it
// adds to every operation the input that says where it runs
// (graph.InputAnsibleHost).
func (c *compiler) chooseDriver(name, file string, ops map[string]graph.Operation, where map[string]opSite) string {
	var playbooks, scripts []string
	for _, key := range slices.Sorted(maps.Keys(ops)) {
		op := ops[key]
		if op.Implementation == "" {
			continue
		}
		if isPlaybook(op.Implementation, c.playbookOps[where[key].path]) {
			playbooks = append(playbooks, key)
		} else {
			scripts = append(scripts, key)
		}
	}
	lifecycle := func(keys []string) int {
		n := 0
		for _, k := range keys {
			if k != graph.OpHealthCheck {
				n++
			}
		}
		return n
	}
	switch {
	case lifecycle(playbooks)+lifecycle(scripts) == 0:
		return graph.DriverNoop
	case len(playbooks) == 0:
		for _, key := range scripts {
			c.checkRunnable(name, file, ops[key], where[key].path)
		}
		return graph.DriverExec
	case len(scripts) == 0:
		for _, key := range playbooks {
			op := ops[key]
			if host := where[key].host(); host != nil {
				op.Inputs = cloneInputs(op.Inputs)
				op.Inputs[graph.InputAnsibleHost] = host
			}
			if rel := where[key].rel; rel != nil {
				op.Inputs = cloneInputs(op.Inputs)
				op.Inputs[graph.InputAnsibleRelationship] = rel
			}
			ops[key] = op
		}
		return graph.DriverAnsible
	}
	for _, key := range playbooks {
		op := ops[key]
		c.warnf(op.Range, where[key].path, CodeNoDriver,
			"no driver can run %s of node template %q: %q is an Ansible playbook, but its other operations (%s) are scripts, and xosplan runs a node's operations with one driver; make them all playbooks or all scripts",
			key, name, op.Implementation, strings.Join(scripts, ", "))
	}
	return graph.DriverExec
}

// cloneInputs returns a copy of inputs to add to (the operation's map may
// be shared with the type's other templates).
func cloneInputs(in map[string]graph.Value) map[string]graph.Value {
	out := make(map[string]graph.Value, len(in)+1)
	maps.Copy(out, in)
	return out
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
			return hostValue(next.name, next.attrs)
		}
		h = next
	}
	return nil
}

// ansibleHost2 is ansibleHost in TOSCA 2.0: HostedOn requirements from
// nd to a node whose type is or derives from a Compute.
func ansibleHost2(nd *node2) graph.Value {
	for h, hops := nd, 0; h != nil && hops < 64; hops++ {
		var next *node2
		for _, ra := range h.reqs {
			if ra.target != nil && edgeKind2(ra.relType) == graph.HostedOn {
				next = ra.target
				break
			}
		}
		if next == nil || next == h {
			return nil
		}
		if slices.ContainsFunc(next.typ.chain, func(s string) bool { return s[strings.LastIndex(s, ":")+1:] == "Compute" }) {
			return hostValue(address2(next, -1), next.attrs)
		}
		h = next
	}
	return nil
}

// hostValue is the graph.InputAnsibleHost value of the Compute at addr
// whose template assigns attrs.
func hostValue(addr string, attrs map[string]graph.Value) graph.Value {
	var addrs []graph.Value
	for _, a := range []string{"public_address", "private_address"} {
		addrs = append(addrs, graph.Unknown{Func: "attribute", Args: []graph.Value{addr, a}})
		if v, ok := attrs[a].(string); ok && v != "" {
			addrs = append(addrs, v)
		}
	}
	return map[string]graph.Value{
		"address": addrs,
		"user":    graph.Unknown{Func: "attribute", Args: []graph.Value{addr, "endpoint", "credential", "user"}},
	}
}

// checkRunnable warns of an exec implementation that exec cannot run: a
// file (readable in the root) that is no .sh, .bash or .py and has no #!
// line. Each file is read once.
func (c *compiler) checkRunnable(name, file string, op graph.Operation, path string) {
	impl := op.Implementation
	switch strings.ToLower(filepath.Ext(impl)) {
	case ".sh", ".bash", ".py":
		return
	}
	if strings.Contains(impl, "://") || filepath.IsAbs(filepath.FromSlash(impl)) {
		return
	}
	p := filepath.Join(filepath.Dir(file), filepath.FromSlash(impl))
	k := confinedKey{nil, "\x00runnable " + p}
	if c.confined[k] {
		return
	}
	if c.confined == nil {
		c.confined = map[confinedKey]bool{}
	}
	c.confined[k] = true
	if !c.exists(p) {
		return
	}
	data, err := c.readFile(p)
	if err != nil || bytes.HasPrefix(data, []byte("#!")) {
		return
	}
	c.warnf(op.Range, path, CodeNoDriver,
		"no driver can run the operation of node template %q: %q is not a .sh, .bash or .py file, has no #! line, and is not an Ansible playbook (.yaml, .yml, or an artifact of type %s)",
		name, impl, ansibleArtifactType)
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
		c.warnf(n.Range, path+".implementation.operation_host", CodeValue,
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
