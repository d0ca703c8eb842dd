package planner

import (
	"fmt"
	"slices"

	"github.com/xosplan/xosplan/pkg/graph"
)

// StepOp is one operation of the apply walk. A replacement is two steps.
type StepOp uint8

// The step operations.
const (
	StepDelete StepOp = iota + 1
	StepForget
	StepCreate
	StepUpdate
	StepRead
)

// String names the operation ("delete", "create", …).
func (o StepOp) String() string {
	switch o {
	case StepDelete:
		return "delete"
	case StepForget:
		return "forget"
	case StepCreate:
		return "create"
	case StepUpdate:
		return "update"
	case StepRead:
		return "read"
	}
	return fmt.Sprintf("step(%d)", uint8(o))
}

// Step is one operation on one resource; Change indexes Plan.Changes.
type Step struct {
	Address string
	Op      StepOp
	Change  int
	// AfterUpdates marks a plain delete of phase 3, which the walk runs
	// after the creates and updates: one that an old create-then-delete
	// instance depended on (lateDeletes), or the delete of a Placement
	// object that updates of this plan stop naming (droppedPlacementRefs).
	AfterUpdates bool
}

// Steps returns the plan's operations in an order that a sequential apply
// can follow, in three phases:
//
//  1. deletes (including the old half of delete-then-create) and forgets,
//     each before whatever it depended on when it was recorded;
//  2. creates (including the new half of replacements), updates and reads,
//     each after whatever it depends on in the configuration;
//  3. the old half of create-then-delete replacements, the deletes
//     those old instances depended on, and the deletes of Placement
//     objects that updates stop naming, in reverse dependency order, once
//     the replacements and their dependents are in place.
//
// Ties break by address, so the order is deterministic. The executor may
// run steps in parallel as long as it keeps these dependencies.
func (p *Plan) Steps() []Step {
	s, _ := schedule(p.Changes)
	return s.steps
}

type scheduled struct {
	steps []Step
	// changeOrder lists change indices by their first step; no-ops sit
	// where their create would be.
	changeOrder []int
}

// schedule computes the three phases in O(V+E). ok is false when recorded
// dependencies form a cycle; the members of the cycle are then ordered by
// address.
func schedule(changes []ResourceChange) (scheduled, bool) {
	idx := make(map[string]int, len(changes))
	for i := range changes {
		idx[changes[i].Address] = i
	}
	s1, s2, s3 := phases(changes, idx)
	prior := func(i int) []string { return changes[i].PriorDependencies }
	current := func(i int) []string { return changes[i].Dependencies }
	o1, ok1 := phaseOrder(s1, idx, prior, true)
	o2, ok2 := phaseOrder(s2, idx, current, false)
	o3, ok3 := phaseOrder(s3, idx, prior, true)

	out := scheduled{steps: make([]Step, 0, len(o1)+len(o2)+len(o3))}
	seen := make([]bool, len(changes))
	first := func(i int) {
		if !seen[i] {
			seen[i] = true
			out.changeOrder = append(out.changeOrder, i)
		}
	}
	for _, i := range o1 {
		op := StepDelete
		if changes[i].Action == Forget {
			op = StepForget
		}
		out.steps = append(out.steps, Step{Address: changes[i].Address, Op: op, Change: i})
		first(i)
	}
	for _, i := range o2 {
		first(i)
		var op StepOp
		switch changes[i].Action {
		case NoOp:
			continue
		case Update:
			op = StepUpdate
		case Read:
			op = StepRead
		default:
			op = StepCreate
		}
		out.steps = append(out.steps, Step{Address: changes[i].Address, Op: op, Change: i})
	}
	for _, i := range o3 {
		// A plain delete here is late (lateDeletes): the walk runs it in
		// phase 3 too.
		out.steps = append(out.steps, Step{Address: changes[i].Address, Op: StepDelete, Change: i, AfterUpdates: changes[i].Action == Delete})
		// A late plain delete has no other step: without this, the
		// plan would lose it.
		first(i)
	}
	return out, ok1 && ok2 && ok3
}

