package tosca2

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
// it later counts again. render lists the secret properties, capability
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

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// sensitiveType reports whether t is a sensitive data type: it or a data
// type it derives from says metadata sensitive: true.
func sensitiveType(t *typeDef) bool {
	for i := 0; t != nil && i < core.MaxValueDepth; i, t = i+1, t.parent {
		if t.kind == core.KData && t.n != nil && core.MetaSensitive(t.n) {
			return true
		}
	}
	return false
}

// secret reports whether values of the definition are secrets.
func (d *prop) secret() bool {
	return d != nil && (d.sensitive || sensitiveType(d.typ))
}

// enterSecret counts a secret read and marks what follows as the check
// of a secret value n, until the returned function is called.
func (c *compiler) enterSecret(n *yamlsrc.Node) func() {
	if n != nil {
		if c.state.secretSrc == nil {
			c.state.secretSrc = map[*yamlsrc.Node]bool{}
		}
		c.state.secretSrc[n] = true
	}
	c.SecretReads++
	c.InSecret++
	return func() { c.InSecret-- }
}

// badValue reports a value that does not fit its definition: msg quotes
// it; while a secret is checked, hidden (which does not) is said instead
// and the diagnostic shows no source line.
func (c *compiler) badValue(r diag.Range, path, code, msg, hidden string) {
	c.secretErr(c.InSecret > 0, r, path, code, msg, hidden)
}

// secretErr reports msg, or hidden (which quotes no value) without a
// source line when secret.
func (c *compiler) secretErr(secret bool, r diag.Range, path, code, msg, hidden string) {
	if secret {
		c.Diags = c.Diags.Append(diag.Diagnostic{Severity: diag.Error, Code: code, Summary: hidden, Range: r, Path: path, Sensitive: true})
		return
	}
	c.Errorf(r, path, code, "%s", msg)
}

// readSecret counts a read of a value of one of the definitions when
// they are sensitive, or else when the value at one of the paths that
// paths builds is derived from a secret. Paths are built only when some
// value is: building them for every read would cost allocations.
func (c *compiler) readSecret(paths func() []string, defs ...*prop) {
	switch {
	case slices.ContainsFunc(defs, (*prop).secret):
	case len(c.SecretAt) == 0 || paths == nil:
		return
	case !slices.ContainsFunc(paths(), func(p string) bool { return c.SecretAt[p] }):
		return
	}
	c.SecretReads++
}

// querySecret counts the read of property or attribute name of the node
// (or its capability) a $get_property or $get_attribute path ends at
// when that value is a secret.
func (c *compiler) querySecret(end pathEnd, name string) {
	nd := end.node
	if nd == nil || nd.typ == nil {
		return
	}
	if end.capName != "" {
		if cd := nd.typ.caps[end.capName]; cd != nil {
			c.readSecret(func() []string { return []string{nd.path + ".capabilities." + end.capName + ".properties." + name} },
				cd.props[name], cd.attrs[name])
		}
		return
	}
	c.readSecret(func() []string { return []string{nd.path + ".properties." + name, nd.path + ".attributes." + name} },
		nd.typ.props[name], nd.typ.attrs[name])
}

// relSecret counts the read of property (or attribute) name of the
// relationship re when it is secret: its definition is sensitive, or its
// value in the requirement's relationship or the relationship template
// it names is derived from a secret.
func (c *compiler) relSecret(re *relEnd, name string) {
	ra := re.ra
	rt := ra.relType
	c.readSecret(func() []string {
		paths := []string{ra.path + ".relationship.properties." + name}
		if rel := ra.rel; rel.IsString() {
			paths = append(paths, "service_template.relationship_templates."+rel.Value+".properties."+name)
		}
		return paths
	}, rt.props[name], rt.attrs[name])
}

