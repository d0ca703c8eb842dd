package tosca

// Secrets (2.0): which values of a 2.0 service template carry a secret,
// by the rules the 1.x path follows (secrets.go).
//
// A definition (property, attribute, input, output, operation input, a
// field of a data type) is sensitive when its metadata says sensitive:
// true, when it refines a sensitive definition, or when its type is a
// sensitive data type: one whose metadata says sensitive: true, or that
// derives from one (the simple profile's Credential does). A value is
// secret when its definition is sensitive or when evaluating it read a
// secret: $get_input of a sensitive input, $get_property or
// $get_attribute of a sensitive definition or of a value derived from a
// secret, through any function ($concat, $join, $token, custom ones), a
// list or a map. The compiler counts secret reads while it evaluates
// (compiler.secretReads); a property or attribute whose evaluation raised
// the count is recorded by its path (compiler.secretAt) so that reading
// it later counts again. render2 lists the secret properties, capability
// properties and attributes of each resource in graph.Resource.Sensitive
// ("attributes.<name>" for an attribute, whose value an operation output
// sets at apply time), the secret operation inputs in
// graph.Operation.Sensitive, the secret outputs in
// graph.Graph.SensitiveOutputs and the values of sensitive inputs in
// graph.Graph.Secrets; a value that reads a secret of another resource
// only at apply time (an attribute reference) is secret too
// (spreadSecrets).
//
// A diagnostic about a secret value (compiler.inSecret is set while one
// is checked) names the rule it breaks, never quotes the value, and is
// marked diag.Diagnostic.Sensitive so that no renderer shows its source
// line.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// metaSensitive reports whether a definition's metadata says
// sensitive: true (a Boolean, or the text "true" in any case).
func metaSensitive(n *yamlsrc.Node) bool {
	s := n.Get("metadata").Get("sensitive")
	if s == nil {
		return false
	}
	b, ok := s.Bool()
	return (ok && b) || strings.EqualFold(s.Value, "true")
}

// sensitiveType2 reports whether t is a sensitive data type: it or a data
// type it derives from says metadata sensitive: true.
func sensitiveType2(t *typeDef2) bool {
	for i := 0; t != nil && i < maxValueDepth; i, t = i+1, t.parent {
		if t.kind == kData && t.n != nil && metaSensitive(t.n) {
			return true
		}
	}
	return false
}

// secret reports whether values of the definition are secrets.
func (d *prop2) secret() bool {
	return d != nil && (d.sensitive || sensitiveType2(d.typ))
}

// enterSecret counts a secret read and marks what follows as the check
// of a secret value n, until the returned function is called.
func (c *compiler) enterSecret(n *yamlsrc.Node) func() {
	if n != nil {
		if c.v2.secretSrc == nil {
			c.v2.secretSrc = map[*yamlsrc.Node]bool{}
		}
		c.v2.secretSrc[n] = true
	}
	c.secretReads++
	c.inSecret++
	return func() { c.inSecret-- }
}

// badValue2 reports a value that does not fit its definition: msg quotes
// it; while a secret is checked, hidden (which does not) is said instead
// and the diagnostic shows no source line.
func (c *compiler) badValue2(r diag.Range, path, code, msg, hidden string) {
	c.secretErr2(c.inSecret > 0, r, path, code, msg, hidden)
}

// secretErr2 reports msg, or hidden (which quotes no value) without a
// source line when secret.
func (c *compiler) secretErr2(secret bool, r diag.Range, path, code, msg, hidden string) {
	if secret {
		c.diags = c.diags.Append(diag.Diagnostic{Severity: diag.Error, Code: code, Summary: hidden, Range: r, Path: path, Sensitive: true})
		return
	}
	c.errorf(r, path, code, "%s", msg)
}

// readSecret2 counts a read of a value of one of the definitions when
// they are sensitive, or else when the value at one of the paths that
// paths builds is derived from a secret. Paths are built only when some
// value is: building them for every read would cost allocations.
func (c *compiler) readSecret2(paths func() []string, defs ...*prop2) {
	switch {
	case slices.ContainsFunc(defs, (*prop2).secret):
	case len(c.secretAt) == 0 || paths == nil:
		return
	case !slices.ContainsFunc(paths(), func(p string) bool { return c.secretAt[p] }):
		return
	}
	c.secretReads++
}

