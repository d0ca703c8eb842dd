package core

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Which driver runs a node template's operations (graph.Driver.Name), and
// the warnings of implementations no driver can run, for both grammar
// generations.
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

// AnsibleArtifactType is the artifact type of a playbook.
const AnsibleArtifactType = "tosca.artifacts.Implementation.Ansible"

// OpSite is where an operation is written (its diagnostic path) and the
// host it runs on (computed only for the Ansible driver): that of the node
// for its own operations and the source-side relationship operations,
// the requirement's target's for the target-side ones.
type OpSite struct {
	Path string
	Host func() graph.Value
	// Rel is the graph.InputAnsibleRelationship value of a relationship's
	// operation, nil for a node's own.
	Rel graph.Value
}

// TargetSideOp reports whether name is one of the Configure operations
// TOSCA runs on the target's host (1.3 §5.8.4.4: pre_configure_target,
// post_configure_target, add_source, remove_source).
func TargetSideOp(name string) bool {
	switch name {
	case "pre_configure_target", "post_configure_target", "add_source", "remove_source":
		return true
	}
	return false
}

// MarkPlaybook records that the operation at path runs an artifact of an
// Ansible type.
func (c *Session) MarkPlaybook(path string) {
	if c.PlaybookOps == nil {
		c.PlaybookOps = map[string]bool{}
	}
	c.PlaybookOps[path] = true
}

// isPlaybook reports whether an implementation is a playbook, by its
// file's extension or the artifact type MarkPlaybook recorded at path.
func isPlaybook(impl string, marked bool) bool {
	switch strings.ToLower(filepath.Ext(impl)) {
	case ".yaml", ".yml":
		return true
	}
	return marked
}

// ChooseDriver returns the driver of the operations ops of node template
// name (declared in file; where says where each operation is written and
// runs) and warns of those no driver can run; for the Ansible driver it
// adds to every operation the input that says where it runs
// (graph.InputAnsibleHost).
func (c *Session) ChooseDriver(name, file string, ops map[string]graph.Operation, where map[string]OpSite) string {
	var playbooks, scripts []string
	for _, key := range slices.Sorted(maps.Keys(ops)) {
		op := ops[key]
		if op.Implementation == "" {
			continue
		}
		if isPlaybook(op.Implementation, c.PlaybookOps[where[key].Path]) {
			playbooks = append(playbooks, key)
		} else {
			scripts = append(scripts, key)
		}
	}
	// A lookup alone is something to run (a read of an unmanaged
	// resource); a health check alone is not (it has nothing to check).
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
			c.checkRunnable(name, file, ops[key], where[key].Path)
		}
		return graph.DriverExec
	case len(scripts) == 0:
		for _, key := range playbooks {
			op := ops[key]
			if host := where[key].Host(); host != nil {
				op.Inputs = cloneInputs(op.Inputs)
				op.Inputs[graph.InputAnsibleHost] = host
			}
			if rel := where[key].Rel; rel != nil {
				op.Inputs = cloneInputs(op.Inputs)
				op.Inputs[graph.InputAnsibleRelationship] = rel
			}
			ops[key] = op
		}
		return graph.DriverAnsible
	}
	for _, key := range playbooks {
		op := ops[key]
		c.Warnf(op.Range, where[key].Path, CodeNoDriver,
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

// HostValue is the graph.InputAnsibleHost value of the Compute at addr
// whose template assigns attrs.
func HostValue(addr string, attrs map[string]graph.Value) graph.Value {
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
func (c *Session) checkRunnable(name, file string, op graph.Operation, path string) {
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
	c.markConfined(k)
	if !c.Exists(p) {
		return
	}
	data, err := c.ReadFile(p)
	if err != nil || bytes.HasPrefix(data, []byte("#!")) {
		return
	}
	c.Warnf(op.Range, path, CodeNoDriver,
		"no driver can run the operation of node template %q: %q is not a .sh, .bash or .py file, has no #! line, and is not an Ansible playbook (.yaml, .yml, or an artifact of type %s)",
		name, impl, AnsibleArtifactType)
}

// RelationshipOp is one operation of one relationship of a node: its
// name (pre_configure_source, …), the requirement and index of the
// relationship (1.x reqAssign.index, 2.0 firstRelIndex) and what runs.
type RelationshipOp struct {
	Name  string
	Req   string
	Index int
	Op    graph.Operation
	// Site is where the operation is written and runs.
	Site OpSite
}

// RelationshipOps adds the relationship operations of a node to its
// operations, each under its graph.RelationshipOperationKey: the plain
// "Configure.<operation>" when one relationship of the node alone defines
// the operation, else one key per relationship. Before, every
// relationship's operation had the plain key and the last replaced the
// others, which then never ran. where learns, by the same keys, where
// each is written and runs.
func RelationshipOps(rel []RelationshipOp, ops map[string]graph.Operation, where map[string]OpSite) {
	type relationship struct {
		req   string
		index int
	}
	defining := map[string]map[relationship]bool{}
	for _, r := range rel {
		if defining[r.Name] == nil {
			defining[r.Name] = map[relationship]bool{}
		}
		defining[r.Name][relationship{r.Req, r.Index}] = true
	}
	for _, r := range rel {
		key := graph.RelationshipOperationKey(r.Name, r.Req, r.Index, len(defining[r.Name]) == 1)
		ops[key] = r.Op
		where[key] = r.Site
	}
}
