//go:build unix

package sync

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver/noop"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// benchResources is the size of the benchmarks' configuration.
const benchResources = 10_000

// benchGoal returns a goal of n resources in chains of ten on the noop
// driver; the specs of the first changed ones carry another value.
func benchGoal(n, changed int) GoalFunc { return benchGoalOn(n, changed, nil) }

// benchGoalOn is benchGoal on drv when given: an in-memory driver whose
// resources have health checks.
func benchGoalOn(n, changed int, drv executor.Driver) GoalFunc {
	return func(context.Context) (*Goal, diag.Diagnostics, error) {
		g := graph.New()
		for i := range n {
			v := "v1"
			if i < changed {
				v = "v2"
			}
			d := graph.Driver{Name: graph.DriverNoop}
			if drv != nil {
				d = graph.Driver{Name: "fake", Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/l"}, graph.OpHealthCheck: {Implementation: "/h"}}}
			}
			_ = g.AddResource(&graph.Resource{Address: fmt.Sprintf("r%05d", i), Type: "T", Management: graph.Managed,
				Spec: map[string]graph.Value{"size": int64(i), "version": v}, Driver: d})
			if i%10 != 0 {
				_ = g.AddEdge(graph.Edge{Source: fmt.Sprintf("r%05d", i), Target: fmt.Sprintf("r%05d", i-1), Kind: graph.DependsOn})
			}
		}
		return &Goal{Desired: g, Drivers: executor.Registry{graph.DriverNoop: noop.Driver{}, "fake": drv},
			Plan: planner.Options{InputDigests: map[string]string{"bench.yaml": "1"}}}, nil, nil
	}
}

// benchState applies a goal of n resources to a new state file, with
// its lock held until the benchmark ends.
func benchState(b *testing.B, n int, drv executor.Driver) *state.File {
	b.Helper()
	store := lockedStore(b)
	e := New(Options{Goal: benchGoalOn(n, 0, drv), Store: store, Apply: executor.Options{ProgressInterval: -1}})
	goal, _, _ := e.opts.Goal(context.Background())
	e.goal = goal
	if outcome, _, err := e.reconcileOnce(context.Background(), time.Now()); outcome != OutcomeApplied || err != nil {
		b.Fatalf("setting up the state: %s %v", outcome, err)
	}
	return store
}

// BenchmarkSyncIdle10k runs a sync of 10,000 resources (noop driver, all
// applied) with nothing to do, on the real clock, and reports the CPU it
// uses per second of wall time over a 2-second window of each iteration
// (target: under 1 % of a core) and the live heap afterwards.
func BenchmarkSyncIdle10k(b *testing.B) { benchIdle(b, nil, 0) }

// BenchmarkSyncIdle10kHealthChecks is BenchmarkSyncIdle10k with a health
// check on every resource every minute (an in-memory driver, so that
// the engine's own cost shows, not the scripts'): about 167 checks a
// second, in batches of one a second.
func BenchmarkSyncIdle10kHealthChecks(b *testing.B) {
	benchIdle(b, &fakeDriver{clock: newFakeClock(), gone: map[string]bool{}}, time.Minute)
}

func benchIdle(b *testing.B, drv *fakeDriver, interval time.Duration) {
	var d executor.Driver
	if drv != nil {
		d = drv
	}
	store := benchState(b, benchResources, d)
	e := New(Options{Goal: benchGoalOn(benchResources, 0, d), Store: store, Apply: executor.Options{ProgressInterval: -1},
		HealthInterval: interval})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	for !e.Status().Ready {
		time.Sleep(10 * time.Millisecond)
	}
	runtime.GC()
	var cpu, wall time.Duration
	b.ResetTimer()
	for range b.N {
		start, c0 := time.Now(), testutil.CPUTime()
		time.Sleep(2 * time.Second)
		cpu += testutil.CPUTime() - c0
		wall += time.Since(start)
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%core")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MiB-heap")
}

// BenchmarkReconcilePlanning10k1pct measures the planning of a reconcile
// (what waits, then the plan) of 10,000 resources of which 1 % changed
// (target: under 1 s).
func BenchmarkReconcilePlanning10k1pct(b *testing.B) {
	store := benchState(b, benchResources, nil)
	e := New(Options{Goal: benchGoal(benchResources, benchResources/100), Store: store})
	goal, _, _ := e.opts.Goal(context.Background())
	e.goal, e.reverse = goal, reverseEdges(goal.Desired)
	prior, err := e.load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		p, _, diags := e.plan(context.Background(), goal, prior, time.Now())
		if p == nil || diags.HasErrors() || p.Summary.Change+p.Summary.Replace != benchResources/100 {
			b.Fatalf("plan: %v, %v", p.Summary, diags)
		}
	}
}
