package tosca

// The built-in functions of TOSCA 2.0 evaluated at compile time (§10.2):
// boolean, comparison, string, list, map, set and arithmetic functions,
// $value, $get_input, $node_index and $relationship_index; the graph
// queries are in v2path.go. A custom function is a graph.Unknown for
// apply time (customCall2); so is any call with an argument that is
// Unknown.

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// call evaluates one call with its evaluated arguments.
func (ev *eval2) call(n *yamlsrc.Node, name string, vals []graph.Value) graph.Value {
	switch name {
	case "value":
		if !ev.hasValue {
			return unknown2("value", vals)
		}
		return ev.walkValue(ev.value, vals)
	case "get_input":
		return ev.getInput(n, vals)
	case "node_index":
		if ev.node != nil && ev.node.index != nil {
			return ev.node.index
		}
		return unknown2(name, vals)
	case "relationship_index":
		return ev.relationshipIndex(n)
	}
	if d := ev.c.findFunc2(ev.f, name); d != nil {
		// A custom function has no value here, only a signature.
		if len(d.sigs) == 0 {
			return ev.customCall2(name, nil, vals)
		}
		s := ev.matchSig2(n, name, d, vals)
		if s == nil {
			return nil
		}
		return ev.customCall2(name, s, vals)
	}
	for _, v := range vals {
		if isUnknown2(v) {
			return unknown2(name, vals)
		}
	}
	// A call the static check rejects for its number of arguments has no
	// value here.
	lo, hi, ok := builtinArity2(name)
	if !ok || len(vals) < lo || (hi >= 0 && len(vals) > hi) {
		return unknown2(name, vals)
	}
	switch name {
	case "get_property", "get_attribute", "get_artifact", "available_allocation":
		return ev.query(n, name, vals)
	}
	v, ok := ev.pure(name, vals)
	if !ok {
		ev.c.errorf(rangeOf(n), ev.path, CodeFunction, "$%s cannot be applied to %s", name, describeGo2(vals))
		return nil
	}
	return v
}

// relCtx2 is the relationship a value is evaluated for: relationship
// index of the relationships requirement req makes (count of them);
// known is false where one value serves them all.
type relCtx2 struct {
	// ra is the requirement assignment, nil in a relationship template
	// or type, whose relationships are known where they are used.
	ra    *reqAssign2
	req   string
	count int64
	index int64
	known bool
	// once names what runs once for all of a requirement's relationships
	// (its Configure operations), where an index that is not known is an
	// error rather than an apply-time value.
	once string
}

// relationshipIndex evaluates $relationship_index (§10.2.1.7): the index
// of the relationship the value is evaluated for. A requirement that
// makes one relationship (count 1) has index 0 everywhere; one with a
// count has an index per relationship where xosplan makes one value per
// relationship (the target representation its node selects) and none
// elsewhere: graph.Unknown in values only the orchestrator reads (the
// relationship's properties), an error in operations xosplan runs once
// per requirement. Outside a relationship context the static check
// reported it.
func (ev *eval2) relationshipIndex(n *yamlsrc.Node) graph.Value {
	r := ev.rel
	switch {
	case r == nil:
		return unknown2("relationship_index", nil)
	case r.known:
		return r.index
	case r.once != "":
		ev.c.errorf(rangeOf(n), ev.path, CodeFunction, "$relationship_index in %s of requirement %q, which makes %d relationships: xosplan runs them once for the requirement, so the index has no single value", r.once, r.req, r.count)
		return nil
	}
	return unknown2("relationship_index", nil)
}

// walkValue indexes into a value by the keys and indices of $value's
// arguments.
func (ev *eval2) walkValue(v graph.Value, path []graph.Value) graph.Value {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]graph.Value:
			s, _ := k.(string)
			v = x[s]
		case []graph.Value:
			i, ok := k.(int64)
			if !ok || i < 0 || i >= int64(len(x)) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (ev *eval2) getInput(n *yamlsrc.Node, vals []graph.Value) graph.Value {
	topo := ev.c.v2.topo
	if len(vals) == 0 || topo == nil || topo.declared == nil {
		return unknown2("get_input", vals)
	}
	name, isName := vals[0].(string)
	if !isName || !topo.declared[name] {
		if !isUnknown2(vals[0]) {
			ev.c.errorf(rangeOf(n), ev.path, CodeUnknownInput, "$get_input of %s, which the service template does not declare as an input", describeGo2(vals[0]))
		}
		return nil
	}
	in, ok := topo.inputs[name]
	if !ok || isUnknown2(in) {
		return unknown2("get_input", vals)
	}
	return ev.walkValue(in, vals[1:])
}

