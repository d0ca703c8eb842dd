package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/driver/noop"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

// wideGraph returns n resources of driver drv in chains of depth: wide
// enough that parallelism, not the order, bounds the walk.
func wideGraph(b *testing.B, n, depth int, drv string) *graph.Graph {
	b.Helper()
	rs := make([]res, n)
	for i := range rs {
		rs[i] = res{addr: fmt.Sprintf("r%05d", i), drv: drv}
		if i%depth != 0 {
			rs[i].deps = []string{fmt.Sprintf("r%05d", i-1)}
		}
	}
	return buildGraph(b, rs...)
}

// sleepDriver succeeds after d, like a 50 ms script without its process.
type sleepDriver struct{ d time.Duration }

func (s sleepDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	select {
	case <-time.After(s.d):
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
	if req.Action == ActionDelete {
		return Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK}}, nil
	}
	return Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}}, nil
}

// benchApply applies g to a fresh file state once per iteration, with the
// journal on, and reports the time per action and the fsyncs.
func benchApply(b *testing.B, g *graph.Graph, reg Registry, opts Options, ideal time.Duration) {
	benchApplyTo(b, g, reg, opts, ideal, func(i int) state.Store {
		st, err := state.OpenFile(filepath.Join(b.TempDir(), fmt.Sprintf("s%d.json", i)), state.FileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return st
	})
}

// benchApplyTo is benchApply on the fresh, empty state fresh(i) returns.
func benchApplyTo(b *testing.B, g *graph.Graph, reg Registry, opts Options, ideal time.Duration, fresh func(i int) state.Store) {
	ctx := context.Background()
	p := planOf(b, g, nil, planner.Options{})
	steps := len(p.Steps())
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		st := fresh(i)
		b.StartTimer()
		start := time.Now()
		rep, err := Apply(ctx, p, st, reg, opts)
		el := time.Since(start)
		_ = st.Close()
		if err != nil || !rep.OK() {
			b.Fatalf("apply: %v (%d failed)", err, rep.Failed)
		}
		b.ReportMetric(float64(el.Microseconds())/float64(steps), "µs/action")
		if ideal > 0 {
			b.ReportMetric(float64(el-ideal)/float64(time.Microsecond)/float64(steps)*float64(opts.Parallelism), "overhead-µs/action")
			b.ReportMetric(100*float64(el-ideal)/float64(ideal), "%over-ideal")
		}
	}
}

// BenchmarkApplyNoop10k: 10,000 noop actions with the journal on (goal:
// under 3 s).
func BenchmarkApplyNoop10k(b *testing.B) {
	benchApply(b, wideGraph(b, 10000, 10, graph.DriverNoop), Registry{graph.DriverNoop: noop.Driver{}}, Options{}, 0)
}

// BenchmarkApplyNoop10kPostgres: the same apply with the state (snapshot
// and journal rows) in PostgreSQL on loopback (goal: under 10 s); skipped
// without the test server (XOSPLAN_TEST_PG).
func BenchmarkApplyNoop10kPostgres(b *testing.B) {
	db := pgtest.NewDatabase(b)
	benchApplyTo(b, wideGraph(b, 10000, 10, graph.DriverNoop), Registry{graph.DriverNoop: noop.Driver{}}, Options{}, 0, func(i int) state.Store {
		ctx := context.Background()
		def, err := pgbackend.Open(ctx, pgbackend.Options{DSN: db})
		if err != nil {
			b.Fatal(err)
		}
		defer def.Close()
		name := fmt.Sprintf("bench%d", i)
		if err := def.CreateWorkspace(ctx, name); err != nil {
			b.Fatal(err)
		}
		st, err := pgbackend.Open(ctx, pgbackend.Options{DSN: db, Name: name})
		if err != nil {
			b.Fatal(err)
		}
		return st
	})
}

// BenchmarkApplySleep1k: 1,000 actions of 50 ms at parallelism 10 on a
// wide graph; the ideal is 5 s (goal: within 10%).
func BenchmarkApplySleep1k(b *testing.B) {
	benchApply(b, wideGraph(b, 1000, 1, fakeName), Registry{fakeName: sleepDriver{50 * time.Millisecond}},
		Options{Parallelism: 10}, 5*time.Second)
}

// BenchmarkApplyExecSleep200: 200 real subprocesses (sh running a script
// that sleeps 50 ms) through the exec driver at parallelism 10; the ideal
// is 1 s. The difference to BenchmarkApplySleep1k is the cost of a process.
func BenchmarkApplyExecSleep200(b *testing.B) {
	dir := b.TempDir()
	script := filepath.Join(dir, "sleep.sh")
	if err := os.WriteFile(script, []byte("sleep 0.05\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	g := graph.New()
	for i := range 200 {
		r := &graph.Resource{Address: fmt.Sprintf("r%03d", i), Type: "test.T", Management: graph.Managed,
			Spec: map[string]graph.Value{},
			Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{
				"Standard.create": {Implementation: script}}}}
		if err := g.AddResource(r); err != nil {
			b.Fatal(err)
		}
	}
	// Applied from the script's folder: an implementation outside the
	// configuration root is refused.
	benchApply(b, g, Registry{graph.DriverExec: exec.New(DriverOptions{})}, Options{Parallelism: 10, WorkDir: dir}, time.Second)
}
