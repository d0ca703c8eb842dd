package driver

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestInvocationSettles: intermediate results accumulate on a pending
// invocation, the first final one completes it, and later results for a
// completed invocation change nothing; the record reads back as written.
func TestInvocationSettles(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	inv := Invocation{ID: "a1", Command: "control.backup", Status: InvocationPending, Started: t0}
	if !inv.Settle([]CommandResult{{Intermediate: true, Values: map[string]graph.Value{"state": "copying"}}}, t0) || inv.Status != InvocationPending {
		t.Fatalf("an intermediate result: %+v", inv)
	}
	done := t0.Add(time.Minute)
	if !inv.Settle([]CommandResult{{Values: map[string]graph.Value{"size": int64(42)}}, {Values: map[string]graph.Value{"size": int64(7)}}}, done) {
		t.Fatal("a final result changed nothing")
	}
	if inv.Status != InvocationCompleted || inv.Result["size"] != int64(42) || !inv.Completed.Equal(done) {
		t.Fatalf("completed: %+v", inv)
	}
	if inv.Settle([]CommandResult{{Values: map[string]graph.Value{"size": int64(1)}}}, done) || inv.Result["size"] != int64(42) {
		t.Errorf("a completed invocation took another result: %+v", inv)
	}
	v, err := graph.Canonicalize(InvocationsValue([]Invocation{inv}))
	if err != nil {
		t.Fatal(err)
	}
	back := Invocations(map[string]graph.Value{AttrCommands: v})
	if len(back) != 1 || !reflect.DeepEqual(back[0], inv) {
		t.Errorf("read back %+v, want %+v", back, inv)
	}
	if _, ok := FindInvocation(map[string]graph.Value{AttrCommands: v}, "nosuch"); ok {
		t.Error("found an invocation never recorded")
	}
}

// TestInvocationsAreBounded: the record keeps the latest MaxInvocations
// invocations, and of each the latest MaxIntermediateResults results;
// entries of another shape are ignored.
func TestInvocationsAreBounded(t *testing.T) {
	var invs []Invocation
	for i := range MaxInvocations + 5 {
		invs = append(invs, Invocation{ID: fmt.Sprintf("%04d", i), Command: "c.x", Status: InvocationPending})
	}
	m := InvocationsValue(invs).(map[string]graph.Value)
	if len(m) != MaxInvocations || m["0000"] != nil || m[fmt.Sprintf("%04d", MaxInvocations+4)] == nil {
		t.Errorf("kept %d invocations, want the latest %d", len(m), MaxInvocations)
	}
	inv := Invocation{Status: InvocationPending}
	for i := range MaxIntermediateResults + 3 {
		inv.Settle([]CommandResult{{Intermediate: true, Values: map[string]graph.Value{"i": int64(i)}}}, time.Time{})
	}
	if len(inv.Intermediate) != MaxIntermediateResults || inv.Intermediate[0]["i"] != int64(3) {
		t.Errorf("kept %d intermediate results from %v", len(inv.Intermediate), inv.Intermediate[0])
	}
	if InvocationsValue(nil) != nil {
		t.Error("no invocations should record nothing")
	}
	if got := Invocations(map[string]graph.Value{AttrCommands: map[string]graph.Value{"x": "not a map"}}); len(got) != 0 {
		t.Errorf("read %+v from a malformed record", got)
	}
}
