package tosca1

// Phase 5 (continued) — substitution mappings and workflows, checked once
// every template is known.
//
// Errors detected here:
//   - substitution_mappings without node_type, naming an unknown node type, templates,
//     capabilities or requirements that do not exist (tosca.substitution, tosca.unknown_type)
//   - as warnings, where no properties mapping is written: a substituted node type's required
//     property without default that the topology has no input of the same name for, and an
//     input without default that the node type has no property of its name for (tosca.substitution;
//     tosca-parser's MissingRequiredInputError). Matching inputs to properties by name is a
//     convention of TOSCA 1.0 and 1.1 tools, not a rule of the specification (1.2 added the
//     properties mapping to say it), and the specification's own example (1.3 §2.10, the database
//     substitution) breaks it: a substituting node then cannot pass those values, but the
//     topology still deploys with the inputs it is given.
//   - a capability or requirement mapping written as an empty list maps nothing: a warning
//   - workflow steps whose target is not a node template or group, on_success / on_failure
//     naming missing steps, activities of an unknown kind or without their argument, and
//     wrong keynames (tosca.workflow, tosca.unknown_field, tosca.wrong_kind)

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// checkTopology runs the checks that need the whole topology.
func (c *compiler) checkTopology() {
	// Imported service templates that substitute a node type must take
	// its required properties as inputs (tosca-parser checks this when the
	// substituting template is imported).
	for _, f := range c.order {
		if f == c.root || f.root == nil {
			continue
		}
		itn := f.root.Get("topology_template")
		sm := itn.Get("substitution_mappings")
		if sm == nil || sm.Kind != yamlsrc.Mapping || sm.Get("properties") != nil {
			continue
		}
		nodeType := c.lookup(kNode, text(sm.Get("node_type")))
		if nodeType == nil {
			continue
		}
		if c.lacks(nodeType) {
			continue
		}
		inputs := itn.Get("inputs")
		for _, name := range slices.Sorted(maps.Keys(nodeType.props)) {
			if d := nodeType.props[name]; d.required && !d.hasDefault && inputs.Get(name) == nil {
				c.unmappedProperty(keyAt(itn, "substitution_mappings", sm.Range), nodeType, name)
			}
		}
	}
	tn := c.topo.n
	if tn == nil {
		return
	}
	if sm := tn.Get("substitution_mappings"); sm != nil && !sm.IsNull() {
		c.checkSubstitution(sm)
	}
	if wf := tn.Get("workflows"); wf != nil && !wf.IsNull() {
		c.checkWorkflows(wf)
	}
}

// substitutionKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func substitutionKeys() []string {
	return []string{"node_type", "capabilities", "requirements", "properties", "attributes",
		"interfaces", "substitution_filter"}
}

func (c *compiler) checkSubstitution(sm *yamlsrc.Node) {
	const path = "topology_template.substitution_mappings"
	at := keyAt(c.topo.n, "substitution_mappings", sm.Range)
	if !c.checkKeys(sm, path, "substitution_mappings", substitutionKeys()...) {
		return
	}
	c.checkNewer(sm, "substitution", path)
	var nodeType *typeDef
	if tn := sm.Get("node_type"); tn.IsNull() {
		c.errorf(at, path, core.CodeMissingField, "substitution_mappings is missing required field \"node_type\"")
	} else {
		nodeType = c.lookupRef(kNode, tn, path+".node_type")
	}
	if sf := sm.Get("substitution_filter"); sf != nil && c.checkKeys(sf, path+".substitution_filter", "substitution_filter", "node_filter", "properties", "capabilities") {
		if nf := sf.Get("node_filter"); nf != nil {
			c.readNodeFilter(nf, path+".substitution_filter.node_filter")
		} else {
			c.readNodeFilter(sf, path+".substitution_filter")
		}
	}
	c.checkMappings(sm.Get("capabilities"), path+".capabilities", "capability", nodeType)
	c.checkMappings(sm.Get("requirements"), path+".requirements", "requirement", nodeType)
	if nodeType == nil || sm.Get("properties") != nil || c.lacks(nodeType) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(nodeType.props)) {
		d := nodeType.props[name]
		if !d.required || d.hasDefault {
			continue
		}
		if _, ok := c.topo.inputs[name]; !ok {
			c.unmappedProperty(at, nodeType, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.topo.inputs)) {
		in := c.topo.inputs[name]
		if nodeType.props[name] == nil && !in.d.hasDefault && in.d.required {
			c.warnf(in.d.key, "topology_template.inputs."+name, core.CodeSubstitution, "input %q has no default and node type %q of the substitution mappings has no property %q to supply it; a substituted node cannot pass its value (write a properties mapping, TOSCA 1.2 and later)", name, nodeType.name, name)
		}
	}
}

// unmappedProperty warns of a required property of the substituted node
// type that no input of the same name receives (see the file's header).
func (c *compiler) unmappedProperty(at diag.Range, nodeType *typeDef, name string) {
	c.warnf(at, "topology_template.substitution_mappings", core.CodeSubstitution, "substitution_mappings with node_type %q has no input %q for the required property of that name; a substituted node's value for it is not passed to the topology (write a properties mapping, TOSCA 1.2 and later)", nodeType.name, name)
}

