package executor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// asyncDriver runs a command that leaves its result for later: Invoke
// records the invocation pending, and the health check reports an
// intermediate result, then (from check doneAt on) the final one; with
// fail, the checks report the resource failed.
type asyncDriver struct {
	checks *int
	doneAt int
	fail   bool
}

func (a asyncDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	*a.checks++
	if a.fail {
		return Outcome{}, errors.New("disk gone")
	}
	inv, _ := driver.FindInvocation(req.Prior.Feedback.Attributes, "c1")
	if *a.checks >= a.doneAt {
		inv.Settle([]CommandResult{{Values: map[string]graph.Value{"size": int64(42)}}}, time.Now())
	} else {
		inv.Settle([]CommandResult{{Intermediate: true, Values: map[string]graph.Value{"check": int64(*a.checks)}}}, time.Now())
	}
	return Outcome{Feedback: state.Feedback{Status: state.Status{Active: true},
		Attributes: map[string]graph.Value{driver.AttrCommands: driver.InvocationsValue([]driver.Invocation{inv})}}}, nil
}

func (a asyncDriver) Invoke(_ context.Context, _ Request, command string, _ map[string]graph.Value) (Outcome, error) {
	started := map[string]graph.Value{"state": "started"}
	inv := driver.Invocation{ID: "c1", Command: command, Status: driver.InvocationPending, Intermediate: []map[string]graph.Value{started}}
	return Outcome{CommandID: "c1", Results: []CommandResult{{Intermediate: true, Values: started}},
		Feedback: state.Feedback{Attributes: map[string]graph.Value{driver.AttrCommands: driver.InvocationsValue([]driver.Invocation{inv})}}}, nil
}

// TestInvokeWaitsForALaterResult: with Wait, Invoke runs the health check
// until it reports the final result, passing each result on as it comes,
// and returns the resource with the invocation completed; without a
// health check, after the time given, or when the check reports the
// resource failed, it fails with ErrCommandPending and returns the
// resource with the invocation pending, to be recorded.
func TestInvokeWaitsForALaterResult(t *testing.T) {
	rec := refreshRecord("db", graph.Managed)
	rec.Driver.Operations = map[string]graph.Operation{graph.OpHealthCheck: {Implementation: "check"}}
	run := func(d asyncDriver, opts InvokeOptions) ([]string, Outcome, *state.Resource, error) {
		cur := &state.State{Resources: []state.Resource{rec}}
		var lines []string
		opts.Output = func(l string) { lines = append(lines, l) }
		opts.PollInterval = time.Millisecond
		out, r, err := Invoke(context.Background(), cur, "db", "control.backup", nil, Registry{fakeName: d}, opts)
		return lines, out, r, err
	}

	lines, out, r, err := run(asyncDriver{checks: new(int), doneAt: 3}, InvokeOptions{Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`intermediate {"check":1}`, `intermediate {"check":2}`, `result {"size":42}`}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || len(out.Results) != 4 || !HasFinalResult(out.Results) {
		t.Errorf("shown %q, results %+v", lines, out.Results)
	}
	if inv, ok := driver.FindInvocation(r.Feedback.Attributes, "c1"); !ok || inv.Status != InvocationCompleted || len(inv.Intermediate) != 3 {
		t.Errorf("recorded %+v", r.Feedback.Attributes)
	}

	for name, tc := range map[string]struct {
		d    asyncDriver
		wait time.Duration
		ops  bool
		want string
	}{
		"timeout":   {asyncDriver{checks: new(int), doneAt: 1 << 30}, 20 * time.Millisecond, true, "still pending"},
		"failed":    {asyncDriver{checks: new(int), fail: true}, time.Minute, true, "reports db failed: disk gone"},
		"no checks": {asyncDriver{checks: new(int)}, time.Minute, false, "no health check to deliver it"},
	} {
		rec.Driver.Operations = nil
		if tc.ops {
			rec.Driver.Operations = map[string]graph.Operation{graph.OpHealthCheck: {Implementation: "check"}}
		}
		_, _, r, err := run(tc.d, InvokeOptions{Wait: tc.wait})
		if !errors.Is(err, ErrCommandPending) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrCommandPending saying %q", name, err, tc.want)
		}
		if r == nil {
			t.Fatalf("%s: no resource returned to record", name)
		}
		if inv, ok := driver.FindInvocation(r.Feedback.Attributes, "c1"); !ok || inv.Status != InvocationPending {
			t.Errorf("%s: the invocation is not returned pending: %+v", name, r.Feedback.Attributes)
		}
	}
}
