package tosca

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// expansionTemplate2 is the 13-line template of issue 20: node templates
// a and b with counts, a's requirement r naming b as req (a YAML flow
// value).
func expansionTemplate2(a, b int, req string) []byte {
	return fmt.Appendf(nil, `tosca_definitions_version: tosca_2_0
capability_types: { Cap: {} }
relationship_types: { Uses: {} }
node_types:
  T:
    capabilities: { c: { type: Cap } }
    requirements: [ { r: { capability: Cap, relationship: Uses, count_range: [0, UNBOUNDED] } } ]
service_template:
  node_templates:
    a: { type: T, count: %d, requirements: [ { r: %s } ] }
    b: { type: T, count: %d }
`, a, req, b)
}

// valuesTemplate2 is a template of count 10,000 with a list property of
// n entries.
func valuesTemplate2(n int) []byte {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = core.Itoa(int64(i))
	}
	return fmt.Appendf(nil, `tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties: { p: { type: list, entry_schema: integer } }
service_template:
  node_templates:
    a: { type: T, count: 10000, properties: { p: [ %s ] } }
`, strings.Join(entries, ", "))
}

// compileWithin compiles src within a deadline of its own, failing the
// test with a message (not by the package timeout) when it takes longer.
func compileWithin(t *testing.T, src []byte) (*graph.Graph, diag.Diagnostics) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := compileInBackground(ctx, writeSource(t, src))
	select {
	case r := <-done:
		return r.g, r.diags
	case <-time.After(3 * time.Minute):
		t.Fatalf("compile did not return within 3 minutes")
		return nil, nil
	}
}

// TestExpansionLimit2 checks that counts expanding a service template
// beyond internal/tosca2's maxExpansion node representations and relationships give one
// error at the count that brought it over, and nothing else: the
// expansion is counted, not built.
func TestExpansionLimit2(t *testing.T) {
	var manyTemplates strings.Builder
	manyTemplates.Write(expansionTemplate2(1, 1, "b"))
	for i := range 25 {
		fmt.Fprintf(&manyTemplates, "    c%d: { type: T, count: 10000 }\n", i)
	}
	cases := []struct {
		name string
		src  []byte
		// line and col of the count reported, its YAML path.
		line, col int
		path      string
	}{
		// Each of a's 10,000 representations depends on each of b's:
		// 10^8 relationships, at a's count.
		{"issue", expansionTemplate2(10_000, 10_000, "b"), 10, 26, "service_template.node_templates.a.count"},
		{"over by little", expansionTemplate2(600, 600, "b"), 10, 26, "service_template.node_templates.a.count"},
		// 10,000 relationships for each of a's representations, each to
		// the representation of b at its index.
		{"requirement count", expansionTemplate2(10_000, 10_000, "{ node: [ b, $relationship_index ], count: 10000 }"), 10, 97, "service_template.node_templates.a.requirements.r.count"},
		// A count beyond any integer a product could hold.
		{"requirement count huge", expansionTemplate2(10_000, 1, "{ node: b, count: 4611686018427387904 }"), 10, 72, "service_template.node_templates.a.requirements.r.count"},
		// 10,000 representations each repeating a list of 2,000 values
		// (an 11 KB file that took 940 MB and 5.5 s).
		{"values", valuesTemplate2(2_000), 7, 26, "service_template.node_templates.a.count"},
		{"values by little", valuesTemplate2(400), 7, 26, "service_template.node_templates.a.count"},
		// 26 templates of 10,000: the 26th is over.
		{"representations", []byte(manyTemplates.String()), 36, 28, "service_template.node_templates.c24.count"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, diags := compileWithin(t, tc.src)
			if len(diags) != 1 || diags[0].Code != CodeExpansion {
				t.Fatalf("want one %s error, got %d diagnostics: %v", CodeExpansion, len(diags), diags)
			}
			d := diags[0]
			if d.Range.Start.Line != tc.line || d.Range.Start.Column != tc.col || d.Path != tc.path {
				t.Errorf("at %d:%d %s, want %d:%d %s: %s", d.Range.Start.Line, d.Range.Start.Column, d.Path, tc.line, tc.col, tc.path, d.Summary)
			}
			if g != nil {
				t.Errorf("a graph was built")
			}
		})
	}
}

// TestExpansionUnderTheLimit2 checks that a full mesh under the limit
// still makes every edge, each once.
func TestExpansionUnderTheLimit2(t *testing.T) {
	g, diags := compileWithin(t, expansionTemplate2(300, 400, "b"))
	requireNoErrors(t, diags)
	if g.Len() != 700 || len(g.Edges()) != 300*400 {
		t.Errorf("%d resources, %d edges", g.Len(), len(g.Edges()))
	}
	// Picks by index: a[i] → b[i % 3], each once however often named.
	g, diags = compileWithin(t, expansionTemplate2(300, 3, "{ node: [ b, { $remainder: [ $relationship_index, 3 ] } ], count: 7 }"))
	requireNoErrors(t, diags)
	if len(g.Edges()) != 300*3 {
		t.Errorf("%d edges by index, want %d", len(g.Edges()), 300*3)
	}
}

