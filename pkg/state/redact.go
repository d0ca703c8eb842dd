package state

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// SensitiveMarker replaces a sensitive value wherever Redacted shows a
// resource.
const SensitiveMarker = "(sensitive value)"

// Redacted returns a copy of r whose values at the Sensitive paths of
// Spec and of Feedback.Resolved, at the paths "attributes.<name>…" of
// Feedback.Attributes (what operation outputs set), at the paths
// "relationships.<requirement>.<index>.attributes.<name>…" of the
// attributes of Feedback.Relationships, and whose operation inputs named
// in each operation's Sensitive list, read SensitiveMarker. Paths are dot-joined
// map keys and list indexes, relative to the spec; a key may hold dots
// itself (Tonomi's "configuration.password"). r is not modified; the
// copy shares the parts that hold nothing sensitive.
func (r *Resource) Redacted() Resource {
	out := *r
	out.Driver = redactDriver(r.Driver)
	if len(r.Sensitive) == 0 {
		return out
	}
	out.Spec = redactMap(r.Spec, r.Sensitive)
	out.Feedback.Resolved = redactMap(r.Feedback.Resolved, r.Sensitive)
	out.Feedback.Attributes = redactMap(r.Feedback.Attributes, AttributePaths(r.Sensitive))
	cloned := false
	for i, rel := range r.Feedback.Relationships {
		paths := RelationshipAttributePaths(r.Sensitive, rel.Requirement, rel.Index)
		if len(paths) == 0 || len(rel.Attributes) == 0 {
			continue
		}
		if !cloned {
			out.Feedback.Relationships, cloned = slices.Clone(r.Feedback.Relationships), true
		}
		out.Feedback.Relationships[i].Attributes = redactMap(rel.Attributes, paths)
	}
	return out
}

// RelationshipAttributePaths returns the paths of the Attributes of the
// relationship of requirement req, index idx, that the sensitive spec
// paths name (graph.RelationshipPath).
func RelationshipAttributePaths(sensitive []string, req string, idx int) []string {
	prefix := graph.RelationshipPath(req, idx, "")
	var out []string
	for _, p := range sensitive {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			out = append(out, rest)
		}
	}
	return out
}

// AttributePaths returns the paths of Feedback.Attributes that the
// sensitive spec paths name ("attributes.token" names "token").
func AttributePaths(sensitive []string) []string {
	var out []string
	for _, p := range sensitive {
		if rest, ok := strings.CutPrefix(p, "attributes."); ok {
			out = append(out, rest)
		}
	}
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
		v = redactPath(v, p)
	}
	return v.(map[string]graph.Value)
}

// redactPath copies the containers along path and replaces its end. A map
// key may itself hold dots (Tonomi's "configuration.password"), so every
// key that path starts with is followed.
func redactPath(v graph.Value, path string) graph.Value {
	switch x := v.(type) {
	case map[string]graph.Value:
		var out map[string]graph.Value
		for k, e := range x {
			var w graph.Value
			switch {
			case path == k:
				w = SensitiveMarker
			case strings.HasPrefix(path, k+"."):
				w = redactPath(e, path[len(k)+1:])
			default:
				continue
			}
			if out == nil {
				out = maps.Clone(x)
			}
			out[k] = w
		}
		if out == nil {
			return v
		}
		return out
	case []graph.Value:
		head, rest, nested := strings.Cut(path, ".")
		i, err := strconv.Atoi(head)
		if err != nil || i < 0 || i >= len(x) {
			return v
		}
		out := slices.Clone(x)
		if nested {
			out[i] = redactPath(x[i], rest)
		} else {
			out[i] = SensitiveMarker
		}
		return out
	}
	return v
}
