package tosca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genTemplate2 writes a TOSCA 2.0 service template of n node templates
// on the embedded simple profile: a tenth are Compute hosts, the rest
// instances of a custom type with a validated port, a scalar size, a
// host requirement, a dependency on the previous one and $get_input.
func genTemplate2(n int) []byte {
	var b strings.Builder
	b.Grow(n * 220)
	b.WriteString(`tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  App:
    derived_from: SoftwareComponent
    properties:
      port:
        type: integer
        validation: { $and: [ { $greater_or_equal: [ $value, 1 ] }, { $less_or_equal: [ $value, 65535 ] } ] }
      mode:
        type: string
        validation: { $valid_values: [ $value, [ fast, safe ] ] }
      cache:
        type: Size
        default: 64 MiB
    requirements:
      - backend:
          capability: Node
          relationship: DependsOn
          count_range: [ 0, 1 ]
service_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	hosts := max(n/10, 1)
	for i := range hosts {
		fmt.Fprintf(&b, "    host%d: {type: Compute, capabilities: {host: {properties: {num_cpus: 2, mem_size: 4 GB}}}}\n", i)
	}
	for i := range n - hosts {
		fmt.Fprintf(&b, "    app%d: {type: App, properties: {port: %d, mode: {$get_input: mode}}, requirements: [{host: host%d}", i, 1+i%65000, i%hosts)
		if i > 0 {
			fmt.Fprintf(&b, ", {backend: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
	return []byte(b.String())
}

// BenchmarkCompile2_10k holds the target of a 2.0 template of 10,000
// node templates compiled in under a second; _50k shows the growth is
// linear (about five times the 10k figure).
func BenchmarkCompile2_10k(b *testing.B) { benchmarkCompileOf(b, genTemplate2(10_000), 10_000) }
func BenchmarkCompile2_50k(b *testing.B) { benchmarkCompileOf(b, genTemplate2(50_000), 50_000) }

// TestGeneratedTemplate2 checks that the 2.0 benchmark input is valid and
// compiles to the expected shape, so the benchmark measures real work.
func TestGeneratedTemplate2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.yaml")
	if err := os.WriteFile(path, genTemplate2(200), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	requireNoErrors(t, diags)
	if g.Len() != 200 {
		t.Fatalf("%d resources", g.Len())
	}
	if got := len(g.Edges()); got != 180+179 {
		t.Errorf("%d edges, want %d", got, 180+179)
	}
	r, _ := g.Resource("app5")
	if props := r.Spec["properties"].(map[string]any); props["mode"] != "fast" || props["cache"] != "67108864 B" {
		t.Errorf("app5 properties = %v", props)
	}
}