// checkMappings checks capability or requirement mappings:
// name: [node_template, capability_or_requirement].
func (c *compiler) checkMappings(n *yamlsrc.Node, path, what string, nodeType *typeDef) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "%s mappings must be a map, found %s", what, n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		mp := joinPath(path, p.Key.Value)
		if nodeType != nil && ((what == "capability" && nodeType.caps[p.Key.Value] == nil) || (what == "requirement" && nodeType.reqDefOf(p.Key.Value) == nil)) {
			// The entry exposes nothing the substituted node has, so no
			// substitution consults it, and the topology deploys on its
			// own as written (Tacker deploys VNF flavours whose mappings
			// name requirements their VNF type lacks): suspicious, not
			// wrong in effect.
			if !c.lacks(nodeType) {
				c.warnf(p.Key.Range, mp, core.CodeSubstitution, "node type %q has no %s %q to map; the mapping is never used", nodeType.name, what, p.Key.Value)
			}
			continue
		}
		v := p.Value
		if v.Kind == yamlsrc.Mapping {
			// TOSCA 1.3 long form: mapping: [node, name] under a key.
			v = v.Get("mapping")
		}
		if v != nil && v.Kind == yamlsrc.Sequence && len(v.Content) == 0 {
			// SOL001 container packages (Tacker's CNFs) write [] for a
			// VNF requirement no connection point of theirs fulfils:
			// nothing is mapped, so nothing can be wrong in effect.
			c.warnf(v.Range, mp, core.CodeSubstitution, "%s mapping %q is an empty list and maps nothing", what, p.Key.Value)
			continue
		}
		if v == nil || v.Kind != yamlsrc.Sequence || len(v.Content) != 2 {
			c.errorf(p.Value.Range, mp, core.CodeSubstitution, "%s mapping %q must be a list of a node template name and a %s name", what, p.Key.Value, what)
			continue
		}
		nt := c.topo.nodes[v.Content[0].Value]
		if nt == nil {
			c.errorf(v.Content[0].Range, mp, core.CodeUnknownTemplate, "%s mapping %q names node template %q, which does not exist", what, p.Key.Value, v.Content[0].Value)
			continue
		}
		c.noteNode(v.Content[0], nt)
		if nt.typ == nil {
			continue
		}
		name := v.Content[1].Value
		switch {
		case c.lacks(nt.typ):
		case what == "capability":
			if nt.typ.caps[name] == nil {
				c.errorf(v.Content[1].Range, mp, core.CodeSubstitution, "node template %q has no capability %q", nt.name, name)
			}
		case what == "requirement":
			found := nt.typ.reqDefOf(name) != nil
			for _, ra := range nt.reqs {
				found = found || ra.name == name
			}
			if !found {
				c.errorf(v.Content[1].Range, mp, core.CodeSubstitution, "node template %q has no requirement %q", nt.name, name)
			}
		}
	}
}

// workflowKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func workflowKeys() []string {
	return []string{"description", "metadata", "inputs", "preconditions", "steps", "implementation", "outputs"}
}

// stepKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func stepKeys() []string {
	return []string{"target", "target_relationship", "operation_host", "filter", "activities", "on_success", "on_failure"}
}

func (c *compiler) checkWorkflows(wf *yamlsrc.Node) {
	const base = "topology_template.workflows"
	if wf.Kind != yamlsrc.Mapping {
		c.errorf(wf.Range, base, core.CodeWrongKind, "workflows must be a map, found %s", wf.Describe())
		return
	}
	for _, w := range wf.Pairs() {
		wp := joinPath(base, w.Key.Value)
		what := "workflow " + quote(w.Key.Value)
		if !c.checkKeys(w.Value, wp, what, workflowKeys()...) {
			continue
		}
		steps := w.Value.Get("steps")
		if steps.IsNull() {
			continue
		}
		if steps.Kind != yamlsrc.Mapping {
			c.errorf(steps.Range, wp+".steps", core.CodeWrongKind, "steps of %s must be a map, found %s", what, steps.Describe())
			continue
		}
		for _, s := range steps.Pairs() {
			sp := wp + ".steps." + s.Key.Value
			sw := "step " + quote(s.Key.Value) + " of " + what
			if !c.checkKeys(s.Value, sp, sw, stepKeys()...) {
				continue
			}
			if tg := s.Value.Get("target"); tg.IsNull() {
				c.errorf(s.Key.Range, sp, core.CodeMissingField, "%s is missing required field \"target\"", sw)
			} else if c.topo.nodes[tg.Value] == nil && c.topo.groups[tg.Value] == nil {
				c.errorf(tg.Range, sp+".target", core.CodeWorkflow, "%s targets %q, which is not a node template or group", sw, tg.Value)
			}
			c.checkActivities(s.Value.Get("activities"), s.Key.Range, sp+".activities", sw)
			for _, k := range []string{"on_success", "on_failure"} {
				v := s.Value.Get(k)
				for _, next := range c.strList(v, sp+"."+k, k) {
					if steps.Get(next) == nil {
						c.errorf(v.Range, sp+"."+k, core.CodeWorkflow, "%s: %s names step %q, which does not exist", sw, k, next)
					}
				}
			}
		}
	}
}

func (c *compiler) checkActivities(n *yamlsrc.Node, at diag.Range, path, what string) {
	if n.IsNull() {
		c.errorf(at, path, core.CodeMissingField, "%s is missing required field \"activities\"", what)
		return
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, core.CodeWrongKind, "activities of %s must be a list, found %s", what, n.Describe())
		return
	}
	for _, a := range n.Content {
		if a.Kind != yamlsrc.Mapping || len(a.Content) != 2 {
			c.errorf(a.Range, path, core.CodeWorkflow, "an activity must be a map with one key, found %s", a.Describe())
			continue
		}
		switch k := a.Content[0].Value; k {
		case "delegate", "set_state", "call_operation", "inline":
			if a.Content[1].IsNull() {
				c.errorf(a.Range, path, core.CodeWorkflow, "activity %q needs an argument", k)
			}
		default:
			c.errorf(a.Content[0].Range, path, core.CodeWorkflow, "unknown activity %q (expected delegate, set_state, call_operation or inline)", k)
		}
	}
}
