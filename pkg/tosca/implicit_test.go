package tosca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// implicitTemplate is a 1.x template of n Compute hosts and n software
// components with no host assigned: each component's host requirement is
// matched implicitly against all the hosts.
func implicitTemplate(n int) []byte {
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n")
	for i := range n {
		fmt.Fprintf(&b, "    c%d: { type: tosca.nodes.Compute }\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, "    s%d: { type: tosca.nodes.SoftwareComponent }\n", i)
	}
	return []byte(b.String())
}

// BenchmarkImplicitRequirements10k holds implicit requirement matching
// linear: the templates that satisfy a requirement definition are listed
// once, not scanned again for each template that needs one (10,000
// components on 10,000 hosts took 5.3 s of CPU when they were).
func BenchmarkImplicitRequirements10k(b *testing.B) {
	benchmarkCompileCPU(b, implicitTemplate(10_000), func(g *graph.Graph, diags diag.Diagnostics) string {
		if diags.HasErrors() || g.Len() != 20_000 || len(g.Edges()) != 10_000 {
			return fmt.Sprintf("%d resources, %v", lenOf(g), diags.Err())
		}
		return ""
	})
}

// benchmarkCompileCPU compiles src for each iteration, failing with what
// check returns when it is not "", and reports the CPU time per compile
// (what the machine spent, whatever else runs on it).
func benchmarkCompileCPU(b *testing.B, src []byte, check func(*graph.Graph, diag.Diagnostics) string) {
	path := filepath.Join(b.TempDir(), "t.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var n int
	start := testutil.CPUTime()
	for b.Loop() {
		if problem := check(Compile(context.Background(), path, Options{})); problem != "" {
			b.Fatal(problem)
		}
		n++
	}
	b.ReportMetric(float64((testutil.CPUTime()-start).Milliseconds())/float64(n), "cpu-ms/op")
}

// TestImplicitMatchesFirstOther checks the implicit match of each template
// is the first satisfying template other than itself, and the count of
// those that would do excludes it.
func TestImplicitMatchesFirstOther(t *testing.T) {
	src := []byte(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  Peer:
    derived_from: tosca.nodes.Root
    capabilities: { peer: { type: tosca.capabilities.Node } }
    requirements: [ { other: { capability: tosca.capabilities.Node, node: Peer, relationship: tosca.relationships.DependsOn } } ]
topology_template:
  node_templates:
    p0: { type: Peer }
    p1: { type: Peer }
    p2: { type: Peer }
`)
	_, diags := compileWithin(t, src)
	var got []string
	for _, d := range diags {
		if d.Code == CodeImplicitRequirement {
			got = append(got, d.Summary)
		}
	}
	want := []string{
		`requirement "other" of node template "p0" is not assigned; matched to "p1", the first of 2 node templates that satisfy it`,
		`requirement "other" of node template "p1" is not assigned; matched to "p0", the first of 2 node templates that satisfy it`,
		`requirement "other" of node template "p2" is not assigned; matched to "p0", the first of 2 node templates that satisfy it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("implicit matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
