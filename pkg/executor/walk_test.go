package executor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// walkFake runs a plan against prior with a fresh fake driver.
func walkFake(t *testing.T, f *fakeDriver, p *planner.Plan, prior *state.State, opts Options) (*Report, *memJournal) {
	t.Helper()
	j := &memJournal{}
	reg := Registry{fakeName: f, graph.DriverNoop: f}
	rep, err := Walk(context.Background(), p, prior, j, reg, opts)
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return rep, j
}

func TestWalkOrder(t *testing.T) {
	// a <- b <- c, and d on its own.
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}}, res{addr: "c", deps: []string{"b"}}, res{addr: "d"})
	f := newFake()
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() || rep.Added != 4 {
		t.Fatalf("report: %+v", rep)
	}
	calls := f.callList()
	calledBefore(t, calls, "a:create", "b:create")
	calledBefore(t, calls, "b:create", "c:create")

	// Destroy runs in reverse.
	st := j.state(nil)
	f = newFake()
	rep, j = walkFake(t, f, planOf(t, g, st, planner.Options{Destroy: true}), st, fastOpts())
	if !rep.OK() || rep.Destroyed != 4 {
		t.Fatalf("destroy report: %+v", rep)
	}
	calls = f.callList()
	calledBefore(t, calls, "c:delete", "b:delete")
	calledBefore(t, calls, "b:delete", "a:delete")
	if left := j.state(st); len(left.Resources) != 0 {
		t.Errorf("after destroy the state holds %d resources", len(left.Resources))
	}
}

func TestWalkRecordsStateAndReplans(t *testing.T) {
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}})
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{"ip": "10.0.0.1"}
	_, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	st := j.state(nil)
	a, ok := st.Lookup("a")
	if !ok || a.Feedback.BackendCode != state.BackendOK || a.Feedback.Enacted.IsZero() || a.Feedback.Attempts != 1 {
		t.Fatalf("recorded a: %+v", a)
	}
	if a.Feedback.Attributes["ip"] != "10.0.0.1" {
		t.Errorf("attributes not recorded: %v", a.Feedback.Attributes)
	}
	b, _ := st.Lookup("b")
	if strings.Join(b.Dependencies, ",") != "a" {
		t.Errorf("b's dependencies recorded as %v", b.Dependencies)
	}
	// Every driver call is between an intent and an outcome.
	open := map[string]bool{}
	for _, r := range j.recs {
		switch r.Kind {
		case state.RecordIntent:
			if open[r.Address] {
				t.Errorf("two intents for %s without an outcome", r.Address)
			}
			open[r.Address] = true
		case state.RecordOutcome:
			if !open[r.Address] {
				t.Errorf("outcome for %s without an intent", r.Address)
			}
			open[r.Address] = false
		}
	}
	if p := planOf(t, g, st, planner.Options{}); p.HasChanges() {
		t.Errorf("re-plan after apply has changes: %+v", p.Summary)
	}
}

func TestWalkRetries(t *testing.T) {
	tests := []struct {
		name      string
		retries   int
		wantRes   string
		wantCalls int
	}{
		{"retried until it succeeds", 2, ResultApplied, 3},
		{"gives up", 1, ResultFailed, 2},
		{"no retry", -1, ResultFailed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}})
			f := newFake()
			f.failTimes["a"] = 2
			opts := fastOpts()
			opts.Retries = tt.retries
			var retries int
			opts.Events = func(e Event) {
				if e.Type == EventRetry {
					retries++
				}
			}
			rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
			got := stepResults(rep)["a:create"]
			if got.Result != tt.wantRes || got.Attempts != tt.wantCalls {
				t.Errorf("a: %+v, want %s after %d attempts", got, tt.wantRes, tt.wantCalls)
			}
			if retries != tt.wantCalls-1 {
				t.Errorf("%d retry events, want %d", retries, tt.wantCalls-1)
			}
			st := j.state(nil)
			a, _ := st.Lookup("a")
			wantCode := state.BackendOK
			if tt.wantRes == ResultFailed {
				wantCode = state.BackendError
				if b := stepResults(rep)["b:create"]; b.Result != ResultSkipped || b.Cause != "a (create)" {
					t.Errorf("b: %+v, want skipped because of a (create)", b)
				}
			}
			if a == nil || a.Feedback.BackendCode != wantCode || a.Feedback.Attempts != tt.wantCalls {
				t.Errorf("recorded a: %+v", a)
			}
		})
	}
}

