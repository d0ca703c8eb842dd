package manifest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestManifestPolicyCompilesToAGraphPolicy(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "derive.sh"), []byte("echo '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `application:
  components:
    lan:
      type: workflow.Instance
    group:
      components:
        wan:
          type: workflow.Instance
  policies:
    interfaces:
      implementation: derive.sh
      targets: [lan, group.wan, lan]
      types: [workflow.Instance]
      timeout: 30
      configuration: {mtu: 1500}
`
	if err := os.WriteFile(filepath.Join(dir, "net.yml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := CompileEnvironment(context.Background(), []string{dir}, Options{Root: []string{dir}})
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diags)
	}
	ps := g.Policies()
	if len(ps) != 1 {
		t.Fatalf("policies %+v", ps)
	}
	p := ps[0]
	abs, _ := filepath.Abs(filepath.Join(dir, "derive.sh"))
	if p.Name != "net.interfaces" || p.Implementation != abs || p.Timeout != 30*time.Second || p.Range.Start.Line != 10 {
		t.Errorf("policy %+v", p)
	}
	if want := []string{"net.group.wan", "net.lan"}; !slices.Equal(p.Targets, want) {
		t.Errorf("targets %v, want %v", p.Targets, want)
	}
	types, _ := p.Properties["types"].([]graph.Value)
	if len(types) != 1 || types[0] != "workflow.Instance" || p.Properties["mtu"] != int64(1500) {
		t.Errorf("properties %v", p.Properties)
	}
}
