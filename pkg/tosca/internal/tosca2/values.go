package tosca2

// Phase 4 (2.0) — values (§9): every value checked against its
// definition and canonicalized, and the validation clauses of the
// definition and of its type's ancestors evaluated with $value bound.
//
// Errors detected here:
//   - a value that does not fit its type: the strict primitives of §9.1 (values.CoerceV2),
//     scalars without a number or a unit of their type or whose number does not fit the
//     scalar's data type, lists and maps of the wrong kind, entries and keys that do not fit
//     their schemas (tosca.value)
//   - a field of a complex data type that the type does not define, a required one missing
//     (tosca.unknown_property, tosca.missing_property)
//   - a validation clause that evaluates to false (tosca.constraint)

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// maxValueSteps bounds the value work of a 2.0 compilation, in the steps
// spend counts: each value checked against a definition, each YAML node
// evaluated, each value a function result is converted from, and what
// each function call reads, compares or copies (funceval.Cost). A
// template with count evaluates its type's defaults and validation
// clauses again for each representation, and keeps the values: at the
// limit validate takes under 1 s of CPU and about 240 MB. The values
// maxExpandedValues lets templates repeat take one step a YAML node, at
// most as many as it allows (TestValueBudgetAllowsExpansion2); the
// corpora take at most about 13,000 steps.
const maxValueSteps = 4_000_000

// step counts one unit of value work (spend); false once the compile
// stopped.
func (c *compiler) step(n *yamlsrc.Node, path string) bool {
	if c.Stopped() {
		return false
	}
	return c.spend(n, path, 1)
}

// spend counts k steps of 2.0 value work at n (path); false once the
// budget is spent, when the compile stops as a canceled one does and
// reports one error, at n (reportCanceled).
func (c *compiler) spend(n *yamlsrc.Node, path string, k int64) bool {
	if c.Halt.Done {
		return false
	}
	c.steps += int(k)
	if c.steps <= maxValueSteps {
		return true
	}
	c.Spend(core.RangeOf(n), path, c.InSecret > 0, fmt.Sprintf("values take more than %d steps of work to check and evaluate; a template with count evaluates its type's defaults and validation clauses again for each representation", maxValueSteps))
	return false
}

// checkValue checks a value against a definition and returns it
// canonical; a function call is checked and evaluated, its result
// checked when known.
func (c *compiler) checkValue(ev *eval, d *prop, n *yamlsrc.Node, path string) graph.Value {
	if d.secret() {
		defer c.enterSecret(n)()
	}
	return c.checkValueDepth(ev, d.typ, d.entry, d.keyS, d.validation, n, path, 0)
}

func (c *compiler) checkValueDepth(ev *eval, t *typeDef, entry, keyS *prop, validation []*yamlsrc.Node, n *yamlsrc.Node, path string, depth int) graph.Value {
	if depth > core.MaxValueDepth || !c.step(n, path) {
		return nil
	}
	if sensitiveType(t) {
		defer c.enterSecret(n)()
	}
	if _, _, ok := funcCall(n); ok {
		return c.callValue(ev, t, entry, keyS, validation, n, path, depth)
	}
	if n.Kind == yamlsrc.Mapping {
		c.checkMalformed(n, path)
	}
	if t == nil {
		return ev.evalAt(n, path)
	}
	if entry == nil {
		entry = t.entry
	}
	if keyS == nil {
		keyS = t.keyS
	}
	v, ok := c.typedValue(ev, t, entry, keyS, n, path, depth)
	if !ok {
		return nil
	}
	if !c.validate(ev, t, t.validation, v, n, path) || !c.validate(ev, t, validation, v, n, path) {
		return nil
	}
	return v
}

// callValue checks and evaluates a function call written for a value
// of type t (see checkValueDepth); a result known now is checked as a
// written value.
func (c *compiler) callValue(ev *eval, t *typeDef, entry, keyS *prop, validation []*yamlsrc.Node, n *yamlsrc.Node, path string, depth int) graph.Value {
	c.checkExpr(ev.f, n, path, false)
	before := c.SecretReads
	v := ev.evalAt(n, path)
	if t != nil && graph.HasUnknown(v) {
		c.resultFits(n, t, entry, keyS, path)
	}
	if t == nil || v == nil || graph.HasUnknown(v) || dollarText(v) {
		return v
	}
	if c.SecretReads > before {
		// The value read a secret: it is checked as one.
		c.InSecret++
		defer func() { c.InSecret-- }()
	}
	// A value known now fits the definition as a written one must,
	// converted to YAML nodes for it: work in proportion to its size.
	if !c.spend(n, path, funceval.Size(v, maxValueSteps)) {
		return nil
	}
	return c.checkValueDepth(ev, t, entry, keyS, validation, core.NodeOf(v, n.Range), path, depth+1)
}