func TestDoublingBackoff(t *testing.T) {
	b := DoublingBackoff(100*time.Millisecond, time.Second)
	var got []time.Duration
	for i := 1; i <= 6; i++ {
		got = append(got, b(i))
	}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("backoff %v, want %v ms", got, want)
		}
	}
}

func TestWalkFailureHoldsOnlyDependents(t *testing.T) {
	// a <- b <- c fails at a; d <- e are independent.
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}}, res{addr: "c", deps: []string{"b"}},
		res{addr: "d"}, res{addr: "e", deps: []string{"d"}})
	f := newFake()
	f.alwaysFail["a"] = true
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	r := stepResults(rep)
	if r["a:create"].Result != ResultFailed || !strings.Contains(r["a:create"].Error, "a broke") {
		t.Errorf("a: %+v", r["a:create"])
	}
	for _, s := range []string{"b:create", "c:create"} {
		if r[s].Result != ResultSkipped || r[s].Cause != "a (create)" {
			t.Errorf("%s: %+v, want skipped naming the root failure a (create)", s, r[s])
		}
	}
	for _, s := range []string{"d:create", "e:create"} {
		if r[s].Result != ResultApplied {
			t.Errorf("%s: %+v, want applied", s, r[s])
		}
	}
	if rep.Failed != 1 || rep.Skipped != 2 || rep.Added != 2 || rep.OK() {
		t.Errorf("counts: %+v", rep)
	}
	// The next plan retries what is left.
	st := j.state(nil)
	p := planOf(t, g, st, planner.Options{})
	if p.Summary.Add != 3 || p.Summary.NoOp != 2 {
		t.Errorf("re-plan summary %+v, want the failed and skipped ones again", p.Summary)
	}
}

func TestWalkFailFast(t *testing.T) {
	g := buildGraph(t, res{addr: "a"}, res{addr: "b"}, res{addr: "c"}, res{addr: "d"})
	f := newFake()
	f.alwaysFail["a"] = true
	opts := fastOpts()
	opts.FailFast = true
	opts.Parallelism = 1
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
	// Which step gets the one slot first is up to the scheduler; what
	// matters is that nothing starts after a failed.
	calls := f.callList()
	if calls[len(calls)-1] != "a:create" {
		t.Errorf("calls after the failure: %v", calls)
	}
	if rep.Failed != 1 || rep.Added != len(calls)-1 || rep.NotStarted != 4-len(calls) {
		t.Fatalf("report %+v after calls %v", rep, calls)
	}
	// Intents written for steps that then did not start are closed.
	st := j.state(nil)
	if len(st.Resources) != len(calls) {
		t.Errorf("state holds %d resources, want %d", len(st.Resources), len(calls))
	}
}

func TestWalkParallelismBound(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		perDriver   int
		want        int
	}{
		{"global", 7, 0, 7},
		{"per driver", 7, 3, 3},
		{"one", 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []res
			for i := range 120 {
				r := res{addr: fmt.Sprintf("r%03d", i)}
				if i >= 60 {
					r.deps = []string{fmt.Sprintf("r%03d", i-60)}
				}
				rs = append(rs, r)
			}
			g := buildGraph(t, rs...)
			f := newFake()
			f.sleep = time.Millisecond
			opts := fastOpts()
			opts.Parallelism = tt.parallelism
			if tt.perDriver > 0 {
				opts.PerDriver = map[string]int{fakeName: tt.perDriver}
			}
			rep, _ := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
			if !rep.OK() || rep.Added != 120 {
				t.Fatalf("report: %+v", rep)
			}
			if got := int(f.maxFlight.Load()); got > tt.want {
				t.Errorf("driver saw %d calls at once, limit %d", got, tt.want)
			}
			if rep.MaxInFlight > tt.want {
				t.Errorf("report says %d in flight, limit %d", rep.MaxInFlight, tt.want)
			}
		})
	}
}