// querySecret2 counts the read of property or attribute name of the node
// (or its capability) a $get_property or $get_attribute path ends at
// when that value is a secret.
func (c *compiler) querySecret2(end pathEnd, name string) {
	nd := end.node
	if nd == nil || nd.typ == nil {
		return
	}
	if end.capName != "" {
		if cd := nd.typ.caps[end.capName]; cd != nil {
			c.readSecret2(func() []string { return []string{nd.path + ".capabilities." + end.capName + ".properties." + name} },
				cd.props[name], cd.attrs[name])
		}
		return
	}
	c.readSecret2(func() []string { return []string{nd.path + ".properties." + name, nd.path + ".attributes." + name} },
		nd.typ.props[name], nd.typ.attrs[name])
}

// relSecret2 counts the read of property (or attribute) name of the
// relationship re when it is secret: its definition is sensitive, or its
// value in the requirement's relationship or the relationship template
// it names is derived from a secret.
func (c *compiler) relSecret2(re *relEnd2, name string) {
	ra := re.ra
	rt := ra.relType
	c.readSecret2(func() []string {
		paths := []string{ra.path + ".relationship.properties." + name}
		if rel := ra.n.Get("relationship"); rel.IsString() {
			paths = append(paths, "service_template.relationship_templates."+rel.Value+".properties."+name)
		}
		return paths
	}, rt.props[name], rt.attrs[name])
}

// secretPaths2 lists, sorted, the paths of a node template's secret
// values in its resource: properties and capability properties that are
// sensitive or derived from a secret, and every sensitive attribute as
// "attributes.<name>", set or not, since an operation output may set it.
func (c *compiler) secretPaths2(nd *node2, spec map[string]graph.Value) []string {
	var out []string
	t := nd.typ
	derived := len(c.secretAt) > 0
	for name, d := range t.attrs {
		if d.secret() || (derived && c.secretAt[nd.path+".attributes."+name]) {
			out = append(out, "attributes."+name)
		}
	}
	caps, _ := spec["capabilities"].(map[string]graph.Value)
	for name, cv := range caps {
		cd := t.caps[name]
		props, _ := cv.(map[string]graph.Value)["properties"].(map[string]graph.Value)
		for p := range props {
			if (cd != nil && cd.props[p].secret()) || (derived && c.secretAt[nd.path+".capabilities."+name+".properties."+p]) {
				out = append(out, "capabilities."+name+".properties."+p)
			}
		}
	}
	for name, d := range t.props {
		if d.secret() || (derived && c.secretAt[nd.path+".properties."+name]) {
			out = append(out, "properties."+name)
		}
	}
	out = append(out, c.relSecretPaths2(nd)...)
	slices.Sort(out)
	return out
}

// spreadSecrets marks as secret what reads a secret of another resource
// only at apply time: a spec value or an operation input holding an
// attribute reference to a sensitive path, and likewise an output. A
// resource that gains a secret has the resources that read it checked
// again, so that a chain of references is followed whatever the order of
// the resources, each resource checked once more per secret it gains.
func (c *compiler) spreadSecrets(g *graph.Graph, secretOutputs map[string]bool) {
	if !slices.ContainsFunc(g.Resources(), func(r *graph.Resource) bool { return len(r.Sensitive) > 0 }) {
		// Nothing to read a secret from.
		return
	}
	readers := map[string][]*graph.Resource{}
	queue := slices.Clone(g.Resources())
	for _, r := range queue {
		for _, addr := range attributeReads(r) {
			readers[addr] = append(readers[addr], r)
		}
	}
	for len(queue) > 0 {
		if c.ctx.Err() != nil {
			return
		}
		r := queue[0]
		queue = queue[1:]
		if spreadInto(g, r) {
			queue = append(queue, readers[r.Address]...)
		}
	}
	for name, v := range g.Outputs {
		if !secretOutputs[name] && readsSecret2(g, v) {
			secretOutputs[name] = true
		}
	}
}

