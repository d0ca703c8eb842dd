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

// A definition's default (or fixed value) is checked again for every
// template that leaves it out: 10,000 templates of a type check the same
// text against the same type 10,000 times. A default that is a literal
// scalar (no call), of a definition that is not a secret, whose type's
// and own validation clauses are compiled ones (cclause: they read only
// $value), has the same value, in the same steps of value work, for every
// template of every type that inherits the definition; the first check
// that reports nothing and reads no secret is kept, and the others count
// its steps and take its value (graph values that are scalars, which
// nothing changes).

// defaultKey identifies a default checked: the value written, the
// definition, and the file whose functions its clauses see.
type defaultKey struct {
	n *yamlsrc.Node
	d *prop
	f *file
}

// knownDefault returns the value of default n of d, checked before, and
// counts its steps; ok is false when it must be checked (checkDefault).
func (c *compiler) knownDefault(f *file, d *prop, n *yamlsrc.Node) (graph.Value, bool) {
	k, ok := c.state.defaults[defaultKey{n, d, f}]
	return c.reuse(k, ok)
}

// checkDefault checks default n of d at path (checkValue), keeping its
// value for knownDefault where it is the same for every template.
func (c *compiler) checkDefault(ev *eval, d *prop, n *yamlsrc.Node, path string) graph.Value {
	m := c.mark()
	v := c.checkValue(ev, d, n, path)
	k, ok := c.keep(m, v)
	if !ok || !c.constDefault(ev.f, d, n) {
		return v
	}
	switch v.(type) {
	case string, int64, float64, bool:
		if c.state.defaults == nil {
			c.state.defaults = map[defaultKey]checkedValue{}
		}
		c.state.defaults[defaultKey{n, d, ev.f}] = k
	}
	return v
}

// checkedValue is a value checked, kept for the checks that repeat the
// check (knownDefault, callValue), and the steps of value work it
// counted.
type checkedValue struct {
	v     graph.Value
	steps int
}

// reuse returns the value of check k (found when ok) and counts its
// steps, as checking again would; ok is false when the check must be
// made: none was kept, the compile stops, or its steps would pass the
// budget of value work, whose diagnostic only checking gives.
func (c *compiler) reuse(k checkedValue, ok bool) (graph.Value, bool) {
	if !ok || c.Stopped() || c.steps+k.steps > maxValueSteps {
		return nil, false
	}
	c.steps += k.steps
	return k.v, true
}

// checkMark is where the compile was when a check began (mark).
type checkMark struct{ steps, diags, reads int }

func (c *compiler) mark() checkMark {
	return checkMark{c.steps, len(c.Diags), c.SecretReads}
}

// keep returns the check begun at m that gave v for reuse; ok is false
// when it cannot be kept: it halted the compile, reported something or
// read a secret, all of which checking again must do again.
func (c *compiler) keep(m checkMark, v graph.Value) (checkedValue, bool) {
	if c.Halt.Done || len(c.Diags) != m.diags || c.SecretReads != m.reads {
		return checkedValue{}, false
	}
	return checkedValue{v: v, steps: c.steps - m.steps}, true
}

// constDefault reports whether default n of d has the same value for
// every template (see knownDefault).
func (c *compiler) constDefault(f *file, d *prop, n *yamlsrc.Node) bool {
	if n.Kind != yamlsrc.Scalar || d.typ == nil || d.secret() {
		return false
	}
	if _, _, isCall := funcCall(n); isCall {
		return false
	}
	return c.compiledClauses(f, d.typ, d.validation)
}

// compiledClauses reports whether the validation clauses a value of
// type t is checked against — t's, its scalar data type's and
// validation — are all compiled ones (cclause), which read only $value.
func (c *compiler) compiledClauses(f *file, t *typeDef, validation []*yamlsrc.Node) bool {
	compiled := func(clauses []*yamlsrc.Node) bool {
		return !slices.ContainsFunc(clauses, func(cl *yamlsrc.Node) bool { return c.cclause(f, cl) == nil })
	}
	if t.scalar != nil && t.scalar.dataType != nil && !compiled(t.scalar.dataType.validation) {
		return false
	}
	return compiled(t.validation) && compiled(validation)
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
	k, memo := c.resultKey(ev.f, t, entry, keyS, validation, v, depth)
	if memo {
		r, found := c.state.results[k]
		if out, ok := c.reuse(r, found); ok {
			return out
		}
	}
	m := c.mark()
	out := c.checkValueDepth(ev, t, entry, keyS, validation, core.NodeOf(v, n.Range), path, depth+1)
	if !memo || out == nil {
		return out
	}
	if r, ok := c.keep(m, out); ok {
		if c.state.results == nil {
			c.state.results = map[resultKey]checkedValue{}
		}
		c.state.results[k] = r
	}
	return out
}

