package tosca

// Phase 5 (2.0) — substitution mappings (§15) and workflows (§13), read
// once every node template is known.
//
// Errors detected here:
//   - substitution mappings without node_type or of an unknown one; mapped properties,
//     capabilities, requirements or interfaces that the node type does not define, or that
//     name no node template (tosca.substitution)
//   - workflow steps without target or activities, targets that are no node template or
//     group, on_success/on_failure naming no step, activities of the wrong form; call_operation
//     of an operation the target does not have, with inputs the operation does not define or
//     without its required inputs (tosca.workflow)

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

func (c *compiler) readSubstitution2(f *file, n *yamlsrc.Node) {
	const path = "service_template.substitution_mappings"
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	c.keys2(n, path, func() string { return "substitution mappings" }, substitutionKeys2(), nil)
	tn := n.Get("node_type")
	if tn == nil {
		c.errorf(n.Range, path, CodeSubstitution, "substitution mappings are missing required field \"node_type\"")
		return
	}
	t := c.typeRef2(f, kNode, tn, path+".node_type")
	if t == nil {
		return
	}
	topo := c.v2.topo
	for _, p := range n.Get("properties").Pairs() {
		if t.props[p.Key.Value] == nil {
			c.errorf(p.Key.Range, path+".properties."+p.Key.Value, CodeSubstitution, "node type %q has no property %q to map", t.name, p.Key.Value)
		}
	}
	for _, p := range n.Get("capabilities").Pairs() {
		if t.caps[p.Key.Value] == nil {
			c.errorf(p.Key.Range, path+".capabilities."+p.Key.Value, CodeSubstitution, "node type %q has no capability %q to map", t.name, p.Key.Value)
		}
		if tgt := p.Value.Items(); len(tgt) > 0 && topo.byName[text(tgt[0])] == nil && !c.failedTemplate2(tgt[0]) {
			c.errorf(tgt[0].Range, path+".capabilities."+p.Key.Value, CodeSubstitution, "capability mapping names %s, which is no node template", describeValue(tgt[0]))
		}
	}
	reqs := n.Get("requirements")
	var pairs []yamlsrc.Pair
	switch reqs.Kind {
	case yamlsrc.Mapping:
		pairs = reqs.Pairs()
	case yamlsrc.Sequence:
		// A list of single-entry maps maps a requirement several times
		// (§15.5.1); a key [name, count] bounds a mapping (§15.5.5).
		for _, it := range reqs.Content {
			for i := 0; i+1 < len(it.Content) && it.Kind == yamlsrc.Mapping; i += 2 {
				pairs = append(pairs, yamlsrc.Pair{Key: it.Content[i], Value: it.Content[i+1]})
			}
		}
	}
	for _, p := range pairs {
		key := p.Key
		if key.Kind == yamlsrc.Sequence && len(key.Content) > 0 {
			key = key.Content[0]
		}
		found := false
		for _, r := range t.reqs {
			found = found || r.name == key.Value
		}
		if !found {
			c.errorf(key.Range, path+".requirements."+key.Value, CodeSubstitution, "node type %q has no requirement %q to map", t.name, key.Value)
		}
		// [template, requirement], or a list of them (§15.5.2).
		targets := []*yamlsrc.Node{p.Value}
		if items := p.Value.Items(); len(items) > 0 && items[0].Kind == yamlsrc.Sequence {
			targets = items
		}
		for _, tg := range targets {
			if items := tg.Items(); len(items) > 0 && topo.byName[text(items[0])] == nil && !c.failedTemplate2(items[0]) {
				c.errorf(items[0].Range, path+".requirements."+key.Value, CodeSubstitution, "requirement mapping names %s, which is no node template", describeValue(items[0]))
			}
		}
	}
	for _, p := range n.Get("interfaces").Pairs() {
		if t.ifaces[p.Key.Value] == nil {
			c.errorf(p.Key.Range, path+".interfaces."+p.Key.Value, CodeSubstitution, "node type %q has no interface %q to map", t.name, p.Key.Value)
		}
	}
}

func (c *compiler) readWorkflows2(f *file, n *yamlsrc.Node) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	for _, p := range n.Pairs() {
		path := "service_template.workflows." + p.Key.Value
		if !c.keys2(p.Value, path, func() string { return "workflow " + quote(p.Key.Value) }, workflowKeys2(), nil) {
			continue
		}
		inputs := map[string]*prop2{}
		if in := p.Value.Get("inputs"); in != nil {
			c.readParamDefs2(f, inputs, in, path+".inputs", false)
		}
		steps := p.Value.Get("steps")
		if steps == nil || steps.IsNull() {
			continue
		}
		if steps.Kind != yamlsrc.Mapping {
			c.errorf(steps.Range, path+".steps", CodeWorkflow, "steps must be a map, found %s", steps.Describe())
			continue
		}
		for _, s := range steps.Pairs() {
			c.readStep2(f, s, steps, inputs, path+".steps."+s.Key.Value)
		}
	}
}

