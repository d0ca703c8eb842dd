package graph

import (
	"slices"
	"sync"
	"testing"
)

// TestAddressesAfterAdd: the sorted addresses Addresses keeps follow
// every AddResource, and what a caller does to the slice it got changes
// nothing for the next one.
func TestAddressesAfterAdd(t *testing.T) {
	g := build(t, []string{"b", "c"}, nil)
	got := g.Addresses()
	if !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("Addresses = %v", got)
	}
	got[0] = "zz"
	if err := g.AddResource(&Resource{Address: "a"}); err != nil {
		t.Fatal(err)
	}
	if got := g.Addresses(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("after AddResource, Addresses = %v", got)
	}
	var addrs []string
	for _, r := range g.Resources() {
		addrs = append(addrs, r.Address)
	}
	if !slices.Equal(addrs, []string{"a", "b", "c"}) {
		t.Errorf("Resources = %v", addrs)
	}
}

// TestAddressesConcurrentReaders: readers may ask for the addresses at
// once (go test -race checks the cache).
func TestAddressesConcurrentReaders(t *testing.T) {
	g := build(t, []string{"c", "a", "b"}, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := g.Addresses(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("Addresses = %v", got)
			}
		}()
	}
	wg.Wait()
}

// TestGrow: a graph sized in advance behaves as one that grew.
func TestGrow(t *testing.T) {
	g := New()
	g.Grow(3, 2)
	for _, n := range []string{"x", "y"} {
		if err := g.AddResource(&Resource{Address: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(Edge{Source: "x", Target: "y", Kind: DependsOn}); err != nil {
		t.Fatal(err)
	}
	g.Grow(10, 10) // not empty: the resources are kept
	if g.Len() != 2 || len(g.Edges()) != 1 {
		t.Fatalf("%d resources, %d edges", g.Len(), len(g.Edges()))
	}
	if _, ok := g.Resource("x"); !ok {
		t.Error("x lost")
	}
}

// TestIndexListsApart: the adjacency lists share one array; appending to
// one (as phase-cycle breaking may) must not change the next.
func TestIndexListsApart(t *testing.T) {
	g := build(t, []string{"a", "b", "c", "d"}, [][2]string{{"a", "c"}, {"a", "c"}, {"a", "b"}, {"b", "c"}, {"c", "d"}})
	x := g.Index()
	want := [][]int{{1, 2}, {2}, {3}, nil}
	for i, w := range want {
		if !slices.Equal(x.Deps[i], w) || (w == nil) != (x.Deps[i] == nil) {
			t.Fatalf("Deps[%d] = %v, want %v", i, x.Deps[i], w)
		}
	}
	if got := x.Dependents[2]; !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Dependents[2] = %v", got)
	}
	x.Deps[0] = append(x.Deps[0], 3)
	if !slices.Equal(x.Deps[1], []int{2}) {
		t.Errorf("appending to Deps[0] changed Deps[1]: %v", x.Deps[1])
	}
	comps := x.SCCs()
	if len(comps) != 4 {
		t.Fatalf("SCCs = %v", comps)
	}
	comps[0] = append(comps[0], 9)
	if !slices.Equal(comps[1], []int{1}) {
		t.Errorf("appending to a component changed the next: %v", comps)
	}
}
