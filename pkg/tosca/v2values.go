package tosca

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
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// maxValueSteps2 bounds the value work of a 2.0 compilation, in the steps
// spend2 counts: each value checked against a definition, each YAML node
// evaluated, each value a function result is converted from, and what
// each function call reads, compares or copies (funceval.Cost). A
// template with count evaluates its type's defaults and validation
// clauses again for each representation, and keeps the values: at the
// limit validate takes under 1 s of CPU and about 240 MB. The values
// maxExpandedValues2 lets templates repeat take one step a YAML node, at
// most as many as it allows (TestValueBudgetAllowsExpansion2); the
// corpora take at most about 13,000 steps.
const maxValueSteps2 = 4_000_000

// spend2 counts k steps of 2.0 value work at n (path); false once the
// budget is spent, when the compile stops as a canceled one does and
// reports one error, at n (reportCanceled).
func (c *compiler) spend2(n *yamlsrc.Node, path string, k int64) bool {
	if c.halt.done {
		return false
	}
	c.steps += int(k)
	if c.steps <= maxValueSteps2 {
		return true
	}
	c.halt.done, c.halt.at, c.halt.spent = true, len(c.diags), true
	c.halt.spentAt, c.halt.spentPath, c.halt.spentSecret = rangeOf(n), path, c.inSecret > 0
	return false
}

// checkValue2 checks a value against a definition and returns it
// canonical; a function call is checked and evaluated, its result
// checked when known.
func (c *compiler) checkValue2(ev *eval2, d *prop2, n *yamlsrc.Node, path string) graph.Value {
	if d.secret() {
		defer c.enterSecret(n)()
	}
	return c.checkValueDepth2(ev, d.typ, d.entry, d.keyS, d.validation, n, path, 0)
}

