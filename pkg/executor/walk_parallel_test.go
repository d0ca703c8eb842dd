package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// gatePatience is how long a call waits at a gate before it fails: far
// more than starting a few goroutines takes on a loaded machine, and the
// bound that makes a walk that never reaches the gate's count fail
// instead of hang.
const gatePatience = 10 * time.Second

var errGateBroken = errors.New("an earlier call gave up waiting at the gate")

// gate holds the driver calls that pass it until want of them wait at
// once, which a walk that makes its calls one after the other never
// reaches. The first call to wait gatePatience fails, and every call
// after it at once.
type gate struct {
	want int

	mu        sync.Mutex
	arrived   int
	open      chan struct{}
	broken    chan struct{}
	breakOnce sync.Once
}

func newGate(want int) *gate {
	return &gate{want: want, open: make(chan struct{}), broken: make(chan struct{})}
}

func (g *gate) pass(ctx context.Context) error {
	g.mu.Lock()
	g.arrived++
	if g.arrived == g.want {
		close(g.open)
	}
	g.mu.Unlock()
	t := time.NewTimer(gatePatience)
	defer t.Stop()
	select {
	case <-g.open:
		return nil
	case <-g.broken:
		return errGateBroken
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		g.breakOnce.Do(func() { close(g.broken) })
		return fmt.Errorf("%d calls reached the gate in %s, want %d at once", g.reached(), gatePatience, g.want)
	}
}

func (g *gate) reached() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.arrived
}

func (g *gate) opened() bool {
	select {
	case <-g.open:
		return true
	default:
		return false
	}
}

// gateDriver sends the calls for addresses starting with "r" through its
// gate; every call succeeds once through.
type gateDriver struct{ g *gate }

func (d gateDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	if strings.HasPrefix(req.Address, "r") {
		if err := d.g.pass(ctx); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}}, nil
}

// TestWalkRunsIndependentCallsAtOnce proves the lower bound that
// TestWalkParallelismBound cannot: the walk makes as many driver calls at
// once as the dependencies, Parallelism and the driver's limit allow. A
// walk that made one call at a time would fail every case here.
func TestWalkRunsIndependentCallsAtOnce(t *testing.T) {
	independent := func(n int) []res {
		var rs []res
		for i := range n {
			rs = append(rs, res{addr: fmt.Sprintf("r%02d", i)})
		}
		return rs
	}
	tests := []struct {
		name        string
		rs          []res
		parallelism int
		perDriver   int
		want        int
	}{
		{name: "independent creates", rs: independent(8), parallelism: 8, want: 8},
		{name: "as many as the parallelism", rs: independent(12), parallelism: 4, want: 4},
		{name: "as many as the driver's limit", rs: independent(12), parallelism: 8, perDriver: 3, want: 3},
		{name: "the dependents of one resource once it is done", rs: func() []res {
			rs := []res{{addr: "base"}}
			for i := range 6 {
				rs = append(rs, res{addr: fmt.Sprintf("r%02d", i), deps: []string{"base"}})
			}
			return rs
		}(), parallelism: 10, want: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(tt.want)
			opts := fastOpts()
			opts.Parallelism = tt.parallelism
			if tt.perDriver > 0 {
				opts.PerDriver = map[string]int{fakeName: tt.perDriver}
			}
			p := planOf(t, buildGraph(t, tt.rs...), nil, planner.Options{})
			rep, err := Walk(context.Background(), p, nil, &memJournal{}, Registry{fakeName: gateDriver{g}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !g.opened() || !rep.OK() {
				t.Fatalf("%d calls at once were never reached: %s", tt.want, failures(rep))
			}
			if rep.MaxInFlight < tt.want {
				t.Errorf("report says %d calls in flight at most, want at least %d", rep.MaxInFlight, tt.want)
			}
		})
	}
}

// failures sums up the failed steps of rep by their first error.
func failures(rep *Report) string {
	failed := rep.ByResult(ResultFailed)
	if len(failed) == 0 {
		return fmt.Sprintf("report %+v", *rep)
	}
	return fmt.Sprintf("%d of %d steps failed, the first: %s", len(failed), len(rep.Steps), failed[0].Error)
}

// gateBatch serves the creates of resources that share the first letter
// of their address in one LaunchBatch call, each call through its gate.
type gateBatch struct {
	gateDriver
	mu    sync.Mutex
	sizes []int
}

func (b *gateBatch) BatchKey(req Request) string {
	if req.Action == ActionCreate {
		return req.Address[:1]
	}
	return ""
}

func (b *gateBatch) LaunchBatch(ctx context.Context, reqs []Request) []BatchResult {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(reqs))
	b.mu.Unlock()
	err := b.g.pass(ctx)
	out := make([]BatchResult, len(reqs))
	for i := range out {
		out[i].Err = err
		if err == nil {
			out[i].Outcome = Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}}
		}
	}
	return out
}

// TestWalkRunsBatchedCallsAtOnce: batches of different keys run at once,
// as independent single calls do.
func TestWalkRunsBatchedCallsAtOnce(t *testing.T) {
	var rs []res
	for _, key := range []string{"r", "s", "t"} {
		for i := range 4 {
			rs = append(rs, res{addr: fmt.Sprintf("%s%02d", key, i)})
		}
	}
	b := &gateBatch{gateDriver: gateDriver{newGate(3)}}
	opts := fastOpts()
	opts.Parallelism = 3
	p := planOf(t, buildGraph(t, rs...), nil, planner.Options{})
	rep, err := Walk(context.Background(), p, nil, &memJournal{}, Registry{fakeName: b}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !b.g.opened() || !rep.OK() || rep.Added != len(rs) {
		t.Fatalf("3 batched calls at once were never reached: %s", failures(rep))
	}
	if rep.MaxInFlight < 3 {
		t.Errorf("report says %d calls in flight at most, want 3", rep.MaxInFlight)
	}
	for _, n := range b.sizes {
		if n < 2 {
			t.Errorf("batch sizes %v: want every call to serve several requests", b.sizes)
			break
		}
	}
}
