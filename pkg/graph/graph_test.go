package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

func build(t testing.TB, names []string, edges [][2]string) *Graph {
	t.Helper()
	g := New()
	for _, n := range names {
		if err := g.AddResource(&Resource{Address: n, Management: Managed}); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range edges {
		if err := g.AddEdge(Edge{Source: e[0], Target: e[1], Kind: DependsOn, Name: fmt.Sprint("req", i),
			Range: diag.Range{File: "t.yaml", Start: diag.Pos{Line: i + 1, Column: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestOrder(t *testing.T) {
	g := build(t, []string{"web", "db", "host", "app"}, [][2]string{{"web", "host"}, {"db", "host"}, {"app", "web"}, {"app", "db"}, {"app", "db"}})
	x := g.Index()
	order, ok := x.Order()
	if !ok {
		t.Fatal("no order")
	}
	var got []string
	for _, i := range order {
		got = append(got, x.Addrs[i])
	}
	want := []string{"host", "db", "web", "app"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v want %v", got, want)
	}
	if len(g.Edges()) != 5 {
		t.Errorf("repeated edge lost: %d", len(g.Edges()))
	}
}

func TestKahn(t *testing.T) {
	tests := []struct {
		name string
		next [][]int
		want []int
		ok   bool
	}{
		{"ties by index", [][]int{{2}, {2}, nil}, []int{0, 1, 2}, true},
		{"then by the order of a next list", [][]int{{2, 1}, nil, nil}, []int{0, 2, 1}, true},
		{"a repeat waits twice and comes once", [][]int{{1, 1}, nil}, []int{0, 1}, true},
		{"a cycle leaves its members out", [][]int{{1}, {0}, nil}, []int{2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Kahn(tt.next)
			if !slices.Equal(got, tt.want) || ok != tt.ok {
				t.Errorf("Kahn = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	g := build(t, []string{"a"}, nil)
	if err := g.AddResource(&Resource{Address: "a"}); !errors.Is(err, ErrDuplicateResource) {
		t.Errorf("dup: %v", err)
	}
	if err := g.AddEdge(Edge{Source: "a", Target: "zz"}); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("unknown: %v", err)
	}
}

func TestCycles(t *testing.T) {
	g := build(t, []string{"a", "b", "c", "d", "e", "s"}, [][2]string{{"b", "c"}, {"c", "d"}, {"d", "b"}, {"a", "b"}, {"e", "a"}, {"s", "s"}})
	if _, ok := g.Index().Order(); ok {
		t.Error("a cyclic graph has an order")
	}
	cycles := g.Cycles()
	if len(cycles) != 2 {
		t.Fatalf("cycles %v", cycles)
	}
	if got := CyclePath(cycles[0]); got != "b -> c -> d -> b" {
		t.Errorf("cycle %q", got)
	}
	if cycles[0][0].Range.Start.Line != 1 {
		t.Errorf("edge position lost: %+v", cycles[0][0].Range)
	}
	if got := CyclePath(cycles[1]); got != "s -> s" {
		t.Errorf("self cycle %q", got)
	}
}

func TestValues(t *testing.T) {
	v, err := Canonicalize(map[string]any{"a": []int{1, 2}, "b": 2.5, "c": Unknown{Func: "attribute", Args: []Value{"web", "ip"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]Value)
	if !Equal(m["a"], []Value{int64(1), float64(2)}) {
		t.Errorf("a = %#v", m["a"])
	}
	if !HasUnknown(v) || HasUnknown(m["a"]) {
		t.Error("HasUnknown")
	}
	if got := Render(v); got != `{"a":[1,2],"b":2.5,"c":{"$unknown":{"func":"attribute","args":["web","ip"]}}}` {
		t.Errorf("render %s", got)
	}
	u := Unknown{Func: "concat", Args: []Value{"http://", Unknown{Func: "attribute", Args: []Value{"web", "ip"}}, Unknown{Func: "signal", Args: []Value{"db", "iface", "pin"}}}}
	if !slices.Equal(u.Refs(), []string{"db", "web"}) {
		t.Errorf("refs %v", u.Refs())
	}
	if _, err := Canonicalize(map[int]int{1: 1}); err == nil {
		t.Error("int keys accepted")
	}
}

// A chain and a wide fan: the walk must stay linear (no recursion depth
// problems, no quadratic behaviour) at 100,000 resources.
func BenchmarkOrder(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		g := New()
		for i := range n {
			_ = g.AddResource(&Resource{Address: fmt.Sprintf("r%06d", i)})
		}
		for i := 1; i < n; i++ {
			_ = g.AddEdge(Edge{Source: fmt.Sprintf("r%06d", i), Target: fmt.Sprintf("r%06d", i/2)})
			_ = g.AddEdge(Edge{Source: fmt.Sprintf("r%06d", i), Target: fmt.Sprintf("r%06d", i-1)})
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, ok := g.Index().Order(); !ok {
					b.Fatal("no order")
				}
				if len(g.Cycles()) != 0 {
					b.Fatal("cycle")
				}
			}
		})
	}
}

func TestDecodeValueRoundTrip(t *testing.T) {
	v := map[string]Value{"n": int64(3), "f": 2.5, "u": Unknown{Func: "attribute", Args: []Value{"web", "ip"}}, "l": []Value{"x", nil, true}}
	var raw any
	if err := json.Unmarshal([]byte(Render(v)), &raw); err != nil {
		t.Fatal(err)
	}
	if got := DecodeValue(raw); !Equal(got, v) {
		t.Errorf("round trip: %s", Render(got))
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{nil, ""},
		{"a <b> & c", "a <b> & c"},
		{int64(-42), "-42"},
		{true, "true"},
		{2.5, "2.5"},
		{1000000.5, "1000000.5"},
		{[]Value{"x", int64(1)}, `["x",1]`},
		{map[string]Value{"k": "<v>"}, `{"k":"<v>"}`},
	} {
		if got := Text(tc.v); got != tc.want {
			t.Errorf("Text(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestGrowMakesRoom checks that after Grow the resources and edges it
// made room for are added without the store growing: a new graph, grown
// and filled, costs about the allocations of New and Grow alone.
func TestGrowMakesRoom(t *testing.T) {
	const n = 1000
	rs := make([]*Resource, n)
	for i := range rs {
		rs[i] = &Resource{Address: fmt.Sprint("r", i)}
	}
	var g *Graph
	allocs := testing.AllocsPerRun(2, func() {
		g = New()
		g.Grow(n, n)
		for _, r := range rs {
			if err := g.AddResource(r); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range rs {
			if err := g.AddEdge(Edge{Source: rs[0].Address, Target: r.Address}); err != nil {
				t.Fatal(err)
			}
		}
	})
	// New and Grow: the graph, the map (in several tables) and the two
	// lists, 10 allocations; without Grow the store grows again and again
	// (45).
	if allocs > 15 {
		t.Errorf("%v allocations to add %d resources and edges after Grow, want at most 15", allocs, n)
	}
	if g.Len() != n || len(g.Edges()) != n {
		t.Errorf("%d resources, %d edges; want %d each", g.Len(), len(g.Edges()), n)
	}
}

// TestCyclesOfAcyclicGraphAllocatesLittle: a compile checks every graph
// for cycles, and most have none; Cycles built the whole Index for them
// (the addresses sorted, lists for each resource: 5,078 allocations for
// 1,000 resources) where Kahn's algorithm over the edges tells at once.
func TestCyclesOfAcyclicGraphAllocatesLittle(t *testing.T) {
	const n = 1000
	names := make([]string, n)
	var edges [][2]string
	for i := range names {
		names[i] = fmt.Sprint("r", i)
		if i > 0 {
			edges = append(edges, [2]string{names[i], names[i-1]}, [2]string{names[i], names[0]})
		}
	}
	g := build(t, names, edges)
	var cycles [][]Edge
	allocs := testing.AllocsPerRun(5, func() { cycles = g.Cycles() })
	if cycles != nil {
		t.Fatalf("cycles in an acyclic graph: %v", cycles)
	}
	t.Logf("%v allocations", allocs)
	if allocs > 20 {
		t.Errorf("Cycles of an acyclic graph of %d resources made %v allocations, want at most 20", n, allocs)
	}
}

// TestCyclesFoundAsIndexFindsThem compares, on random graphs with and
// without cycles, whether Cycles finds one with the order of the Index:
// the graph has an order exactly when it has no cycle.
func TestCyclesFoundAsIndexFindsThem(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cyclic := 0
	for range 500 {
		n := 1 + rng.IntN(12)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprint("n", rng.IntN(1000), "_", i)
		}
		var edges [][2]string
		for range rng.IntN(2 * n) {
			s, d := rng.IntN(n), rng.IntN(n)
			if rng.IntN(4) > 0 && s <= d {
				// Mostly towards what was added before: many graphs are
				// acyclic.
				continue
			}
			edges = append(edges, [2]string{names[s], names[d]})
		}
		g := build(t, names, edges)
		_, ordered := g.Index().Order()
		found := g.Cycles() != nil
		if found == ordered {
			t.Fatalf("graph %v %v: cycles found %v, index ordered %v", names, edges, found, ordered)
		}
		if found {
			cyclic++
		}
	}
	if cyclic == 0 || cyclic == 500 {
		t.Errorf("%d of 500 random graphs cyclic: the test needs both", cyclic)
	}
}