func (c *compiler) checkValueDepth2(ev *eval2, t *typeDef2, entry, keyS *prop2, validation []*yamlsrc.Node, n *yamlsrc.Node, path string, depth int) graph.Value {
	if depth > maxValueDepth || !c.step(n, path) {
		return nil
	}
	if sensitiveType2(t) {
		defer c.enterSecret(n)()
	}
	if _, _, ok := funcCall2(n); ok {
		c.checkExpr2(ev.f, n, path, false)
		before := c.secretReads
		v := ev.evalAt(n, path)
		if t != nil && graph.HasUnknown(v) {
			c.resultFits2(n, t, entry, keyS, path)
		}
		if t == nil || v == nil || graph.HasUnknown(v) || dollarText2(v) {
			return v
		}
		if c.secretReads > before {
			// The value read a secret: it is checked as one.
			c.inSecret++
			defer func() { c.inSecret-- }()
		}
		// A value known now fits the definition as a written one must,
		// converted to YAML nodes for it: work in proportion to its size.
		if !c.spend2(n, path, funceval.Size(v, maxValueSteps2)) {
			return nil
		}
		return c.checkValueDepth2(ev, t, entry, keyS, validation, nodeOf(v, n.Range), path, depth+1)
	}
	if n.Kind == yamlsrc.Mapping {
		c.checkMalformed2(n, path)
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
	var v graph.Value
	switch {
	case t.scalar != nil:
		s, ok := n.String()
		if !ok || n.Kind != yamlsrc.Scalar || !n.IsString() {
			c.badValue2(rangeOf(n), path, CodeValue, fmt.Sprintf("%s is not a scalar of type %q: a scalar is written \"<number> <unit>\"", describeValue(n), t.name),
				fmt.Sprintf("a sensitive value is not a scalar of type %q: a scalar is written \"<number> <unit>\"", t.name))
			return nil
		}
		num, canon, _, msg := parseScalar2(t.scalar, s)
		if msg != "" {
			c.badValue2(n.Range, path, CodeValue, fmt.Sprintf("%s is not a scalar of type %q: %s (units: %s)", describeValue(n), t.name, msg, unitList2(t.scalar)),
				fmt.Sprintf("a sensitive value is not a scalar of type %q (units: %s)", t.name, unitList2(t.scalar)))
			return nil
		}
		if dt := t.scalar.dataType; dt != nil {
			var nv graph.Value = num
			if dt.base == "integer" {
				if num != float64(int64(num)) {
					c.badValue2(n.Range, path, CodeValue, fmt.Sprintf("%s is not a scalar of type %q: its number must be an integer", describeValue(n), t.name),
						fmt.Sprintf("a sensitive value is not a scalar of type %q: its number must be an integer", t.name))
					return nil
				}
				nv = int64(num)
			}
			if !c.validate2(ev, dt, dt.validation, nv, n, path) {
				return nil
			}
		}
		v = formatScalar2(t.scalar, canon)
	case t.base == "list":
		if n.Kind != yamlsrc.Sequence {
			c.badValue2(rangeOf(n), path, CodeValue, describeValue(n)+" is not a list", "a sensitive value is not a list")
			return nil
		}
		out := make([]graph.Value, len(n.Content))
		for i, it := range n.Content {
			out[i] = c.schemaValue2(ev, entry, it, path+"["+itoa(int64(i))+"]", depth)
		}
		v = out
	case t.base == "map":
		if n.Kind != yamlsrc.Mapping {
			c.badValue2(rangeOf(n), path, CodeValue, describeValue(n)+" is not a map", "a sensitive value is not a map")
			return nil
		}
		out := make(map[string]graph.Value, len(n.Content)/2)
		for _, p := range n.Pairs() {
			if keyS != nil && keyS.typ != nil {
				if _, _, isCall := funcCall2(p.Key); !isCall {
					c.checkValueDepth2(ev, keyS.typ, nil, nil, keyS.validation, p.Key, joinPath(path, p.Key.Value), depth+1)
				}
			}
			out[unescape2(p.Key.Value)] = c.schemaValue2(ev, entry, p.Value, joinPath(path, p.Key.Value), depth)
		}
		v = out
	case t.base == "range":
		cv, err := values.Coerce(values.Range, n)
		if err != nil {
			c.badValue2(rangeOf(n), path, CodeValue, err.Error(), "a sensitive value is not a range")
			return nil
		}
		v = cv
	case t.base == "":
		v = c.complexValue2(ev, t, n, path, depth)
		if v == nil {
			return nil
		}
	default:
		cv, err := values.CoerceV2(t.base, n)
		if err != nil {
			c.badValue2(rangeOf(n), path, CodeValue, err.Error(), "a sensitive value is not of type "+t.base)
			return nil
		}
		v = cv
	}
	if !c.validate2(ev, t, t.validation, v, n, path) || !c.validate2(ev, t, validation, v, n, path) {
		return nil
	}
	return v
}

func unitList2(s *scalarDef2) string {
	var out []string
	for u := range s.units {
		out = append(out, u)
	}
	if len(s.prefixes) > 0 {
		return "prefixes of " + quote(joinSorted(out))
	}
	return joinSorted(out)
}

// schemaValue2 checks an entry of a list or map against its schema
// (none: any value).
func (c *compiler) schemaValue2(ev *eval2, s *prop2, n *yamlsrc.Node, path string, depth int) graph.Value {
	if s == nil || s.typ == nil {
		return ev.evalAt(n, path)
	}
	return c.checkValueDepth2(ev, s.typ, s.entry, s.keyS, s.validation, n, path, depth+1)
}

// complexValue2 checks the fields of a complex data type's value.
func (c *compiler) complexValue2(ev *eval2, t *typeDef2, n *yamlsrc.Node, path string, depth int) graph.Value {
	if n.Kind != yamlsrc.Mapping {
		c.badValue2(rangeOf(n), path, CodeValue, fmt.Sprintf("%s is not a value of data type %q, which is a map of its properties", describeValue(n), t.name),
			fmt.Sprintf("a sensitive value is not a value of data type %q, which is a map of its properties", t.name))
		return nil
	}
	out := map[string]graph.Value{}
	for _, p := range n.Pairs() {
		d := t.props[p.Key.Value]
		if d == nil {
			c.errorf(p.Key.Range, joinPath(path, p.Key.Value), CodeUnknownProperty, "data type %q has no property %q", t.name, p.Key.Value)
			continue
		}
		out[p.Key.Value] = c.fieldValue2(ev, d, p.Value, joinPath(path, p.Key.Value), depth)
	}
	for _, name := range slices.Sorted(maps.Keys(t.props)) {
		d := t.props[name]
		if _, ok := n.GetPair(name); ok {
			continue
		}
		if d.sensitive && (d.value != nil || d.def != nil) {
			// A sensitive field's default makes the value a secret too.
			c.secretReads++
		}
		switch {
		case d.value != nil:
			out[name] = ev.evalAt(d.value, joinPath(path, name))
		case d.def != nil && !d.def.IsNull():
			out[name] = ev.evalAt(d.def, joinPath(path, name))
		case d.required:
			c.errorf(n.Range, path, CodeMissingProperty, "value of data type %q is missing required property %q", t.name, name)
		}
	}
	return out
}

// fieldValue2 checks the value of field d of a complex data type's value.
func (c *compiler) fieldValue2(ev *eval2, d *prop2, n *yamlsrc.Node, path string, depth int) graph.Value {
	if d.sensitive {
		defer c.enterSecret(n)()
	}
	return c.checkValueDepth2(ev, d.typ, d.entry, d.keyS, d.validation, n, path, depth+1)
}

// validate2 evaluates validation clauses on a value; it reports whether
// they hold (an Unknown result holds: apply time decides).
func (c *compiler) validate2(ev *eval2, t *typeDef2, clauses []*yamlsrc.Node, v graph.Value, n *yamlsrc.Node, path string) bool {
	if len(clauses) == 0 || isUnknown2(v) {
		return true
	}
	vev := &eval2{c: c, f: ev.f, value: v, hasValue: true, typ: t, node: ev.node, path: path}
	for _, cl := range clauses {
		r := vev.eval(cl, 0)
		switch b, ok := r.(bool); {
		case ok && !b:
			c.badValue2(rangeOf(n), path, CodeConstraint, describeValue(n)+" does not satisfy the validation clause "+describeValue(cl),
				"a sensitive value does not satisfy the validation clause "+describeValue(cl))
			return false
		case !ok && r != nil && !isUnknown2(r):
			c.errorf(rangeOf(cl), path, CodeConstraint, "the validation clause %s is not a Boolean expression (§9.10)", describeValue(cl))
			return false
		}
	}
	return true
}

// clause2 checks a validation clause where it is defined (§9.10: "a
// Boolean expression"): its calls, and that it can be one, which a
// literal other than true or false, or a call of a built-in function
// whose result is never Boolean ($concat, $sum, …), cannot. ok is false
// for such a clause, which is then not evaluated on values again.
func (c *compiler) clause2(f *file, v *yamlsrc.Node, path string) bool {
	c.checkExpr2(f, v, path, true)
	name, _, isCall := funcCall2(v)
	switch {
	case isCall && !nonBoolean2(name):
		return true
	case !isCall && v.Kind == yamlsrc.Scalar:
		if _, isBool := v.Bool(); isBool {
			return true
		}
	}
	if isCall {
		c.errorf(rangeOf(v), path, CodeConstraint, "the validation clause is a call of $%s, whose result is never a Boolean: a validation clause is a Boolean expression (§9.10)", name)
	} else {
		c.errorf(rangeOf(v), path, CodeConstraint, "the validation clause %s is not a Boolean expression (§9.10)", describeValue(v))
	}
	return false
}

// nonBoolean2 reports whether a built-in function never returns a
// Boolean; a custom function, the query functions and $value may.
func nonBoolean2(name string) bool {
	switch name {
	case "concat", "join", "token", "length", "union", "intersection", "sum", "difference", "product", "quotient",
		"remainder", "round", "floor", "ceil", "node_index", "relationship_index", "available_allocation", "get_artifact":
		return true
	}
	return false
}

// dollarText2 reports whether a value holds a string starting with $,
// which written again would read as a function call.
func dollarText2(v graph.Value) bool {
	switch x := v.(type) {
	case string:
		return strings.HasPrefix(x, "$")
	case []graph.Value:
		return slices.ContainsFunc(x, dollarText2)
	case map[string]graph.Value:
		for k, e := range x {
			if strings.HasPrefix(k, "$") || dollarText2(e) {
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