func TestWalkConvergingHoldsDependents(t *testing.T) {
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}})
	f := newFake()
	f.converging["a"] = 2
	var types []string
	opts := fastOpts()
	opts.Events = func(e Event) {
		if e.Address == "a" {
			types = append(types, e.Type)
		}
	}
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	calls := f.callList()
	want := "a:create a:health a:health a:health b:create"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	if !strings.Contains(strings.Join(types, " "), EventConverging) {
		t.Errorf("no converging event: %v", types)
	}
	a, _ := j.state(nil).Lookup("a")
	if a.Feedback.BackendCode != state.BackendOK || !a.Feedback.Status.Active {
		t.Errorf("a recorded as %+v", a.Feedback)
	}
}

func TestWalkConvergeTimeout(t *testing.T) {
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}})
	f := newFake()
	f.converging["a"] = 1 << 30
	opts := fastOpts()
	opts.ConvergeTimeout = 20 * time.Millisecond
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
	r := stepResults(rep)
	if r["a:create"].Result != ResultFailed || !strings.Contains(r["a:create"].Error, "converge timeout") {
		t.Errorf("a: %+v", r["a:create"])
	}
	if a, _ := j.state(nil).Lookup("a"); a == nil || a.Feedback.BackendCode != state.BackendError {
		t.Errorf("a recorded as %+v, want backend_code error", a)
	}
	if r["b:create"].Result != ResultSkipped {
		t.Errorf("b: %+v", r["b:create"])
	}
}

func TestWalkResolvesFromFeedback(t *testing.T) {
	ref := graph.Unknown{Func: "attribute", Args: []graph.Value{"a", "ip"}}
	url := graph.Unknown{Func: "concat", Args: []graph.Value{"http://", ref, ":80"}}
	g := buildGraph(t, res{addr: "a"},
		res{addr: "b", deps: []string{"a"}, spec: map[string]graph.Value{"url": url}, inputs: map[string]graph.Value{"host": ref}})
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{"ip": "10.1.2.3"}
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	req := f.requests["b:create"]
	if req.Resolved["url"] != "http://10.1.2.3:80" {
		t.Errorf("resolved spec %v", req.Resolved)
	}
	if req.Inputs["Standard.create"]["host"] != "10.1.2.3" {
		t.Errorf("resolved inputs %v", req.Inputs)
	}
	b, _ := j.state(nil).Lookup("b")
	if !graph.Equal(b.Spec["url"], url) || b.Feedback.Resolved["url"] != "http://10.1.2.3:80" {
		t.Errorf("b recorded spec %v resolved %v: the spec keeps the expression, feedback the value", b.Spec, b.Feedback.Resolved)
	}
}

func TestWalkReplace(t *testing.T) {
	for _, cbd := range []bool{false, true} {
		t.Run(fmt.Sprintf("create_before_destroy=%v", cbd), func(t *testing.T) {
			g := buildGraph(t, res{addr: "a", cbd: cbd}, res{addr: "b", deps: []string{"a"}})
			_, j := walkFake(t, newFake(), planOf(t, g, nil, planner.Options{}), nil, fastOpts())
			st := j.state(nil)
			f := newFake()
			p := planOf(t, g, st, planner.Options{Replace: []string{"a"}})
			rep, j2 := walkFake(t, f, p, st, fastOpts())
			if !rep.OK() {
				t.Fatalf("report %+v", rep)
			}
			calls := f.callList()
			if cbd {
				calledBefore(t, calls, "a:create", "a:delete")
			} else {
				calledBefore(t, calls, "a:delete", "a:create")
			}
			if del := f.requests["a:delete"]; del.Prior == nil || del.Prior.Address != "a" {
				t.Errorf("delete got prior %+v", del.Prior)
			}
			after := j2.state(st)
			if _, ok := after.Lookup("a"); !ok {
				t.Errorf("a is not recorded after its replacement")
			}
		})
	}
}

