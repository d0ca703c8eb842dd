package manifest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// largeManifest generates a manifest of n components and m bindings.
// Each component consumes a signal and publishes one; every tenth also
// has a command pair and configuration. Binding k joins a component's
// consumer to an earlier component's publisher, so the graph stays
// acyclic.
func largeManifest(n, m int) []byte {
	var b strings.Builder
	b.WriteString("application:\n  configuration:\n    input.size: 3\n  interfaces:\n    input:\n      size: bind(c0#input.size)\n    out:\n      \"*\": bind(c0#give.*)\n  components:\n")
	for i := range n {
		fmt.Fprintf(&b, "    c%d:\n      type: workflow.Instance\n", i)
		if i > 0 {
			b.WriteString("      required: [need]\n")
		}
		b.WriteString("      interfaces:\n        need:\n          v: consume-signal(list<string>)\n        give:\n          v: publish-signal(list<string>)\n")
		if i%10 == 0 {
			b.WriteString("          run: receive-command(string id => object result)\n        input:\n          size: configuration(int)\n")
			fmt.Fprintf(&b, "      configuration:\n        input.size: %d\n", i%7)
		}
	}
	b.WriteString("  bindings:\n")
	for k := range m {
		src := 1 + k%(n-1)
		dst := (src * (k/(n-1) + 1) * 31) % src
		fmt.Fprintf(&b, "    - [c%d#need, c%d#give]\n", src, dst)
	}
	return []byte(b.String())
}

func BenchmarkValidateLarge(b *testing.B) {
	data := largeManifest(5000, 20000)
	reg := DefaultRegistry()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, g, diags := compileSources(context.Background(), reg, []source{{file: "large.yml", data: data}}, nil)
		if diags.HasErrors() || g.Len() != 5000 {
			b.Fatalf("%d resources, %v", g.Len(), diags.Err())
		}
	}
}

// BenchmarkCheckLarge is BenchmarkValidateLarge without YAML parsing:
// what this package's own phases cost.
func BenchmarkCheckLarge(b *testing.B) {
	data := largeManifest(5000, 20000)
	root, diags := yamlsrc.Parse("large.yml", data, yamlsrc.Limits{})
	if diags.HasErrors() {
		b.Fatal(diags.Err())
	}
	reg := DefaultRegistry()
	b.ReportAllocs()
	for b.Loop() {
		_, g, diags := compileSources(context.Background(), reg, []source{{file: "large.yml", root: root}}, nil)
		if diags.HasErrors() || g.Len() != 5000 {
			b.Fatalf("%d resources, %v", g.Len(), diags.Err())
		}
	}
}

// TestLargeManifestIsClean keeps the benchmark's input honest: it must
// compile without diagnostics and give the edges it was built for.
func TestLargeManifestIsClean(t *testing.T) {
	_, g, diags := compileSources(context.Background(), DefaultRegistry(), []source{{file: "large.yml", data: largeManifest(200, 800)}}, nil)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags.Err())
	}
	if g.Len() != 200 || len(g.Edges()) == 0 {
		t.Fatalf("%d resources, %d edges", g.Len(), len(g.Edges()))
	}
	if cycles := g.Cycles(); len(cycles) > 0 {
		t.Fatalf("dependency cycles: %v", cycles)
	}
}
