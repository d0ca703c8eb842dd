package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// genTemplate2 is testutil.BenchTemplate20: n node templates of TOSCA 2.0.
func genTemplate2(n int) []byte { return testutil.BenchTemplate20(n) }

// BenchmarkCompile2_10k holds the target of a 2.0 template of 10,000
// node templates compiled in under a second; _50k shows the growth is
// linear (about five times the 10k figure).
func BenchmarkCompile2_10k(b *testing.B) { benchmarkCompileOf(b, genTemplate2(10_000), 10_000) }
func BenchmarkCompile2_50k(b *testing.B) { benchmarkCompileOf(b, genTemplate2(50_000), 50_000) }
func BenchmarkCompile2_80k(b *testing.B) { benchmarkCompileOf(b, genTemplate2(80_000), 80_000) }

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
