package executor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// stepForget is the action of a step that drops an unmanaged resource
// from state without a driver call.
const stepForget = "forget"

// node is one step of the walk, or a phase barrier.
type node struct {
	step   planner.Step
	change *planner.ResourceChange
	// action is the step's operation as reported ("create", …).
	action string
	// deposed marks the old half of a create-then-delete replacement.
	deposed bool
	// barrier nodes only order the phases; they run nothing.
	barrier bool

	// hardNext run only after this node succeeded; softNext only after it
	// finished, whatever the result (the phase barriers).
	hardNext, softNext []*node
	pending            int

	done     bool
	attempts int
	started  time.Time // first driver call
	converge time.Time // when the resource first reported converging
	lastErr  error
	result   StepResult
}

// elapsed is the time since the node's first driver call (0 before it).
func (n *node) elapsed() time.Duration {
	if n.started.IsZero() {
		return 0
	}
	return time.Since(n.started)
}

// attempt counts one more attempt at n; the first starts its clock.
func (n *node) attempt() {
	n.attempts++
	if n.started.IsZero() {
		n.started = time.Now()
	}
}

// walker holds one walk. Its dispatcher (walk_schedule.go) alone owns the
// nodes' scheduling fields; workers (walk_task.go) touch only their task's
// node and request, and the shared records (walk_record.go) under mu.
type walker struct {
	plan    *planner.Plan
	opts    Options
	journal Journal
	drivers Registry
	nodes   []*node // steps in plan order, then the barriers

	mu      sync.Mutex
	records map[string]*state.Resource // the state as it stands now
	prior   map[string]*state.Resource // the state before the walk
	// unrecorded maps the address of a resource of the plan that the
	// state does not record yet to its desired spec (lookupOrDesired).
	unrecorded map[string]map[string]graph.Value
	// members maps a factory address to the scripted components that name
	// it (configured or recorded), whose instances the factory publishes.
	members map[string][]string
	emitMu  sync.Mutex
	// redact knows the run's secrets; what drivers report passes through
	// it before it reaches an event, the report or the journal.
	redact *Redactor

	slots     chan struct{}
	driverSem map[string]chan struct{}
	inFlight  atomic.Int64
	maxFlight atomic.Int64

	// waits holds the progress of the resources whose operations others
	// wait for (walk_waits.go); empty for most walks.
	waits waitState

	stopping chan struct{} // closed when nothing new may start
	stopOnce sync.Once

	driverCtx context.Context
	// cancelDriver cancels the running driver calls, saying why (an
	// ErrInterrupted), which their errors report.
	cancelDriver context.CancelCauseFunc
}

func newWalker(ctx context.Context, p *planner.Plan, prior *state.State, j Journal, drivers Registry, opts Options) (*walker, error) {
	w := &walker{
		plan:      p,
		opts:      opts,
		journal:   j,
		drivers:   drivers,
		records:   map[string]*state.Resource{},
		prior:     map[string]*state.Resource{},
		slots:     make(chan struct{}, opts.Parallelism),
		driverSem: map[string]chan struct{}{},
		stopping:  make(chan struct{}),
		members:   map[string][]string{},
		redact:    NewRedactorFor(prior, opts.Desired),
	}
	if prior != nil {
		for i := range prior.Resources {
			r := prior.Resources[i]
			w.records[r.Address] = &r
			w.prior[r.Address] = &r
			w.addMember(r.Address, r.Driver)
		}
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if _, recorded := w.prior[c.Address]; !recorded {
			w.addMember(c.Address, c.Driver)
			if c.After != nil {
				if w.unrecorded == nil {
					w.unrecorded = map[string]map[string]graph.Value{}
				}
				w.unrecorded[c.Address] = c.After
			}
		}
		w.redact.AddPaths(c.After, c.Sensitive)
		w.redact.AddOperations(c.Driver)
	}
	steps := p.Steps()
	if err := w.limitDrivers(steps); err != nil {
		return nil, err
	}
	w.build(steps)
	w.initWaits()
	w.driverCtx, w.cancelDriver = context.WithCancelCause(context.WithoutCancel(ctx))
	return w, nil
}

// addMember notes the resource at addr as a member of the factory its
// driver names, if it is a scripted component.
func (w *walker) addMember(addr string, d graph.Driver) {
	if fa := factoryOf(d); fa != "" {
		w.members[fa] = append(w.members[fa], addr)
	}
}

// limitDrivers makes the semaphore of every driver the steps use whose
// limit (Options.PerDriver, Limiter) is below the global one, and fails
// when a driver is missing: before anything runs.
func (w *walker) limitDrivers(steps []planner.Step) error {
	var missing []string
	for _, s := range steps {
		if s.Op == planner.StepForget {
			continue
		}
		name := w.plan.Changes[s.Change].Driver.Name
		if s.Op == planner.StepDelete {
			if r := w.prior[s.Address]; r != nil {
				name = r.Driver.Name
			}
		}
		d, ok := w.drivers.Lookup(name)
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (driver %q)", s.Address, name))
			continue
		}
		if _, ok := w.driverSem[name]; ok {
			continue
		}
		limit := w.opts.PerDriver[name]
		if l, ok := d.(Limiter); ok && l.MaxConcurrent() > 0 && (limit <= 0 || l.MaxConcurrent() < limit) {
			limit = l.MaxConcurrent()
		}
		if limit > 0 && limit < w.opts.Parallelism {
			w.driverSem[name] = make(chan struct{}, limit)
		} else {
			w.driverSem[name] = nil
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no driver for %s", strings.Join(missing, ", "))
	}
	return nil
}

