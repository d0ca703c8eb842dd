package values

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Constraint operators of TOSCA Simple Profile 1.0–1.3.
const (
	OpEqual          = "equal"
	OpGreaterThan    = "greater_than"
	OpGreaterOrEqual = "greater_or_equal"
	OpLessThan       = "less_than"
	OpLessOrEqual    = "less_or_equal"
	OpInRange        = "in_range"
	OpValidValues    = "valid_values"
	OpLength         = "length"
	OpMinLength      = "min_length"
	OpMaxLength      = "max_length"
	OpPattern        = "pattern"
	OpSchema         = "schema"
)

// Diagnostic codes of ParseConstraint.
const (
	// CodeBadConstraint: the clause is not a map with one operator, or its
	// argument has the wrong shape (in_range needs two bounds, …).
	CodeBadConstraint = "values.bad_constraint"
	// CodeUnknownOperator: the operator is not one of TOSCA's.
	CodeUnknownOperator = "values.unknown_operator"
	// CodeNotApplicable: the operator does not apply to the property's
	// type (pattern on an integer, greater_than on a boolean, …).
	CodeNotApplicable = "values.constraint_not_applicable"
	// CodeBadArgument: an argument is not a value of the property's type.
	CodeBadArgument = "values.bad_argument"
	// CodeBadPattern: the pattern is not a valid regular expression in any
	// dialect (an unbalanced parenthesis or bracket; see CompilePattern).
	CodeBadPattern = "values.bad_pattern"
	// CodeUncheckedPattern (warning): the pattern uses a construct Go's RE2
	// lacks (lookaround, backreferences…); values are not checked against
	// it (see CompilePattern).
	CodeUncheckedPattern = "values.unchecked_pattern"
	// CodeUnitlessScalar (warning): a bare number where a scalar unit is
	// expected, read in the type's base unit (Puccini's node filters do this).
	CodeUnitlessScalar = "values.unitless_scalar"
)

// Constraint is one parsed constraint clause, ready to check values. It is
// immutable after ParseConstraint and safe for concurrent use.
type Constraint struct {
	// Op is the operator, one of the Op constants.
	Op string
	// Type is the canonical primitive type the arguments were coerced to,
	// or "" when the property's type is not primitive (list, map, a complex
	// type): arguments are then plain values compared with graph.Equal.
	Type string
	// Args are the canonical arguments: one value for the comparisons,
	// equal, length, min_length, max_length (int64), pattern and schema
	// (string); the two bounds of in_range (either may be "UNBOUNDED"); the
	// listed values of valid_values.
	Args []graph.Value
	// Range is where the clause is written.
	Range diag.Range

	written string         // the argument as written, for String
	keys    []key          // order keys of Args, for ordered types
	re      *regexp.Regexp // pattern, compiled once; nil when RE2 cannot (unchecked)
	dynamic bool           // the type is unknown: values decide (see ParseConstraint)
	parsed  bool           // made by ParseConstraint: Args have the shapes holds relies on
}

