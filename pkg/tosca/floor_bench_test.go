package tosca

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// BenchmarkValidateOverParse10k measures, side by side in one process and
// one loop (so that whatever else the machine runs weighs on each alike),
// the CPU time of three things on 10,000 node templates: reading the 1.3
// file and only parsing it into the YAML library's tree (the floor),
// compiling the 1.3 file (what validate does) and compiling the 2.0 one.
// It reports compile-1.3/parse (x-parse), compile-2.0/compile-1.3
// (x-1.3) and the CPU milliseconds of each. All three run with the
// garbage-collector settings of the xosplan binary (cmd/xosplan/main.go:
// GOGC 400, a soft limit of 1 GiB), as validate does.
func BenchmarkValidateOverParse10k(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	const n = 10_000
	dir := b.TempDir()
	p13, p20 := filepath.Join(dir, "t13.yaml"), filepath.Join(dir, "t20.yaml")
	if err := os.WriteFile(p13, genTemplate(n), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p20, genTemplate2(n), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var parse, c13, c20 time.Duration
	// Each step starts as a validate process does, with nothing to
	// collect: otherwise a step pays the collector for the garbage of the
	// one before it (at GOGC 400, cycles are few and land on whichever step
	// crosses the goal), so that the order of the steps, not their work,
	// would decide part of the ratios. The two compiles also take turns
	// at going first.
	timed := func(total *time.Duration, f func()) {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		start := testutil.CPUTime()
		f()
		*total += testutil.CPUTime() - start
	}
	b.ReportAllocs()
	round := 0
	for b.Loop() {
		round++
		timed(&parse, func() {
			data, err := userfile.Read(ctx, p13, userfile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := yamlsrc.ParseFloor(data); err != nil {
				b.Fatal(err)
			}
		})
		compiles := []struct {
			total *time.Duration
			path  string
		}{{&c13, p13}, {&c20, p20}}
		if round%2 == 0 {
			compiles[0], compiles[1] = compiles[1], compiles[0]
		}
		for _, c := range compiles {
			timed(c.total, func() {
				g, diags := Compile(ctx, c.path, Options{})
				if diags.HasErrors() || g.Len() != n {
					b.Fatalf("compile %s: %d resources, %v", c.path, lenOf(g), diags.Err())
				}
			})
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(float64(c13)/float64(parse), "x-parse")
	b.ReportMetric(float64(c20)/float64(c13), "x-1.3")
	b.ReportMetric(ms(parse), "parse-cpu-ms")
	b.ReportMetric(ms(c13), "1.3-cpu-ms")
	b.ReportMetric(ms(c20), "2.0-cpu-ms")
}
