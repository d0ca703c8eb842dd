package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// lifecycleDriver runs the lifecycle operations of each request as the
// exec driver does, each with ForOperation's request: create reports id
// "id-<address>", and every operation records the input "other" it got.
type lifecycleDriver struct {
	mu   sync.Mutex
	ran  []string                 // "addr:operation" in order
	seen map[string]graph.Value   // "addr:operation" -> input other
	hold map[string]chan struct{} // "addr:operation" runs once closed
}

func (d *lifecycleDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	reported := map[string]graph.Value{}
	for _, key := range driver.LifecycleOperations(req.Action, req.Resource.Driver) {
		opReq, err := req.ForOperation(ctx, key, reported)
		if err != nil {
			return Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}, err
		}
		d.mu.Lock()
		d.ran = append(d.ran, req.Address+":"+key)
		d.seen[req.Address+":"+key] = opReq.Inputs[key]["other"]
		hold := d.hold[req.Address+":"+key]
		d.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}, fmt.Errorf("%s: %w", key, ctx.Err())
			}
		}
		if key == "Standard.create" {
			reported["id"] = "id-" + req.Address
		}
	}
	return Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}, Attributes: reported}}, nil
}

// peersGraph is a and b, each configured with the id the other's create
// reports.
func peersGraph(t *testing.T) *graph.Graph {
	t.Helper()
	g := graph.New()
	for _, addr := range []string{"a", "b"} {
		other := "b"
		if addr == "b" {
			other = "a"
		}
		ops := map[string]graph.Operation{
			"Standard.create":    {Implementation: "create.sh", Outputs: map[string]string{"id": ""}},
			"Standard.configure": {Implementation: "configure.sh", Inputs: map[string]graph.Value{"other": graph.Unknown{Func: "attribute", Args: []graph.Value{other, "id"}}}},
		}
		if err := g.AddResource(&graph.Resource{Address: addr, Type: "test.T", Management: graph.Managed,
			Spec: map[string]graph.Value{"name": addr}, Driver: graph.Driver{Name: fakeName, Operations: ops}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []graph.Edge{{Source: "a", Target: "b", Kind: graph.Reads}, {Source: "b", Target: "a", Kind: graph.Reads}} {
		if err := g.AddEdge(e); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// walkWithin runs Walk and fails the test if it has not returned within
// a minute.
func walkWithin(t *testing.T, ctx context.Context, p *planner.Plan, d Driver, opts Options) (*Report, error) {
	t.Helper()
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Walk(ctx, p, nil, &memJournal{}, Registry{fakeName: d}, opts)
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(time.Minute):
		t.Fatal("the walk did not return within a minute: operations waiting for each other deadlocked")
		return nil, nil
	}
}

// TestWalkOperationWaits checks that two resources configured with each
// other's attributes both apply, each configure after the other's create
// and with its id, at any parallelism (a waiting operation gives its slot
// back). Before, the plan refused them as a dependency cycle.
func TestWalkOperationWaits(t *testing.T) {
	for _, par := range []int{1, 4} {
		t.Run(fmt.Sprint("parallelism ", par), func(t *testing.T) {
			d := &lifecycleDriver{seen: map[string]graph.Value{}}
			opts := fastOpts()
			opts.Parallelism = par
			rep, err := walkWithin(t, context.Background(), planOf(t, peersGraph(t), nil, planner.Options{}), d, opts)
			if err != nil || !rep.OK() || rep.Added != 2 {
				t.Fatalf("walk: %v, report %+v", err, rep)
			}
			for _, c := range [][2]string{{"a", "b"}, {"b", "a"}} {
				if got := d.seen[c[0]+":Standard.configure"]; got != "id-"+c[1] {
					t.Errorf("%s's configure read %v, want id-%s", c[0], got, c[1])
				}
				if slices.Index(d.ran, c[1]+":Standard.create") > slices.Index(d.ran, c[0]+":Standard.configure") {
					t.Errorf("%s's configure ran before %s's create: %v", c[0], c[1], d.ran)
				}
			}
		})
	}
}

// TestWalkOperationWaitStops checks that an operation waiting for
// another resource's gives up when the apply is interrupted, rather than
// holding the walk.
func TestWalkOperationWaitStops(t *testing.T) {
	d := &lifecycleDriver{seen: map[string]graph.Value{}, hold: map[string]chan struct{}{"a:Standard.create": make(chan struct{})}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once b waits for a's create.
		for range 6000 {
			d.mu.Lock()
			waiting := slices.Contains(d.ran, "b:Standard.create") && slices.Contains(d.ran, "a:Standard.create")
			d.mu.Unlock()
			if waiting {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	rep, err := walkWithin(t, ctx, planOf(t, peersGraph(t), nil, planner.Options{}), d, fastOpts())
	if rep == nil || err == nil && rep.OK() {
		t.Fatalf("walk: %v, report %+v; want it interrupted", err, rep)
	}
	for _, s := range rep.Steps {
		if s.Address == "b" && s.Result == ResultFailed && !errors.Is(s.Err, errWaitStopped) && !errors.Is(s.Err, context.Canceled) {
			t.Errorf("b failed with %v, want the wait stopped", s.Err)
		}
	}
	if slices.Contains(d.ran, "b:Standard.configure") {
		t.Errorf("b's configure ran without a's id: %v", d.ran)
	}
}
