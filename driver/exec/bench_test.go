//go:build unix

package exec

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// BenchmarkExecOperation measures the driver's cost around one subprocess
// that does nothing: the per-action overhead of an exec operation.
func BenchmarkExecOperation(b *testing.B) {
	dir := b.TempDir()
	testutil.WriteScript(b, dir, "op.sh", ":")
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "op.sh", Inputs: map[string]graph.Value{"a": "1", "b": int64(2)}}})
	d := New(drivertest.Options(""))
	req := driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir}
	b.ResetTimer()
	for range b.N {
		if _, err := d.Apply(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecParallelSleep runs 200 operations of a 50 ms script, 10 at
// a time, through the exec driver alone; the ideal is 1 s. It reports how
// far above the ideal the driver and the machine take.
func BenchmarkExecParallelSleep(b *testing.B) {
	dir := b.TempDir()
	testutil.WriteScript(b, dir, "sleep.sh", "sleep 0.05\n")
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "sleep.sh"}})
	d := New(drivertest.Options(""))
	const n, par = 200, 10
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		sem := make(chan struct{}, par)
		var wg sync.WaitGroup
		for range n {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if _, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir}); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	per := time.Since(start) / time.Duration(b.N)
	ideal := time.Duration(n/par) * 50 * time.Millisecond
	b.ReportMetric(float64(per-ideal)/float64(ideal)*100, "%over-ideal")
	// Each of the n/par waves of par actions is slower by this much.
	b.ReportMetric(float64((per-ideal)/time.Microsecond)/float64(n/par), "overhead-µs/wave")
}
