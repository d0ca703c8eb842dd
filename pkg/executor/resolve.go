package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/internal/funceval"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrUnresolved is wrapped by every error of Resolve: a value known only at
// apply time could not be computed.
var ErrUnresolved = errors.New("cannot resolve a value known only at apply time")

// Lookup returns the recorded state of the resource at addr as it stands
// now in the walk: the feedback of what ran first in this apply, or what
// an earlier apply recorded.
type Lookup func(addr string) (*state.Resource, bool)

// FunctionCall is one call of a TOSCA 2.0 custom function
// (driver.FunctionCall).
type FunctionCall = driver.FunctionCall

// FunctionRunner evaluates custom function calls (driver.FunctionRunner).
type FunctionRunner = driver.FunctionRunner

// Resolver replaces the graph.Unknowns of values known only at apply
// time by their values. The zero value with a Lookup is what Resolve
// uses.
type Resolver struct {
	// Lookup reads recorded state.
	Lookup Lookup
	// Functions evaluates custom function calls; nil: such a call cannot
	// be resolved (an error naming the function).
	Functions FunctionRunner
	// WorkDir and Address are passed on in each FunctionCall.
	WorkDir string
	Address string
}

// Resolve returns v with every graph.Unknown replaced by its value, read
// from the feedback that lookup returns. The rules, per function:
//
//   - attribute(addr, name, path…): the attribute the actuator reported
//     (Feedback.Attributes), else the value the spec enacted assigns it
//     (Feedback.Resolved["attributes"]: a template's assignment or its
//     definition's default), else the property of that name in the spec
//     enacted (Feedback.Resolved["properties"]), else a capability's
//     attribute as its assignment gives it ("capabilities".name.attributes),
//     else its property ("capabilities".name.properties), then path… into it (map
//     keys, list indices). An attribute nobody reported is null, as TOSCA
//     leaves an attribute without a value: a script sees an empty
//     variable and may apply its own default.
//   - operation_output(addr, iface, op, output): the attribute the output
//     was mapped to (the exec driver maps outputs to attributes of the
//     same name unless the operation's outputs say otherwise), else null.
//     operation_output(addr, iface, op, output, requirement, index), of
//     an operation of the relationship the resource at addr makes through
//     its requirement (its index-th assignment): the relationship's
//     attribute of the output's name (where the ansible driver records
//     what its operations report unmapped), else the resource's, as
//     above (the exec driver's).
//   - signal(addr, iface, pin): Feedback.Signals["iface.pin"], else null.
//   - get_attribute(addr, "RELATIONSHIP", requirement, [index,] name,
//     path…): the attribute of the relationship that the resource at
//     addr makes through its requirement (its index-th assignment of it,
//     0 when not given), as its operations' outputs set it
//     (state.Feedback.Relationships), else as the spec enacted assigns
//     it (Resolved["relationships"][requirement][index]["attributes"]),
//     else null, then path… into it.
//     Other get_attribute paths of TOSCA 2.0 are an error.
//   - concat(v…): the arguments as text, joined.
//   - join(list[, delimiter]): the list's elements as text, joined.
//   - token(string, separators, index): the index-th piece of string cut
//     at any of the separator characters.
//   - as(kind, value): value, text that an operation reported, read as
//     the integer, float, boolean, list or map (JSON) that the TOSCA 2.0
//     definition of the attribute declares; text that does not read as
//     one is an error, empty text null.
//   - tosca2(name, arguments…): a TOSCA 2.0 built-in function of §10.2
//     ($sum, $equal, $concat, $has_suffix, $length, $union…) evaluated
//     from its arguments as pkg/tosca evaluates it at compile time
//     (internal/funceval); arguments that do not fit are an error naming
//     the function and the resource (Resolver.Address).
//   - function(name, declaration, [arguments…]): a TOSCA 2.0 custom
//     function, which only a Resolver with Functions evaluates; here it
//     is an error naming the function.
//
// A reference to an address with no recorded state is an error: the walk
// only resolves a resource's values after everything it depends on has
// been applied, so such a reference means the resource is not part of
// the configuration any more. Resolve never modifies v.
func Resolve(v graph.Value, lookup Lookup) (graph.Value, error) {
	// Without Functions nothing blocks: no context to end.
	return Resolver{Lookup: lookup}.Resolve(context.Background(), v)
}