// attributeReads returns the addresses whose attributes r's spec and
// operation inputs read (attribute(address, …) unknowns), sorted, each
// once.
func attributeReads(r *graph.Resource) []string {
	var addrs []string
	var walk func(v graph.Value)
	walk = func(v graph.Value) {
		switch x := v.(type) {
		case graph.Unknown:
			// A relationship's attribute is recorded with its source.
			relAttr := x.Func == "get_attribute" && len(x.Args) > 1 && x.Args[1] == "RELATIONSHIP"
			if addr, ok := firstArg2(x); ok && (x.Func == "attribute" || relAttr) {
				addrs = append(addrs, addr)
			}
			for _, a := range x.Args {
				walk(a)
			}
		case []graph.Value:
			for _, e := range x {
				walk(e)
			}
		case map[string]graph.Value:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(r.Spec)
	for _, op := range r.Driver.Operations {
		walk(op.Inputs)
	}
	slices.Sort(addrs)
	return slices.Compact(addrs)
}

// spreadInto marks the values of r that read a secret of g; it reports
// whether r's spec gained a sensitive path.
func spreadInto(g *graph.Graph, r *graph.Resource) bool {
	gained := false
	mark := func(v graph.Value, path ...string) {
		if !readsSecret2(g, v) {
			return
		}
		if p := strings.Join(path, "."); !slices.Contains(r.Sensitive, p) {
			r.Sensitive = append(r.Sensitive, p)
			gained = true
		}
	}
	for _, top := range []string{"properties", "attributes"} {
		m, _ := r.Spec[top].(map[string]graph.Value)
		for k, v := range m {
			mark(v, top, k)
		}
	}
	caps, _ := r.Spec["capabilities"].(map[string]graph.Value)
	for name, cv := range caps {
		props, _ := cv.(map[string]graph.Value)["properties"].(map[string]graph.Value)
		for k, v := range props {
			mark(v, "capabilities", name, "properties", k)
		}
	}
	slices.Sort(r.Sensitive)
	for key, op := range r.Driver.Operations {
		for name, v := range op.Inputs {
			if readsSecret2(g, v) && !slices.Contains(op.Sensitive, name) {
				op.Sensitive = append(op.Sensitive, name)
				slices.Sort(op.Sensitive)
				r.Driver.Operations[key] = op
			}
		}
	}
	return gained
}

// readsSecret2 reports whether v reads a sensitive path of a resource of
// g at apply time (graph.ReadsSensitive).
func readsSecret2(g *graph.Graph, v graph.Value) bool {
	return graph.ReadsSensitive(v, func(addr string) []string {
		if r, ok := g.Resource(addr); ok {
			return r.Sensitive
		}
		return nil
	})
}

// renderSecrets2 completes the secrets of g once every resource is in it:
// what reads a secret only at apply time (spreadSecrets), the outputs
// that are secret, and the values of the sensitive inputs, which apply
// redacts from what drivers print.
func (c *compiler) renderSecrets2(g *graph.Graph) {
	topo := c.v2.topo
	secretOut := map[string]bool{}
	for name := range g.Outputs {
		if c.secretAt["service_template.outputs."+name] {
			secretOut[name] = true
		}
	}
	c.spreadSecrets(g, secretOut)
	g.SensitiveOutputs = slices.Sorted(maps.Keys(secretOut))
	for _, name := range slices.Sorted(maps.Keys(topo.inputDefs)) {
		if v := topo.inputs[name]; topo.inputDefs[name].secret() && v != nil && !graph.HasUnknown(v) {
			g.Secrets = append(g.Secrets, v)
		}
	}
}

// fixedValue2 reports the assignment p of another value to a definition
// d with a fixed value, neither quoted when d is sensitive.
func (c *compiler) fixedValue2(d *prop2, p yamlsrc.Pair, path, noun string) {
	c.secretErr2(d.secret(), p.Value.Range, path, CodeValue,
		fmt.Sprintf("%s %q has the fixed value %s; it cannot be assigned %s", noun, p.Key.Value, describeValue(d.value), describeValue(p.Value)),
		fmt.Sprintf("%s %q has a fixed sensitive value; it cannot be assigned another", noun, p.Key.Value))
}
