package executor

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

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

// Resolve returns v with every graph.Unknown replaced by its value, read
// from the feedback that lookup returns. The rules, per function:
//
//   - attribute(addr, name, path…): the attribute the actuator reported
//     (Feedback.Attributes), else the property of that name in the spec
//     enacted (Feedback.Resolved["properties"]), else a capability's
//     property ("capabilities".name.properties), then path… into it (map
//     keys, list indices). An attribute nobody reported is null, as TOSCA
//     leaves an attribute without a value: a script sees an empty
//     variable and may apply its own default.
//   - operation_output(addr, iface, op, output): the attribute the output
//     was mapped to (the exec driver maps outputs to attributes of the
//     same name unless the operation's outputs say otherwise), else null.
//   - signal(addr, iface, pin): Feedback.Signals["iface.pin"], else null.
//   - concat(v…): the arguments as text, joined.
//   - join(list[, delimiter]): the list's elements as text, joined.
//   - token(string, separators, index): the index-th piece of string cut
//     at any of the separator characters.
//
// A reference to an address with no recorded state is an error: the walk
// only resolves a resource's values after everything it depends on has
// been applied, so such a reference means the resource is not part of
// the configuration any more. Resolve never modifies v.
func Resolve(v graph.Value, lookup Lookup) (graph.Value, error) {
	switch x := v.(type) {
	case graph.Unknown:
		return resolveUnknown(x, lookup)
	case []graph.Value:
		if !graph.HasUnknown(x) {
			return x, nil
		}
		out := make([]graph.Value, len(x))
		for i, e := range x {
			r, err := Resolve(e, lookup)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]graph.Value:
		if !graph.HasUnknown(x) {
			return x, nil
		}
		out := make(map[string]graph.Value, len(x))
		for k, e := range x {
			r, err := Resolve(e, lookup)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// ResolveMap resolves every value of m (see Resolve); a nil map stays nil.
func ResolveMap(m map[string]graph.Value, lookup Lookup) (map[string]graph.Value, error) {
	if m == nil {
		return nil, nil
	}
	r, err := Resolve(m, lookup)
	if err != nil {
		return nil, err
	}
	return r.(map[string]graph.Value), nil
}

func resolveUnknown(u graph.Unknown, lookup Lookup) (graph.Value, error) {
	args := make([]graph.Value, len(u.Args))
	for i, a := range u.Args {
		r, err := Resolve(a, lookup)
		if err != nil {
			return nil, err
		}
		args[i] = r
	}
	switch u.Func {
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
			if len(args) != 4 {
				return nil, fmt.Errorf("%w: %s needs address, interface, operation and output", ErrUnresolved, u)
			}
			name, _ := args[3].(string)
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
		if len(args) < 1 || len(args) > 2 {
			return nil, fmt.Errorf("%w: %s takes a list and an optional delimiter", ErrUnresolved, u)
		}
		list, ok := args[0].([]graph.Value)
		if !ok {
			return nil, fmt.Errorf("%w: %s: the first argument is not a list", ErrUnresolved, u)
		}
		delim := ""
		if len(args) == 2 {
			delim = graph.Text(args[1])
		}
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = graph.Text(e)
		}
		return strings.Join(parts, delim), nil
	case "token":
		if len(args) != 3 {
			return nil, fmt.Errorf("%w: %s takes a string, separators and an index", ErrUnresolved, u)
		}
		s, seps := graph.Text(args[0]), graph.Text(args[1])
		idx, ok := args[2].(int64)
		if !ok {
			if f, isF := args[2].(float64); isF && f == math.Trunc(f) {
				idx, ok = int64(f), true
			}
		}
		if !ok || idx < 0 {
			return nil, fmt.Errorf("%w: %s: the index is not a non-negative integer", ErrUnresolved, u)
		}
		parts := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
		if idx >= int64(len(parts)) {
			return nil, fmt.Errorf("%w: %s: %q has %d tokens, no token %d", ErrUnresolved, u, s, len(parts), idx)
		}
		return parts[idx], nil
	}
	return nil, fmt.Errorf("%w: unknown function %q", ErrUnresolved, u.Func)
}

// attributeValue walks path into the first place that has its first
// element: reported attributes, enacted properties, capability properties.
func attributeValue(rec *state.Resource, path []graph.Value) graph.Value {
	first, _ := path[0].(string)
	if v, ok := rec.Feedback.Attributes[first]; ok {
		return walkPath(v, path[1:])
	}
	spec := rec.Feedback.Resolved
	if spec == nil {
		spec = rec.Spec
	}
	if props, ok := spec["properties"].(map[string]graph.Value); ok {
		if v, ok := props[first]; ok {
			return walkPath(v, path[1:])
		}
	}
	if caps, ok := spec["capabilities"].(map[string]graph.Value); ok && len(path) > 1 {
		if c, ok := caps[first].(map[string]graph.Value); ok {
			if props, ok := c["properties"].(map[string]graph.Value); ok {
				name, _ := path[1].(string)
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
	return anyLeaf(v, func(l graph.Value) bool {
		u, ok := l.(graph.Unknown)
		if !ok {
			return false
		}
		if slices.ContainsFunc(u.Args, func(e graph.Value) bool { return readsSecret(e, lookup) }) {
			return true
		}
		if u.Func != "attribute" || len(u.Args) < 2 {
			return false
		}
		addr, _ := u.Args[0].(string)
		rec, ok := lookup(addr)
		if !ok || len(rec.Sensitive) == 0 {
			return false
		}
		parts := make([]string, 0, len(u.Args)-1)
		for _, a := range u.Args[1:] {
			parts = append(parts, graph.Text(a))
		}
		path := strings.Join(parts, ".")
		candidates := []string{path, "properties." + path}
		if len(parts) > 1 {
			candidates = append(candidates, "capabilities."+parts[0]+".properties."+strings.Join(parts[1:], "."))
		}
		for _, p := range rec.Sensitive {
			for _, c := range candidates {
				if c == p || strings.HasPrefix(c, p+".") || strings.HasPrefix(p, c+".") {
					return true
				}
			}
		}
		return false
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