// Resolve resolves v as the function Resolve does, and evaluates the
// custom function calls in it with r.Functions: their arguments are
// resolved first (innermost calls first), then the implementation
// runs; its result must be of the kind the declaration's result names.
// ctx bounds the runs.
func (r Resolver) Resolve(ctx context.Context, v graph.Value) (graph.Value, error) {
	switch x := v.(type) {
	case graph.Unknown:
		return r.resolveUnknown(ctx, x)
	case []graph.Value:
		if !graph.HasUnknown(x) {
			return x, nil
		}
		out := make([]graph.Value, len(x))
		for i, e := range x {
			res, err := r.Resolve(ctx, e)
			if err != nil {
				return nil, err
			}
			out[i] = res
		}
		return out, nil
	case map[string]graph.Value:
		if !graph.HasUnknown(x) {
			return x, nil
		}
		out := make(map[string]graph.Value, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			res, err := r.Resolve(ctx, x[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = res
		}
		return out, nil
	}
	return v, nil
}

// ResolveMap resolves every value of m (see Resolver.Resolve); a nil map
// stays nil.
func (r Resolver) ResolveMap(ctx context.Context, m map[string]graph.Value) (map[string]graph.Value, error) {
	if m == nil {
		return nil, nil
	}
	res, err := r.Resolve(ctx, m)
	if err != nil {
		return nil, err
	}
	return res.(map[string]graph.Value), nil
}

// ResolveMap resolves every value of m (see Resolve); a nil map stays nil.
func ResolveMap(m map[string]graph.Value, lookup Lookup) (map[string]graph.Value, error) {
	// Without Functions nothing blocks: no context to end.
	return Resolver{Lookup: lookup}.ResolveMap(context.Background(), m)
}

func (r Resolver) resolveUnknown(ctx context.Context, u graph.Unknown) (graph.Value, error) {
	args := make([]graph.Value, len(u.Args))
	for i, a := range u.Args {
		res, err := r.Resolve(ctx, a)
		if err != nil {
			return nil, err
		}
		args[i] = res
	}
	lookup := r.Lookup
	switch u.Func {
	case "function":
		return r.callFunction(ctx, u, args)
	case funceval.Func:
		return r.callBuiltin(u, args)
	case "as":
		return readAs(u, args)
	case "attribute", "operation_output", "signal":
		if len(args) < 2 {
			return nil, fmt.Errorf("%w: %s needs an address and a name", ErrUnresolved, u)
		}
		addr, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("%w: %s: the address is not a string", ErrUnresolved, u)
		}
		rec, ok := lookup(addr)
		if !ok {
			return nil, fmt.Errorf("%w: %s: %s has no recorded state", ErrUnresolved, u, addr)
		}
		switch u.Func {
		case "attribute":
			return attributeValue(rec, args[1:]), nil
		case "operation_output":
			if len(args) != 4 && len(args) != 6 {
				return nil, fmt.Errorf("%w: %s needs address, interface, operation and output (and for a relationship's operation its requirement and index)", ErrUnresolved, u)
			}
			name, _ := args[3].(string)
			if len(args) == 6 {
				req, _ := args[4].(string)
				idx, _ := args[5].(int64)
				if rel, found := rec.Feedback.Relationship(req, int(idx)); found {
					if v, found := rel.Attributes[name]; found {
						return v, nil
					}
				}
			}
			return rec.Feedback.Attributes[name], nil
		default:
			if len(args) != 3 {
				return nil, fmt.Errorf("%w: %s needs address, interface and pin", ErrUnresolved, u)
			}
			iface, _ := args[1].(string)
			pin, _ := args[2].(string)
			return rec.Feedback.Signals[iface+"."+pin], nil
		}
	case "concat":
		var b strings.Builder
		for _, a := range args {
			b.WriteString(graph.Text(a))
		}
		return b.String(), nil
	case "join":
		return joinValues(u, args)
	case "token":
		return tokenOf(u, args)
	case "available_allocation":
		return nil, fmt.Errorf("%w: %s: TOSCA 2.0's $available_allocation of a capability whose capacity, or what is allocated of it, the template does not tell (a node with count, or a value known only at apply time) has no value: xosplan reads no inventory's capacity at apply time", ErrUnresolved, u)
	case "get_attribute":
		if v, ok, err := relationshipAttribute(u, args, lookup); ok {
			return v, err
		}
		fallthrough
	case "get_property", "get_artifact":
		return nil, fmt.Errorf("%w: %s: this TOSCA 2.0 path leads where xosplan records no state (a node only the orchestrator selects, a relationship that targets a capability, ALL followed by more steps)", ErrUnresolved, u)
	case "relationship_index":
		return nil, fmt.Errorf("%w: TOSCA 2.0's $relationship_index has no value here: xosplan knows a relationship's index only where it makes one value per relationship (the node of a requirement with count), and 0 for a requirement without count", ErrUnresolved)
	}
	return nil, fmt.Errorf("%w: unknown function %q", ErrUnresolved, u.Func)
}

// relationshipAttribute resolves get_attribute(addr, "RELATIONSHIP",
// requirement, [index,] name, path…) with its arguments resolved (args);
// ok is false for any other get_attribute.
func relationshipAttribute(u graph.Unknown, args []graph.Value, lookup Lookup) (v graph.Value, ok bool, err error) {
	if len(args) < 4 || args[1] != "RELATIONSHIP" || args[3] == "ALL" {
		return nil, false, nil
	}
	addr, _ := args[0].(string)
	req, _ := args[2].(string)
	rest, idx := args[3:], int64(0)
	if i, isInt := rest[0].(int64); isInt {
		idx, rest = i, rest[1:]
	}
	if addr == "" || req == "" || len(rest) == 0 || idx < 0 || idx > math.MaxInt32 {
		return nil, true, fmt.Errorf("%w: %s needs an address, a requirement, an optional index and an attribute", ErrUnresolved, u)
	}
	rec, found := lookup(addr)
	if !found {
		return nil, true, fmt.Errorf("%w: %s: %s has no recorded state", ErrUnresolved, u, addr)
	}
	name, _ := rest[0].(string)
	if rel, found := rec.Feedback.Relationship(req, int(idx)); found {
		if a, found := rel.Attributes[name]; found {
			return walkPath(a, rest[1:]), true, nil
		}
	}
	for _, rel := range specRelationships(recordedSpec(rec)) {
		if rel.Requirement == req && rel.Index == int(idx) {
			return known(walkPath(rel.Attributes[name], rest[1:])), true, nil
		}
	}
	return nil, true, nil
}

// recordedSpec is the spec rec was last enacted with, resolved, else as
// configured.
func recordedSpec(rec *state.Resource) map[string]graph.Value {
	if rec.Feedback.Resolved != nil {
		return rec.Feedback.Resolved
	}
	return rec.Spec
}

// known is v, or null when v is not known yet (a spec as configured,
// read before it was resolved).
func known(v graph.Value) graph.Value {
	if graph.HasUnknown(v) {
		return nil
	}
	return v
}

// callBuiltin evaluates tosca2(name, arguments…), a TOSCA 2.0 built-in
// function of §10.2, with its arguments resolved (args) as pkg/tosca
// evaluates it when they are known at compile time (internal/funceval).
// An error names the function and the resource.
func (r Resolver) callBuiltin(u graph.Unknown, args []graph.Value) (graph.Value, error) {
	name := ""
	if len(args) > 0 {
		name, _ = args[0].(string)
	}
	if name == "" {
		return nil, fmt.Errorf("%w: %s names no function", ErrUnresolved, u)
	}
	v, err := funceval.Eval(name, args[1:], nil)
	if err != nil {
		where := ""
		if r.Address != "" {
			where = r.Address + ": "
		}
		return nil, fmt.Errorf("%w: %s%w", ErrUnresolved, where, err)
	}
	return v, nil
}

// readAs evaluates as(kind, value) with its arguments resolved (args):
// text an operation reported (exec outputs are text) read as the kind of
// JSON value its TOSCA 2.0 definition declares — an integer, float or
// boolean as written, a list or map as JSON. Empty text is null, as an
// attribute without a value; a value that is not text is left as it is.
func readAs(u graph.Unknown, args []graph.Value) (graph.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("%w: %s needs a kind and a value", ErrUnresolved, u)
	}
	kind, _ := args[0].(string)
	text, ok := args[1].(string)
	if !ok {
		return args[1], nil
	}
	if text == "" {
		return nil, nil
	}
	var v graph.Value
	var err error
	switch kind {
	case "integer":
		v, err = strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	case "float":
		var f float64
		if f, err = strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
			v, err = graph.Canonicalize(f)
		}
	case "boolean":
		switch strings.TrimSpace(text) {
		case "true":
			v = true
		case "false":
			v = false
		default:
			err = errors.New("not true or false")
		}
	case "list", "map":
		v, err = canonjson.DecodeValue([]byte(text))
		_, isList := v.([]graph.Value)
		_, isMap := v.(map[string]graph.Value)
		if err == nil && !(isList && kind == "list" || isMap && kind == "map") {
			err = errors.New("not a JSON " + kind)
		}
	default:
		return text, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s is %s, which does not read as the %s its definition declares", ErrUnresolved, u.Args[1], truncate(strconv.Quote(text), 80), kind)
	}
	return v, nil
}

