package tosca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// genTemplate writes a service template of n node templates: a tenth are
// Compute hosts, the rest instances of a custom software type with a host
// requirement, a dependency on the previous software node, properties with
// constraints, and get_input.
func genTemplate(n int) []byte {
	var b strings.Builder
	b.Grow(n * 260)
	b.WriteString(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  bench.App:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      port:
        type: integer
        constraints:
          - in_range: [ 1, 65535 ]
      mode:
        type: string
        constraints:
          - valid_values: [ fast, safe ]
      replicas:
        type: integer
        default: 1
        constraints:
          - greater_or_equal: 1
    requirements:
      - backend:
          capability: tosca.capabilities.Node
          relationship: tosca.relationships.DependsOn
          occurrences: [ 0, 1 ]
topology_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	hosts := n / 10
	if hosts == 0 {
		hosts = 1
	}
	// Flow style keeps 100,000 nodes under the 16 MiB file limit.
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "    host%d: {type: tosca.nodes.Compute, capabilities: {host: {properties: {num_cpus: 2, mem_size: 4 GB}}}}\n", i)
	}
	for i := 0; i < n-hosts; i++ {
		fmt.Fprintf(&b, "    app%d: {type: bench.App, properties: {port: %d, mode: {get_input: mode}}, requirements: [{host: host%d}", i, 1+i%65000, i%hosts)
		if i > 0 {
			fmt.Fprintf(&b, ", {backend: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
	return []byte(b.String())
}

func benchmarkCompile(b *testing.B, n int) { benchmarkCompileOf(b, genTemplate(n), n) }

// benchmarkCompileOf compiles a generated template of n node templates.
func benchmarkCompileOf(b *testing.B, src []byte, n int) {
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var graphs int
	startCPU := testutil.CPUTime()
	b.ResetTimer()
	for b.Loop() {
		g, diags := Compile(context.Background(), path, Options{})
		if diags.HasErrors() || g == nil || g.Len() != n {
			b.Fatalf("compile: %d resources, %v", lenOf(g), diags.Err())
		}
		graphs++
	}
	b.StopTimer()
	// CPU time is what the machine spent, whatever else runs on it; the
	// retained heap is the size of one compiled graph with its sources.
	b.ReportMetric(float64((testutil.CPUTime()-startCPU).Milliseconds())/float64(graphs), "cpu-ms/op")
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g, _ := Compile(context.Background(), path, Options{})
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc))/(1<<20), "heap-MB")
	runtime.KeepAlive(g)
}

// The largest is about as large as one file may be: 50,000 node templates
// of about 20 YAML nodes each, under the limit of 1,000,000 nodes a file.
func BenchmarkCompile1k(b *testing.B)  { benchmarkCompile(b, 1_000) }
func BenchmarkCompile10k(b *testing.B) { benchmarkCompile(b, 10_000) }
func BenchmarkCompile50k(b *testing.B) { benchmarkCompile(b, 50_000) }

// TestGeneratedTemplate checks that the benchmark input is valid and
// compiles to the expected shape, so the benchmark measures real work.
func TestGeneratedTemplate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.yaml")
	if err := os.WriteFile(path, genTemplate(200), 0o644); err != nil {
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
	if props := r.Spec["properties"].(map[string]any); props["mode"] != "fast" || props["replicas"] != int64(1) {
		t.Errorf("app5 properties = %v", props)
	}
	h, _ := g.Resource("host0")
	if h.Request == nil || h.Request.Resources["VCPU"] != 2 || h.Request.Resources["MEMORY_MB"] != 4000 {
		t.Errorf("host0 request = %+v", h.Request)
	}
}
