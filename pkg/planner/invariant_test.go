package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// randomCase builds a random DAG (edges only to lower indices), a state
// that records a random subset (some with other specs, some failed, some
// no longer configured) and random options.
func randomCase(r *rand.Rand) (*graph.Graph, *state.State, Options) {
	n := 2 + r.IntN(25)
	g := graph.New()
	st := &state.State{Version: 1, Serial: 1, Lineage: "x"}
	name := func(i int) string { return fmt.Sprintf("r%02d", i) }
	drivers := []graph.Driver{{Name: graph.DriverNoop}, {Name: graph.DriverExec},
		{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.configure": {}}}}
	kinds := []graph.EdgeKind{graph.HostedOn, graph.DependsOn, graph.ConnectsTo}
	deps := make([][]string, n)
	configured := make([]bool, n)
	for i := range n {
		configured[i] = r.IntN(5) > 0
		for j := range i {
			if r.IntN(4) == 0 {
				deps[i] = append(deps[i], name(j))
			}
		}
	}
	for i := range n {
		spec := map[string]graph.Value{"v": int64(r.IntN(2))}
		for _, d := range deps[i] {
			if r.IntN(2) == 0 {
				spec["from_"+d] = graph.Unknown{Func: "attribute", Args: []graph.Value{d, "ip"}}
			}
		}
		drv := drivers[r.IntN(len(drivers))]
		if configured[i] {
			_ = g.AddResource(&graph.Resource{Address: name(i), Type: "t", Driver: drv, Spec: spec,
				Management: graph.Managed, CreateBeforeDestroy: r.IntN(6) == 0})
		}
		if r.IntN(3) > 0 {
			rec := map[string]graph.Value{"v": int64(r.IntN(2))}
			for k, v := range spec {
				if k != "v" {
					rec[k] = v
				}
			}
			code := state.BackendOK
			if r.IntN(8) == 0 {
				code = state.BackendError
			}
			st.Resources = append(st.Resources, state.Resource{Address: name(i), Type: "t", Management: graph.Managed,
				Driver: drv, Dependencies: deps[i], Spec: rec, Feedback: state.Feedback{BackendCode: code}})
		}
	}
	for i := range n {
		if !configured[i] {
			continue
		}
		for _, d := range deps[i] {
			var j int
			fmt.Sscanf(d, "r%d", &j)
			if configured[j] {
				_ = g.AddEdge(graph.Edge{Source: name(i), Target: d, Kind: kinds[r.IntN(len(kinds))]})
			}
		}
	}
	var opts Options
	opts.Destroy = r.IntN(5) == 0
	opts.CreateBeforeDestroy = r.IntN(5) == 0
	if r.IntN(4) == 0 {
		opts.Targets = []string{name(r.IntN(n))}
	}
	if r.IntN(4) == 0 {
		opts.Excludes = []string{name(r.IntN(n))}
	}
	if r.IntN(4) == 0 {
		opts.Replace = []string{name(r.IntN(n))}
	}
	return g, st, opts
}

// Whatever the input, a plan without errors orders its steps correctly,
// never deletes a resource that a remaining one depends on, and is
// deterministic.
func TestRandomPlansKeepInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 1000 {
		g, st, opts := randomCase(r)
		p, diags := Diff(context.Background(), g, st, opts)
		if p == nil {
			t.Fatalf("case %d: no plan: %v", k, diags)
		}
		checkInvariants(t, p)
		if t.Failed() {
			t.Fatalf("case %d: %s", k, describe(p, diags))
		}
		again, _ := Diff(context.Background(), g, st, opts)
		if again.PlanID != p.PlanID {
			t.Fatalf("case %d: plan not deterministic", k)
		}
		if diags.HasErrors() {
			continue
		}
		deleted := map[string]bool{}
		for _, c := range p.Changes {
			if c.Action == Delete {
				deleted[c.Address] = true
			}
		}
		for _, c := range p.Changes {
			if c.Action == Delete || c.Action == Forget {
				continue
			}
			for _, d := range c.Dependencies {
				if deleted[d] {
					t.Errorf("case %d: %s deleted while %s (%s) depends on it", k, d, c.Address, c.Action)
				}
			}
		}
		if t.Failed() {
			t.Logf("case %d: %s", k, describe(p, diags))
			return
		}
	}
}
