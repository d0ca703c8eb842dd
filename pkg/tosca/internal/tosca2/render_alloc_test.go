package tosca2

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// fleet2 is a 2.0 service template of hosts Compute nodes and apps
// instances of a SoftwareComponent type: each with properties (one from
// $get_input, one validated), hosted on a host and depending on the one
// before: what most templates hold, and none of what the rarer parts of
// render (secrets read by values, relationship attribute values,
// operations, allocations, count) are for.
func fleet2(hosts, apps int) []byte {
	var b strings.Builder
	b.WriteString(`tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  Service:
    derived_from: SoftwareComponent
    properties:
      port: { type: integer, validation: { $less_or_equal: [ $value, 65535 ] } }
      tier: { type: string }
    requirements:
      - after: { capability: Node, relationship: DependsOn, count_range: [ 0, 1 ] }
service_template:
  inputs:
    tier: { type: string, default: web }
  node_templates:
`)
	for i := range hosts {
		fmt.Fprintf(&b, "    h%d: {type: Compute, capabilities: {host: {properties: {num_cpus: 1}}}}\n", i)
	}
	for i := range apps {
		fmt.Fprintf(&b, "    s%d: {type: Service, properties: {port: %d, tier: {$get_input: tier}}, requirements: [{host: h%d}", i, 1000+i, i%hosts)
		if i > 0 {
			fmt.Fprintf(&b, ", {after: s%d}", i-1)
		}
		b.WriteString("]}\n")
	}
	return []byte(b.String())
}

// TestRenderAllocations bounds the allocations of render (the graph of
// an analyzed 2.0 template) per node template: a resource costs its
// struct, its spec map, its capabilities' maps, its secret paths and its
// share of the graph's store, about 6 allocations. Render made 42.5 a
// node here (in a compile of 10,000, 443,000 of 2.53 million): it built
// every relationship attribute's path to look for secrets no value had
// read, a relationships map and a target address per requirement to
// drop them, the address list at each use, operation maps where nothing
// runs, and grew the edge store edge by edge.
func TestRenderAllocations(t *testing.T) {
	const hosts, apps = 100, 900
	s := core.NewSession(context.Background())
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	root, diags := yamlsrc.Parse(path, fleet2(hosts, apps), yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	x := New(&s, Options{})
	x.Load(path, root)
	if !x.c.analyze(x.root) || s.Diags.HasErrors() {
		t.Fatalf("analyze: %v", s.Diags.Err())
	}
	var g *graph.Graph
	allocs := allocsOf(func() { g = x.c.render() })
	if g == nil || g.Len() != hosts+apps || len(g.Edges()) != 2*apps-1 {
		t.Fatalf("render made %v", g)
	}
	perNode := float64(allocs) / (hosts + apps)
	t.Logf("render: %d allocations, %.1f a node template", allocs, perNode)
	if perNode > 15 {
		t.Errorf("render made %.1f allocations a node template, want at most 15", perNode)
	}
}

// allocsOf counts the heap allocations f makes, as testing.AllocsPerRun
// does, for a function that can run only once.
func allocsOf(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