func (c *compiler) readStep2(f *file, s yamlsrc.Pair, steps *yamlsrc.Node, inputs map[string]*prop2, path string) {
	if !c.keys2(s.Value, path, func() string { return "step " + quote(s.Key.Value) }, stepKeys2(), nil) {
		return
	}
	topo := c.v2.topo
	tn := s.Value.Get("target")
	nd := topo.byName[text(tn)]
	switch {
	case tn == nil:
		c.errorf(s.Key.Range, path, CodeWorkflow, "step %q is missing required field \"target\"", s.Key.Value)
	case nd == nil && topo.groups[text(tn)] == nil && !c.failedTemplate2(tn):
		c.errorf(tn.Range, path+".target", CodeWorkflow, "step target %s is no node template or group", describeValue(tn))
	}
	for _, key := range []string{"on_success", "on_failure"} {
		for _, x := range s.Value.Get(key).Items() {
			if steps.Get(text(x)) == nil {
				c.errorf(x.Range, path+"."+key, CodeWorkflow, "%s names %s, which is no step of the workflow", key, describeValue(x))
			}
		}
		if x := s.Value.Get(key); x != nil && x.IsString() && steps.Get(x.Value) == nil {
			c.errorf(x.Range, path+"."+key, CodeWorkflow, "%s names %s, which is no step of the workflow", key, describeValue(x))
		}
	}
	acts := s.Value.Get("activities")
	if acts == nil || acts.Kind != yamlsrc.Sequence {
		c.errorf(rangeOf(acts), path+".activities", CodeWorkflow, "step %q needs a list of activities", s.Key.Value)
		return
	}
	for i, a := range acts.Content {
		ap := path + ".activities[" + itoa(int64(i)) + "]"
		if a.Kind != yamlsrc.Mapping || len(a.Content) != 2 {
			c.errorf(a.Range, ap, CodeWorkflow, "an activity is a map with one entry, found %s", a.Describe())
			continue
		}
		kind, body := a.Content[0].Value, a.Content[1]
		switch kind {
		case "delegate", "set_state":
		case "inline":
			// The workflow inlined is one of the service template's
			// (§13.2.3.4): its name, or a map with workflow and inputs.
			wn := body
			if body.Kind == yamlsrc.Mapping {
				c.keys2(body, ap+".inline", func() string { return "inline activity" }, []string{"workflow", "inputs"}, nil)
				wn = body.Get("workflow")
			}
			if c.v2.topo.st.Get("workflows").Get(text(wn)) == nil {
				c.errorf(rangeOf(wn), ap+".inline", CodeWorkflow, "inline names %s, which is no workflow of the service template", describeValue(wn))
			}
		case "call_operation":
			if nd != nil {
				c.checkCallOperation2(f, nd, body, inputs, ap+".call_operation")
			}
		default:
			c.errorf(a.Content[0].Range, ap, CodeWorkflow, "unknown activity %q (delegate, set_state, call_operation, inline)", kind)
		}
	}
}

// checkActivityInput2 checks the value a call_operation activity gives
// the operation's input d (§13.2.3.3: "the inputs to the operation"):
// a value written out must be of the input's type, and a workflow input
// passed with $get_input must be declared of that type or one derived
// from it. Other functions are left to their own checks.
func (c *compiler) checkActivityInput2(ev *eval2, d *prop2, v *yamlsrc.Node, wfInputs map[string]*prop2, path, op string) {
	fn, args, isCall := funcCall2(v)
	switch {
	case d.typ == nil:
	case !isCall:
		c.checkValue2(ev, d, v, path)
	case fn == "get_input" && len(argList2(args)) == 1:
		wi := wfInputs[text(argList2(args)[0])]
		if wi != nil && wi.typ != nil && !c.derives2(wi.typ, d.typ) {
			c.errorf(v.Range, path, CodeWorkflow, "input %q of operation %s is of type %q; the workflow input %q given it is of type %q", d.name, op, d.typ.name, wi.name, wi.typ.name)
		}
	}
}

// checkCallOperation2 checks a call_operation activity against the
// target's operation: it exists, the inputs given are defined and of
// their types, and the required ones are given a value that is there
// when the workflow runs.
func (c *compiler) checkCallOperation2(f *file, nd *node2, body *yamlsrc.Node, wfInputs map[string]*prop2, path string) {
	opN := body
	var given *yamlsrc.Node
	if body.Kind == yamlsrc.Mapping {
		c.keys2(body, path, func() string { return "call_operation" }, []string{"operation", "inputs"}, nil)
		opN, given = body.Get("operation"), body.Get("inputs")
	}
	ifName, opName, ok := strings.Cut(text(opN), ".")
	if !ok {
		c.errorf(rangeOf(opN), path, CodeWorkflow, "call_operation names <interface>.<operation>, found %s", describeValue(opN))
		return
	}
	iface := nd.typ.ifaces[ifName]
	var op *op2
	if iface != nil {
		op = iface.ops[opName]
	}
	if op == nil {
		c.errorf(opN.Range, path, CodeWorkflow, "node template %q has no operation %s", nd.name, opN.Value)
		return
	}
	defs := map[string]*prop2{}
	clone2(defs, iface.inputs)
	clone2(defs, op.inputs)
	ev := &eval2{c: c, f: f, node: nd}
	for _, p := range given.Pairs() {
		d := defs[p.Key.Value]
		if d == nil {
			c.errorf(p.Key.Range, path+".inputs."+p.Key.Value, CodeWorkflow, "operation %s has no input %q", opN.Value, p.Key.Value)
			continue
		}
		c.checkActivityInput2(ev, d, p.Value, wfInputs, path+".inputs."+p.Key.Value, opN.Value)
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		d := defs[name]
		if !d.required || (d.def != nil && !d.def.IsNull()) || d.value != nil {
			continue
		}
		v := given.Get(name)
		if v == nil {
			c.errorf(rangeOf(body), path, CodeWorkflow, "operation %s needs input %q, which the activity does not give", opN.Value, name)
			continue
		}
		// A required input given an optional workflow input may have no
		// value when the workflow runs.
		if fn, args, isCall := funcCall2(v); isCall && fn == "get_input" && len(argList2(args)) > 0 {
			if wi := wfInputs[text(argList2(args)[0])]; wi != nil && !wi.required && (wi.def == nil || wi.def.IsNull()) {
				c.errorf(v.Range, path+".inputs."+name, CodeWorkflow, "required input %q of operation %s is given the optional workflow input %q, which may have no value", name, opN.Value, wi.name)
			}
		}
	}
}
