package planview

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// benchInputs builds n configured resources (a tree; a tenth read their
// parent's address) and a state of the same n where every hundredth spec
// differs: the "10,000 against 10,000, 1% changed".
func benchInputs(n int) (*graph.Graph, *state.State) {
	g := graph.New()
	st := &state.State{Version: 1, Serial: 3, Lineage: "bench", Resources: make([]state.Resource, 0, n)}
	drv := graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "create.sh"}, "Standard.configure": {Implementation: "configure.sh"},
	}}
	addr := func(i int) string { return fmt.Sprintf("res%06d", i) }
	for i := range n {
		spec := map[string]graph.Value{"size": int64(i % 7), "name": addr(i), "config": "a = 1\nb = 2\nc = 3\n",
			"tags": map[string]graph.Value{"tier": "app", "n": int64(i)}}
		if i > 0 && i%10 == 0 {
			spec["parent_ip"] = graph.Unknown{Func: "attribute", Args: []graph.Value{addr(i / 2), "ip"}}
		}
		_ = g.AddResource(&graph.Resource{Address: addr(i), Type: "bench.Node", Driver: drv, Spec: spec, Management: graph.Managed})
		recorded := make(map[string]graph.Value, len(spec))
		for k, v := range spec {
			recorded[k] = v
		}
		if i%100 == 0 {
			recorded["size"] = int64(99)
			recorded["config"] = "a = 1\nb = 5\nc = 3\n"
		}
		var deps []string
		if i > 0 {
			deps = []string{addr(i / 2)}
		}
		st.Resources = append(st.Resources, state.Resource{Address: addr(i), Type: "bench.Node", Management: graph.Managed,
			Driver: drv, Dependencies: deps, Spec: recorded, Feedback: state.Feedback{BackendCode: state.BackendOK}})
	}
	for i := 1; i < n; i++ {
		_ = g.AddEdge(graph.Edge{Source: addr(i), Target: addr(i / 2), Kind: graph.DependsOn})
	}
	return g, st
}

// BenchmarkPlanAndRender is the planning and rendering path of
// `xosplan plan --out F --json-out F --markdown-out F`: diff, human text,
// plan file, JSON plan and markdown.
func BenchmarkPlanAndRender(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g, st := benchInputs(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, diags := planner.Diff(context.Background(), g, st, planner.Options{})
				if diags.HasErrors() || p.Summary.Change != n/100 {
					b.Fatalf("%v %+v", diags, p.Summary)
				}
				if err := Text(io.Discard, p, TextOptions{}); err != nil {
					b.Fatal(err)
				}
				if err := planner.Encode(io.Discard, p); err != nil {
					b.Fatal(err)
				}
				if err := JSON(io.Discard, p); err != nil {
					b.Fatal(err)
				}
				if md := Markdown(p, MarkdownOptions{}); len(md) > MaxMarkdown {
					b.Fatal("markdown too long")
				}
			}
		})
	}
}