// ParseConstraint reads one constraint clause — a map with one key, the
// operator, and its argument — for a property of type typ. For a primitive
// type (IsPrimitive) the arguments are coerced to it; otherwise they are
// kept as plain values. in_range takes a list of two bounds, valid_values a
// list, length/min_length/max_length a non-negative integer, pattern a
// valid regular expression and schema a string.
//
// An empty typ means the type is unknown (a node filter read before the
// property's type is known): every operator is accepted, arguments are
// plain values, and Check compares by what the values hold — numbers
// numerically, strings that are scalar units of one kind by magnitude,
// timestamps by instant, versions by components, other strings lexically.
//
// The constraint is nil when the diagnostics hold an error. Diagnostics
// carry positions but no Path, which the caller knows.
func ParseConstraint(n *yamlsrc.Node, typ string) (*Constraint, diag.Diagnostics) {
	var diags diag.Diagnostics
	if n == nil || n.Kind != yamlsrc.Mapping || len(n.Content) != 2 {
		return nil, badConstraintShape(n)
	}
	opNode, arg := n.Content[0], n.Content[1]
	op, _ := opNode.String()
	if opNode.Kind != yamlsrc.Scalar || !isOperator(op) {
		return nil, diags.Errorf(opNode.Range, "", CodeUnknownOperator, "unknown constraint operator %s; expected one of %s", display(opNode), strings.Join(operators(), ", "))
	}
	t := ""
	if IsPrimitive(typ) {
		t = Canonical(typ)
	}
	c := &Constraint{Op: op, Type: t, Range: n.Range, written: writtenYAML(arg), dynamic: typ == ""}
	if msg := applicable(op, t); msg != "" && !c.dynamic {
		return nil, diags.Errorf(opNode.Range, "", CodeNotApplicable, "the %s constraint does not apply to %s", op, msg)
	}
	diags, ok := c.parseArgs(arg, diags)
	if !ok || diags.HasErrors() {
		return nil, diags
	}
	if diags, ok = c.orderArgs(arg, diags); !ok {
		return nil, diags
	}
	c.parsed = true
	return c, diags
}

// badConstraintShape is the error for a clause that is not a map with one
// operator.
func badConstraintShape(n *yamlsrc.Node) diag.Diagnostics {
	var diags diag.Diagnostics
	r := diag.Range{}
	if n != nil {
		r = n.Range
	}
	found := "nothing"
	if n != nil {
		found = describe(n)
		if n.Kind == yamlsrc.Mapping {
			found = fmt.Sprintf("a map with %d entries", len(n.Content)/2)
		}
	}
	return diags.Errorf(r, "", CodeBadConstraint, "a constraint is a map with one operator, such as {greater_than: 0}; found %s", found)
}

// parseArgs reads the operator's argument arg into c.Args, appending to
// diags; ok is false when the argument's shape is wrong (diags then holds
// the error).
func (c *Constraint) parseArgs(arg *yamlsrc.Node, diags diag.Diagnostics) (_ diag.Diagnostics, ok bool) {
	op := c.Op
	switch op {
	case OpEqual, OpGreaterThan, OpGreaterOrEqual, OpLessThan, OpLessOrEqual:
		v, ds := c.argument(arg, false)
		diags = diags.Extend(ds)
		c.Args = []graph.Value{v}
	case OpInRange:
		items := arg.Items()
		if arg.Kind != yamlsrc.Sequence || len(items) != 2 {
			return diags.Errorf(arg.Range, "", CodeBadConstraint, "in_range expects a list of two bounds [lower, upper]; found %s", describe(arg)), false
		}
		for _, it := range items {
			v, ds := c.argument(it, true)
			diags = diags.Extend(ds)
			c.Args = append(c.Args, v)
		}
	case OpValidValues:
		if arg.Kind != yamlsrc.Sequence {
			return diags.Errorf(arg.Range, "", CodeBadConstraint, "valid_values expects a list; found %s", describe(arg)), false
		}
		for _, it := range arg.Items() {
			v, ds := c.argument(it, false)
			diags = diags.Extend(ds)
			c.Args = append(c.Args, v)
		}
	case OpLength, OpMinLength, OpMaxLength:
		i, ok := arg.Int()
		if !ok || i < 0 {
			return diags.Errorf(arg.Range, "", CodeBadConstraint, "%s expects a non-negative integer; found %s", op, describe(arg)), false
		}
		c.Args = []graph.Value{i}
	case OpPattern:
		return c.parsePattern(arg, diags)
	case OpSchema:
		if !arg.IsString() {
			return diags.Errorf(arg.Range, "", CodeBadConstraint, "schema expects a schema definition as a string; found %s", describe(arg)), false
		}
		c.Args = []graph.Value{arg.Value}
	}
	return diags, true
}

