package yamlsrc

import (
	"context"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// BenchmarkReadOverFloor10k measures, side by side in one loop, the CPU
// time of reading the 10,000-node TOSCA 1.3 and 2.0 templates of
// BenchmarkValidateOverParse10k three ways: ParseFloor (the library's
// parse alone, the floor), the library path of ParseAll (parse, convert)
// and ParseAll (the fast reader). It reports fast/floor and
// library/floor for each version (issue 25 row 1 wants the fast reader
// well below the floor, at most 0.35×) and the CPU ms of each.
func BenchmarkReadOverFloor10k(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	for _, v := range []struct {
		name string
		data []byte
	}{{"1.3", testutil.BenchTemplate13(n)}, {"2.0", testutil.BenchTemplate20(n)}} {
		b.Run(v.name, func(b *testing.B) {
			lim := Limits{}.withDefaults(len(v.data))
			if _, _, ok := readFast(ctx, "t.yaml", v.data, lim); !ok {
				b.Fatal("the fast reader gave up on the template")
			}
			var floor, library, fast time.Duration
			timed := func(total *time.Duration, f func()) {
				start := testutil.CPUTime()
				f()
				*total += testutil.CPUTime() - start
			}
			b.ReportAllocs()
			for b.Loop() {
				timed(&floor, func() {
					if _, err := ParseFloor(v.data); err != nil {
						b.Fatal(err)
					}
				})
				timed(&library, func() {
					if _, diags := parseLibrary(ctx, "t.yaml", v.data, lim); diags.HasErrors() {
						b.Fatal(diags.Err())
					}
				})
				timed(&fast, func() {
					if _, diags := ParseAllContext(ctx, "t.yaml", v.data, Limits{}); diags.HasErrors() {
						b.Fatal(diags.Err())
					}
				})
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(float64(fast)/float64(floor), "x-floor-fast")
			b.ReportMetric(float64(library)/float64(floor), "x-floor-library")
			b.ReportMetric(ms(floor), "floor-cpu-ms")
			b.ReportMetric(ms(library), "library-cpu-ms")
			b.ReportMetric(ms(fast), "fast-cpu-ms")
		})
	}
}

// BenchmarkRead10k gives the time and allocations of each way of reading
// the 10,000-node TOSCA 1.3 template alone.
func BenchmarkRead10k(b *testing.B) {
	data := testutil.BenchTemplate13(10_000)
	ctx := context.Background()
	lim := Limits{}.withDefaults(len(data))
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = ParseFloor(data)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = parseLibrary(ctx, "t.yaml", data, lim)
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = ParseAllContext(ctx, "t.yaml", data, Limits{})
		}
	})
}
