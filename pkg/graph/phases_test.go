package graph

import (
	"slices"
	"testing"
)

// peer is a resource whose create reports attribute id and whose
// operations read reads (operation key -> an Unknown naming another
// resource), with spec as its spec.
func peer(addr string, spec map[string]Value, reads map[string]Value) *Resource {
	ops := map[string]Operation{
		"Standard.create": {Implementation: "create.sh", Outputs: map[string]string{"id": ""}},
	}
	for key, v := range reads {
		op := ops[key]
		op.Implementation = key + ".sh"
		op.Inputs = map[string]Value{"other": v}
		ops[key] = op
	}
	return &Resource{Address: addr, Management: Managed, Spec: spec, Driver: Driver{Name: "exec", Operations: ops}}
}

func attr(addr, name string) Unknown { return Unknown{Func: "attribute", Args: []Value{addr, name}} }

func TestPhaseWaits(t *testing.T) {
	cases := []struct {
		name      string
		a, b      *Resource
		requires  bool // a requires b (a depends_on edge)
		wantCycle bool
		wantWaits map[string][]OpWait
		// wantDeps, when set, is what each resource still depends on
		// as a whole.
		wantDeps map[string][]string
	}{
		{
			name: "configure reads the other's create output",
			a:    peer("a", nil, map[string]Value{"Standard.configure": attr("b", "id")}),
			b:    peer("b", nil, map[string]Value{"Standard.configure": attr("a", "id")}),
			wantWaits: map[string][]OpWait{
				"a": {{Operation: "Standard.configure", Address: "b", After: "Standard.create"}},
				"b": {{Operation: "Standard.configure", Address: "a", After: "Standard.create"}},
			},
		},
		{
			name: "relationship operations, by operation output",
			a:    peer("a", nil, map[string]Value{"Configure.pre_configure_source@net[0]": Unknown{Func: "operation_output", Args: []Value{"b", "Standard", "create", "id"}}}),
			b:    peer("b", nil, map[string]Value{"Configure.add_target": attr("a", "id")}),
			wantWaits: map[string][]OpWait{
				"a": {{Operation: "Configure.pre_configure_source@net[0]", Address: "b", After: "Standard.create"}},
				"b": {{Operation: "Configure.add_target", Address: "a", After: "Standard.create"}},
			},
		},
		{
			name:      "each create reads the other's create output",
			a:         peer("a", nil, map[string]Value{"Standard.create": attr("b", "id")}),
			b:         peer("b", nil, map[string]Value{"Standard.create": attr("a", "id")}),
			wantCycle: true,
		},
		{
			name:      "a spec reads the other",
			a:         peer("a", map[string]Value{"properties": map[string]Value{"p": attr("b", "id")}}, nil),
			b:         peer("b", nil, map[string]Value{"Standard.configure": attr("a", "id")}),
			wantCycle: true,
		},
		{
			name:      "an attribute no operation reports",
			a:         peer("a", nil, map[string]Value{"Standard.configure": attr("b", "other")}),
			b:         peer("b", nil, map[string]Value{"Standard.configure": attr("a", "id")}),
			wantCycle: true,
		},
		{
			// xOpera's "unmapped attributes": values the templates
			// assign, read by each other's operations. The reads
			// order what they can without a cycle (a after b, by
			// address), and b reads a's assigned value.
			name:     "unmapped attributes the templates assign",
			a:        peer("a", map[string]Value{"attributes": map[string]Value{"note": "of a"}}, map[string]Value{"Standard.create": attr("b", "note")}),
			b:        peer("b", map[string]Value{"attributes": map[string]Value{"note": "of b"}}, map[string]Value{"Standard.create": attr("a", "note")}),
			wantDeps: map[string][]string{"a": {"b"}, "b": nil},
		},
		{
			name: "an unmapped assigned attribute and an operation output",
			a:    peer("a", map[string]Value{"attributes": map[string]Value{"note": "of a"}}, map[string]Value{"Standard.create": attr("b", "id")}),
			b:    peer("b", nil, map[string]Value{"Standard.create": attr("a", "note")}),
			wantWaits: map[string][]OpWait{
				"a": {{Operation: "Standard.create", Address: "b", After: "Standard.create"}},
			},
			wantDeps: map[string][]string{"a": nil, "b": nil},
		},
		{
			name:      "an unmapped attribute assigned a value known only after apply",
			a:         peer("a", map[string]Value{"attributes": map[string]Value{"note": attr("c", "x")}}, map[string]Value{"Standard.create": attr("b", "id")}),
			b:         peer("b", nil, map[string]Value{"Standard.create": attr("a", "note")}),
			wantCycle: true,
		},
		{
			name:      "a requires b, whose configure reads a",
			a:         peer("a", nil, nil),
			b:         peer("b", nil, map[string]Value{"Standard.configure": attr("a", "id")}),
			requires:  true,
			wantCycle: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			for _, r := range []*Resource{tc.a, tc.b} {
				if err := g.AddResource(r); err != nil {
					t.Fatal(err)
				}
			}
			kind := Reads
			if tc.requires {
				kind = DependsOn
			}
			for _, e := range []Edge{{Source: "a", Target: "b", Kind: kind}, {Source: "b", Target: "a", Kind: Reads}} {
				if err := g.AddEdge(e); err != nil {
					t.Fatal(err)
				}
			}
			cycles := g.Cycles()
			if got := len(cycles) > 0; got != tc.wantCycle {
				t.Fatalf("cycle = %v, want %v (%v)", got, tc.wantCycle, cycles)
			}
			x := g.Index()
			if _, ok := x.Order(); ok == tc.wantCycle {
				t.Fatalf("ordered = %v, want %v", ok, !tc.wantCycle)
			}
			for i, addr := range x.Addrs {
				var got []OpWait
				if x.Waits != nil {
					got = x.Waits[i]
				}
				if want := tc.wantWaits[addr]; !slices.Equal(got, want) {
					t.Errorf("waits of %s = %v, want %v", addr, got, want)
				}
				if tc.wantDeps != nil {
					var deps []string
					for _, d := range x.Deps[i] {
						deps = append(deps, x.Addrs[d])
					}
					if want := tc.wantDeps[addr]; !slices.Equal(deps, want) {
						t.Errorf("deps of %s = %v, want %v", addr, deps, want)
					}
				}
			}
		})
	}
}