// A function call's result known now is checked as a written value for
// every template that makes the call: 10,000 templates whose property
// is {$get_input: mode} check the input's one value against the same
// definition 10,000 times. A result that is a scalar, checked outside a
// secret against a type that is not sensitive and validation clauses
// that are all compiled ones (cclause: they read only $value), has the
// same value in the same steps of value work wherever it is checked; the
// first check that reports nothing and reads no secret is kept, and the
// others count its steps and take its value, as knownDefault does for
// defaults.

// resultKey identifies a call's result checked (see above): the type and
// schemas checked against, the first clauses of the validation (a
// definition's list; a longer one is not kept), the file whose
// functions the clauses see, the depth and the value.
type resultKey struct {
	t           *typeDef
	entry, keyS *prop
	clauses     [4]*yamlsrc.Node
	nclauses    int
	f           *file
	depth       int
	v           graph.Value
}

// resultKey returns the key of call result v checked at depth against
// t, entry, keyS and validation, and whether it may be kept.
func (c *compiler) resultKey(f *file, t *typeDef, entry, keyS *prop, validation []*yamlsrc.Node, v graph.Value, depth int) (resultKey, bool) {
	switch v.(type) {
	case string, int64, bool:
	default:
		return resultKey{}, false
	}
	if len(validation) > 4 || c.InSecret > 0 || sensitiveType(t) {
		return resultKey{}, false
	}
	if !c.compiledClauses(f, t, validation) {
		return resultKey{}, false
	}
	k := resultKey{t: t, entry: entry, keyS: keyS, nclauses: len(validation), f: f, depth: depth, v: v}
	copy(k.clauses[:], validation)
	return k, true
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
	var vev *eval
	for _, cl := range clauses {
		r, ok := c.quickClause(ev.f, cl, t, v)
		if !ok {
			if vev == nil {
				vev = &eval{c: c, f: ev.f, value: v, hasValue: true, typ: t, node: ev.node, path: path}
			}
			r = vev.eval(cl, 0)
		}
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

// A validation clause is evaluated for every value of its definition:
// 10,000 templates of a type, or a template with count, evaluate the
// same clause again and again, and eval would read its literals, look
// its functions up and build their argument lists each time. A clause is
// therefore compiled once, for the file whose names it sees (cclause),
// into what evaluating it needs, and quickClause evaluates the
// compiled form: the same result in the same steps of value work, with
// nothing allocated. It covers clauses of $value, literals and the pure
// built-in functions (comparisons, Boolean, string, list and arithmetic
// ones, which internal/funceval evaluates); for anything else — a query,
// an input, an index, $matches, a custom function, an argument only
// apply time knows, a function that fails, a clause nested past
// core.MaxValueDepth, the budget of value work running out — eval
// evaluates the clause, as before, and reports what it reports.

// cexpr is a compiled expression of a validation clause: a literal (with
// the steps eval takes to read it), $value, or a call of a pure built-in.
type cexpr struct {
	// lit is the literal's value, read once: the functions that take it
	// do not change their arguments.
	lit   graph.Value
	isLit bool
	// steps is what eval counts for the expression's own nodes: every
	// node of a literal, the call's node for a call.
	steps int64
	// fn names the function called ("value" for $value); args are its
	// arguments.
	fn   string
	args []*cexpr
}

// clauseKey identifies a compiled clause: the clause and the file whose
// functions its names resolve to.
type clauseKey struct {
	n *yamlsrc.Node
	f *file
}

// cclause returns clause n compiled for file f, nil when eval must
// evaluate it; it is compiled once.
func (c *compiler) cclause(f *file, n *yamlsrc.Node) *cexpr {
	k := clauseKey{n, f}
	if x, ok := c.state.clauses[k]; ok {
		return x
	}
	x := c.compileExpr(f, n, 0)
	if c.state.clauses == nil {
		c.state.clauses = map[clauseKey]*cexpr{}
	}
	c.state.clauses[k] = x
	return x
}

// compileExpr compiles n, met at depth (see eval), or returns nil.
func (c *compiler) compileExpr(f *file, n *yamlsrc.Node, depth int) *cexpr {
	if n == nil || depth > core.MaxValueDepth {
		return nil
	}
	name, args, isCall := funcCall(n)
	if !isCall {
		v, steps, ok := literal(n, depth)
		if !ok {
			return nil
		}
		return &cexpr{lit: v, isLit: true, steps: steps}
	}
	x := &cexpr{fn: name, steps: 1}
	switch name {
	case "value":
	case "get_input", "node_index", "relationship_index", "matches":
		// What they read is not the clause's alone (matches: its pattern
		// may warn).
		return nil
	default:
		lo, hi, ok := builtinArity(name)
		if got := len(argList(args)); !ok || got < lo || (hi >= 0 && got > hi) || graphQuery(name) || c.findFunc(f, name) != nil {
			return nil
		}
	}
	for _, a := range argList(args) {
		ax := c.compileExpr(f, a, depth+1)
		if ax == nil {
			return nil
		}
		x.args = append(x.args, ax)
	}
	return x
}

// literal reads a value without function calls as eval does (maps and
// lists with their $$ escapes undone), with the steps eval takes, one a
// node; ok is false when it holds a call or is nested too deep.
func literal(n *yamlsrc.Node, depth int) (graph.Value, int64, bool) {
	if n == nil || depth > core.MaxValueDepth {
		return nil, 0, false
	}
	if _, _, isCall := funcCall(n); isCall {
		return nil, 0, false
	}
	switch n.Kind {
	case yamlsrc.Mapping:
		m := make(map[string]graph.Value, len(n.Content)/2)
		steps := int64(1)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, k, ok := literal(n.Content[i+1], depth+1)
			if !ok {
				return nil, 0, false
			}
			m[unescape(n.Content[i].Value)] = v
			steps += k
		}
		return m, steps, true
	case yamlsrc.Sequence:
		s := make([]graph.Value, len(n.Content))
		steps := int64(1)
		for i, it := range n.Content {
			v, k, ok := literal(it, depth+1)
			if !ok {
				return nil, 0, false
			}
			s[i] = v
			steps += k
		}
		return s, steps, true
	}
	v := n.Interface()
	if s, ok := v.(string); ok {
		return unescape(s), 1, true
	}
	return v, 1, true
}

// quickClause evaluates validation clause cl of a value v of type t with
// its compiled form; ok is false when eval must evaluate it (see
// cclause), which then does all it did, the steps included.
func (c *compiler) quickClause(f *file, cl *yamlsrc.Node, t *typeDef, v graph.Value) (graph.Value, bool) {
	x := c.cclause(f, cl)
	if x == nil || c.Stopped() {
		return nil, false
	}
	var ord funceval.Ordering
	if t != nil {
		ord = t
	}
	var steps int64
	r, ok := c.runExpr(x, v, ord, &steps)
	if !ok || int64(c.steps)+steps > maxValueSteps {
		return nil, false
	}
	c.steps += int(steps)
	return r, true
}

// runExpr evaluates x with $value bound to v, adding the steps of value
// work eval would count to *steps; ok is false where eval would do more
// than compute a value (see cclause). The arguments of calls are kept on
// a stack of the compile's, so that evaluating allocates nothing.
func (c *compiler) runExpr(x *cexpr, v graph.Value, ord funceval.Ordering, steps *int64) (graph.Value, bool) {
	*steps += x.steps
	if x.isLit {
		return x.lit, true
	}
	base := len(c.state.args)
	defer func() { c.state.args = c.state.args[:base] }()
	for _, a := range x.args {
		r, ok := c.runExpr(a, v, ord, steps)
		if !ok {
			return nil, false
		}
		c.state.args = append(c.state.args, r)
	}
	vals := c.state.args[base:]
	if x.fn == "value" {
		return walkValue(v, vals), true
	}
	if slices.ContainsFunc(vals, graph.HasUnknown) {
		return nil, false
	}
	*steps += funceval.Cost(x.fn, vals, maxValueSteps)
	r, err := funceval.Eval(x.fn, vals, ord)
	if err != nil {
		return nil, false
	}
	return r, true
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