// typedValue checks a written value against type t (see
// checkValueDepth) and returns it canonical; false when it does not fit,
// which is reported.
func (c *compiler) typedValue(ev *eval, t *typeDef, entry, keyS *prop, n *yamlsrc.Node, path string, depth int) (graph.Value, bool) {
	switch {
	case t.scalar != nil:
		return c.scalarValue(ev, t, n, path)
	case t.base == "list":
		if n.Kind != yamlsrc.Sequence {
			c.badValue(core.RangeOf(n), path, core.CodeValue, core.DescribeValue(n)+" is not a list", "a sensitive value is not a list")
			return nil, false
		}
		out := make([]graph.Value, len(n.Content))
		for i, it := range n.Content {
			out[i] = c.schemaValue(ev, entry, it, path+"["+core.Itoa(int64(i))+"]", depth)
		}
		return out, true
	case t.base == "map":
		return c.mapValue(ev, entry, keyS, n, path, depth)
	case t.base == "range":
		cv, err := values.Coerce(values.Range, n)
		if err != nil {
			c.badValue(core.RangeOf(n), path, core.CodeValue, err.Error(), "a sensitive value is not a range")
			return nil, false
		}
		return cv, true
	case t.base == "":
		v := c.complexValue(ev, t, n, path, depth)
		return v, v != nil
	default:
		cv, err := values.CoerceV2(t.base, n)
		if err != nil {
			c.badValue(core.RangeOf(n), path, core.CodeValue, err.Error(), "a sensitive value is not of type "+t.base)
			return nil, false
		}
		return cv, true
	}
}

// scalarValue checks a value of scalar type t: "<number> <unit>", its
// number of the scalar's data_type.
func (c *compiler) scalarValue(ev *eval, t *typeDef, n *yamlsrc.Node, path string) (graph.Value, bool) {
	s, ok := n.String()
	if !ok || n.Kind != yamlsrc.Scalar || !n.IsString() {
		c.badValue(core.RangeOf(n), path, core.CodeValue, fmt.Sprintf("%s is not a scalar of type %q: a scalar is written \"<number> <unit>\"", core.DescribeValue(n), t.name),
			fmt.Sprintf("a sensitive value is not a scalar of type %q: a scalar is written \"<number> <unit>\"", t.name))
		return nil, false
	}
	num, canon, _, msg := parseScalar(t.scalar, s)
	if msg != "" {
		c.badValue(n.Range, path, core.CodeValue, fmt.Sprintf("%s is not a scalar of type %q: %s (units: %s)", core.DescribeValue(n), t.name, msg, unitList(t.scalar)),
			fmt.Sprintf("a sensitive value is not a scalar of type %q (units: %s)", t.name, unitList(t.scalar)))
		return nil, false
	}
	if dt := t.scalar.dataType; dt != nil {
		var nv graph.Value = num
		if dt.base == "integer" {
			if num != float64(int64(num)) {
				c.badValue(n.Range, path, core.CodeValue, fmt.Sprintf("%s is not a scalar of type %q: its number must be an integer", core.DescribeValue(n), t.name),
					fmt.Sprintf("a sensitive value is not a scalar of type %q: its number must be an integer", t.name))
				return nil, false
			}
			nv = int64(num)
		}
		if !c.validate(ev, dt, dt.validation, nv, n, path) {
			return nil, false
		}
	}
	return formatScalar(t.scalar, canon), true
}

// mapValue checks a map: its keys against keyS, its values against
// entry.
func (c *compiler) mapValue(ev *eval, entry, keyS *prop, n *yamlsrc.Node, path string, depth int) (graph.Value, bool) {
	if n.Kind != yamlsrc.Mapping {
		c.badValue(core.RangeOf(n), path, core.CodeValue, core.DescribeValue(n)+" is not a map", "a sensitive value is not a map")
		return nil, false
	}
	out := make(map[string]graph.Value, len(n.Content)/2)
	for _, p := range n.Pairs() {
		if keyS != nil && keyS.typ != nil {
			if _, _, isCall := funcCall(p.Key); !isCall {
				c.checkValueDepth(ev, keyS.typ, nil, nil, keyS.validation, p.Key, core.JoinPath(path, p.Key.Value), depth+1)
			}
		}
		out[unescape(p.Key.Value)] = c.schemaValue(ev, entry, p.Value, core.JoinPath(path, p.Key.Value), depth)
	}
	return out, true
}

func unitList(s *scalarDef) string {
	var out []string
	for u := range s.units {
		out = append(out, u)
	}
	if len(s.prefixes) > 0 {
		return "prefixes of " + core.Quote(joinSorted(out))
	}
	return joinSorted(out)
}

// schemaValue checks an entry of a list or map against its schema
// (none: any value).
func (c *compiler) schemaValue(ev *eval, s *prop, n *yamlsrc.Node, path string, depth int) graph.Value {
	if s == nil || s.typ == nil {
		return ev.evalAt(n, path)
	}
	return c.checkValueDepth(ev, s.typ, s.entry, s.keyS, s.validation, n, path, depth+1)
}

