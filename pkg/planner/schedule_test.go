package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestStepsOrderEachPhaseBreadthFirstByAddress: within a phase, a step
// comes after its dependencies (a delete before them), steps that may run
// in either order come in address order, and the members of a recorded
// cycle come last, in address order.
func TestStepsOrderEachPhaseBreadthFirstByAddress(t *testing.T) {
	tests := []struct {
		name    string
		changes []ResourceChange
		want    string
	}{
		{
			name: "deletes before what they depended on",
			changes: []ResourceChange{
				{Address: "alpha", Action: Delete, PriorDependencies: []string{"base"}},
				{Address: "app", Action: Delete, PriorDependencies: []string{"alpha", "zeta"}},
				{Address: "base", Action: Delete},
				{Address: "zeta", Action: Delete, PriorDependencies: []string{"base"}},
			},
			want: "delete app, delete alpha, delete zeta, delete base",
		},
		{
			name: "creates after what they depend on",
			changes: []ResourceChange{
				{Address: "alpha", Action: Create, Dependencies: []string{"base"}},
				{Address: "app", Action: Create, Dependencies: []string{"alpha", "zeta"}},
				{Address: "base", Action: Create},
				{Address: "zeta", Action: Create, Dependencies: []string{"base"}},
			},
			want: "create base, create alpha, create zeta, create app",
		},
		{
			name: "a recorded cycle",
			changes: []ResourceChange{
				{Address: "a", Action: Delete, PriorDependencies: []string{"c"}},
				{Address: "b", Action: Delete, PriorDependencies: []string{"a"}},
				{Address: "c", Action: Delete, PriorDependencies: []string{"b"}},
				{Address: "d", Action: Delete, PriorDependencies: []string{"a"}},
			},
			want: "delete d, delete a, delete b, delete c",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range (&Plan{Changes: tt.changes}).Steps() {
				got = append(got, s.Op.String()+" "+s.Address)
			}
			if g := strings.Join(got, ", "); g != tt.want {
				t.Errorf("steps %s, want %s", g, tt.want)
			}
		})
	}
}

// TestPlacementObjectDeletedAfterTheUpdateThatDropsIt: a Placement
// object (a custom trait) that an updated provider stops naming is
// deleted after that update, in phase 3, and stays in the plan's
// changes; Placement refuses (409) to delete a trait a provider still
// has. Other drivers keep deletes first.
func TestPlacementObjectDeletedAfterTheUpdateThatDropsIt(t *testing.T) {
	pd := graph.Driver{Name: graph.DriverPlacement}
	changes := []ResourceChange{
		{Address: "gold", Action: Delete, Driver: pd},
		{Address: "rack", Action: Update, Driver: pd, PriorDependencies: []string{"gold"}},
		{Address: "x", Action: Delete, Driver: graph.Driver{Name: graph.DriverExec}},
		{Address: "y", Action: Update, Driver: graph.Driver{Name: graph.DriverExec}, PriorDependencies: []string{"x"}},
	}
	var got []string
	for _, s := range (&Plan{Changes: changes}).Steps() {
		got = append(got, fmt.Sprintf("%s %s%s", s.Op, s.Address, map[bool]string{true: " (after updates)"}[s.AfterUpdates]))
	}
	if g, want := strings.Join(got, ", "), "delete x, update rack, update y, delete gold (after updates)"; g != want {
		t.Errorf("steps %s, want %s", g, want)
	}
	order, _ := schedule(changes)
	if len(order.changeOrder) != len(changes) {
		t.Errorf("the plan keeps %d of %d changes", len(order.changeOrder), len(changes))
	}
}

// TestLateDeleteStaysInThePlan: a plain delete that an old
// create-then-delete instance depended on runs in phase 3 (lateDeletes);
// it has no other step, and the plan's change list, ordered by first
// step, used to leave it out, so that it was never shown nor run.
func TestLateDeleteStaysInThePlan(t *testing.T) {
	changes := []ResourceChange{
		{Address: "app", Action: CreateThenDelete, PriorDependencies: []string{"db"}},
		{Address: "db", Action: Delete},
	}
	order, _ := schedule(changes)
	var got []string
	for _, i := range order.changeOrder {
		got = append(got, changes[i].Address)
	}
	if g := strings.Join(got, ", "); g != "app, db" {
		t.Errorf("the plan keeps %s, want app, db", g)
	}
	var steps []string
	for _, s := range (&Plan{Changes: changes}).Steps() {
		steps = append(steps, fmt.Sprintf("%s %s%s", s.Op, s.Address, map[bool]string{true: " (after updates)"}[s.AfterUpdates]))
	}
	if g, want := strings.Join(steps, ", "), "create app, delete app, delete db (after updates)"; g != want {
		t.Errorf("steps %s, want %s", g, want)
	}
}
