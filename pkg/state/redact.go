package state

import (
	"maps"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// SensitiveMarker replaces a sensitive value wherever Redacted shows a
// resource.
const SensitiveMarker = "(sensitive value)"

// Redacted returns a copy of r whose values at the Sensitive paths of
// Spec and of Feedback.Resolved, and whose operation inputs named in each
// operation's Sensitive list, read SensitiveMarker. Paths are dot-joined
// map keys and list indexes, relative to the spec. r is not modified; the
// copy shares the parts that hold nothing sensitive.
func (r *Resource) Redacted() Resource {
	out := *r
	out.Driver = redactDriver(r.Driver)
	if len(r.Sensitive) == 0 {
		return out
	}
	out.Spec = redactMap(r.Spec, r.Sensitive)
	out.Feedback.Resolved = redactMap(r.Feedback.Resolved, r.Sensitive)
	return out
}

// redactDriver masks the sensitive inputs of d's operations, copying only
// the operations that have some.
func redactDriver(d graph.Driver) graph.Driver {
	var ops map[string]graph.Operation
	for k, op := range d.Operations {
		if len(op.Sensitive) == 0 || len(op.Inputs) == 0 {
			continue
		}
		if ops == nil {
			ops = maps.Clone(d.Operations)
		}
		in := maps.Clone(op.Inputs)
		for _, name := range op.Sensitive {
			if _, ok := in[name]; ok {
				in[name] = SensitiveMarker
			}
		}
		op.Inputs = in
		ops[k] = op
	}
	if ops != nil {
		d.Operations = ops
	}
	return d
}

func redactMap(m map[string]graph.Value, paths []string) map[string]graph.Value {
	if m == nil {
		return nil
	}
	v := graph.Value(m)
	for _, p := range paths {
		v = redactPath(v, strings.Split(p, "."))
	}
	return v.(map[string]graph.Value)
}

// redactPath copies the containers along path and replaces its end.
func redactPath(v graph.Value, path []string) graph.Value {
	if len(path) == 0 {
		return SensitiveMarker
	}
	switch x := v.(type) {
	case map[string]graph.Value:
		e, ok := x[path[0]]
		if !ok {
			return v
		}
		out := make(map[string]graph.Value, len(x))
		for k, w := range x {
			out[k] = w
		}
		out[path[0]] = redactPath(e, path[1:])
		return out
	case []graph.Value:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(x) {
			return v
		}
		out := append([]graph.Value(nil), x...)
		out[i] = redactPath(x[i], path[1:])
		return out
	}
	return v
}