// callFunction evaluates function(name, declaration, [arguments…]) with
// its arguments resolved (args).
func (r Resolver) callFunction(ctx context.Context, u graph.Unknown, args []graph.Value) (graph.Value, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("%w: %s needs a name, a declaration and the arguments", ErrUnresolved, u)
	}
	name, _ := args[0].(string)
	decl, _ := args[1].(map[string]graph.Value)
	list, ok := args[2].([]graph.Value)
	if name == "" || decl == nil || (!ok && args[2] != nil) {
		return nil, fmt.Errorf("%w: %s needs a name, a declaration and the arguments", ErrUnresolved, u)
	}
	impl, _ := decl["implementation"].(string)
	switch {
	case impl == "":
		return nil, fmt.Errorf("%w: custom function $%s has no implementation: xosplan evaluates a custom function only by running the implementation its signature names (TOSCA 2.0 §10.4)", ErrUnresolved, name)
	case r.Functions == nil:
		return nil, fmt.Errorf("%w: custom function $%s (%s) runs only while resources are applied", ErrUnresolved, name, impl)
	}
	call := FunctionCall{Name: name, Implementation: impl, WorkDir: r.WorkDir, Address: r.Address, Args: list}
	if secs, ok := decl["timeout"].(int64); ok && secs > 0 {
		call.Timeout = time.Duration(secs) * time.Second
	}
	v, err := r.Functions.RunFunction(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("%w: custom function $%s (%s): %w", ErrUnresolved, name, impl, err)
	}
	if want, _ := decl["result"].(string); want != "" && !isKind(v, want) {
		return nil, fmt.Errorf("%w: custom function $%s (%s) returned %s, and its signature's result is of kind %s", ErrUnresolved, name, impl, truncate(graph.Render(v), 80), want)
	}
	return v, nil
}

