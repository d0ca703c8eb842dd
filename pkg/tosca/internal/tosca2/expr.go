package tosca2

// Phase 7 (2.0) — functions (§10): the $name syntax with its $$ escape
// and $name$suffix keys (§10.1), the static check of every call (a
// built-in, or a custom function the file sees, with the arguments its
// signature or the built-in takes), and the evaluation of what can be
// known at compile time: validation clauses, $get_input, $concat and the
// other pure functions. What only the orchestrator knows ($get_attribute,
// custom functions, $available_allocation of a capacity the template does
// not give) is a graph.Unknown.
//
// Errors detected here:
//   - a call of a function that is neither built-in nor declared in functions, a function name
//     that is empty, arguments of the wrong number or kind for a built-in, $relationship_index
//     outside a relationship context, $node_index outside a node context (tosca.function)
//   - $get_input of an input the service template does not declare (tosca.unknown_input)

import (
	"strings"

	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// funcCall reports whether n is a function call and returns the
// function's name and its arguments (nil for the string form).
func funcCall(n *yamlsrc.Node) (string, *yamlsrc.Node, bool) {
	if n == nil {
		return "", nil, false
	}
	switch n.Kind {
	case yamlsrc.Scalar:
		if n.IsString() && strings.HasPrefix(n.Value, "$") && !strings.HasPrefix(n.Value, "$$") {
			return n.Value[1:], nil, true
		}
	case yamlsrc.Mapping:
		if len(n.Content) == 2 {
			k := n.Content[0]
			if k.Kind == yamlsrc.Scalar && strings.HasPrefix(k.Value, "$") && !strings.HasPrefix(k.Value, "$$") {
				name, _, _ := strings.Cut(k.Value[1:], "$")
				return name, n.Content[1], true
			}
		}
	}
	return "", nil, false
}

// unescape returns a literal string with its escaping $ removed.
func unescape(s string) string {
	if strings.HasPrefix(s, "$$") {
		return s[1:]
	}
	return s
}

// builtinArity gives the argument counts of the built-in functions
// (§10.2): min and max (-1: any); ok is false for an unknown name.
func builtinArity(name string) (lo, hi int, ok bool) {
	switch name {
	case "get_input":
		return 1, -1, true
	case "get_property", "get_attribute", "get_artifact":
		// A TOSCA path and a name (§10.2.1.2–4).
		return 2, -1, true
	case "value":
		return 0, -1, true
	case "node_index", "relationship_index":
		return 0, 0, true
	case "available_allocation":
		return 2, -1, true
	}
	return funceval.Arity(name)
}

// argList returns the arguments of a call as a list: a list's items,
// nothing for none, or the one argument that is not a list.
func argList(args *yamlsrc.Node) []*yamlsrc.Node {
	switch {
	case args == nil || args.IsNull():
		return nil
	case args.Kind == yamlsrc.Sequence:
		return args.Content
	}
	return []*yamlsrc.Node{args}
}

// checkExpr checks every function call in a value (static checks only;
// validation tells whether $value may be used).
func (c *compiler) checkExpr(f *file, n *yamlsrc.Node, path string, validation bool) {
	c.walkExpr(f, n, path, validation, 0)
}

func (c *compiler) walkExpr(f *file, n *yamlsrc.Node, path string, validation bool, depth int) {
	if n == nil || depth > core.MaxValueDepth {
		return
	}
	if name, args, ok := funcCall(n); ok {
		c.checkCall(f, n, name, args, path)
		switch {
		case args == nil || args.IsNull():
		case args.Kind == yamlsrc.Sequence:
			for i, a := range args.Content {
				if holdsCall(a) {
					c.walkExpr(f, a, path+"["+core.Itoa(int64(i))+"]", validation, depth+1)
				}
			}
		case holdsCall(args):
			// The one argument that is not a list (argList).
			c.walkExpr(f, args, path+"[0]", validation, depth+1)
		}
		return
	}
	switch n.Kind {
	case yamlsrc.Mapping:
		c.checkMalformed(n, path)
		for _, p := range n.Pairs() {
			if holdsCall(p.Value) {
				c.walkExpr(f, p.Value, core.JoinPath(path, p.Key.Value), validation, depth+1)
			}
		}
	case yamlsrc.Sequence:
		for i, it := range n.Content {
			if holdsCall(it) {
				c.walkExpr(f, it, path+"["+core.Itoa(int64(i))+"]", validation, depth+1)
			}
		}
	}
}

// holdsCall reports whether walkExpr has anything to check in n: a call,
// or a list or map that may hold one. A plain scalar (most values) has
// nothing, and its path is not built.
func holdsCall(n *yamlsrc.Node) bool {
	if n == nil || n.Kind == yamlsrc.Mapping || n.Kind == yamlsrc.Sequence {
		return n != nil
	}
	_, _, call := funcCall(n)
	return call
}

// checkCall checks one call: a known function with an acceptable number
// of arguments.
func (c *compiler) checkCall(f *file, n *yamlsrc.Node, name string, args *yamlsrc.Node, path string) {
	if c.state.checked[n] {
		return
	}
	c.state.checked[n] = true
	if name == "" {
		c.Errorf(n.Range, path, core.CodeFunction, "a function call names no function after $ (write $$ for a literal $)")
		return
	}
	if d := c.findFunc(f, name); d != nil {
		c.checkSignature(d, n, args, path)
		return
	}
	if name == "relationship_index" && !relContext(path) {
		c.Errorf(n.Range, path, core.CodeFunction, "$relationship_index outside a relationship context: it is valid in relationship types and templates and in requirement definitions and assignments (§10.2.1.7)")
	}
	if name == "node_index" && !nodeContext(path) {
		c.Errorf(n.Range, path, core.CodeFunction, "$node_index outside a node context: the service template's inputs, outputs, groups and policies, and group and policy types, belong to no node representation (§10.2.1.6)")
	}
	lo, hi, ok := builtinArity(name)
	if !ok {
		c.ErrorDetail(n.Range, path, core.CodeFunction, "A string or key that starts with $ is a function call in TOSCA 2.0 (§10.1); write $$ for a literal $.",
			"unknown function $%s: it is neither built-in nor declared in functions", name)
		return
	}
	got := len(argList(args))
	if got < lo || (hi >= 0 && got > hi) {
		want := core.Itoa(int64(lo))
		switch {
		case hi < 0:
			want = "at least " + want
		case hi != lo:
			want += " to " + core.Itoa(int64(hi))
		}
		c.Errorf(n.Range, path, core.CodeFunction, "$%s takes %s argument(s), found %d", name, want, got)
		return
	}
	if name == "matches" {
		c.checkPattern(argList(args)[1], path)
	}
}

// checkPattern checks the pattern of a $matches call written as a
// string: §10.2.2.2.7 names no dialect, so a construct Go's RE2 lacks
// leaves the pattern unchecked (a warning; see values.CompilePattern),
// and only a pattern invalid in every dialect is an error.
func (c *compiler) checkPattern(p *yamlsrc.Node, path string) {
	if p == nil || p.Kind != yamlsrc.Scalar || !p.IsString() || strings.HasPrefix(p.Value, "$") {
		return
	}
	_, problem := values.CompilePattern(p.Value)
	switch {
	case problem == nil:
	case problem.Invalid:
		c.Errorf(p.Range, path, values.CodeBadPattern, "the $matches pattern %q is not a valid regular expression in any dialect: %s", p.Value, problem.Reason)
	default:
		c.warnUncheckedPattern(p.Range, path, p.Value, problem.Reason)
	}
}

func (c *compiler) warnUncheckedPattern(r diag.Range, path, pattern, reason string) {
	c.Warnf(r, path, values.CodeUncheckedPattern, "the $matches pattern %q is not checked: %s, and TOSCA names no dialect (§10.2.2.2.7), so values are not checked against it", pattern, reason)
}

// relContext reports whether the YAML path path lies in a relationship
// context (§10.2.1.7): a relationship type or template, or a requirement
// definition or assignment.
func relContext(path string) bool {
	return strings.HasPrefix(path, "relationship_types.") || strings.HasPrefix(path, "service_template.relationship_templates.") ||
		strings.Contains(path, ".requirements.") || strings.Contains(path, ".requirements[")
}

// nodeContext reports whether the YAML path path may lie in a node
// context (§10.2.1.6): anything but the service template's inputs,
// outputs, groups and policies and the group and policy types, which
// belong to no node representation.
func nodeContext(path string) bool {
	for _, p := range []string{"service_template.inputs.", "service_template.outputs.", "service_template.groups.",
		"service_template.policies.", "service_template.policies[", "group_types.", "policy_types."} {
		if strings.HasPrefix(path, p) {
			return false
		}
	}
	return true
}

// checkMalformed reports a map that has a function-call key ($name)
// beside other keys: "malformed function" (§10.1).
func (c *compiler) checkMalformed(n *yamlsrc.Node, path string) {
	if len(n.Content) <= 2 {
		return
	}
	for _, p := range n.Pairs() {
		if k := p.Key.Value; p.Key.Kind == yamlsrc.Scalar && strings.HasPrefix(k, "$") && !strings.HasPrefix(k, "$$") {
			c.Errorf(p.Key.Range, core.JoinPath(path, k), core.CodeFunction, "malformed function: %q is a function call, which must be the only key of its map (write $$ for a literal $)", k)
			return
		}
	}
}

// eval is the context an expression is evaluated in.
type eval struct {
	c *compiler
	// f is the file whose names the expression sees.
	f *file
	// value is what $value stands for; hasValue tells whether it is bound.
	value    graph.Value
	hasValue bool
	// typ is the type of $value, for comparisons of scalars, versions and
	// timestamps written as strings.
	typ *typeDef
	// node is the node template the expression belongs to, nil outside one.
	node *node
	// rel is the relationship the expression is evaluated for, nil outside
	// a requirement's.
	rel *relCtx
	// path is the YAML path of the value evaluated, for diagnostics.
	path string
}

// evalAt evaluates the value n at the YAML path path.
func (ev *eval) evalAt(n *yamlsrc.Node, path string) graph.Value {
	at := *ev
	at.path = path
	return at.eval(n, 0)
}

// unknown is the value of a call only apply time resolves.
func unknown(name string, args []graph.Value) graph.Value {
	return graph.Unknown{Func: name, Args: args}
}

func isUnknown(v graph.Value) bool {
	_, ok := v.(graph.Unknown)
	return ok
}

// knownInput reports whether the argument of a $get_input is a literal
// string (no call, no $$ escape) naming a declared input whose value is
// known: eval then takes the value without building an argument list.
func (ev *eval) knownInput(args *yamlsrc.Node) bool {
	topo := ev.c.state.topo
	if !args.IsString() || strings.HasPrefix(args.Value, "$") || topo == nil || !topo.declared[args.Value] {
		return false
	}
	in, ok := topo.inputs[args.Value]
	return ok && !isUnknown(in)
}

// eval evaluates a value: functions are called, literals read (with $$
// unescaped).
func (ev *eval) eval(n *yamlsrc.Node, depth int) graph.Value {
	if n == nil || depth > core.MaxValueDepth || !ev.c.step(n, ev.path) {
		return nil
	}
	if name, args, ok := funcCall(n); ok {
		if name == "get_input" && depth+1 <= core.MaxValueDepth && ev.knownInput(args) {
			// What evaluating the argument and getInput give, without
			// the argument list and the boxed name (every template of
			// a type may read the same input).
			if !ev.c.step(args, ev.path) {
				return ev.call(n, name, []graph.Value{nil})
			}
			topo := ev.c.state.topo
			ev.c.readSecret(nil, topo.inputDefs[args.Value])
			return topo.inputs[args.Value]
		}
		// The arguments as argList gives them, in a list of their number
		// (nil for none).
		var vals []graph.Value
		before := ev.c.SecretReads
		switch {
		case args == nil || args.IsNull():
		case args.Kind == yamlsrc.Sequence:
			if len(args.Content) > 0 {
				vals = make([]graph.Value, len(args.Content))
				for i, a := range args.Content {
					vals[i] = ev.eval(a, depth+1)
				}
			}
		default:
			vals = []graph.Value{ev.eval(args, depth+1)}
		}
		if ev.c.SecretReads > before {
			// What the call reports must not quote its secret arguments.
			ev.c.InSecret++
			defer func() { ev.c.InSecret-- }()
		}
		return ev.call(n, name, vals)
	}
	switch n.Kind {
	case yamlsrc.Mapping:
		m := make(map[string]graph.Value, len(n.Content)/2)
		for _, p := range n.Pairs() {
			m[unescape(p.Key.Value)] = ev.eval(p.Value, depth+1)
		}
		return m
	case yamlsrc.Sequence:
		s := make([]graph.Value, len(n.Content))
		for i, it := range n.Content {
			s[i] = ev.eval(it, depth+1)
		}
		return s
	}
	v := n.Interface()
	if s, ok := v.(string); ok && strings.HasPrefix(s, "$$") {
		// Else v is returned as it is: boxing the same string again
		// would cost an allocation.
		return unescape(s)
	}
	return v
}
