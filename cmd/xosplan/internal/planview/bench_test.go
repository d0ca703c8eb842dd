package planview

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/planner/planfixture"
)

// BenchmarkPlanAndRender is the planning and rendering path of
// `xosplan plan --out F --json-out F --markdown-out F`: diff, human text,
// plan file, JSON plan and markdown.
func BenchmarkPlanAndRender(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g, st := planfixture.BenchInputs(n, true)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, diags := planner.Diff(context.Background(), g, st, planner.Options{})
				if diags.HasErrors() || p.Summary.Change != n/100 {
					b.Fatalf("%v %+v", diags, p.Summary)
				}
				if err := Text(io.Discard, p, TextOptions{}); err != nil {
					b.Fatal(err)
				}
				if err := planner.Encode(io.Discard, p); err != nil {
					b.Fatal(err)
				}
				if err := JSON(io.Discard, p); err != nil {
					b.Fatal(err)
				}
				if md := Markdown(p, MarkdownOptions{}); len(md) > MaxMarkdown {
					b.Fatal("markdown too long")
				}
			}
		})
	}
}
