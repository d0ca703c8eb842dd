package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// fakeName is the driver name of fakeDriver in test registries.
const fakeName = "fake"

// res describes a test resource: its address, what it depends on, and
// optionally its spec.
type res struct {
	addr string
	deps []string
	spec map[string]graph.Value
	// inputs are the inputs of its one operation "Standard.create".
	inputs map[string]graph.Value
	cbd    bool
	// drv is the driver name (default fakeName; graph.DriverNoop makes the
	// planner update in place).
	drv string
}

// buildGraph returns a graph of fake-driver resources.
func buildGraph(t testing.TB, rs ...res) *graph.Graph {
	t.Helper()
	g := graph.New()
	for _, r := range rs {
		spec := r.spec
		if spec == nil {
			spec = map[string]graph.Value{"name": r.addr}
		}
		d := graph.Driver{Name: fakeName}
		if r.drv != "" {
			d.Name = r.drv
		}
		if r.inputs != nil {
			d.Operations = map[string]graph.Operation{"Standard.create": {Implementation: "x", Inputs: r.inputs}}
		}
		if err := g.AddResource(&graph.Resource{Address: r.addr, Type: "test.T", Driver: d, Spec: spec,
			Management: graph.Managed, CreateBeforeDestroy: r.cbd}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rs {
		for _, d := range r.deps {
			if err := g.AddEdge(graph.Edge{Source: r.addr, Target: d, Kind: graph.DependsOn}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

// planOf plans g against prior and fails the test on errors.
func planOf(t testing.TB, g *graph.Graph, prior *state.State, opts planner.Options) *planner.Plan {
	t.Helper()
	p, diags := planner.Diff(context.Background(), g, prior, opts)
	if diags.HasErrors() || p == nil {
		t.Fatalf("plan: %v", diags.Err())
	}
	return p
}

// memJournal keeps records in memory and replays them like pkg/state.
type memJournal struct {
	mu   sync.Mutex
	recs []state.Record
	// failAfter makes every Append after that many fail (0: never).
	failAfter int
}

var errJournalFull = errors.New("journal full")

func (j *memJournal) Append(_ context.Context, rec state.Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failAfter > 0 && len(j.recs) >= j.failAfter {
		return 0, errJournalFull
	}
	rec.Seq = uint64(len(j.recs) + 1)
	j.recs = append(j.recs, rec)
	return rec.Seq, nil
}

// state returns prior with the outcomes applied.
func (j *memJournal) state(prior *state.State) *state.State {
	j.mu.Lock()
	defer j.mu.Unlock()
	byAddr := map[string]state.Resource{}
	if prior != nil {
		for _, r := range prior.Resources {
			byAddr[r.Address] = r
		}
	}
	for _, rec := range j.recs {
		if rec.Kind != state.RecordOutcome {
			continue
		}
		if rec.Removed {
			delete(byAddr, rec.Address)
		} else {
			byAddr[rec.Address] = *rec.Resource
		}
	}
	out := &state.State{}
	if prior != nil {
		out.Lineage, out.Serial = prior.Lineage, prior.Serial
	}
	for _, a := range slices.Sorted(maps.Keys(byAddr)) {
		out.Resources = append(out.Resources, byAddr[a])
	}
	return out
}

// fakeDriver records its calls and fails, sleeps or converges as told.
type fakeDriver struct {
	mu         sync.Mutex
	calls      []string // "addr:action" in call order
	requests   map[string]Request
	failTimes  map[string]int  // fail this many times, then succeed
	alwaysFail map[string]bool // fail every time
	converging map[string]int  // health checks that still say converging
	attrs      map[string]map[string]graph.Value
	sleep      time.Duration
	inFlight   atomic.Int64
	maxFlight  atomic.Int64
	// block, when set, makes create wait for ctx to end.
	block bool
}

func newFake() *fakeDriver {
	return &fakeDriver{requests: map[string]Request{}, failTimes: map[string]int{}, alwaysFail: map[string]bool{},
		converging: map[string]int{}, attrs: map[string]map[string]graph.Value{}}
}

func (f *fakeDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	cur := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxFlight.Load()
		if cur <= m || f.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, req.Address+":"+req.Action)
	f.requests[req.Address+":"+req.Action] = req
	fail := f.alwaysFail[req.Address]
	if f.failTimes[req.Address] > 0 && req.Action != ActionHealth {
		f.failTimes[req.Address]--
		fail = true
	}
	conv := f.converging[req.Address]
	if req.Action == ActionHealth && conv > 0 {
		f.converging[req.Address]--
	}
	attrs := f.attrs[req.Address]
	block := f.block
	f.mu.Unlock()
	if f.sleep > 0 {
		select {
		case <-time.After(f.sleep):
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		}
	}
	if block && req.Action == ActionCreate {
		<-ctx.Done()
		return Outcome{}, fmt.Errorf("cancelled: %w", ctx.Err())
	}
	if req.Output != nil {
		req.Output("working on " + req.Address)
	}
	if fail {
		return Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}, fmt.Errorf("%s broke", req.Address)
	}
	fb := state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}, Attributes: attrs}
	switch {
	case req.Action == ActionDelete:
		return Outcome{Gone: true, Feedback: fb}, nil
	case req.Action == ActionCreate && conv > 0:
		fb.Status = state.Status{Converging: true}
		return Outcome{Converging: true, Feedback: fb}, nil
	case req.Action == ActionHealth && conv > 0:
		fb.Status = state.Status{Converging: true}
		return Outcome{Feedback: fb}, nil
	}
	return Outcome{Feedback: fb}, nil
}

func (f *fakeDriver) callList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// calledBefore asserts that call a happened before call b.
func calledBefore(t *testing.T, calls []string, a, b string) {
	t.Helper()
	ia, ib := slices.Index(calls, a), slices.Index(calls, b)
	if ia < 0 || ib < 0 || ia > ib {
		t.Errorf("want %s before %s; calls: %s", a, b, strings.Join(calls, " "))
	}
}

// fastOpts are walk options for tests: short waits, no default retries.
func fastOpts() Options {
	return Options{
		Retries:        -1,
		Backoff:        func(int) time.Duration { return time.Millisecond },
		HealthInterval: time.Millisecond,
		Grace:          50 * time.Millisecond,
	}
}

// stepResults maps "addr:action" to the step's result.
func stepResults(rep *Report) map[string]StepResult {
	out := map[string]StepResult{}
	for _, s := range rep.Steps {
		out[s.Address+":"+s.Action] = s
	}
	return out
}

// stateOrNil is the state j recorded over an empty one, or nil for a nil
// journal.
func (j *memJournal) stateOrNil() *state.State {
	if j == nil {
		return nil
	}
	return j.state(nil)
}