// An acyclic graph is not changed: a read stays a dependency on the
// whole resource, and there are no waits.
func TestPhaseWaitsOnlyBreakCycles(t *testing.T) {
	g := New()
	for _, r := range []*Resource{peer("a", nil, map[string]Value{"Standard.configure": attr("b", "id")}), peer("b", nil, nil)} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(Edge{Source: "a", Target: "b", Kind: Reads}); err != nil {
		t.Fatal(err)
	}
	x := g.Index()
	if x.Waits != nil || !slices.Equal(x.Deps[0], []int{1}) {
		t.Fatalf("waits %v, deps %v: want none and a -> b", x.Waits, x.Deps)
	}
}

// An operation without an implementation never runs: what its inputs
// read (an interface's inputs, which every operation of the interface
// has) orders nothing when it would close a cycle.
func TestPhaseWaitsUnrunOperation(t *testing.T) {
	a := peer("a", nil, map[string]Value{"Standard.configure": attr("b", "other")})
	b := peer("b", nil, map[string]Value{"Standard.configure": attr("a", "other")})
	op := b.Driver.Operations["Standard.configure"]
	op.Implementation = ""
	b.Driver.Operations["Standard.configure"] = op
	g := New()
	for _, r := range []*Resource{a, b} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []Edge{{Source: "a", Target: "b", Kind: Reads}, {Source: "b", Target: "a", Kind: Reads}} {
		if err := g.AddEdge(e); err != nil {
			t.Fatal(err)
		}
	}
	if cycles := g.Cycles(); len(cycles) > 0 {
		t.Fatalf("cycles %v, want none", cycles)
	}
	x := g.Index()
	if !slices.Equal(x.Deps[0], []int{1}) || len(x.Deps[1]) != 0 {
		t.Fatalf("deps %v: want a -> b only (a's configure reads an attribute of b no operation maps)", x.Deps)
	}
}