// parsePattern reads the argument of pattern: a regular expression,
// compiled once when RE2 can.
func (c *Constraint) parsePattern(arg *yamlsrc.Node, diags diag.Diagnostics) (_ diag.Diagnostics, ok bool) {
	if !arg.IsString() {
		return diags.Errorf(arg.Range, "", CodeBadConstraint, "pattern expects a regular expression as a string; found %s", describe(arg)), false
	}
	re, problem := CompilePattern(arg.Value)
	switch {
	case problem != nil && problem.Invalid:
		return diags.Errorf(arg.Range, "", CodeBadPattern, "pattern %s is not a valid regular expression in any dialect: %s", quote(arg.Value), problem.Reason), false
	case problem != nil:
		diags = diags.Warnf(arg.Range, "", CodeUncheckedPattern, "pattern %s is not checked: %s, and TOSCA names no dialect, so values are not checked against it", quote(arg.Value), problem.Reason)
	}
	c.re = re
	c.Args = []graph.Value{arg.Value}
	return diags, true
}

// orderArgs computes the order keys of the arguments of an ordered type
// and checks in_range's bounds are in order; ok is false on an error.
func (c *Constraint) orderArgs(arg *yamlsrc.Node, diags diag.Diagnostics) (_ diag.Diagnostics, ok bool) {
	op := c.Op
	if kt := c.argType(); isOrdered(kt) && comparesValues(op) {
		c.keys = make([]key, len(c.Args))
		for i, a := range c.Args {
			if a == Unbounded && op == OpInRange {
				continue
			}
			k, err := orderKey(kt, a)
			if err != nil { // Coerce produced the argument: its key exists.
				return diags.Errorf(arg.Range, "", CodeBadArgument, "%v", err), false
			}
			c.keys[i] = k
		}
	}
	if op == OpInRange && c.Args[0] != Unbounded && c.Args[1] != Unbounded {
		if order, err := c.compareArg(c.Args[0], key{}, 1); err == nil && order > 0 {
			return diags.Errorf(arg.Range, "", CodeBadConstraint, "in_range %s: the lower bound is greater than the upper bound", c.written), false
		}
	}
	return diags, true
}

// argument coerces one argument node to the constraint's type; for a
// scalar-unit type a bare number is read in the base unit, with a warning.
func (c *Constraint) argument(n *yamlsrc.Node, bound bool) (graph.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	if bound && n.IsString() && n.Value == Unbounded && (isOrdered(c.argType()) || c.dynamic) {
		return Unbounded, nil
	}
	if c.Type == "" {
		v, err := graph.Canonicalize(n.Interface())
		if err != nil {
			return nil, diags.Errorf(n.Range, "", CodeBadArgument, "the %s argument %s cannot be used: %v", c.Op, display(n), err)
		}
		return v, nil
	}
	if k, ok := scalarKinds[c.Type]; ok && !n.Quoted && (n.Tag == yamlsrc.TagInt || n.Tag == yamlsrc.TagFloat) && n.Kind == yamlsrc.Scalar {
		sv, err := k.parse(n.Value + " " + k.base)
		if err != nil {
			return nil, diags.Errorf(n.Range, "", CodeBadArgument, "the %s argument is not valid: %v", c.Op, err)
		}
		diags = diags.Warnf(n.Range, "", CodeUnitlessScalar, "%s has no unit; it is read as %s", quote(n.Value), sv.canonical())
		return sv.canonical(), diags
	}
	v, err := Coerce(c.argType(), n)
	if err != nil {
		return nil, diags.Errorf(n.Range, "", CodeBadArgument, "the %s argument is not valid: %v", c.Op, err)
	}
	return v, nil
}