// build turns the steps into nodes and edges in O(V+E).
func (w *walker) build(steps []planner.Step) {
	ph := w.phases(steps)
	for _, n := range ph.phase1 {
		// Delete before what it depended on (the deletion guard: a
		// resource goes only after everything that used it).
		for _, d := range n.change.PriorDependencies {
			if m := ph.del1[d]; m != nil && m != n {
				hardEdge(n, m)
			}
		}
	}
	barrier1 := &node{barrier: true}
	barrier2 := &node{barrier: true}
	for _, n := range ph.phase1 {
		softEdge(n, barrier1)
	}
	for _, n := range ph.phase2 {
		softEdge(barrier1, n)
		softEdge(n, barrier2)
		ph.linkPhase2(n)
	}
	for _, n := range ph.phase3 {
		softEdge(barrier2, n)
		if m := ph.p2[n.step.Address]; m != nil {
			hardEdge(m, n)
		}
		for _, d := range n.change.PriorDependencies {
			if m := ph.del3[d]; m != nil && m != n {
				hardEdge(n, m)
			}
		}
	}
	for _, m := range ph.phase2 {
		// A Placement object goes only once the updates that stop
		// naming it have succeeded.
		for _, d := range m.change.PriorDependencies {
			if n := ph.del3[d]; n != nil && n.step.AfterUpdates && m.change.Action == planner.Update {
				hardEdge(m, n)
			}
		}
	}
	w.nodes = append(w.nodes, barrier1, barrier2)
}

// walkPhases are the nodes of a walk by phase, in step order, and by
// address.
type walkPhases struct {
	del1 map[string]*node // phase 1: deletes and forgets
	p2   map[string]*node // phase 2: creates, updates, reads
	del3 map[string]*node // phase 3: old halves of create-then-delete

	phase1, phase2, phase3 []*node
}

// phases makes a node of each step, appended to w.nodes, and sorts them
// into their phases.
func (w *walker) phases(steps []planner.Step) walkPhases {
	ph := walkPhases{del1: map[string]*node{}, p2: map[string]*node{}, del3: map[string]*node{}}
	for _, s := range steps {
		c := &w.plan.Changes[s.Change]
		n := &node{step: s, change: c, action: s.Op.String()}
		n.result = StepResult{Address: s.Address, Action: n.action}
		switch {
		case s.Op == planner.StepDelete && (c.Action == planner.CreateThenDelete || s.AfterUpdates):
			// The old half of a create-then-delete is deposed (its
			// record stays, the new object's); a late plain delete
			// removes its record as any delete does.
			n.deposed = c.Action == planner.CreateThenDelete
			ph.del3[s.Address] = n
			ph.phase3 = append(ph.phase3, n)
		case s.Op == planner.StepDelete || s.Op == planner.StepForget:
			ph.del1[s.Address] = n
			ph.phase1 = append(ph.phase1, n)
		default:
			ph.p2[s.Address] = n
			ph.phase2 = append(ph.phase2, n)
		}
		w.nodes = append(w.nodes, n)
	}
	return ph
}

// linkPhase2 orders the phase 2 node n after its dependencies and its own
// deletion, and before the deletion of its dependencies' old objects.
func (ph walkPhases) linkPhase2(n *node) {
	for _, d := range n.change.Dependencies {
		if m := ph.p2[d]; m != nil && m != n {
			hardEdge(m, n)
		}
		if m := ph.del3[d]; m != nil {
			// The old object of a dependency goes once this dependent
			// is in place on the new one.
			hardEdge(n, m)
		}
	}
	if n.change.Action == planner.DeleteThenCreate {
		if m := ph.del1[n.step.Address]; m != nil {
			hardEdge(m, n)
		}
	}
}

// hardEdge makes to run only after from succeeded.
func hardEdge(from, to *node) {
	from.hardNext = append(from.hardNext, to)
	to.pending++
}

// softEdge makes to run only after from finished, whatever the result.
func softEdge(from, to *node) {
	from.softNext = append(from.softNext, to)
	to.pending++
}

// emit delivers an event, one at a time.
func (w *walker) emit(e Event) {
	if w.opts.Events == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = w.opts.Now()
	}
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	w.opts.Events(e)
}

// stop ends the walk's starting: nothing new starts (an interrupt,
// fail-fast or a journal failure); what runs finishes.
func (w *walker) stop() {
	w.stopOnce.Do(func() { close(w.stopping) })
}

func (w *walker) isStopping() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}
