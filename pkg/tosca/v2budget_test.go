package tosca

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// budgetTemplate2 is a template of under 2 KB whose cost lies in its
// type's values, evaluated for each of the 10,000 representations of
// each of its templates: inputs i0 … i3 make a list of 10,000 integers
// ($concat of ten of the one before, evaluated once), and prop is the
// definition of the properties of type T, written with the name of that
// list ({ $get_input: i3 }).
func budgetTemplate2(prop string, templates int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tosca_definitions_version: tosca_2_0\nnode_types:\n  T:\n    properties:\n")
	for i := range 4 {
		fmt.Fprintf(&b, "      p%d: %s\n", i, prop)
	}
	b.WriteString("service_template:\n  inputs:\n    i0: { type: list, entry_schema: integer, default: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }\n")
	for i := 1; i <= 3; i++ {
		prev := fmt.Sprintf("{ $get_input: i%d }", i-1)
		fmt.Fprintf(&b, "    i%d: { type: list, entry_schema: integer, default: { $concat: [ %s ] } }\n", i, strings.Repeat(prev+", ", 9)+prev)
	}
	b.WriteString("  node_templates:\n")
	for i := range templates {
		fmt.Fprintf(&b, "    t%d: { type: T, count: 10000 }\n", i)
	}
	return []byte(b.String())
}

// TestValueBudget2 checks that the value work of a 2.0 compile is held
// to internal/tosca2's maxValueSteps: the type's defaults and validation clauses that each
// representation evaluates again give one tosca.too_complex error, at the
// value being evaluated when the work ran out, and the compile stops
// there. Each of these templates validated without a problem before (the
// $length one for 2 minutes and 730 MB).
func TestValueBudget2(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		// col is the column of the value reported, on the line of one
		// of the four properties (lines 5 to 8; which one depends on
		// where the limit falls), at the property of t0 it defines.
		col int
	}{
		{"validation", budgetTemplate2("{ type: integer, default: 9, validation: { $valid_values: [ $value, { $get_input: i3 } ] } }", 1), 52},
		{"length of concat", budgetTemplate2("{ type: integer, default: { $length: [ { $concat: [ { $get_input: i3 }, { $get_input: i3 } ] } ] } }", 5), 50},
		{"list default", budgetTemplate2("{ type: list, entry_schema: integer, default: { $get_input: i3 } }", 1), 57},
		// A regular expression compiled for each call (13.5 s of CPU and
		// 480 MB before).
		{"pattern", budgetTemplate2(`{ type: string, default: x, validation: { $matches: [ $value, "(\\pL|\\pN){1000}|x" ] } }`, 2), 51},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.src) > 2048 {
				t.Fatalf("the template has %d bytes, not under 2 KB", len(tc.src))
			}
			g, diags := compileWithin(t, tc.src)
			if len(diags) != 1 || diags[0].Code != CodeTooComplex {
				t.Fatalf("want one %s error, got %d diagnostics: %v", CodeTooComplex, len(diags), diags)
			}
			d := diags[0]
			line := d.Range.Start.Line
			if line < 5 || line > 8 || d.Range.Start.Column != tc.col || d.Path != "service_template.node_templates.t0.properties.p"+core.Itoa(int64(line-5)) {
				t.Errorf("at %d:%d %s, want column %d of a property's line, and its path: %s", line, d.Range.Start.Column, d.Path, tc.col, d.Summary)
			}
			if g != nil {
				t.Errorf("a graph was built")
			}
		})
	}
}

// TestValueBudgetAllowsExpansion2 checks that the values a template with
// count may repeat under internal/tosca2's maxExpandedValues stay within the value budget.
func TestValueBudgetAllowsExpansion2(t *testing.T) {
	g, diags := compileWithin(t, valuesTemplate2(390))
	requireNoErrors(t, diags)
	if g.Len() != 10_000 {
		t.Errorf("%d resources", g.Len())
	}
}

// BenchmarkValueBudget2 holds the target of issue 20 for values a type
// repeats: the templates of TestValueBudget2 answer in under 2 s of CPU
// and 300 MB. Run it alone for the peak RSS: -run '^$' -bench ValueBudget2.
func BenchmarkValueBudget2(b *testing.B) {
	for _, bc := range []struct {
		name, prop string
		templates  int
	}{
		{"validation", "{ type: integer, default: 9, validation: { $valid_values: [ $value, { $get_input: i3 } ] } }", 1},
		{"length_of_concat", "{ type: integer, default: { $length: [ { $concat: [ { $get_input: i3 }, { $get_input: i3 } ] } ] } }", 5},
		{"list_default", "{ type: list, entry_schema: integer, default: { $get_input: i3 } }", 1},
		{"pattern", `{ type: string, default: x, validation: { $matches: [ $value, "(\\pL|\\pN){1000}|x" ] } }`, 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchmarkCompileCPU(b, budgetTemplate2(bc.prop, bc.templates), func(_ *graph.Graph, diags diag.Diagnostics) string {
				if len(diags) != 1 || diags[0].Code != CodeTooComplex {
					return fmt.Sprintf("diagnostics: %v", diags)
				}
				return ""
			})
			b.ReportMetric(float64(testutil.PeakRSS())/(1<<20), "peak-rss-MB")
		})
	}
}