// applicable returns why op cannot constrain values of the canonical type
// t ("" when it can). t is "" for a non-primitive type.
func applicable(op, t string) string {
	switch op {
	case OpGreaterThan, OpGreaterOrEqual, OpLessThan, OpLessOrEqual, OpInRange:
		if !isOrdered(t) && !(op == OpInRange && t == Range) {
			return typeName(t) + ", whose values have no order"
		}
	case OpLength, OpMinLength, OpMaxLength:
		if t != "" && t != String {
			return typeName(t) + "; it applies to strings, lists and maps"
		}
	case OpPattern:
		if t != String {
			return typeName(t) + "; it applies to strings"
		}
	}
	return ""
}

// comparesValues reports whether op compares the value with its
// arguments (rather than measuring or matching it).
func comparesValues(op string) bool {
	switch op {
	case OpEqual, OpGreaterThan, OpGreaterOrEqual, OpLessThan, OpLessOrEqual, OpInRange, OpValidValues:
		return true
	}
	return false
}

func typeName(t string) string {
	if t == "" {
		return "a list, map or complex type"
	}
	return "type " + t
}

func operators() []string {
	return []string{OpEqual, OpGreaterThan, OpGreaterOrEqual, OpLessThan, OpLessOrEqual, OpInRange,
		OpValidValues, OpLength, OpMinLength, OpMaxLength, OpPattern, OpSchema}
}

func isOperator(op string) bool {
	for _, o := range operators() {
		if o == op {
			return true
		}
	}
	return false
}

// describe names a node for a shape error: its kind and, for a scalar,
// its text.
func describe(n *yamlsrc.Node) string {
	if n.Kind == yamlsrc.Scalar && !n.IsNull() {
		return n.Describe() + " " + display(n)
	}
	return n.Describe()
}

// Check tests a canonical value against the constraint. A value that is
// or holds an Unknown passes: it is checked when known. The error names the
// value and the clause, as in `the value 0 does not satisfy "in_range: [1,
// 65535]"`.
func (c *Constraint) Check(v graph.Value) error {
	return c.check(v, false)
}

// CheckSecret is Check for a sensitive value: the error names the clause
// but neither the value nor anything measured of it (its length), as in
// `the value does not satisfy "min_length: 8"`.
func (c *Constraint) CheckSecret(v graph.Value) error {
	return c.check(v, true)
}

func (c *Constraint) check(v graph.Value, secret bool) error {
	if c == nil || !c.parsed {
		return fmt.Errorf("the constraint was not made by ParseConstraint")
	}
	if graph.HasUnknown(v) {
		return nil
	}
	ok, why, err := c.holds(v)
	switch {
	case err != nil && secret:
		return fmt.Errorf("the value cannot be checked against \"%s\"", c.String())
	case err != nil:
		return fmt.Errorf("the value %s cannot be checked against \"%s\": %w", shown(v), c.String(), err)
	case !ok && secret:
		return fmt.Errorf("the value does not satisfy \"%s\"", c.String())
	case !ok:
		return fmt.Errorf("the value %s%s does not satisfy \"%s\"", shown(v), why, c.String())
	}
	return nil
}

func (c *Constraint) holds(v graph.Value) (ok bool, why string, err error) {
	switch c.Op {
	case OpEqual:
		eq, err := c.equal(v, 0)
		return eq, "", err
	case OpValidValues:
		for i := range c.Args {
			eq, err := c.equal(v, i)
			if err != nil || eq {
				return eq, "", err
			}
		}
		return false, "", nil
	case OpGreaterThan, OpGreaterOrEqual, OpLessThan, OpLessOrEqual, OpInRange:
		if c.Type == Range {
			return c.rangeWithin(v)
		}
		var k key
		var err error
		if !c.dynamic {
			if k, err = orderKey(c.Type, v); err != nil {
				return false, "", err
			}
		}
		if c.Op == OpInRange {
			for i, sign := range [2]int{1, -1} {
				if c.Args[i] == Unbounded {
					continue
				}
				order, err := c.compareArg(v, k, i)
				if err != nil || order*sign < 0 {
					return false, "", err
				}
			}
			return true, "", nil
		}
		order, err := c.compareArg(v, k, 0)
		if err != nil {
			return false, "", err
		}
		switch c.Op {
		case OpGreaterThan:
			return order > 0, "", nil
		case OpGreaterOrEqual:
			return order >= 0, "", nil
		case OpLessThan:
			return order < 0, "", nil
		}
		return order <= 0, "", nil
	case OpLength, OpMinLength, OpMaxLength:
		n, err := length(v)
		if err != nil {
			return false, "", err
		}
		want := c.Args[0].(int64)
		why := fmt.Sprintf(" (length %d)", n)
		switch c.Op {
		case OpLength:
			return n == want, why, nil
		case OpMinLength:
			return n >= want, why, nil
		}
		return n <= want, why, nil
	case OpPattern:
		s, isStr := v.(string)
		if !isStr {
			return false, "", fmt.Errorf("pattern applies to strings")
		}
		if c.re == nil {
			return true, "", nil
		}
		return c.re.MatchString(s), "", nil
	}
	// schema: recorded, not enforced (see the package documentation).
	return true, "", nil
}

