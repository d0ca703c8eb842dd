//go:build linux

package pgcluster

import (
	"context"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// BenchmarkCluster1kActions50ms applies 1,000 independent actions of 50 ms
// over three members at parallelism 10 each, as a leader's walk does: the
// executor's walk with the cluster's drivers, its journal and snapshot in
// PostgreSQL. The ideal is 1,000 × 50 ms / 30 = 1.67 s (goal: within 15%);
// it reports the overhead over the ideal and the share each member ran.
func BenchmarkCluster1kActions50ms(b *testing.B) {
	const n, delay, par = 1000, 50 * time.Millisecond, 10
	// The binary's garbage-collector setting (cmd/xosplan/main.go).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	dsn := database(b)
	// Bounded, so that a hang fails the benchmark rather than the run.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var tl tally
	var first *sleeper
	var members []*Cluster
	for i := range 3 {
		name := fmt.Sprintf("m%d", i+1)
		drv := &sleeper{member: name, delay: delay, tally: &tl}
		if first == nil {
			first = drv
		}
		drivers := executor.Registry{graph.DriverExec: drv}
		digest := xsync.CheckoutDigest(goalWith("sha256:bench", drivers))
		c, err := Open(ctx, Options{DSN: dsn, Name: name, Parallelism: par, WorkDir: b.TempDir(),
			Local: func(context.Context) (Local, error) { return Local{Drivers: drivers, Digest: digest}, nil }})
		if err != nil {
			b.Fatal(err)
		}
		members = append(members, c)
	}
	defer func() {
		for _, c := range members {
			_ = c.Close(ctx)
		}
	}()
	allAlive(b, members[0], 3)
	g := graph.New()
	for i := range n {
		r := &graph.Resource{Address: fmt.Sprintf("r%04d", i), Type: "bench.T", Management: graph.Managed,
			Spec: map[string]graph.Value{"i": int64(i)}, Driver: graph.Driver{Name: graph.DriverExec}}
		if err := g.AddResource(r); err != nil {
			b.Fatal(err)
		}
	}
	p, diags := planner.Diff(ctx, g, &state.State{Version: state.FormatVersion}, planner.Options{})
	if diags.HasErrors() {
		b.Fatal(diags.Err())
	}
	drivers, parallelism := members[0].Dispatch(goalOf("sha256:bench", first))
	if parallelism != 2*3*par {
		b.Fatalf("parallelism %d, want %d (three members of %d, as many again queued)", parallelism, 2*3*par, par)
	}
	admin, err := pgbackend.Open(ctx, pgbackend.Options{DSN: dsn})
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	var total, cpu time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		name := fmt.Sprintf("bench%d", i)
		if err := admin.CreateWorkspace(ctx, name); err != nil {
			b.Fatal(err)
		}
		st, err := pgbackend.Open(ctx, pgbackend.Options{DSN: dsn, Name: name})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, c0 := time.Now(), testutil.CPUTime()
		rep, err := executor.Apply(ctx, p, st, drivers, executor.Options{Parallelism: parallelism, Retries: -1})
		total, cpu = total+time.Since(start), cpu+testutil.CPUTime()-c0
		b.StopTimer()
		st.Close()
		if err != nil || !rep.OK() || rep.Added != n {
			b.Fatalf("apply: %v; %d added of %d", err, rep.Added, n)
		}
		b.StartTimer()
	}
	ideal := time.Duration(n) * delay / (3 * par)
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per-ideal)/float64(ideal)*100, "%over-ideal")
	// The members' and the leader's CPU (the database's is not counted).
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	for i, c := range members {
		b.ReportMetric(float64(tl.count(fmt.Sprintf("m%d", i+1)))/float64(b.N), c.Member()[:2]+"-actions/op")
	}
}
