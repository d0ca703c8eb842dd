package tosca

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// genTemplate is testutil.BenchTemplate13: n node templates of TOSCA 1.3.
func genTemplate(n int) []byte { return testutil.BenchTemplate13(n) }

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

// The largest, 80,000 node templates, is one file of 10.8 MB and
// 1,552,066 YAML nodes, which the node limit lets through because it grows
// with the file (yamlsrc.NodeLimit; issue 25's last row).
func BenchmarkCompile1k(b *testing.B)  { benchmarkCompile(b, 1_000) }
func BenchmarkCompile10k(b *testing.B) { benchmarkCompile(b, 10_000) }
func BenchmarkCompile50k(b *testing.B) { benchmarkCompile(b, 50_000) }
func BenchmarkCompile80k(b *testing.B) { benchmarkCompile(b, 80_000) }

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