// pure evaluates the functions whose result depends on their arguments
// only; ok is false when the arguments do not fit.
func (ev *eval2) pure(name string, a []graph.Value) (graph.Value, bool) {
	switch name {
	case "and":
		for _, x := range a {
			if b, ok := x.(bool); !ok || !b {
				return false, ok
			}
		}
		return true, true
	case "or":
		for _, x := range a {
			if b, ok := x.(bool); ok && b {
				return true, true
			}
		}
		return false, true
	case "not":
		b, ok := a[0].(bool)
		return !b, ok
	case "xor":
		x, ok1 := a[0].(bool)
		y, ok2 := a[1].(bool)
		return x != y, ok1 && ok2
	case "equal":
		r, ok := ev.compare(a[0], a[1])
		return ok && r == 0, true
	case "greater_than", "greater_or_equal", "less_than", "less_or_equal":
		r, ok := ev.compare(a[0], a[1])
		if !ok {
			return nil, false
		}
		switch name {
		case "greater_than":
			return r > 0, true
		case "greater_or_equal":
			return r >= 0, true
		case "less_than":
			return r < 0, true
		}
		return r <= 0, true
	case "valid_values":
		list, ok := a[1].([]graph.Value)
		if !ok {
			return nil, false
		}
		for _, x := range list {
			if r, ok := ev.compare(a[0], x); ok && r == 0 {
				return true, true
			}
		}
		return false, true
	case "matches":
		s, ok1 := a[0].(string)
		p, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return nil, false
		}
		re, err := regexp.Compile(`^(?:` + p + `)$`)
		if err != nil {
			return nil, false
		}
		return re.MatchString(s), true
	case "has_suffix", "has_prefix":
		s, ok1 := a[0].(string)
		x, ok2 := a[1].(string)
		if ok1 && ok2 {
			if name == "has_suffix" {
				return strings.HasSuffix(s, x), true
			}
			return strings.HasPrefix(s, x), true
		}
		l1, ok1 := a[0].([]graph.Value)
		l2, ok2 := a[1].([]graph.Value)
		if !ok1 || !ok2 || len(l2) > len(l1) {
			return false, ok1 && ok2
		}
		off := 0
		if name == "has_suffix" {
			off = len(l1) - len(l2)
		}
		for i, x := range l2 {
			if r, ok := ev.compare(l1[off+i], x); !ok || r != 0 {
				return false, true
			}
		}
		return true, true
	case "contains":
		if s, ok := a[0].(string); ok {
			x, ok := a[1].(string)
			return strings.Contains(s, x), ok
		}
		l1, ok1 := a[0].([]graph.Value)
		l2, ok2 := a[1].([]graph.Value)
		if !ok1 || !ok2 {
			return nil, false
		}
		for i := 0; i+len(l2) <= len(l1); i++ {
			match := true
			for j, x := range l2 {
				if r, ok := ev.compare(l1[i+j], x); !ok || r != 0 {
					match = false
					break
				}
			}
			if match {
				return true, true
			}
		}
		return false, true
	case "has_entry", "has_all_entries", "has_any_entry":
		var items []graph.Value
		switch x := a[0].(type) {
		case []graph.Value:
			items = x
		case map[string]graph.Value:
			for _, v := range x {
				items = append(items, v)
			}
		default:
			return nil, false
		}
		want := []graph.Value{a[1]}
		if name != "has_entry" {
			l, ok := a[1].([]graph.Value)
			if !ok {
				return nil, false
			}
			want = l
		}
		return ev.hasMembers(items, want, name == "has_any_entry"), true
	case "has_key", "has_all_keys", "has_any_key":
		m, ok := a[0].(map[string]graph.Value)
		if !ok {
			return nil, false
		}
		var keys []graph.Value
		for k := range m {
			keys = append(keys, k)
		}
		want := []graph.Value{a[1]}
		if name != "has_key" {
			l, ok := a[1].([]graph.Value)
			if !ok {
				return nil, false
			}
			want = l
		}
		return ev.hasMembers(keys, want, name == "has_any_key"), true
	case "length":
		n, err := values.Length(a[0])
		return n, err == nil
	case "concat":
		if s, ok := a[0].(string); ok {
			var b strings.Builder
			b.WriteString(s)
			for _, x := range a[1:] {
				b.WriteString(scalarText2(x))
			}
			return b.String(), true
		}
		var out []graph.Value
		for _, x := range a {
			l, ok := x.([]graph.Value)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	case "join":
		l, ok := a[0].([]graph.Value)
		if !ok {
			return nil, false
		}
		sep := ""
		if len(a) > 1 {
			sep, ok = a[1].(string)
			if !ok {
				return nil, false
			}
		}
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = scalarText2(x)
		}
		return strings.Join(parts, sep), true
	case "token":
		s, ok1 := a[0].(string)
		seps, ok2 := a[1].(string)
		i, ok3 := a[2].(int64)
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		parts := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
		if i < 0 || i >= int64(len(parts)) {
			return nil, false
		}
		return parts[i], true
	case "union", "intersection":
		var out []graph.Value
		for i, x := range a {
			l, ok := x.([]graph.Value)
			if !ok {
				return nil, false
			}
			if i == 0 || name == "union" {
				for _, y := range l {
					if !ev.hasMembers(out, []graph.Value{y}, false) {
						out = append(out, y)
					}
				}
				continue
			}
			out = slices.DeleteFunc(out, func(y graph.Value) bool { return !ev.hasMembers(l, []graph.Value{y}, false) })
		}
		return out, true
	case "sum", "product", "difference", "quotient", "remainder":
		return arith2(name, a)
	case "round", "floor", "ceil":
		f, ok := toFloat2(a[0])
		if !ok {
			return nil, false
		}
		switch name {
		case "round":
			return int64(math.Round(f)), true
		case "floor":
			return int64(math.Floor(f)), true
		}
		return int64(math.Ceil(f)), true
	}
	return nil, false
}

