package policy

import (
	"context"
	"fmt"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// BenchmarkDerive10000 measures Derive on 10,000 resources with one
// policy that reads them all (its type) and derives one resource: the
// overhead of a policy on a large configuration, the run of a small sh
// program included. Speed target: under 0.5 s an operation.
func BenchmarkDerive10000(b *testing.B) {
	dir := b.TempDir()
	g := graph.New()
	for i := range 10_000 {
		r := &graph.Resource{Address: fmt.Sprintf("net%05d", i), Type: "net", Management: graph.Managed,
			Spec: map[string]graph.Value{"properties": map[string]graph.Value{"cidr": "10.0.0.0/24", "index": int64(i)}}}
		if err := g.AddResource(r); err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			if err := g.AddEdge(graph.Edge{Source: r.Address, Target: "net00000", Kind: graph.DependsOn}); err != nil {
				b.Fatal(err)
			}
		}
	}
	exe := writePolicy(b, dir, "one", `cat > /dev/null; echo '{"resources":[{"name":"summary","type":"report"}]}'`)
	if err := g.AddPolicy(graph.Policy{Name: "one", Implementation: exe, Properties: map[string]graph.Value{"types": []graph.Value{"net"}}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, diags := Derive(context.Background(), g, Options{Root: []string{dir}})
		if diags.HasErrors() || out.Len() != 10_001 {
			b.Fatalf("%v (%d resources)", diags, out.Len())
		}
	}
}