// TestWalkNeverEnactedIsPlannedAndRunAsCreate: a resource whose create
// failed is planned as a create again (the plan says what runs), and the
// walk runs it with the recorded object as its prior.
func TestWalkNeverEnactedIsPlannedAndRunAsCreate(t *testing.T) {
	g := buildGraph(t, res{addr: "a", drv: graph.DriverNoop})
	f := newFake()
	f.alwaysFail["a"] = true
	_, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	st := j.state(nil)
	p := planOf(t, g, st, planner.Options{})
	if c, _ := p.Change("a"); c.Action != planner.Create || c.Reason != planner.ReasonLastApplyFailed {
		t.Fatalf("planned %v because %v, want the create again because the last apply failed", c.Action, c.Reason)
	}
	f = newFake()
	rep, _ := walkFake(t, f, p, st, fastOpts())
	if !rep.OK() {
		t.Fatalf("report %+v", rep)
	}
	if calls := f.callList(); strings.Join(calls, " ") != "a:create" {
		t.Errorf("calls %v, want the create that never finished", calls)
	}
	if got := stepResults(rep)["a:create"]; got.Result != ResultApplied {
		t.Errorf("report: %+v", got)
	}
}

// TestWalkInstanceFailedRunsCreateOverTheRecord: a resource whose health
// check found it failed after a successful apply is planned as a create
// again (instance_failed), and the walk runs that create with the record
// as its prior, keeping what the record holds (allocations, creation
// time), as a repair and not a new object.
func TestWalkInstanceFailedRunsCreateOverTheRecord(t *testing.T) {
	g := buildGraph(t, res{addr: "a", drv: graph.DriverNoop})
	f := newFake()
	_, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	st := j.state(nil)
	r := &st.Resources[0]
	created := r.Feedback.Created
	r.Feedback.BackendCode, r.Feedback.Status = state.BackendError, state.Status{Failed: true, Message: "gone"}
	r.Feedback.Allocations = []state.Allocation{{Provider: "cn1", Resources: map[string]int64{"VCPU": 1}}}
	p := planOf(t, g, st, planner.Options{})
	if c, _ := p.Change("a"); c.Action != planner.Create || c.Reason != planner.ReasonInstanceFailed || !c.Reruns() {
		t.Fatalf("planned %v because %v, want the create again because the instance failed", c.Action, c.Reason)
	}
	f = newFake()
	rep, j2 := walkFake(t, f, p, st, fastOpts())
	if !rep.OK() {
		t.Fatalf("report %+v", rep)
	}
	if req := f.requests["a:create"]; req.Prior == nil || req.Prior.Feedback.Status.Message != "gone" {
		t.Errorf("the create ran without the record as its prior: %+v", req.Prior)
	}
	after := j2.state(st).Resources[0].Feedback
	if len(after.Allocations) != 1 || !after.Created.Equal(created) || after.BackendCode != state.BackendOK {
		t.Errorf("recorded %+v, want the allocations and creation time kept", after)
	}
}

func TestWalkCancel(t *testing.T) {
	g := buildGraph(t, res{addr: "a"}, res{addr: "b", deps: []string{"a"}}, res{addr: "c", deps: []string{"b"}})
	f := newFake()
	f.block = true
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	opts := fastOpts()
	opts.Events = func(e Event) {
		if e.Type == EventStart {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}
	go func() {
		<-started
		cancel()
	}()
	j := &memJournal{}
	rep, err := Walk(ctx, planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := stepResults(rep)
	if !rep.Interrupted || r["a:create"].Result != ResultFailed {
		t.Errorf("a: %+v (interrupted %v)", r["a:create"], rep.Interrupted)
	}
	if r["b:create"].Result != ResultSkipped || r["c:create"].Result != ResultSkipped {
		t.Errorf("b, c: %+v %+v", r["b:create"], r["c:create"])
	}
	// The cancelled create is recorded as failed: the next plan repeats it.
	a, ok := j.state(nil).Lookup("a")
	if !ok || a.Feedback.BackendCode != state.BackendError {
		t.Errorf("a recorded as %+v", a)
	}
}

func TestWalkJournalFailureStops(t *testing.T) {
	var rs []res
	for i := range 20 {
		rs = append(rs, res{addr: fmt.Sprintf("r%02d", i)})
	}
	g := buildGraph(t, rs...)
	j := &memJournal{failAfter: 5}
	opts := fastOpts()
	opts.Parallelism = 1
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: newFake()}, opts)
	if err == nil || !strings.Contains(err.Error(), errJournalFull.Error()) {
		t.Fatalf("err = %v, want the journal failure", err)
	}
	if rep.OK() {
		t.Errorf("report says all applied: %+v", rep)
	}
}

