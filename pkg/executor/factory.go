package executor

import (
	"maps"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// A factory (a Tonomi scripted.ComponentFactory) publishes the instances
// of the components that name it; the walk computes that signal from
// their records, whichever driver runs them.

// FactoryInstances returns the factory.instances mapping of the factory
// at factoryAddress: natural id → synthetic instance id of every recorded
// component whose driver names that factory. The walk publishes it
// as the factory's SignalFactoryInstances signal, where references of
// other factories' components resolve.
func FactoryInstances(recorded []state.Resource, factoryAddress string) map[string]graph.Value {
	out := map[string]graph.Value{}
	for _, r := range recorded {
		if r.Feedback.InstanceID == "" || factoryOf(r.Driver) != factoryAddress {
			continue
		}
		id, _ := r.Feedback.Extra[ExtraInstanceID].(string)
		if id == "" {
			id = driver.InstanceID(r.Address)
		}
		out[r.Feedback.InstanceID] = id
	}
	return out
}

// factoryOf returns the address of the factory a component's driver
// names (OptionFactoryAddress: pkg/manifest writes it for scripted
// components only), or "".
func factoryOf(d graph.Driver) string {
	fa, _ := d.Options[OptionFactoryAddress].(string)
	return fa
}

// withInstances returns a copy of the factory record f whose Signals hold
// its SignalFactoryInstances mapping, computed from members (the records
// of its components): no script of the factory reports it.
func withInstances(f *state.Resource, members []state.Resource) *state.Resource {
	c := *f
	c.Feedback.Signals = maps.Clone(c.Feedback.Signals)
	if c.Feedback.Signals == nil {
		c.Feedback.Signals = map[string]graph.Value{}
	}
	c.Feedback.Signals[SignalFactoryInstances] = FactoryInstances(members, f.Address)
	return &c
}

// StateLookup returns a Lookup over the records of st, as the walk's own
// lookup reads them: a factory comes with its SignalFactoryInstances
// signal, computed from the recorded components that name it.
func StateLookup(st *state.State) Lookup {
	if st == nil {
		return func(string) (*state.Resource, bool) { return nil, false }
	}
	byAddr := make(map[string]*state.Resource, len(st.Resources))
	members := map[string][]state.Resource{}
	for i := range st.Resources {
		r := &st.Resources[i]
		byAddr[r.Address] = r
		if fa := factoryOf(r.Driver); fa != "" {
			members[fa] = append(members[fa], *r)
		}
	}
	return func(addr string) (*state.Resource, bool) {
		r, ok := byAddr[addr]
		if ok && len(members[addr]) > 0 {
			return withInstances(r, members[addr]), true
		}
		return r, ok
	}
}

// scriptFactory returns the factory at addr as its components' scripts
// see it now: with its factory.instances signal (lookup computes it), and
// its spec resolved again through lookup, so that a consume-signal pin
// bound to another factory's factory.instances maps the instances
// recorded now rather than those of the factory's last apply: a reference
// resolves as soon as its mapping has arrived. A spec that cannot be
// resolved keeps the resolution recorded. Nil when addr is not recorded.
func scriptFactory(addr string, lookup Lookup) *state.Resource {
	f, ok := lookup(addr)
	if !ok {
		return nil
	}
	c := *f
	if graph.HasUnknown(f.Spec) {
		if resolved, err := ResolveMap(f.Spec, lookup); err == nil {
			c.Feedback.Resolved = resolved
		}
	}
	return &c
}
