package planview

import (
	"slices"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// The human views print addresses, types, keys and values that come from
// user files, state files and drivers. Rather than guard each of the many
// places that write them, Text, Markdown and StateText render a copy in
// which every control character of what they print is already a symbol
// (termsafe; safePlan says what a plan's views print), so that
// nothing a file holds can drive the reader's terminal; the views' own
// colours are added afterwards and stay escapes. A plan or state without
// control characters is used as it is, without copying. Strings keep their
// line feeds (multi-line values are shown line by line); keys and paths are
// converted alike, so that changed and sensitive paths still match. Two
// keys that differ only by a control character and its symbol would show
// as one: a display concern for adversarial input only, the JSON views
// show both.

// sanitizer converts text and remembers whether anything changed.
type sanitizer struct{ dirty bool }

// str converts one line of text. termsafe only ever lengthens what it
// converts, so an equal length means an unchanged string.
func (s *sanitizer) str(x string) string {
	y := termsafe.String(x)
	if len(y) != len(x) {
		s.dirty = true
	}
	return y
}

func (s *sanitizer) strs(xs []string) []string {
	var out []string
	for i, x := range xs {
		if y := s.str(x); len(y) != len(x) {
			if out == nil {
				out = slices.Clone(xs)
			}
			out[i] = y
		}
	}
	if out == nil {
		return xs
	}
	return out
}

func (s *sanitizer) values(m map[string]graph.Value) map[string]graph.Value {
	out, changed := safeMap(m)
	s.dirty = s.dirty || changed
	return out
}

// safeValue returns v with its strings converted, and whether anything
// changed; an unchanged value is v itself (not boxed again: rendering a
// clean plan allocates nothing here).
func safeValue(v graph.Value) (graph.Value, bool) {
	switch x := v.(type) {
	case string:
		if y := termsafe.Lines(x); len(y) != len(x) {
			return y, true
		}
	case map[string]graph.Value:
		if m, changed := safeMap(x); changed {
			return m, true
		}
	case []graph.Value:
		if l, changed := safeList(x); changed {
			return l, true
		}
	case graph.Unknown:
		var s sanitizer
		u := graph.Unknown{Func: s.str(x.Func), Args: x.Args}
		args, changed := safeList(x.Args)
		if changed || s.dirty {
			u.Args = args
			return u, true
		}
	}
	return v, false
}

// safeList converts the elements of l; l itself when nothing changes.
func safeList(l []graph.Value) ([]graph.Value, bool) {
	var out []graph.Value
	for i, e := range l {
		if y, changed := safeValue(e); changed {
			if out == nil {
				out = slices.Clone(l)
			}
			out[i] = y
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}

// safeMap converts the keys and values of m; m itself when nothing
// changes (nil stays nil: the views tell an absent map from an empty one).
func safeMap(m map[string]graph.Value) (map[string]graph.Value, bool) {
	changed := false
	for k, v := range m {
		if _, c := safeValue(v); c || len(termsafe.String(k)) != len(k) {
			changed = true
			break
		}
	}
	if !changed {
		return m, false
	}
	out := make(map[string]graph.Value, len(m))
	for k, v := range m {
		out[termsafe.String(k)], _ = safeValue(v)
	}
	return out, true
}

// safePlan returns p, or a copy of it with every printed text converted,
// and only those: what Text and Markdown do not print is left as it is.
//
// A no-op is printed only as a line of the placement summary when it is
// placed (placed): its address and placement are converted, the rest of it
// is not. No-ops are most of a large plan, and converting their values was
// most of the time Text and Markdown took. Nor are the plan's targets,
// exclusions and replacements, or a change's dependencies, printed. A view
// that comes to print more converts it here.
func safePlan(p *planner.Plan) *planner.Plan {
	q := *p
	var changes []planner.ResourceChange
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action == planner.NoOp && !isPlaced(c) {
			continue
		}
		var s sanitizer
		safe := *c
		safe.Address, safe.Placement = s.str(c.Address), s.placement(c.Placement)
		if c.Action != planner.NoOp {
			s.change(&safe)
		}
		if s.dirty {
			if changes == nil {
				changes = slices.Clone(p.Changes)
			}
			changes[i] = safe
		}
	}
	var drift []planner.ResourceDrift
	for i := range p.Drift {
		var s sanitizer
		d := p.Drift[i]
		d.Address, d.Type, d.Paths = s.str(d.Address), s.str(d.Type), s.strs(d.Paths)
		d.Before, d.After = s.values(d.Before), s.values(d.After)
		if s.dirty {
			if drift == nil {
				drift = slices.Clone(p.Drift)
			}
			drift[i] = d
		}
	}
	if changes == nil && drift == nil {
		return p
	}
	if changes != nil {
		q.Changes = changes
	}
	if drift != nil {
		q.Drift = drift
	}
	return &q
}

// change converts the texts of a change shown in full that the views
// print or match printed paths against, but for its address and placement
// (safePlan).
func (s *sanitizer) change(c *planner.ResourceChange) {
	c.Type, c.PriorType = s.str(c.Type), s.str(c.PriorType)
	c.ChangedPaths, c.ReasonPaths, c.ForcedBy = s.strs(c.ChangedPaths), s.strs(c.ReasonPaths), s.strs(c.ForcedBy)
	c.OperationPaths, c.Sensitive = s.strs(c.OperationPaths), s.strs(c.Sensitive)
	c.Before, c.After = s.values(c.Before), s.values(c.After)
}

// placement converts a placement decision's query, provider names and
// resource classes; nil stays nil.
func (s *sanitizer) placement(pd *planner.PlacementDecision) *planner.PlacementDecision {
	if pd == nil {
		return nil
	}
	safe := *pd
	safe.Query = s.str(pd.Query)
	safe.Allocations = s.allocations(pd.Allocations)
	return &safe
}

// allocations converts provider names and resource classes.
func (s *sanitizer) allocations(as []state.Allocation) []state.Allocation {
	var out []state.Allocation
	for i, a := range as {
		var one sanitizer
		safe := state.Allocation{Provider: one.str(a.Provider), Resources: a.Resources}
		for rc := range a.Resources {
			one.str(rc)
		}
		if !one.dirty {
			continue
		}
		safe.Resources = make(map[string]int64, len(a.Resources))
		for rc, n := range a.Resources {
			safe.Resources[termsafe.String(rc)] = n
		}
		if out == nil {
			out = slices.Clone(as)
		}
		out[i] = safe
		s.dirty = true
	}
	if out == nil {
		return as
	}
	return out
}

// safeState returns st, or a copy of it with every printed text converted.
func safeState(st *state.State) *state.State {
	if st == nil {
		return nil
	}
	var top sanitizer
	q := *st
	q.Lineage = top.str(st.Lineage)
	var resources []state.Resource
	for i := range st.Resources {
		var s sanitizer
		r := st.Resources[i]
		r.Address, r.Type = s.str(r.Address), s.str(r.Type)
		r.Dependencies, r.Sensitive = s.strs(r.Dependencies), s.strs(r.Sensitive)
		r.Spec = s.values(r.Spec)
		fb := &r.Feedback
		fb.Attributes, fb.Signals = s.values(fb.Attributes), s.values(fb.Signals)
		fb.InstanceID, fb.BackendStatus = s.str(fb.InstanceID), s.str(fb.BackendStatus)
		if s.dirty {
			if resources == nil {
				resources = slices.Clone(st.Resources)
			}
			resources[i] = r
		}
	}
	if !top.dirty && resources == nil {
		return st
	}
	if resources != nil {
		q.Resources = resources
	}
	return &q
}
