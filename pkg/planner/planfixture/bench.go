package planfixture

import (
	"fmt"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// BenchInputs builds a desired graph of n resources (a tree: each depends
// on its parent, a tenth read their parent's address as an Unknown) and a
// state holding all of them, where every hundredth spec differs: n against
// n, 1% changed. With config set every spec also carries a multi-line
// "config" string, which differs by one line where the spec differs, so
// that renderers show a line diff.
func BenchInputs(n int, config bool) (*graph.Graph, *state.State) {
	g := graph.New()
	st := &state.State{Version: 1, Serial: 3, Lineage: "bench", Resources: make([]state.Resource, 0, n)}
	drv := graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "create.sh"}, "Standard.configure": {Implementation: "configure.sh"},
	}}
	addr := func(i int) string { return fmt.Sprintf("res%06d", i) }
	for i := range n {
		spec := map[string]graph.Value{"size": int64(i % 7), "name": addr(i), "tags": map[string]graph.Value{"tier": "app", "n": int64(i)}}
		if config {
			spec["config"] = "a = 1\nb = 2\nc = 3\n"
		}
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
			if config {
				recorded["config"] = "a = 1\nb = 5\nc = 3\n"
			}
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