// isKind reports whether v is a JSON value of the kind a custom
// function's result declares (an integer is a float too).
func isKind(v graph.Value, kind string) bool {
	switch v.(type) {
	case string:
		return kind == "string"
	case int64:
		return kind == "integer" || kind == "float"
	case float64:
		return kind == "float"
	case bool:
		return kind == "boolean"
	case []graph.Value:
		return kind == "list"
	case map[string]graph.Value:
		return kind == "map"
	}
	return false
}

// attributeValue walks path into the first place that has its first
// element: reported attributes, the attribute values the enacted spec
// assigns (a template's assignment or a definition's default),
// enacted properties, capability attributes then properties.
func attributeValue(rec *state.Resource, path []graph.Value) graph.Value {
	first, _ := path[0].(string)
	if v, ok := rec.Feedback.Attributes[first]; ok {
		return walkPath(v, path[1:])
	}
	spec := recordedSpec(rec)
	if attrs, ok := spec["attributes"].(map[string]graph.Value); ok {
		if v, ok := attrs[first]; ok {
			return known(walkPath(v, path[1:]))
		}
	}
	if props, ok := spec["properties"].(map[string]graph.Value); ok {
		if v, ok := props[first]; ok {
			return walkPath(v, path[1:])
		}
	}
	if caps, ok := spec["capabilities"].(map[string]graph.Value); ok && len(path) > 1 {
		if c, ok := caps[first].(map[string]graph.Value); ok {
			name, _ := path[1].(string)
			if attrs, ok := c["attributes"].(map[string]graph.Value); ok {
				if v, ok := attrs[name]; ok {
					return known(walkPath(v, path[2:]))
				}
			}
			if props, ok := c["properties"].(map[string]graph.Value); ok {
				if v, ok := props[name]; ok {
					return walkPath(v, path[2:])
				}
			}
		}
	}
	// Tonomi components keep flat dotted keys ("configuration.x").
	if v, ok := spec[first]; ok {
		return walkPath(v, path[1:])
	}
	return nil
}