func TestWalkMissingDriver(t *testing.T) {
	g := buildGraph(t, res{addr: "a"})
	_, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, &memJournal{}, Registry{}, fastOpts())
	if err == nil || !strings.Contains(err.Error(), `a (driver "fake")`) {
		t.Errorf("err = %v", err)
	}
}

func TestWalkOutputEvents(t *testing.T) {
	g := buildGraph(t, res{addr: "a"})
	var lines []string
	opts := fastOpts()
	opts.Events = func(e Event) {
		if e.Type == EventOutput {
			lines = append(lines, e.Address+": "+e.Line)
		}
	}
	walkFake(t, newFake(), planOf(t, g, nil, planner.Options{}), nil, opts)
	if strings.Join(lines, "|") != "a: working on a" {
		t.Errorf("output events %q", lines)
	}
}

// batchFake serves requests in groups, failing those in fail.
type batchFake struct {
	*fakeDriver
	mu    sync.Mutex
	sizes []int
	fail  map[string]bool
}

func (b *batchFake) BatchKey(req Request) string {
	if req.Action == ActionCreate {
		return "launch"
	}
	return ""
}

func (b *batchFake) LaunchBatch(ctx context.Context, reqs []Request) []BatchResult {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(reqs))
	b.mu.Unlock()
	out := make([]BatchResult, len(reqs))
	for i, r := range reqs {
		if b.fail[r.Address] {
			out[i].Err = fmt.Errorf("%s did not launch", r.Address)
			continue
		}
		out[i].Outcome, out[i].Err = b.fakeDriver.Apply(ctx, r)
	}
	return out
}

func TestWalkBatches(t *testing.T) {
	var rs []res
	for i := range 12 {
		rs = append(rs, res{addr: fmt.Sprintf("r%02d", i)})
	}
	rs = append(rs, res{addr: "dep", deps: []string{"r03"}})
	g := buildGraph(t, rs...)
	b := &batchFake{fakeDriver: newFake(), fail: map[string]bool{"r03": true}}
	opts := fastOpts()
	opts.Parallelism = 1
	j := &memJournal{}
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: b}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := stepResults(rep)
	if r["r03:create"].Result != ResultFailed || r["dep:create"].Result != ResultSkipped || rep.Added != 11 {
		t.Errorf("report: %+v", rep)
	}
	total, batched := 0, false
	for _, s := range b.sizes {
		total += s
		batched = batched || s > 1
	}
	if total != 12 || !batched {
		t.Errorf("batch sizes %v: want 12 requests, some served together", b.sizes)
	}
	// Every request has its own intent and outcome.
	intents, outcomes := 0, 0
	for _, rec := range j.recs {
		switch rec.Kind {
		case state.RecordIntent:
			intents++
		case state.RecordOutcome:
			outcomes++
		}
	}
	if intents != 12 || outcomes != 12 {
		t.Errorf("%d intents and %d outcomes, want 12 each", intents, outcomes)
	}
}

func TestWalkSelfReferenceBeforeFirstApply(t *testing.T) {
	self := graph.Unknown{Func: "attribute", Args: []graph.Value{"a", "ip"}}
	g := buildGraph(t, res{addr: "a", inputs: map[string]graph.Value{"ip": self}})
	f := newFake()
	rep, _ := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() {
		t.Fatalf("report %+v", rep)
	}
	if in := f.requests["a:create"].Inputs["Standard.create"]; in == nil || in["ip"] != nil {
		t.Errorf("inputs %v: its own attribute is null before its first apply", in)
	}
}

// waitDriver returns only once seen is closed: the walk must report it
// as still running meanwhile.
type waitDriver struct{ seen chan struct{} }

