package tosca2

// The built-in functions of TOSCA 2.0 evaluated at compile time (§10.2):
// $value, $get_input, $node_index and $relationship_index here, the
// graph queries in path.go, and the boolean, comparison, string, list,
// map, set and arithmetic functions by internal/funceval, which apply
// uses too: such a call with an argument known only at apply time is the
// graph.Unknown funceval.Call makes, evaluated by pkg/executor once its
// arguments are. A custom function is a graph.Unknown for apply time
// (customCall).

import (
	"slices"

	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// call evaluates one call with its evaluated arguments.
func (ev *eval) call(n *yamlsrc.Node, name string, vals []graph.Value) graph.Value {
	switch name {
	case "value":
		if !ev.hasValue {
			return unknown("value", vals)
		}
		return walkValue(ev.value, vals)
	case "get_input":
		return ev.getInput(n, vals)
	case "node_index":
		if ev.node != nil && ev.node.index != nil {
			return ev.node.index
		}
		return unknown(name, vals)
	case "relationship_index":
		return ev.relationshipIndex(n)
	}
	if d := ev.c.findFunc(ev.f, name); d != nil {
		// A custom function has no value here, only a signature.
		if len(d.sigs) == 0 {
			return ev.customCall(name, nil, vals)
		}
		s := ev.matchSig(n, name, d, vals)
		if s == nil {
			return nil
		}
		return ev.customCall(name, s, vals)
	}
	// A call the static check rejects for its number of arguments has no
	// value here.
	lo, hi, ok := builtinArity(name)
	if !ok || len(vals) < lo || (hi >= 0 && len(vals) > hi) {
		return unknown(name, vals)
	}
	if graphQuery(name) {
		for _, v := range vals {
			if isUnknown(v) {
				return unknown(name, vals)
			}
		}
		return ev.query(n, name, vals)
	}
	// An argument known only at apply time, even inside a list or map,
	// leaves the whole call to apply, which evaluates it as here.
	if slices.ContainsFunc(vals, graph.HasUnknown) {
		return funceval.Call(name, vals)
	}
	if name == "matches" && ev.uncheckedPattern(n, vals) {
		return unknown(name, vals)
	}
	if !ev.c.spend(n, ev.path, funceval.Cost(name, vals, maxValueSteps)) {
		return nil
	}
	v, err := funceval.Eval(name, vals, ev.ordering())
	if err != nil {
		ev.c.badValue(core.RangeOf(n), ev.path, core.CodeFunction, err.Error(), "$"+name+" cannot be applied to its arguments, which hold a sensitive value")
		return nil
	}
	return v
}

// graphQuery reports whether built-in name queries the graph (path.go)
// rather than computing a value of its arguments alone.
func graphQuery(name string) bool {
	switch name {
	case "get_property", "get_attribute", "get_artifact", "available_allocation":
		return true
	}
	return false
}

// relCtx is the relationship a value is evaluated for: relationship
// index of the relationships requirement req makes (count of them);
// known is false where one value serves them all.
type relCtx struct {
	// ra is the requirement assignment, nil in a relationship template
	// or type, whose relationships are known where they are used.
	ra    *reqAssign
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
// relationship's properties). Relationship operations run once per
// relationship, each with its index; of a requirement whose count is a
// function call they run once, where the index is an error. Outside a
// relationship context the static check reported it.
func (ev *eval) relationshipIndex(n *yamlsrc.Node) graph.Value {
	r := ev.rel
	switch {
	case r == nil:
		return unknown("relationship_index", nil)
	case r.known:
		return r.index
	case r.once != "":
		ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$relationship_index in %s of requirement %q, whose count is a function call: xosplan runs them once for the requirement, so the index has no single value", r.once, r.req)
		return nil
	}
	return unknown("relationship_index", nil)
}

// walkValue indexes into a value by the keys and indices of $value's
// arguments.
func walkValue(v graph.Value, path []graph.Value) graph.Value {
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

func (ev *eval) getInput(n *yamlsrc.Node, vals []graph.Value) graph.Value {
	topo := ev.c.state.topo
	if len(vals) == 0 || topo == nil || topo.declared == nil {
		return unknown("get_input", vals)
	}
	name, isName := vals[0].(string)
	if !isName || !topo.declared[name] {
		if !isUnknown(vals[0]) {
			ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownInput, "$get_input of %s, which the service template does not declare as an input", describeGo(vals[0]))
		}
		return nil
	}
	ev.c.readSecret(nil, topo.inputDefs[name])
	in, ok := topo.inputs[name]
	if !ok || isUnknown(in) {
		return unknown("get_input", vals)
	}
	return walkValue(in, vals[1:])
}

// describeGo renders an evaluated value for a message, shortened.
func describeGo(v graph.Value) string { return funceval.Describe(v) }

// toFloat is the number v holds; ok is false when it holds none.
func toFloat(v graph.Value) (float64, bool) { return funceval.ToFloat(v) }

// compare orders two values as the built-in functions do
// (funceval.Compare), strings of the scalar, version or timestamp type
// of $value by what they measure.
func (ev *eval) compare(a, b graph.Value) (int, bool) {
	return funceval.Compare(a, b, ev.ordering())
}

// ordering orders strings by the type of $value, nil without one. It is
// the type, not ev, so that passing it on allocates nothing.
func (ev *eval) ordering() funceval.Ordering {
	if ev.typ == nil {
		return nil
	}
	return ev.typ
}

// Order orders two strings of a scalar, version or timestamp type by
// what they measure (funceval.Ordering); ok is false for other types and
// for strings that are not of the type.
func (t *typeDef) Order(a, b string) (int, bool) {
	switch {
	case t.scalar != nil:
		_, x, _, e1 := parseScalar(t.scalar, a)
		_, y, _, e2 := parseScalar(t.scalar, b)
		if e1 == "" && e2 == "" {
			r, _ := funceval.Compare(x, y, nil)
			return r, true
		}
	case t.base == "version":
		if r, err := values.CompareVersions(a, b); err == nil {
			return r, true
		}
	case t.base == "timestamp":
		if r, err := values.CompareTimestamps(a, b); err == nil {
			return r, true
		}
	}
	return 0, false
}

// uncheckedPattern reports whether a $matches call's pattern is one Go's
// RE2 cannot compile but another dialect may (values.CompilePattern): in
// a validation clause the call is then unknown, so the clause holds (the
// value is not checked against it; checkPattern warned where the pattern
// is written, or it is warned of here when computed). A value that needs
// the call's result cannot have one: that is the error Eval gives.
func (ev *eval) uncheckedPattern(n *yamlsrc.Node, vals []graph.Value) bool {
	p, ok := vals[1].(string)
	if !ok || !ev.hasValue {
		return false
	}
	_, problem := values.CompilePattern(p)
	if problem == nil || problem.Invalid {
		return false
	}
	_, args, _ := funcCall(n)
	if pn := argList(args)[1]; pn.Kind != yamlsrc.Scalar || pn.Value != p {
		ev.c.warnUncheckedPattern(core.RangeOf(pn), ev.path, p, problem.Reason)
	}
	return true
}
