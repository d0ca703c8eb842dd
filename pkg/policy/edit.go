package policy

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// edit is one value a policy sets on a declared resource.
type edit struct {
	setting
	policy graph.Policy
}

// edits gathers the values the policies' outputs set, by address, in
// policy order. Two policies that set one path of a resource (or one a
// path inside the other's) is CodeSetConflict: a field has one owner, and
// which value wins cannot depend on the order the policies run in.
func (d *deriver) edits(outputs map[string]output) (map[string][]edit, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := map[string][]edit{}
	for _, p := range d.policies {
		for _, s := range outputs[p.Name].sets {
			for _, prev := range out[s.address] {
				if pathsOverlap(prev.path, s.path) {
					diags = diags.Errorf(p.Range, "", CodeSetConflict,
						"model policies %s and %s both set %s of %s (%s sets %s, %s sets %s): a value has one owner; let one policy set it, or have the other read it",
						prev.policy.Name, p.Name, s.path, s.address, prev.policy.Name, graph.Render(prev.value), p.Name, graph.Render(s.value))
				}
			}
			out[s.address] = append(out[s.address], edit{setting: s, policy: p})
		}
	}
	return out, diags
}

// applyEdits returns a copy of the declared resource r with the values
// es set: each where r's spec, as the configuration gives it, holds no
// value (null counts as none), or everywhere when the policy overrides;
// SetByPolicy names the policy of each value set. r itself is left alone.
// A path through a value that is not a map is a CodeBadOutput of its
// policy.
func applyEdits(r *graph.Resource, es []edit) (*graph.Resource, *diag.Diagnostic) {
	c := *r
	c.Spec = cloneMap(r.Spec)
	c.SetByPolicy = maps.Clone(r.SetByPolicy)
	for _, e := range slices.SortedFunc(slices.Values(es), func(a, b edit) int { return cmp.Compare(a.path, b.path) }) {
		if !e.override && valueAt(r.Spec, e.keys) != nil {
			continue
		}
		m := c.Spec
		for i, k := range e.keys[:len(e.keys)-1] {
			next, ok := m[k].(map[string]graph.Value)
			if !ok {
				if m[k] != nil {
					return r, policyProblem(e.policy, CodeBadOutput, "policy %s sets %s of %s, but %s is %s, not a map", e.policy.Name, e.path, r.Address, strings.Join(e.keys[:i+1], "."), kindOf(m[k]))
				}
				next = map[string]graph.Value{}
				m[k] = next
			}
			m = next
		}
		m[e.keys[len(e.keys)-1]] = e.value
		if c.SetByPolicy == nil {
			c.SetByPolicy = map[string]string{}
		}
		c.SetByPolicy[e.path] = e.policy.Name
	}
	return &c, nil
}

// valueAt returns the value at keys in spec, nil when there is none.
func valueAt(spec map[string]graph.Value, keys []string) graph.Value {
	var v graph.Value = spec
	for _, k := range keys {
		m, ok := v.(map[string]graph.Value)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// cloneMap copies the maps of a spec, deeply, so that setting a value in
// the copy leaves the original alone; lists and scalars are shared (never
// written).
func cloneMap(m map[string]graph.Value) map[string]graph.Value {
	out := make(map[string]graph.Value, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]graph.Value); ok {
			v = cloneMap(sub)
		}
		out[k] = v
	}
	return out
}