// complexValue checks the fields of a complex data type's value.
func (c *compiler) complexValue(ev *eval, t *typeDef, n *yamlsrc.Node, path string, depth int) graph.Value {
	if n.Kind != yamlsrc.Mapping {
		c.badValue(core.RangeOf(n), path, core.CodeValue, fmt.Sprintf("%s is not a value of data type %q, which is a map of its properties", core.DescribeValue(n), t.name),
			fmt.Sprintf("a sensitive value is not a value of data type %q, which is a map of its properties", t.name))
		return nil
	}
	out := map[string]graph.Value{}
	for _, p := range n.Pairs() {
		d := t.props[p.Key.Value]
		if d == nil {
			c.Errorf(p.Key.Range, core.JoinPath(path, p.Key.Value), core.CodeUnknownProperty, "data type %q has no property %q", t.name, p.Key.Value)
			continue
		}
		out[p.Key.Value] = c.fieldValue(ev, d, p.Value, core.JoinPath(path, p.Key.Value), depth)
	}
	for _, name := range t.propNames() {
		d := t.props[name]
		if _, ok := n.GetPair(name); ok {
			continue
		}
		if d.sensitive && (d.value != nil || d.def != nil) {
			// A sensitive field's default makes the value a secret too.
			c.SecretReads++
		}
		switch {
		case d.value != nil:
			out[name] = ev.evalAt(d.value, core.JoinPath(path, name))
		case d.def != nil && !d.def.IsNull():
			out[name] = ev.evalAt(d.def, core.JoinPath(path, name))
		case d.required:
			c.Errorf(n.Range, path, core.CodeMissingProperty, "value of data type %q is missing required property %q", t.name, name)
		}
	}
	return out
}

// fieldValue checks the value of field d of a complex data type's value.
func (c *compiler) fieldValue(ev *eval, d *prop, n *yamlsrc.Node, path string, depth int) graph.Value {
	if d.sensitive {
		defer c.enterSecret(n)()
	}
	return c.checkValueDepth(ev, d.typ, d.entry, d.keyS, d.validation, n, path, depth+1)
}

// validate evaluates validation clauses on a value; it reports whether
// they hold (an Unknown result holds: apply time decides).
func (c *compiler) validate(ev *eval, t *typeDef, clauses []*yamlsrc.Node, v graph.Value, n *yamlsrc.Node, path string) bool {
	if len(clauses) == 0 || isUnknown(v) {
		return true
	}
	vev := &eval{c: c, f: ev.f, value: v, hasValue: true, typ: t, node: ev.node, path: path}
	for _, cl := range clauses {
		r := vev.eval(cl, 0)
		switch b, ok := r.(bool); {
		case ok && !b:
			c.badValue(core.RangeOf(n), path, core.CodeConstraint, core.DescribeValue(n)+" does not satisfy the validation clause "+core.DescribeValue(cl),
				"a sensitive value does not satisfy the validation clause "+core.DescribeValue(cl))
			return false
		case !ok && r != nil && !isUnknown(r):
			c.Errorf(core.RangeOf(cl), path, core.CodeConstraint, "the validation clause %s is not a Boolean expression (§9.10)", core.DescribeValue(cl))
			return false
		}
	}
	return true
}

// clause checks a validation clause where it is defined (§9.10: "a
// Boolean expression"): its calls, and that it can be one, which a
// literal other than true or false, or a call of a built-in function
// whose result is never Boolean ($concat, $sum, …), cannot. ok is false
// for such a clause, which is then not evaluated on values again.
func (c *compiler) clause(f *file, v *yamlsrc.Node, path string) bool {
	c.checkExpr(f, v, path, true)
	name, _, isCall := funcCall(v)
	switch {
	case isCall && !nonBoolean(name):
		return true
	case !isCall && v.Kind == yamlsrc.Scalar:
		if _, isBool := v.Bool(); isBool {
			return true
		}
	}
	if isCall {
		c.Errorf(core.RangeOf(v), path, core.CodeConstraint, "the validation clause is a call of $%s, whose result is never a Boolean: a validation clause is a Boolean expression (§9.10)", name)
	} else {
		c.Errorf(core.RangeOf(v), path, core.CodeConstraint, "the validation clause %s is not a Boolean expression (§9.10)", core.DescribeValue(v))
	}
	return false
}

// nonBoolean reports whether a built-in function never returns a
// Boolean; a custom function, the query functions and $value may.
func nonBoolean(name string) bool {
	switch name {
	case "concat", "join", "token", "length", "union", "intersection", "sum", "difference", "product", "quotient",
		"remainder", "round", "floor", "ceil", "node_index", "relationship_index", "available_allocation", "get_artifact":
		return true
	}
	return false
}

// dollarText reports whether a value holds a string starting with $,
// which written again would read as a function call.
func dollarText(v graph.Value) bool {
	switch x := v.(type) {
	case string:
		return strings.HasPrefix(x, "$")
	case []graph.Value:
		return slices.ContainsFunc(x, dollarText)
	case map[string]graph.Value:
		for k, e := range x {
			if strings.HasPrefix(k, "$") || dollarText(e) {
				return true
			}
		}
	}
	return false
}

func joinSorted(s []string) string {
	slices.Sort(s)
	return strings.Join(s, ", ")
}