func walkPath(v graph.Value, path []graph.Value) graph.Value {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]graph.Value:
			k, _ := p.(string)
			v = x[k]
		case []graph.Value:
			i, ok := p.(int64)
			if !ok {
				if s, isS := p.(string); isS {
					n, err := strconv.ParseInt(s, 10, 64)
					i, ok = n, err == nil
				}
			}
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

// Output is one resolved output of a configuration.
type Output struct {
	Value graph.Value
	// Sensitive marks a secret: views print a marker, never the value.
	Sensitive bool
}

// ResolveOutputs resolves the outputs of g (graph.Graph.Outputs) against
// recorded state, as they stand after an apply, a factory's
// factory.instances included (StateLookup). An output is Sensitive
// when g lists it in SensitiveOutputs, when resolving it reads a value at
// a sensitive path of a recorded resource, or when its value holds a
// secret of g or st that a Redactor would replace. An output that cannot
// be resolved (it reads a resource that is not recorded) is left out and
// its name returned in missing, sorted.
func ResolveOutputs(g *graph.Graph, st *state.State) (values map[string]Output, missing []string) {
	lookup := StateLookup(st)
	secret := map[string]bool{}
	for _, name := range g.SensitiveOutputs {
		secret[name] = true
	}
	red := NewRedactorFor(st, g)
	values = map[string]Output{}
	for _, name := range slices.Sorted(maps.Keys(g.Outputs)) {
		expr := g.Outputs[name]
		v, err := Resolve(expr, lookup)
		if err != nil {
			missing = append(missing, name)
			continue
		}
		values[name] = Output{Value: v, Sensitive: secret[name] || readsSecret(expr, lookup) || holdsSecret(red, v)}
	}
	return values, missing
}

// anyLeaf reports whether fn holds for a value in v that is neither a
// list nor a map.
func anyLeaf(v graph.Value, fn func(graph.Value) bool) bool {
	switch x := v.(type) {
	case []graph.Value:
		return slices.ContainsFunc(x, func(e graph.Value) bool { return anyLeaf(e, fn) })
	case map[string]graph.Value:
		for _, e := range x {
			if anyLeaf(e, fn) {
				return true
			}
		}
		return false
	}
	return fn(v)
}

// readsSecret reports whether v reads an attribute that is, holds or lies
// within a sensitive path of the resource it names.
func readsSecret(v graph.Value, lookup Lookup) bool {
	return graph.ReadsSensitive(v, func(addr string) []string {
		if rec, ok := lookup(addr); ok {
			return rec.Sensitive
		}
		return nil
	})
}

// holdsSecret reports whether some text in v holds a secret red knows.
func holdsSecret(red *Redactor, v graph.Value) bool {
	return anyLeaf(v, func(l graph.Value) bool {
		switch l.(type) {
		case nil, bool:
			return false
		}
		s := graph.Text(l)
		return red.String(s) != s
	})
}
