package core

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// NoteSecret records the value at path as secret when secret reads rose
// above before while it was evaluated.
func (c *Session) NoteSecret(path string, before int) {
	if c.SecretReads == before {
		return
	}
	if c.SecretAt == nil {
		c.SecretAt = map[string]bool{}
	}
	c.SecretAt[path] = true
}

// SpreadSecrets marks as secret what reads a secret of another resource
// only at apply time: a spec value or an operation input holding an
// attribute reference to a sensitive path, and likewise an output. A
// resource that gains a secret has the resources that read it checked
// again, so that a chain of references is followed whatever the order of
// the resources, each resource checked once more per secret it gains.
func (c *Session) SpreadSecrets(g *graph.Graph, secretOutputs map[string]bool) {
	all := g.Resources()
	if !slices.ContainsFunc(all, func(r *graph.Resource) bool { return len(r.Sensitive) > 0 }) {
		// Nothing to read a secret from.
		return
	}
	readers := map[string][]*graph.Resource{}
	// Only a value known at apply time (an unknown) may read a secret:
	// the resources without any are not queued (most of a large
	// template), and their sensitive paths are only put in order, as
	// spreadInto does.
	queue := all[:0:0]
	for _, r := range all {
		addrs, unknown := attributeReads(r)
		for _, addr := range addrs {
			readers[addr] = append(readers[addr], r)
		}
		if unknown {
			queue = append(queue, r)
		} else {
			slices.Sort(r.Sensitive)
		}
	}
	for len(queue) > 0 {
		if c.Ctx.Err() != nil {
			return
		}
		r := queue[0]
		queue = queue[1:]
		if spreadInto(g, r) {
			queue = append(queue, readers[r.Address]...)
		}
	}
	for name, v := range g.Outputs {
		if !secretOutputs[name] && readsSecret(g, v) {
			secretOutputs[name] = true
		}
	}
}

// AttributeReads returns the addresses whose attributes r's spec and
// operation inputs read (attribute(address, …) unknowns), sorted, each
// once.
func AttributeReads(r *graph.Resource) []string {
	addrs, _ := attributeReads(r)
	return addrs
}

// attributeReads is AttributeReads, and whether r's spec or operation
// inputs hold any unknown value.
func attributeReads(r *graph.Resource) ([]string, bool) {
	var w readsWalk
	w.walk(r.Spec)
	for _, op := range r.Driver.Operations {
		w.walk(op.Inputs)
	}
	slices.Sort(w.addrs)
	return slices.Compact(w.addrs), w.unknown
}

// readsWalk collects what attributeReads returns (a method rather than a
// recursive closure, which would be allocated for each resource).
type readsWalk struct {
	addrs   []string
	unknown bool
}

func (w *readsWalk) walk(v graph.Value) {
	switch x := v.(type) {
	case graph.Unknown:
		w.unknown = true
		// A relationship's attribute is recorded with its source.
		relAttr := x.Func == "get_attribute" && len(x.Args) > 1 && x.Args[1] == "RELATIONSHIP"
		if addr, ok := FirstArg(x); ok && (x.Func == "attribute" || relAttr) {
			w.addrs = append(w.addrs, addr)
		}
		for _, a := range x.Args {
			w.walk(a)
		}
	case []graph.Value:
		for _, e := range x {
			w.walk(e)
		}
	case map[string]graph.Value:
		for _, e := range x {
			w.walk(e)
		}
	}
}

// spreadInto marks the values of r that read a secret of g; it reports
// whether r's spec gained a sensitive path.
func spreadInto(g *graph.Graph, r *graph.Resource) bool {
	gained := false
	mark := func(v graph.Value, path ...string) {
		if !readsSecret(g, v) {
			return
		}
		if p := strings.Join(path, "."); !slices.Contains(r.Sensitive, p) {
			r.Sensitive = append(r.Sensitive, p)
			gained = true
		}
	}
	for _, top := range []string{"properties", "attributes"} {
		m, _ := r.Spec[top].(map[string]graph.Value)
		for k, v := range m {
			mark(v, top, k)
		}
	}
	caps, _ := r.Spec["capabilities"].(map[string]graph.Value)
	for name, cv := range caps {
		props, _ := cv.(map[string]graph.Value)["properties"].(map[string]graph.Value)
		for k, v := range props {
			mark(v, "capabilities", name, "properties", k)
		}
	}
	slices.Sort(r.Sensitive)
	for key, op := range r.Driver.Operations {
		for name, v := range op.Inputs {
			if readsSecret(g, v) && !slices.Contains(op.Sensitive, name) {
				op.Sensitive = append(op.Sensitive, name)
				slices.Sort(op.Sensitive)
				r.Driver.Operations[key] = op
			}
		}
	}
	return gained
}

// readsSecret reports whether v reads a sensitive path of a resource of
// g at apply time (graph.ReadsSensitive).
func readsSecret(g *graph.Graph, v graph.Value) bool {
	return graph.ReadsSensitive(v, func(addr string) []string {
		if r, ok := g.Resource(addr); ok {
			return r.Sensitive
		}
		return nil
	})
}

// FirstArg is the first argument of u when it is a string.
func FirstArg(u graph.Unknown) (string, bool) {
	if len(u.Args) == 0 {
		return "", false
	}
	s, ok := u.Args[0].(string)
	return s, ok
}

// MetaSensitive reports whether a definition's metadata says
// sensitive: true (a Boolean, or the text "true" in any case).
func MetaSensitive(n *yamlsrc.Node) bool {
	s := n.Get("metadata").Get("sensitive")
	if s == nil {
		return false
	}
	b, ok := s.Bool()
	return (ok && b) || strings.EqualFold(s.Value, "true")
}
