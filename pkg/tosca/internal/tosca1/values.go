package tosca1

// Phase 4 — values: property, attribute, input and parameter assignments
// checked against their definitions and canonicalized into graph.Value.
//
// Errors detected here:
//   - a value that is not of its primitive type, scalar unit, version, range or timestamp
//     (tosca.value)
//   - a value that violates a constraint of its definition or data type (tosca.constraint),
//     including the value a get_input reads, reported at the assignment with the input named
//     in the detail
//   - a list or map value of the wrong YAML kind, entries and keys checked by entry_schema and
//     key_schema (tosca.value)
//   - complex data type values: unknown fields, missing required fields (tosca.unknown_property,
//     tosca.missing_property); defaults filled in
//   - assignments to properties a type does not define (tosca.unknown_property)
//   - required properties with neither value nor default (tosca.missing_property)
//   - assignments to unsupported properties (tosca.status); deprecated ones are a warning

import (
	"fmt"
	"maps"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// checkValue checks the value n against definition d and returns its
// canonical form. Function calls are evaluated in scope s (phase 7); their
// results are not re-checked against d, as tosca-parser does not.
func (c *compiler) checkValue(d *propDef, n *yamlsrc.Node, path, what string, s *scope) graph.Value {
	return c.checkValueDepth(d, n, path, what, s, 0)
}

// checkAssigned is checkValue for a template's own property value, where
// a string property accepts any scalar as its text (tosca-parser's
// behaviour, which real templates rely on: `version: 16.04`).
func (c *compiler) checkAssigned(d *propDef, n *yamlsrc.Node, path, what string, s *scope) graph.Value {
	if d != nil && d.prim == "string" && n != nil && n.Kind == yamlsrc.Scalar && !n.IsNull() {
		if d.sensitive {
			c.SecretReads++
			c.InSecret++
			defer func() { c.InSecret-- }()
		}
		v, err := values.CoerceLenient("string", n)
		if err != nil {
			c.mismatch(n, path, what, err.Error(), "the value is not a string")
			return nil
		}
		c.checkConstraints(d.constraints, v, n.Range, path, what, "")
		return v
	}
	return c.checkValueDepth(d, n, path, what, s, 0)
}

func (c *compiler) checkValueDepth(d *propDef, n *yamlsrc.Node, path, what string, s *scope, depth int) graph.Value {
	if n.IsNull() || !c.step(n, path) {
		return nil
	}
	if d != nil && d.sensitive {
		c.SecretReads++
		c.InSecret++
		defer func() { c.InSecret-- }()
	}
	if fn, ok := functionName(n); ok {
		before := c.SecretReads
		v := c.evalFunction(fn, n, path, s)
		if fn == "get_input" && d != nil {
			c.checkInputRead(d, v, n, path, what, c.SecretReads > before)
		}
		return v
	}
	if d == nil || depth > maxValueDepth {
		return c.rawValue(n, path, s)
	}
	var v graph.Value
	switch {
	case d.prim == "list":
		if n.Kind != yamlsrc.Sequence {
			c.mismatch(n, path, what, describeValue(n)+" is not a list", "the value is not a list")
			return nil
		}
		out := make([]graph.Value, len(n.Content))
		for i, it := range n.Content {
			out[i] = c.checkValueDepth(d.entry, it, path+"["+itoa(int64(i))+"]", what, s, depth+1)
		}
		v = out
	case d.prim == "map":
		if n.Kind != yamlsrc.Mapping {
			c.mismatch(n, path, what, describeValue(n)+" is not a map", "the value is not a map")
			return nil
		}
		out := make(map[string]graph.Value, len(n.Content)/2)
		for _, p := range n.Pairs() {
			if d.keyS != nil && d.keyS.prim != "" && d.keyS.prim != "string" {
				c.checkValueDepth(d.keyS, p.Key, joinPath(path, p.Key.Value), what, s, depth+1)
			}
			out[p.Key.Value] = c.checkValueDepth(d.entry, p.Value, joinPath(path, p.Key.Value), what, s, depth+1)
		}
		v = out
	case d.prim != "":
		cv, err := values.Coerce(d.prim, n)
		if err != nil {
			c.mismatch(n, path, what, err.Error(), "the value is not of type "+d.prim)
			return nil
		}
		if d.prim == values.Version {
			c.VersionWithoutMinor(n, path)
		}
		v = cv
	case d.dt != nil:
		if n.Kind != yamlsrc.Mapping {
			c.mismatch(n, path, what, fmt.Sprintf("%s is not a map (data type %q)", describeValue(n), d.dt.name),
				fmt.Sprintf("the value is not a map (data type %q)", d.dt.name))
			return nil
		}
		v = c.assignFields(d.dt, n, path, what, s, depth+1)
	default:
		return c.rawValue(n, path, s)
	}
	c.checkConstraints(d.constraints, v, n.Range, path, what, "")
	return v
}

// maxValueSteps bounds the work of checking values in one compilation:
// far above any real template (the 100,000-node benchmark takes about
// 500,000 steps), it stops inputs crafted to expand exponentially.
const maxValueSteps = 20_000_000

// maxDefaultNesting bounds how deep defaults of complex data types are
// filled in inside other defaults: a recursive data type whose fields
// default to {} would otherwise expand without end.
const maxDefaultNesting = 4

// step counts one unit of value work; false once the budget is spent
// (reported once).
func (c *compiler) step(n *yamlsrc.Node, path string) bool {
	if c.Stopped() {
		return false
	}
	c.steps++
	if c.steps == maxValueSteps {
		c.errorf(n.Range, path, core.CodeTooComplex, "values expand to more than %d nodes; check for recursive data types and defaults", maxValueSteps)
	}
	return c.steps < maxValueSteps
}

// checkConstraints applies constraints to a known value; from, when set,
// names the input it came from. The value of a sensitive definition is
// not quoted.
func (c *compiler) checkConstraints(cs []*values.Constraint, v graph.Value, at diag.Range, path, what, from string) {
	if len(cs) == 0 || graph.HasUnknown(v) {
		return
	}
	secret := c.InSecret > 0
	for _, con := range cs {
		check := con.Check
		if secret {
			check = con.CheckSecret
		}
		if err := check(v); err != nil {
			d := diag.Diagnostic{Severity: diag.Error, Code: core.CodeConstraint, Summary: what + ": " + err.Error(), Range: at, Path: path, Sensitive: secret}
			if from != "" {
				d.Detail = "The value comes from input " + quote(from) + "."
			}
			c.Diags = c.Diags.Append(d)
		}
	}
}

// mismatch reports a value n that does not fit its definition: msg
// describes it, hidden is said instead when the value is a secret.
func (c *compiler) mismatch(n *yamlsrc.Node, path, what, msg, hidden string) {
	if c.InSecret > 0 {
		c.Diags = c.Diags.Append(diag.Diagnostic{Severity: diag.Error, Code: core.CodeValue, Summary: what + ": " + hidden,
			Range: n.Range, Path: path, Sensitive: true})
		return
	}
	c.errorf(n.Range, path, core.CodeValue, "%s: %s", what, msg)
}

// checkInputRead checks the value get_input (the call n) read against the
// constraints of the definition d it is assigned to, and of d's entries
// and fields, as a literal value is checked: an input's own definition
// may constrain it less than the property it feeds. secret says the input
// is sensitive.
func (c *compiler) checkInputRead(d *propDef, v graph.Value, n *yamlsrc.Node, path, what string, secret bool) {
	if v == nil || graph.HasUnknown(v) {
		return
	}
	name := n.Content[1]
	if name.Kind == yamlsrc.Sequence && len(name.Content) > 0 {
		name = name.Content[0]
	}
	if secret {
		c.InSecret++
		defer func() { c.InSecret-- }()
	}
	c.checkRead(d, v, n.Range, path, what, name.Value, 0)
}

// checkRead applies the constraints of d and of its entries and fields to
// v, the value of the input named from.
func (c *compiler) checkRead(d *propDef, v graph.Value, at diag.Range, path, what, from string, depth int) {
	if d == nil || v == nil || depth > maxValueDepth {
		return
	}
	if d.sensitive {
		c.InSecret++
		defer func() { c.InSecret-- }()
	}
	c.checkConstraints(d.constraints, v, at, path, what, from)
	switch x := v.(type) {
	case []graph.Value:
		if d.entry == nil {
			return
		}
		for i, e := range x {
			c.checkRead(d.entry, e, at, path+"["+itoa(int64(i))+"]", what, from, depth+1)
		}
	case map[string]graph.Value:
		if d.dt == nil || d.prim == "map" {
			if d.entry == nil {
				return
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				c.checkRead(d.entry, x[k], at, joinPath(path, k), what, from, depth+1)
			}
			return
		}
		for _, k := range slices.Sorted(maps.Keys(d.dt.props)) {
			if fv, ok := x[k]; ok {
				c.checkRead(d.dt.props[k], fv, at, joinPath(path, k), what+" field "+quote(k), from, depth+1)
			}
		}
	}
}

// assignFields checks a complex data type value: known fields, required
// fields, defaults.
func (c *compiler) assignFields(dt *typeDef, n *yamlsrc.Node, path, what string, s *scope, depth int) graph.Value {
	out := make(map[string]graph.Value, len(dt.props))
	for _, p := range n.Pairs() {
		fd := dt.props[p.Key.Value]
		fp := joinPath(path, p.Key.Value)
		if fd == nil {
			if c.lacks(dt) {
				continue
			}
			c.errorf(p.Key.Range, fp, core.CodeUnknownProperty, "%s: data type %q has no field %q", what, dt.name, p.Key.Value)
			continue
		}
		out[p.Key.Value] = c.checkValueDepth(fd, p.Value, fp, what+" field "+quote(p.Key.Value), s, depth)
	}
	for _, name := range slices.Sorted(maps.Keys(dt.props)) {
		if _, set := out[name]; set {
			continue
		}
		fd := dt.props[name]
		switch {
		case fd.hasDefault && fd.dt != nil && c.defaultNesting >= maxDefaultNesting:
			out[name] = c.rawValue(fd.def, joinPath(path, name), s)
		case fd.hasDefault:
			c.defaultNesting++
			out[name] = c.checkValueDepth(fd, fd.def, joinPath(path, name), what+" field "+quote(name), s, depth)
			c.defaultNesting--
		case fd.required:
			c.errorf(n.Range, path, core.CodeMissingProperty, "%s: data type %q requires field %q", what, dt.name, name)
		}
	}
	return out
}

// rawValue canonicalizes a value that has no definition to check it
// against, evaluating the functions inside it.
func (c *compiler) rawValue(n *yamlsrc.Node, path string, s *scope) graph.Value {
	if n == nil || !c.step(n, path) {
		return nil
	}
	if fn, ok := functionName(n); ok {
		return c.evalFunction(fn, n, path, s)
	}
	switch n.Kind {
	case yamlsrc.Sequence:
		out := make([]graph.Value, len(n.Content))
		for i, it := range n.Content {
			out[i] = c.rawValue(it, path, s)
		}
		return out
	case yamlsrc.Mapping:
		out := make(map[string]graph.Value, len(n.Content)/2)
		for _, p := range n.Pairs() {
			out[p.Key.Value] = c.rawValue(p.Value, joinPath(path, p.Key.Value), s)
		}
		return out
	}
	v, err := graph.Canonicalize(n.Interface())
	if err != nil {
		return n.Value
	}
	return v
}

// missingRequired says what a required property left without value or
// default is.
type missingRequired uint8

const (
	// ignoreMissing: nothing (attributes, which the orchestrator sets).
	ignoreMissing missingRequired = iota
	// warnMissing: a warning, for groups. A group names a set of
	// members for policies and workflows; it is neither deployed nor
	// acted on itself, tosca-parser (Tacker, Heat) does not check its
	// properties, and the SOL001 packages Tacker deploys leave
	// PlacementGroup's required description out. Policies are acted on
	// (a scaling policy's increment), so they stay errorMissing, as
	// tosca-parser has them.
	warnMissing
	// errorMissing: an error (TOSCA 1.3 §3.6.10: required unless said
	// otherwise); the operations of what is deployed read the value.
	errorMissing
)

// assignProps checks the assignments in n against defs, the definitions
// of the type t, and fills in defaults. owner names the assigning entity
// in messages ("node template \"web\""). missing says what a required
// property without value or default is.
func (c *compiler) assignProps(t *typeDef, defs map[string]*propDef, n *yamlsrc.Node, path, owner, noun string, s *scope, missing missingRequired) map[string]graph.Value {
	out := make(map[string]graph.Value, len(defs))
	if !n.IsNull() && n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "%ss of %s must be a map, found %s", noun, owner, n.Describe())
		n = nil
	}
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		d := defs[k.Value]
		pp := joinPath(path, k.Value)
		if d == nil {
			if !c.lacks(t) {
				c.errorf(k.Range, pp, core.CodeUnknownProperty, "%s has no %s %q", owner, noun, k.Value)
				c.SuggestLast(k.Value, maps.Keys(defs))
			}
			continue
		}
		switch d.status {
		case "unsupported":
			c.errorf(k.Range, pp, core.CodeStatus, "%s %q of %s is unsupported", noun, k.Value, owner)
		case "deprecated":
			c.warnf(k.Range, pp, core.CodeStatus, "%s %q of %s is deprecated", noun, k.Value, owner)
		}
		if noun == "attribute" && v.Kind == yamlsrc.Mapping && v.Get("value") != nil && (len(v.Content) == 2 || (len(v.Content) == 4 && v.Get("description") != nil)) && d.dt == nil && d.prim != "map" {
			// TOSCA 1.3 extended notation: {description, value}.
			v = v.Get("value")
		}
		before := c.SecretReads
		out[k.Value] = c.checkAssigned(d, v, pp, noun+" "+quote(k.Value), s)
		c.NoteSecret(pp, before)
	}
	for name, d := range defs {
		if _, set := out[name]; set {
			continue
		}
		switch {
		case d.hasDefault:
			before := c.SecretReads
			out[name] = c.checkValue(d, d.def, joinPath(path, name), noun+" "+quote(name), s)
			c.NoteSecret(joinPath(path, name), before)
		case d.required && missing != ignoreMissing && d.status != "unsupported":
			at := rangeOf(n)
			if n == nil {
				at = s.at
			}
			if missing == warnMissing {
				c.warnf(at, path, core.CodeMissingProperty, "%s is missing required %s %q", owner, noun, name)
			} else {
				c.errorf(at, path, core.CodeMissingProperty, "%s is missing required %s %q", owner, noun, name)
			}
		}
	}
	return out
}