// equal compares v with argument i: semantically for ordered types (1 GB
// equals 1000 MB), structurally otherwise.
func (c *Constraint) equal(v graph.Value, i int) (bool, error) {
	switch {
	case c.keys != nil:
		k, err := orderKey(c.Type, v)
		if err != nil {
			return false, err
		}
		return k.compare(c.keys[i]) == 0, nil
	case c.dynamic:
		return dynamicEqual(v, c.Args[i]), nil
	}
	return graph.Equal(v, c.Args[i]), nil
}

// argType is the type of the arguments: the property's type, except that
// the bounds of in_range on a range are integers.
func (c *Constraint) argType() string {
	if c.Type == Range && c.Op == OpInRange {
		return Integer
	}
	return c.Type
}

// rangeWithin checks in_range on a range value: both of its bounds must lie
// within the constraint's (an UNBOUNDED upper bound only within an
// UNBOUNDED one).
func (c *Constraint) rangeWithin(v graph.Value) (bool, string, error) {
	r, ok := v.([]graph.Value)
	if !ok || len(r) != 2 {
		return false, "", fmt.Errorf("%s is not a valid range", shown(v))
	}
	lo, okLo := r[0].(int64)
	hi, okHi := r[1].(int64)
	if !okLo || !okHi && r[1] != Unbounded {
		return false, "", fmt.Errorf("%s is not a valid range", shown(v))
	}
	if c.Args[0] != Unbounded && lo < c.Args[0].(int64) {
		return false, "", nil
	}
	switch {
	case c.Args[1] == Unbounded:
		return true, "", nil
	case r[1] == Unbounded:
		return false, "", nil
	}
	return hi <= c.Args[1].(int64), "", nil
}

// compareArg orders v (whose key k is set unless the constraint is
// dynamic) against argument i.
func (c *Constraint) compareArg(v graph.Value, k key, i int) (int, error) {
	if c.dynamic {
		return dynamicCompare(v, c.Args[i])
	}
	if k.kind == 0 {
		var err error
		if k, err = orderKey(c.argType(), v); err != nil {
			return 0, err
		}
	}
	return k.compare(c.keys[i]), nil
}

// length counts runes of a string, items of a list, entries of a map.
func length(v graph.Value) (int64, error) {
	if n, ok := funceval.Length(v); ok {
		return n, nil
	}
	return 0, fmt.Errorf("length applies to strings, lists and maps")
}

// shown renders a checked value for a message.
func shown(v graph.Value) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	r := graph.Render(v)
	if utf8.RuneCountInString(r) > maxShown {
		r = string([]rune(r)[:maxShown]) + "…"
	}
	return r
}

// String renders the clause as written, such as "in_range: [1, 65535]".
func (c *Constraint) String() string {
	if c == nil {
		return ""
	}
	if !c.parsed {
		return c.Op + ": " + graph.Render(c.Args)
	}
	return c.Op + ": " + c.written
}