// phases returns the change indices of each phase, in address order: a
// replacement is in two.
func phases(changes []ResourceChange, idx map[string]int) (s1, s2, s3 []int) {
	late := lateDeletes(changes, idx)
	for i := range changes {
		switch changes[i].Action {
		case Delete:
			if late[i] {
				s3 = append(s3, i)
			} else {
				s1 = append(s1, i)
			}
		case Forget:
			s1 = append(s1, i)
		case DeleteThenCreate:
			s1 = append(s1, i)
			s2 = append(s2, i)
		case CreateThenDelete:
			s2 = append(s2, i)
			s3 = append(s3, i)
		default:
			s2 = append(s2, i)
		}
	}
	byAddr := func(a, b int) int {
		switch {
		case changes[a].Address < changes[b].Address:
			return -1
		case changes[a].Address > changes[b].Address:
			return 1
		}
		return 0
	}
	for _, s := range [][]int{s1, s2, s3} {
		slices.SortFunc(s, byAddr)
	}
	return s1, s2, s3
}

// lateDeletes marks the deletes that must wait for phase 3: those that an
// old create-then-delete instance depended on, directly or through other
// such deletes, since the old instance lives until phase 3. A
// delete-then-create reached this way is turned into create-then-delete
// beforehand (inheritCreateBeforeDestroy), so only plain deletes remain.
func lateDeletes(changes []ResourceChange, idx map[string]int) []bool {
	late := make([]bool, len(changes))
	var queue []int
	for i := range changes {
		if changes[i].Action == CreateThenDelete {
			queue = append(queue, i)
		}
		for _, j := range droppedPlacementRefs(changes, idx, i) {
			if !late[j] {
				late[j] = true
				queue = append(queue, j)
			}
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, d := range changes[i].PriorDependencies {
			j, ok := idx[d]
			if !ok || late[j] || changes[j].Action != Delete {
				continue
			}
			late[j] = true
			queue = append(queue, j)
		}
	}
	return late
}

// droppedPlacementRefs lists the deletes of Placement objects that the
// update of change i stops naming: the update runs first, so that the
// object is no longer in use when it is deleted (Placement refuses to
// delete a trait a provider still has; ORC's deletion guard). Other
// drivers keep the order deletes-first.
func droppedPlacementRefs(changes []ResourceChange, idx map[string]int, i int) []int {
	c := changes[i]
	if c.Action != Update || c.Driver.Name != graph.DriverPlacement {
		return nil
	}
	var out []int
	for _, d := range c.PriorDependencies {
		j, ok := idx[d]
		if ok && changes[j].Action == Delete && changes[j].Driver.Name == graph.DriverPlacement && !slices.Contains(c.Dependencies, d) {
			out = append(out, j)
		}
	}
	return out
}

// inheritCreateBeforeDestroy makes every replacement that an old
// create-then-delete instance depended on (directly, or through deletes
// that must wait for it) create-then-delete too, as Terraform does: the old
// instance lives until the end of the apply, so what it depends on must
// too. It returns the number of changes converted.
func inheritCreateBeforeDestroy(changes []ResourceChange) int {
	idx := make(map[string]int, len(changes))
	for i := range changes {
		idx[changes[i].Address] = i
	}
	seen := make([]bool, len(changes))
	var queue []int
	for i := range changes {
		if changes[i].Action == CreateThenDelete {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	converted := 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, d := range changes[i].PriorDependencies {
			j, ok := idx[d]
			if !ok || seen[j] {
				continue
			}
			switch changes[j].Action {
			case DeleteThenCreate:
				changes[j].Action = CreateThenDelete
				converted++
			case Delete:
			default:
				continue
			}
			seen[j] = true
			queue = append(queue, j)
		}
	}
	return converted
}

// phaseOrder orders members (change indices, sorted by address) so that
// each comes after its dependencies among the members, or, with reverse,
// before them (graph.Kahn; ties break by address). Members caught in a
// cycle are appended in address order and ok is false.
func phaseOrder(members []int, idx map[string]int, deps func(int) []string, reverse bool) ([]int, bool) {
	local := make(map[int]int, len(members))
	for k, i := range members {
		local[i] = k
	}
	// next[k] lists the members that may come once member k has.
	next := make([][]int, len(members))
	for k, i := range members {
		for _, d := range deps(i) {
			j, ok := idx[d]
			if !ok {
				continue
			}
			l, ok := local[j]
			if !ok || l == k {
				continue
			}
			if reverse {
				next[k] = append(next[k], l)
			} else {
				next[l] = append(next[l], k)
			}
		}
	}
	order, ok := graph.Kahn(next)
	if !ok {
		placed := make([]bool, len(members))
		for _, k := range order {
			placed[k] = true
		}
		for k := range members {
			if !placed[k] {
				order = append(order, k)
			}
		}
	}
	out := make([]int, len(order))
	for k, l := range order {
		out[k] = members[l]
	}
	return out, ok
}