func (d waitDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	select {
	case <-d.seen:
	case <-time.After(10 * time.Second):
		return Outcome{}, fmt.Errorf("no progress event in 10 s")
	}
	return Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}}, nil
}

func TestWalkReportsLongActions(t *testing.T) {
	g := buildGraph(t, res{addr: "a"})
	d := waitDriver{seen: make(chan struct{})}
	var once sync.Once
	opts := fastOpts()
	opts.ProgressInterval = time.Millisecond
	opts.Events = func(e Event) {
		if e.Type == EventProgress && e.Address == "a" && e.Action == "create" {
			once.Do(func() { close(d.seen) })
		}
	}
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, &memJournal{}, Registry{fakeName: d}, opts)
	if err != nil || !rep.OK() {
		t.Fatalf("report %+v, %v", rep, err)
	}
}

// intentWatch is a journal that tracks the intents whose driver call has
// not returned yet, and a driver around fakeDriver that tells it when a
// call returns: how many of them there are at any moment is how many
// resources `state list` would report as interrupted were the process
// killed then, less those whose call had ended.
type intentWatch struct {
	memJournal
	drv *fakeDriver

	mu          sync.Mutex
	open        map[string]bool
	maxOpen     int
	neverCalled []string
}

func (j *intentWatch) Append(ctx context.Context, rec state.Record) (uint64, error) {
	j.mu.Lock()
	if rec.Kind == state.RecordIntent {
		j.open[rec.Address] = true
		j.maxOpen = max(j.maxOpen, len(j.open))
	} else if j.open[rec.Address] {
		j.neverCalled = append(j.neverCalled, rec.Address)
	}
	j.mu.Unlock()
	return j.memJournal.Append(ctx, rec)
}

func (j *intentWatch) Apply(ctx context.Context, req Request) (Outcome, error) {
	out, err := j.drv.Apply(ctx, req)
	j.mu.Lock()
	delete(j.open, req.Address)
	j.mu.Unlock()
	return out, err
}

// TestWalkWritesAnIntentOnlyOnceItHoldsASlot: with 24 ready creates and
// 3 slots, never more than 3 intents wait for their driver call, so a
// kill leaves as "interrupted" only the driver calls that had started
// (not every ready action, as when intents were written before the slot
// was taken).
func TestWalkWritesAnIntentOnlyOnceItHoldsASlot(t *testing.T) {
	var rs []res
	for i := range 24 {
		rs = append(rs, res{addr: fmt.Sprintf("r%02d", i)})
	}
	g := buildGraph(t, rs...)
	f := newFake()
	f.sleep = 2 * time.Millisecond
	opts := fastOpts()
	opts.Parallelism = 3
	j := &intentWatch{drv: f, open: map[string]bool{}}
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: j}, opts)
	if err != nil || !rep.OK() {
		t.Fatalf("walk: %v, %+v", err, rep)
	}
	if j.maxOpen > opts.Parallelism {
		t.Errorf("%d intents waited for their driver call at once with %d slots: intents written before their slot was taken", j.maxOpen, opts.Parallelism)
	}
	if len(j.neverCalled) > 0 {
		t.Errorf("outcomes recorded without a driver call after an intent: %v", j.neverCalled)
	}
}

// batchEvery is a batchFake that would serve every action in batches.
type batchEvery struct{ *batchFake }

func (b batchEvery) BatchKey(req Request) string { return req.Action }