func (ev *eval2) hasMembers(items, want []graph.Value, any bool) bool {
	for _, w := range want {
		found := false
		for _, x := range items {
			if r, ok := ev.compare(x, w); ok && r == 0 {
				found = true
				break
			}
		}
		if any && found {
			return true
		}
		if !any && !found {
			return false
		}
	}
	return !any
}

func toFloat2(v graph.Value) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func arith2(name string, a []graph.Value) (graph.Value, bool) {
	ints := make([]int64, 0, len(a))
	floats := make([]float64, 0, len(a))
	for _, x := range a {
		f, ok := toFloat2(x)
		if !ok {
			return nil, false
		}
		floats = append(floats, f)
		if i, isInt := x.(int64); isInt {
			ints = append(ints, i)
		}
	}
	if len(ints) == len(a) && name != "quotient" {
		return fold2(name, ints, func(x, y int64) int64 { return x % y })
	}
	return fold2(name, floats, math.Mod)
}

// fold2 applies an arithmetic function to its arguments left to right;
// false for a division by zero.
func fold2[T int64 | float64](name string, a []T, rem func(T, T) T) (graph.Value, bool) {
	acc := a[0]
	for _, y := range a[1:] {
		switch name {
		case "sum":
			acc += y
		case "product":
			acc *= y
		case "difference":
			acc -= y
		case "quotient", "remainder":
			if y == 0 {
				return nil, false
			}
			if name == "quotient" {
				acc /= y
			} else {
				acc = rem(acc, y)
			}
		}
	}
	return acc, true
}

// describeGo2 renders an evaluated value for a message, shortened.
func describeGo2(v graph.Value) string {
	s := fmt.Sprintf("%v", v)
	if x, ok := v.(string); ok {
		s = quote(x)
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// scalarText2 renders a value for $concat and $join.
func scalarText2(v graph.Value) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// compare orders two values: numbers by value, strings of the scalar,
// version or timestamp type of $value by what they measure, other values
// of one kind by equality (0) or text order.
func (ev *eval2) compare(a, b graph.Value) (int, bool) {
	if x, ok := toFloat2(a); ok {
		if y, ok := toFloat2(b); ok {
			return cmp2(x, y), true
		}
	}
	sa, okA := a.(string)
	sb, okB := b.(string)
	if okA && okB {
		if t := ev.typ; t != nil {
			switch {
			case t.scalar != nil:
				_, x, _, e1 := parseScalar2(t.scalar, sa)
				_, y, _, e2 := parseScalar2(t.scalar, sb)
				if e1 == "" && e2 == "" {
					return cmp2(x, y), true
				}
			case t.base == "version":
				if r, err := values.CompareVersions(sa, sb); err == nil {
					return r, true
				}
			case t.base == "timestamp":
				if r, err := values.CompareTimestamps(sa, sb); err == nil {
					return r, true
				}
			}
		}
		return strings.Compare(sa, sb), true
	}
	if ba, ok := a.(bool); ok {
		if bb, ok := b.(bool); ok && ba == bb {
			return 0, true
		}
		return 1, true
	}
	if fmt.Sprint(a) == fmt.Sprint(b) {
		return 0, true
	}
	return 1, false
}

func cmp2(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