// BenchmarkExpansionLimit2 holds the target of issue 20: the 13-line
// templates whose counts expand beyond the limit answer in under 2 s of
// CPU and 300 MB. It reports the CPU time per validate, the bytes
// allocated (B/op, an upper bound of the heap it grew) and the peak RSS of
// the process (run it alone: -run '^$' -bench ExpansionLimit2).
func BenchmarkExpansionLimit2(b *testing.B) {
	for _, bc := range []struct {
		name string
		req  string
	}{
		{"mesh", "b"},
		{"requirement_count", "{ node: [ b, $relationship_index ], count: 10000 }"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchmarkCompileCPU(b, expansionTemplate2(10_000, 10_000, bc.req), func(_ *graph.Graph, diags diag.Diagnostics) string {
				if len(diags) != 1 || diags[0].Code != CodeExpansion {
					return fmt.Sprintf("diagnostics: %v", diags)
				}
				return ""
			})
			b.ReportMetric(float64(testutil.PeakRSS())/(1<<20), "peak-rss-MB")
		})
	}
}

// TestIncomingRelationshipsInOrder checks the relationships a TOSCA path
// reaches through CAPABILITY … RELATIONSHIP <idx>, listed from the index
// of incoming relationships: by source template in order, representation
// and relationship, those that pick the representation and those that go
// to each, merged in that order.
func TestIncomingRelationshipsInOrder(t *testing.T) {
	src := []byte(`tosca_definitions_version: tosca_2_0
capability_types: { Cap: {} }
relationship_types: { Uses: {} }
node_types:
  T:
    properties:
      p: { type: integer, required: false }
      in0: { type: integer, required: false }
      in1: { type: integer, required: false }
      in2: { type: integer, required: false }
    capabilities: { c: { type: Cap } }
    requirements: [ { r: { capability: Cap, relationship: Uses, count_range: [0, UNBOUNDED] } } ]
service_template:
  node_templates:
    e: { type: T, properties: { p: 100 }, requirements: [ { r: b } ] }
    a: { type: T, count: 4, properties: { p: { $node_index: [] } }, requirements: [ { r: { node: [ b, { $remainder: [ $node_index, 2 ] } ] } } ] }
    b:
      type: T
      count: 2
      properties:
        in0: { $get_property: [ SELF, CAPABILITY, c, RELATIONSHIP, 0, SOURCE, p ] }
        in1: { $get_property: [ SELF, CAPABILITY, c, RELATIONSHIP, 1, SOURCE, p ] }
        in2: { $get_property: [ SELF, CAPABILITY, c, RELATIONSHIP, 2, SOURCE, p ] }
`)
	g, diags := compileWithin(t, src)
	requireNoErrors(t, diags)
	for addr, want := range map[string][3]int64{"b[0]": {100, 0, 2}, "b[1]": {100, 1, 3}} {
		r, ok := g.Resource(addr)
		if !ok {
			t.Fatalf("no %s", addr)
		}
		for i, w := range want {
			name := "in" + core.Itoa(int64(i))
			if got := r.Spec["properties"].(map[string]graph.Value)[name]; got != w {
				t.Errorf("%s %s = %v, want %d", addr, name, got, w)
			}
		}
	}
}

// BenchmarkIncomingPaths2 holds the relationships a path reaches through
// a capability listed from an index built once: each of 10,000
// representations of b reads the source of its incoming relationship
// (one of 10,000 made by a's representations), which scanned every
// relationship for each representation before (about 2.3 s of CPU).
func BenchmarkIncomingPaths2(b *testing.B) {
	src := []byte(`tosca_definitions_version: tosca_2_0
capability_types: { Cap: {} }
relationship_types: { Uses: {} }
node_types:
  T:
    properties: { p: { type: integer, required: false } }
    capabilities: { c: { type: Cap } }
    requirements: [ { r: { capability: Cap, relationship: Uses, count_range: [0, UNBOUNDED] } } ]
service_template:
  node_templates:
    a: { type: T, count: 10000, properties: { p: 1 }, requirements: [ { r: { node: [ b, $node_index ] } } ] }
    b: { type: T, count: 10000, properties: { p: { $get_property: [ SELF, CAPABILITY, c, RELATIONSHIP, 0, SOURCE, p ] } } }
`)
	benchmarkCompileCPU(b, src, func(g *graph.Graph, diags diag.Diagnostics) string {
		if diags.HasErrors() || g.Len() != 20_000 || len(g.Edges()) != 10_000 {
			return fmt.Sprintf("%d resources, %v", lenOf(g), diags.Err())
		}
		return ""
	})
}