// TestWalkUpdateThatRecordsOnlyCallsNoDriver: an update whose only change
// is a health check (planner.ResourceChange.RecordsOnly) calls no driver,
// batched or not, whether or not the resource could be updated in place
// (plain has no Standard.configure);
// the state records the new check over the recorded feedback. An update
// of a life-cycle operation beside it runs.
func TestWalkUpdateThatRecordsOnlyCallsNoDriver(t *testing.T) {
	ops := func(check, configure string) map[string]graph.Operation {
		m := map[string]graph.Operation{
			"Standard.create":   {Implementation: "create.sh", Digest: "sha256:1"},
			graph.OpHealthCheck: {Implementation: "check.sh", Digest: check},
		}
		if configure != "" {
			m["Standard.configure"] = graph.Operation{Implementation: "configure.sh", Digest: configure}
		}
		return m
	}
	build := func(check, conf string) *graph.Graph {
		g := graph.New()
		for addr, o := range map[string]map[string]graph.Operation{
			"plain": ops(check, ""), "configured": ops(check, "sha256:c"), "reconfigured": ops("sha256:h", conf),
		} {
			if err := g.AddResource(&graph.Resource{Address: addr, Type: "test.T", Management: graph.Managed,
				Spec: map[string]graph.Value{"name": addr}, Driver: graph.Driver{Name: graph.DriverExec, Operations: o}}); err != nil {
				t.Fatal(err)
			}
		}
		return g
	}
	f := newFake()
	f.attrs["plain"] = map[string]graph.Value{"ip": "10.0.0.1"}
	j := &memJournal{}
	if _, err := Walk(context.Background(), planOf(t, build("sha256:h", "sha256:c"), nil, planner.Options{}), nil, j, Registry{graph.DriverExec: f}, fastOpts()); err != nil {
		t.Fatal(err)
	}
	st := j.state(nil)

	p := planOf(t, build("sha256:h2", "sha256:c2"), st, planner.Options{})
	for _, c := range p.Changes {
		if c.Action != planner.Update || c.RecordsOnly() != (c.Address != "reconfigured") {
			t.Fatalf("%s: %s %s, records only %v", c.Address, c.Action, c.Reason, c.RecordsOnly())
		}
	}
	b := batchEvery{&batchFake{fakeDriver: newFake()}}
	j = &memJournal{}
	rep, err := Walk(context.Background(), p, st, j, Registry{graph.DriverExec: b}, fastOpts())
	if err != nil || !rep.OK() || rep.Changed != 3 {
		t.Fatalf("walk: %v, %+v", err, rep)
	}
	if calls := b.callList(); strings.Join(calls, " ") != "reconfigured:update" {
		t.Errorf("driver calls %q, want only reconfigured:update", calls)
	}
	after := j.state(st)
	for _, r := range after.Resources {
		if got := r.Driver.Operations[graph.OpHealthCheck].Digest; got != "sha256:h2" && r.Address != "reconfigured" {
			t.Errorf("%s records the check %s, want the new one", r.Address, got)
		}
		if !r.Succeeded() || !r.Feedback.Status.Active {
			t.Errorf("%s: %+v", r.Address, r.Feedback)
		}
	}
	if plain, _ := after.Lookup("plain"); plain.Feedback.Attributes["ip"] != "10.0.0.1" {
		t.Errorf("plain lost its recorded attributes: %+v", plain.Feedback)
	}
	if again := planOf(t, build("sha256:h2", "sha256:c2"), after, planner.Options{}); again.HasChanges() {
		t.Errorf("the plan after the apply has changes: %+v", again.Changes)
	}
}

// TestWalkLateDeleteRunsAfterTheOldInstance: a resource that an old
// create-then-delete instance depended on, and that leaves the
// configuration, is deleted after that old instance (phase 3). It used to
// drop out of the plan and never be deleted.
func TestWalkLateDeleteRunsAfterTheOldInstance(t *testing.T) {
	g := buildGraph(t, res{addr: "a", cbd: true, deps: []string{"b"}}, res{addr: "b"})
	_, j := walkFake(t, newFake(), planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	st := j.state(nil)
	g2 := buildGraph(t, res{addr: "a", cbd: true})
	f := newFake()
	p := planOf(t, g2, st, planner.Options{Replace: []string{"a"}})
	if c, ok := p.Change("b"); !ok || c.Action != planner.Delete {
		t.Fatalf("the plan lacks the delete of b: %+v", p.Changes)
	}
	rep, j2 := walkFake(t, f, p, st, fastOpts())
	if !rep.OK() {
		t.Fatalf("report %+v", rep)
	}
	calls := f.callList()
	calledBefore(t, calls, "a:create", "a:delete")
	calledBefore(t, calls, "a:delete", "b:delete")
	if _, ok := j2.state(st).Lookup("b"); ok {
		t.Error("b is still recorded")
	}
}
