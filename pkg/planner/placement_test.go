package planner

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// smallCloud: h1 and h2 with 4 VCPU and 8192 MB each; h1 has AVX2 and is
// in rack1, h2 in rack2.
func smallCloud(t testing.TB) *placement.Model {
	t.Helper()
	m := placement.NewModel()
	for _, p := range []placement.ProviderSpec{
		{Name: "h1", Traits: []string{"HW_CPU_X86_AVX2"}, Aggregates: []string{"rack1"}},
		{Name: "h2", Aggregates: []string{"rack2"}},
	} {
		p.Inventories = map[string]placement.Inventory{"VCPU": placement.DefaultInventory(4), "MEMORY_MB": placement.DefaultInventory(8192)}
		if err := m.AddProvider(p); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func computeRes(addr string, vcpu int64, required ...string) *graph.Resource {
	return &graph.Resource{Address: addr, Type: "tosca.nodes.Compute", Driver: graph.Driver{Name: graph.DriverNoop},
		Spec: map[string]graph.Value{"cpus": vcpu}, Management: graph.Managed,
		Request: &graph.PlacementRequest{Resources: map[string]int64{"VCPU": vcpu, "MEMORY_MB": 1024}, Required: required}}
}

func recordedCompute(addr string, vcpu int64, allocs ...state.Allocation) state.Resource {
	return state.Resource{Address: addr, Type: "tosca.nodes.Compute", Management: graph.Managed,
		Driver: graph.Driver{Name: graph.DriverNoop}, Spec: map[string]graph.Value{"cpus": vcpu},
		Feedback: state.Feedback{BackendCode: state.BackendOK, Allocations: allocs}}
}

func alloc(p string, vcpu int64) state.Allocation {
	return state.Allocation{Provider: p, Resources: map[string]int64{"VCPU": vcpu, "MEMORY_MB": 1024}}
}

func TestPlacement(t *testing.T) {
	type want struct {
		providers map[string]string // address -> providers joined by ","; "" for none
		kept      []string
		codes     []string // diagnostic codes
		detail    []string // substrings of the diagnostics' details
	}
	cases := []struct {
		name   string
		res    []*graph.Resource
		prior  []state.Resource
		shared bool // use the model as a shared Service (no claims)
		want   want
	}{
		{
			name: "capacity consumed across resources",
			res:  []*graph.Resource{computeRes("a", 2), computeRes("b", 2), computeRes("c", 2)},
			want: want{providers: map[string]string{"a": "h1", "b": "h1", "c": "h2"}},
		},
		{
			name:   "shared service keeps its own tally",
			res:    []*graph.Resource{computeRes("a", 2), computeRes("b", 2), computeRes("c", 2)},
			shared: true,
			want:   want{providers: map[string]string{"a": "h1", "b": "h1", "c": "h2"}},
		},
		{
			name: "required trait",
			res:  []*graph.Resource{computeRes("a", 3, "HW_CPU_X86_AVX2"), computeRes("b", 2, "HW_CPU_X86_AVX2")},
			want: want{providers: map[string]string{"a": "h1", "b": ""}, codes: []string{CodeUnplaceable},
				detail: []string{"capacity excluded 1 provider(s):\n  h1: VCPU: 2 requested, 1 free of capacity 4", "trait excluded 1 provider(s):\n  h2: lacks required trait(s) HW_CPU_X86_AVX2"}},
		},
		{
			name:   "shared service failure counts its candidates",
			res:    []*graph.Resource{computeRes("a", 4), computeRes("b", 4), computeRes("c", 4)},
			shared: true,
			want: want{providers: map[string]string{"a": "h1", "b": "h2", "c": ""}, codes: []string{CodeUnplaceable},
				detail: []string{"offered 2 candidates"}},
		},
		{
			name:  "unchanged resources keep their placement and count as usage",
			res:   []*graph.Resource{computeRes("a", 3), computeRes("b", 2)},
			prior: []state.Resource{recordedCompute("a", 3, alloc("h1", 3))},
			want:  want{providers: map[string]string{"a": "h1", "b": "h2"}, kept: []string{"a"}},
		},
		{
			name:  "what a deleted resource held is free for the others",
			res:   []*graph.Resource{computeRes("b", 4), computeRes("c", 4)},
			prior: []state.Resource{recordedCompute("a", 4, alloc("h1", 4))},
			want:  want{providers: map[string]string{"b": "h1", "c": "h2"}},
		},
		{
			// The service offers nothing on a provider that is full now.
			name:   "shared service: what a deleted resource holds is not reused",
			res:    []*graph.Resource{computeRes("b", 4), computeRes("c", 4)},
			prior:  []state.Resource{recordedCompute("a", 4, alloc("h1", 4))},
			shared: true,
			want: want{providers: map[string]string{"b": "h2", "c": ""}, codes: []string{CodeUnplaceable},
				detail: []string{"offered 1 candidates"}},
		},
		{
			name:  "a resized resource is placed again",
			res:   []*graph.Resource{computeRes("a", 4)},
			prior: []state.Resource{recordedCompute("a", 1, alloc("h1", 1))},
			// Its own old claim is replaced, so h1 still has room.
			want: want{providers: map[string]string{"a": "h1"}},
		},
		{
			name:  "a stale recorded allocation is kept with a warning",
			res:   []*graph.Resource{computeRes("a", 1)},
			prior: []state.Resource{recordedCompute("a", 1, alloc("gone", 1))},
			want:  want{providers: map[string]string{"a": "gone"}, kept: []string{"a"}, codes: []string{CodeAllocationStale}},
		},
		{
			name: "no resources",
			res: []*graph.Resource{{Address: "x", Type: "t", Driver: graph.Driver{Name: graph.DriverNoop}, Management: graph.Managed,
				Request: &graph.PlacementRequest{Required: []string{"HW_CPU_X86_AVX2"}}}},
			want: want{providers: map[string]string{"x": ""}, codes: []string{CodePlacementRequest}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := graph.New()
			for _, r := range tc.res {
				if err := g.AddResource(r); err != nil {
					t.Fatal(err)
				}
			}
			st := &state.State{Version: 1, Serial: 1, Lineage: "L", Resources: tc.prior}
			opts := &PlacementOptions{Model: smallCloud(t)}
			if tc.shared {
				// A shared service already holds what apply claimed.
				m := smallCloud(t)
				SeedAllocations(m, st)
				opts = &PlacementOptions{Service: m}
			}
			p, diags := Diff(context.Background(), g, st, Options{Placement: opts})
			if p == nil {
				t.Fatalf("no plan: %v", diags)
			}
			var codes, details []string
			for _, d := range diags {
				codes = append(codes, d.Code)
				details = append(details, d.Detail)
			}
			if !reflect.DeepEqual(codes, tc.want.codes) {
				t.Errorf("codes %q, want %q (%v)", codes, tc.want.codes, diags)
			}
			for _, sub := range tc.want.detail {
				if !strings.Contains(strings.Join(details, "\n"), sub) {
					t.Errorf("details %q lack %q", details, sub)
				}
			}
			var kept []string
			for addr, w := range tc.want.providers {
				c, ok := p.Change(addr)
				if !ok {
					t.Fatalf("no change for %s", addr)
				}
				var got []string
				if c.Placement != nil {
					for _, a := range c.Placement.Allocations {
						got = append(got, a.Provider)
					}
					if c.Placement.Kept {
						kept = append(kept, addr)
					}
				}
				if strings.Join(got, ",") != w {
					t.Errorf("%s placed on %q, want %q", addr, got, w)
				}
			}
			if fmt.Sprint(kept) != fmt.Sprint(tc.want.kept) {
				t.Errorf("kept %v, want %v", kept, tc.want.kept)
			}
		})
	}
}

// TestPlacementPinnedInPlanFile: the decision survives the plan file.
func TestPlacementPinnedInPlanFile(t *testing.T) {
	g := graph.New()
	if err := g.AddResource(computeRes("a", 2, "HW_CPU_X86_AVX2")); err != nil {
		t.Fatal(err)
	}
	p, diags := Diff(context.Background(), g, nil, Options{Placement: &PlacementOptions{Model: smallCloud(t)}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c, _ := fileRoundTrip(t, p).Change("a")
	want := &PlacementDecision{Allocations: []state.Allocation{alloc("h1", 2)}, Query: "resources=MEMORY_MB:1024,VCPU:2&required=HW_CPU_X86_AVX2"}
	if !reflect.DeepEqual(c.Placement, want) {
		t.Fatalf("decoded placement %+v, want %+v", c.Placement, want)
	}
}

// TestPlacementDeterministic: the same inputs give byte-identical plans.
func TestPlacementDeterministic(t *testing.T) {
	var first []byte
	for i := 0; i < 5; i++ {
		g := graph.New()
		for j := 0; j < 6; j++ {
			_ = g.AddResource(computeRes(fmt.Sprintf("vm%d", j), 1))
		}
		p, _ := Diff(context.Background(), g, nil, Options{Placement: &PlacementOptions{Model: smallCloud(t)}})
		var buf bytes.Buffer
		if err := Encode(&buf, p); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = buf.Bytes()
		} else if !bytes.Equal(first, buf.Bytes()) {
			t.Fatal("plans differ between runs")
		}
	}
}

// BenchmarkPlacement1000on10000 plans 1,000 compute resources onto a flat
// cloud of 10,000 hosts with the embedded model (the planner path: query,
// first candidate, claim in the plan's model).
func BenchmarkPlacement1000on10000(b *testing.B) {
	g := graph.New()
	for i := 0; i < 1000; i++ {
		r := computeRes(fmt.Sprintf("vm%04d", i), 8)
		r.Request.Resources = map[string]int64{"VCPU": 8, "MEMORY_MB": 32768, "DISK_GB": 100}
		_ = g.AddResource(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m := placement.NewModel()
		for i := 0; i < 10000; i++ {
			_ = m.AddProvider(placement.ProviderSpec{Name: fmt.Sprintf("cn%05d", i), Aggregates: []string{fmt.Sprintf("agg%d", i%10)},
				Inventories: map[string]placement.Inventory{
					"VCPU": {Total: 32, MinUnit: 1, MaxUnit: 32, StepSize: 1, AllocationRatio: 4}, "MEMORY_MB": placement.DefaultInventory(131072),
					"DISK_GB": placement.DefaultInventory(2000)}})
		}
		b.StartTimer()
		p, diags := Diff(context.Background(), g, nil, Options{Placement: &PlacementOptions{Model: m}})
		if diags.HasErrors() || p.Changes[999].Placement == nil {
			b.Fatal(diags)
		}
	}
}

// TestClaimer drives apply-time claims against the embedded model.
func TestClaimer(t *testing.T) {
	ctx := context.Background()
	decision := func(p string, n int64) *PlacementDecision {
		return &PlacementDecision{Allocations: []state.Allocation{alloc(p, n)}, Query: "resources=MEMORY_MB:1024,VCPU:" + fmt.Sprint(n)}
	}
	held := func(m *placement.Model, addr string) string {
		a := m.Allocations(ConsumerID("L", addr))
		if !a.Exists {
			return "-"
		}
		return fmt.Sprint(FromPlacementAllocations(a.Allocations))
	}

	t.Run("pinned claim", func(t *testing.T) {
		m := smallCloud(t)
		c := NewClaimer(m, "L")
		got, err := c.Claim(ctx, "a", decision("h2", 2), nil)
		if err != nil || got[0].Provider != "h2" || held(m, "a") != fmt.Sprint([]state.Allocation{alloc("h2", 2)}) {
			t.Fatalf("%v %v %s", got, err, held(m, "a"))
		}
		// A retried action does not claim twice.
		if _, err := c.Claim(ctx, "a", decision("h2", 2), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("conflict re-places once", func(t *testing.T) {
		m := smallCloud(t)
		// Someone else took h1 since the plan was made.
		if err := m.PutAllocations("intruder", placement.Allocations{"h1": {"VCPU": 4}}, placement.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		c := NewClaimer(m, "L")
		got, err := c.Claim(ctx, "a", decision("h1", 2), nil)
		if err != nil || got[0].Provider != "h2" {
			t.Fatalf("re-placed on %v, %v; want h2", got, err)
		}
		if h, _ := c.Held("a"); h[0].Provider != "h2" {
			t.Fatalf("held %v", h)
		}
		// Never silently: the re-placement is reported.
		if errs := c.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "a: the planned placement no longer fits") || !strings.HasSuffix(errs[0].Error(), "re-placed on h2") {
			t.Fatalf("notes %v", errs)
		}
	})
	t.Run("conflict with nowhere to go fails cleanly", func(t *testing.T) {
		m := smallCloud(t)
		for _, h := range []string{"h1", "h2"} {
			if err := m.PutAllocations("x-"+h, placement.Allocations{h: {"VCPU": 3}}, placement.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.PutAllocations(ConsumerID("L", "a"), placement.Allocations{"h1": {"VCPU": 1}}, placement.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		c := NewClaimer(m, "L")
		_, err := c.Claim(ctx, "a", decision("h2", 2), []state.Allocation{{Provider: "h1", Resources: map[string]int64{"VCPU": 1}}})
		if err == nil || !strings.Contains(err.Error(), "re-placing failed") {
			t.Fatalf("err = %v", err)
		}
		// It holds what it held before.
		if got := held(m, "a"); got != fmt.Sprint([]state.Allocation{{Provider: "h1", Resources: map[string]int64{"VCPU": 1}}}) {
			t.Fatalf("holds %s", got)
		}
	})
	t.Run("leftover of an interrupted apply is taken over", func(t *testing.T) {
		m := smallCloud(t)
		if err := m.PutAllocations(ConsumerID("L", "a"), placement.Allocations{"h1": {"VCPU": 1}}, placement.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		c := NewClaimer(m, "L")
		if _, err := c.Claim(ctx, "a", decision("h2", 2), nil); err != nil {
			t.Fatal(err)
		}
		if got := held(m, "a"); got != fmt.Sprint([]state.Allocation{alloc("h2", 2)}) {
			t.Fatalf("holds %s", got)
		}
	})
	t.Run("undo and release", func(t *testing.T) {
		m := smallCloud(t)
		c := NewClaimer(m, "L")
		if _, err := c.Claim(ctx, "a", decision("h1", 2), nil); err != nil {
			t.Fatal(err)
		}
		c.Undo(ctx, "a", nil)
		if got := held(m, "a"); got != "-" {
			t.Fatalf("after undo holds %s", got)
		}
		if _, err := c.Claim(ctx, "b", decision("h1", 2), nil); err != nil {
			t.Fatal(err)
		}
		c.Release(ctx, "b")
		if got := held(m, "b"); got != "-" || len(c.Errors()) != 0 {
			t.Fatalf("after release holds %s, errors %v", got, c.Errors())
		}
	})
}