// secretPaths lists, sorted, the paths of a node template's secret
// values in its resource: properties and capability properties that are
// sensitive or derived from a secret, and every sensitive attribute as
// "attributes.<name>", set or not, since an operation output may set it.
// Where no value read a secret (most templates), only the definitions
// decide, and their paths are the type's (secretDefs): no path of a
// value is built.
func (c *compiler) secretPaths(nd *node, spec map[string]graph.Value) []string {
	t := nd.typ
	sd := c.secretDefs(t)
	var out []string
	caps, _ := spec["capabilities"].(map[string]graph.Value)
	if len(c.SecretAt) == 0 {
		out = slices.Clone(sd.paths)
		if len(sd.caps) > 0 {
			for name, cv := range caps {
				props, _ := cv.(map[string]graph.Value)["properties"].(map[string]graph.Value)
				for p := range props {
					if slices.Contains(sd.caps[name], p) {
						out = append(out, "capabilities."+name+".properties."+p)
					}
				}
			}
		}
	} else {
		for name, d := range t.attrs {
			if d.secret() || c.SecretAt[nd.path+".attributes."+name] {
				out = append(out, "attributes."+name)
			}
		}
		for name, cv := range caps {
			cd := t.caps[name]
			props, _ := cv.(map[string]graph.Value)["properties"].(map[string]graph.Value)
			for p := range props {
				if (cd != nil && cd.props[p].secret()) || c.SecretAt[nd.path+".capabilities."+name+".properties."+p] {
					out = append(out, "capabilities."+name+".properties."+p)
				}
			}
		}
		for name, d := range t.props {
			if d.secret() || c.SecretAt[nd.path+".properties."+name] {
				out = append(out, "properties."+name)
			}
		}
	}
	out = append(out, c.relSecretPaths(nd)...)
	slices.Sort(out)
	return out
}

// typeSecrets is what of a type's definitions is secret by definition
// (prop.secret), the same for every template of the type.
type typeSecrets struct {
	// paths lists, sorted, "attributes.<name>" and "properties.<name>"
	// of the secret attributes and properties; nil for none.
	paths []string
	// attrs lists the names of the secret attributes.
	attrs []string
	// caps holds, by capability, the names of its secret properties;
	// nil for none.
	caps map[string][]string
}

// secretDefs returns the secret definitions of t, found once.
func (c *compiler) secretDefs(t *typeDef) *typeSecrets {
	return perType(&c.state.secretDefs, t, findSecretDefs)
}

// findSecretDefs finds the secret definitions of t (secretDefs).
func findSecretDefs(t *typeDef) *typeSecrets {
	sd := &typeSecrets{}
	for name, d := range t.attrs {
		if d.secret() {
			sd.attrs = append(sd.attrs, name)
			sd.paths = append(sd.paths, "attributes."+name)
		}
	}
	for name, d := range t.props {
		if d.secret() {
			sd.paths = append(sd.paths, "properties."+name)
		}
	}
	slices.Sort(sd.attrs)
	slices.Sort(sd.paths)
	for name, cd := range t.caps {
		for p, d := range cd.props {
			if d.secret() {
				if sd.caps == nil {
					sd.caps = map[string][]string{}
				}
				sd.caps[name] = append(sd.caps[name], p)
			}
		}
	}
	return sd
}

// renderSecrets completes the secrets of g once every resource is in it:
// what reads a secret only at apply time (spreadSecrets), the outputs
// that are secret, and the values of the sensitive inputs, which apply
// redacts from what drivers print. reads tells whether a resource reads
// another's attributes (addReads): where none does and there are no
// outputs, there is nothing a secret spreads to.
func (c *compiler) renderSecrets(g *graph.Graph, reads bool) {
	topo := c.state.topo
	secretOut := map[string]bool{}
	for name := range g.Outputs {
		if c.SecretAt["service_template.outputs."+name] {
			secretOut[name] = true
		}
	}
	if _, unnamed := g.Resource(""); reads || len(g.Outputs) > 0 || unnamed {
		// (A reference whose address is not a string reads the resource
		// named "", if there is one: graph.ReadsSensitive.)
		c.SpreadSecrets(g, secretOut)
	}
	g.SensitiveOutputs = slices.Sorted(maps.Keys(secretOut))
	for _, name := range slices.Sorted(maps.Keys(topo.inputDefs)) {
		if v := topo.inputs[name]; topo.inputDefs[name].secret() && v != nil && !graph.HasUnknown(v) {
			g.Secrets = append(g.Secrets, v)
		}
	}
}

// fixedValue reports the assignment p of another value to a definition
// d with a fixed value, neither quoted when d is sensitive.
func (c *compiler) fixedValue(d *prop, p yamlsrc.Pair, path, noun string) {
	c.secretErr(d.secret(), p.Value.Range, path, core.CodeValue,
		fmt.Sprintf("%s %q has the fixed value %s; it cannot be assigned %s", noun, p.Key.Value, core.DescribeValue(d.value), core.DescribeValue(p.Value)),
		fmt.Sprintf("%s %q has a fixed sensitive value; it cannot be assigned another", noun, p.Key.Value))
}
