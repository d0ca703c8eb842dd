package planner

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/xosplan/xosplan/internal/planfixture"
)

// BenchmarkDiff plans n resources against n recorded, 1% changed, and
// encodes the plan file.
func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g, st := planfixture.BenchInputs(n, false)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, diags := Diff(context.Background(), g, st, Options{})
				if diags.HasErrors() || p.Summary.Change != n/100 {
					b.Fatalf("%v %+v", diags, p.Summary)
				}
				if err := Encode(io.Discard, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
