package planner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Options shape a plan. The zero value plans every configured and
// recorded resource in normal mode.
type Options struct {
	// Destroy plans the deletion of every selected recorded resource.
	Destroy bool
	// RefreshOnly plans no action; it only reports drift observed by
	// Refresher.
	RefreshOnly bool
	// Targets limits the plan to these addresses and their dependencies
	// (in a destroy plan: and their dependents, which must go first).
	Targets []string
	// Excludes leaves these addresses and their dependents out of the plan.
	Excludes []string
	// Replace forces replacement of these managed resources.
	Replace []string
	// CreateBeforeDestroy replaces every resource new-first, as if each
	// type asked for it.
	CreateBeforeDestroy bool
	// InputDigests are copied into the plan (see Digests), and so are
	// Configuration (the paths compiled) and InputSalt (the salt the
	// digests of input values were made with).
	InputDigests  map[string]string
	Configuration []string
	InputSalt     string
	// Refresher observes real objects for a refresh-only plan; with nil,
	// no drift is observed.
	Refresher Refresher
	// Placement, when set, places the resources that ask for compute
	// (see placeChanges); nil plans without placement.
	Placement *PlacementOptions
	// State names the state prior was read from; the plan records it
	// (Plan.State) and CheckState refuses the plan for any other. Nil
	// records none (a plan not bound to a state: a library user's).
	State *state.Identity
}

// Refresher reads the real object behind a recorded resource and returns
// the feedback observed now. The executor's health checks implement it;
// the planner only compares.
type Refresher interface {
	Refresh(ctx context.Context, r *state.Resource) (state.Feedback, error)
}

// Observer is a Refresher that, while refreshing one resource, may
// observe others: a factory's discovery reports the instances xosplan
// already manages. After every selected resource is refreshed, Observed
// returns what it observed of others, by address; the observation of a
// resource is used where that resource was not refreshed itself, or has
// no health check of its own to refresh it (graph.OpHealthCheck).
type Observer interface {
	Observed() map[string]state.Feedback
}

// Diagnostic codes of the planner.
const (
	CodeCycle         = "planner.cycle"
	CodeUnknownAddr   = "planner.unknown_address"
	CodeReplaceIgnore = "planner.replace_ignored"
	CodeTargeting     = "planner.targeting"
	CodeDeletionGuard = "planner.deletion_guard"
	CodeStateCycle    = "planner.state_cycle"
	CodeStateDup      = "planner.state_duplicate"
	CodeRefresh       = "planner.refresh_failed"
	CodeCanceled      = "planner.canceled"
	CodeEncode        = "planner.encode"
)

// universe numbers every address that is configured, recorded, or both.
type universe struct {
	addrs    []string
	ids      map[string]int
	cfg      []*graph.Resource // nil when not configured
	rec      []*state.Resource // nil when not recorded
	cfgDeps  [][]int           // configured deps, or recorded deps when not configured
	recDeps  [][]int           // recorded deps
	hosted   map[[2]int]bool   // hosted_on / contains edges, by universe ids
	required map[[2]int]bool   // every edge but reads (requirements), by universe ids
	cfgOrder []int             // configured ids in dependency order
	cfgWaits [][]graph.OpWait  // graph.Index.Waits by universe id; nil for most graphs
}

// Diff plans the changes that take prior (the recorded state, nil for none)
// to desired (the compiled graph, nil for an empty configuration). It
// returns the plan and every problem found; the plan is nil only when no
// order exists (a dependency cycle) or ctx ended. Neither input is
// modified; the plan shares their spec values, which all three treat as
// read-only.
func Diff(ctx context.Context, desired *graph.Graph, prior *state.State, opts Options) (*Plan, diag.Diagnostics) {
	var diags diag.Diagnostics
	if err := ctx.Err(); err != nil {
		return nil, canceled(diags, err)
	}
	if desired == nil {
		desired = graph.New()
	}
	if prior == nil {
		prior = &state.State{}
	}
	u, diags := newUniverse(desired, prior, diags)
	if u == nil {
		return nil, diags
	}
	selected, diags := u.selection(opts, diags)

	p := &Plan{
		FormatVersion: FormatVersion,
		Lineage:       prior.Lineage,
		Serial:        prior.Serial,
		Mode:          ModeNormal,
		InputDigests:  map[string]string{},
		Configuration: slices.Clone(opts.Configuration),
		InputSalt:     opts.InputSalt,
		Targets:       sortedCopy(opts.Targets),
		Excludes:      sortedCopy(opts.Excludes),
		Replace:       sortedCopy(opts.Replace),
		Changes:       []ResourceChange{},
		Drift:         []ResourceDrift{},

		CreateBeforeDestroy: opts.CreateBeforeDestroy,
	}
	if p.Configuration == nil {
		p.Configuration = []string{}
	}
	if opts.State != nil {
		id := *opts.State
		p.State = &id
	}
	if opts.Placement != nil && opts.Placement.Source != (PlacementSource{}) {
		src := opts.Placement.Source
		p.PlacementSource = &src
	}
	for k, v := range opts.InputDigests {
		p.InputDigests[k] = v
	}
	switch {
	case opts.RefreshOnly:
		p.Mode = ModeRefreshOnly
		var err error
		p.Drift, diags, err = u.refresh(ctx, opts.Refresher, selected, diags)
		if err != nil {
			return nil, canceled(diags, err)
		}
	case opts.Destroy:
		p.Mode = ModeDestroy
		p.Changes = u.destroyChanges(selected)
	default:
		var err error
		p.Changes, diags, err = u.changes(ctx, selected, opts, diags)
		if err != nil {
			return nil, canceled(diags, err)
		}
		diags = placeChanges(ctx, p.Changes, desired, prior, opts.Placement, diags)
	}
	inheritCreateBeforeDestroy(p.Changes)
	order, ok := schedule(p.Changes)
	if !ok {
		diags = diags.Warnf(diag.Range{}, "", CodeStateCycle,
			"recorded dependencies form a cycle; deletes among them run in address order")
	}
	p.Changes = permute(p.Changes, order.changeOrder)
	diags = u.checkDeletionGuard(p.Changes, selected, diags)
	p.Summary = summarize(p.Changes)
	if len(opts.Targets) > 0 || len(opts.Excludes) > 0 {
		diags = diags.Append(diag.Diagnostic{Severity: diag.Warning, Code: CodeTargeting,
			Summary: "resource targeting is in effect: the plan may be incomplete",
			Detail:  "The plan covers only the selected resources and what they need. Use --target and --exclude to recover from mistakes, not in routine operation."})
	}
	id, err := ComputeID(p)
	if err != nil {
		return nil, diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeEncode, Summary: "cannot encode the plan", Detail: err.Error()})
	}
	p.PlanID = id
	return p, diags
}

func canceled(diags diag.Diagnostics, err error) diag.Diagnostics {
	return diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeCanceled, Summary: "planning stopped", Detail: err.Error()})
}

// cycleDiags appends an error for each dependency cycle of g.
func cycleDiags(g *graph.Graph, diags diag.Diagnostics) diag.Diagnostics {
	for _, c := range g.Cycles() {
		r := diag.Range{}
		if len(c) > 0 {
			r = c[0].Range
		}
		diags = diags.Errorf(r, "", CodeCycle, "dependency cycle: %s", graph.CyclePath(c))
	}
	return diags
}

// recordsByAddress maps each address of the state to its first record,
// warning about the others.
func recordsByAddress(prior *state.State, diags diag.Diagnostics) (map[string]*state.Resource, diag.Diagnostics) {
	rec := make(map[string]*state.Resource, len(prior.Resources))
	for i := range prior.Resources {
		r := &prior.Resources[i]
		if _, dup := rec[r.Address]; dup {
			diags = diags.Warnf(diag.Range{}, "", CodeStateDup, "state records %s twice; the first record is used", r.Address)
			continue
		}
		rec[r.Address] = r
	}
	return rec, diags
}

// linkRecorded fills the recorded dependencies of every recorded resource
// (sorted, once each, only those in the universe), which are also the
// dependencies of a resource no longer configured.
func (u *universe) linkRecorded() {
	for i, r := range u.rec {
		if r == nil {
			continue
		}
		for _, d := range r.Dependencies {
			if j, ok := u.ids[d]; ok && j != i {
				u.recDeps[i] = append(u.recDeps[i], j)
			}
		}
		slices.Sort(u.recDeps[i])
		u.recDeps[i] = slices.Compact(u.recDeps[i])
		if u.cfg[i] == nil {
			u.cfgDeps[i] = u.recDeps[i]
		}
	}
}

func newUniverse(g *graph.Graph, prior *state.State, diags diag.Diagnostics) (*universe, diag.Diagnostics) {
	x := g.Index()
	order, ok := x.Order()
	if !ok {
		return nil, cycleDiags(g, diags)
	}
	rec, diags := recordsByAddress(prior, diags)
	addrs := slices.Clone(x.Addrs)
	for a := range rec {
		if _, ok := x.IDs[a]; !ok {
			addrs = append(addrs, a)
		}
	}
	slices.Sort(addrs)
	u := &universe{
		addrs:    addrs,
		ids:      make(map[string]int, len(addrs)),
		cfg:      make([]*graph.Resource, len(addrs)),
		rec:      make([]*state.Resource, len(addrs)),
		cfgDeps:  make([][]int, len(addrs)),
		recDeps:  make([][]int, len(addrs)),
		hosted:   map[[2]int]bool{},
		required: map[[2]int]bool{},
	}
	for i, a := range addrs {
		u.ids[a] = i
		u.rec[i] = rec[a]
	}
	xid := make([]int, len(x.Addrs)) // index id -> universe id
	for i, a := range x.Addrs {
		id := u.ids[a]
		xid[i] = id
		u.cfg[id], _ = g.Resource(a)
	}
	for i := range x.Addrs {
		deps := make([]int, len(x.Deps[i]))
		for k, d := range x.Deps[i] {
			deps[k] = xid[d]
		}
		u.cfgDeps[xid[i]] = deps
		if x.Waits != nil && x.Waits[i] != nil {
			if u.cfgWaits == nil {
				u.cfgWaits = make([][]graph.OpWait, len(addrs))
			}
			u.cfgWaits[xid[i]] = x.Waits[i]
		}
	}
	u.linkRecorded()
	for _, e := range g.Edges() {
		if e.Kind == graph.HostedOn || e.Kind == graph.Contains {
			u.hosted[[2]int{u.ids[e.Source], u.ids[e.Target]}] = true
		}
		if e.Kind != graph.Reads {
			u.required[[2]int{u.ids[e.Source], u.ids[e.Target]}] = true
		}
	}
	u.cfgOrder = make([]int, len(order))
	for k, i := range order {
		u.cfgOrder[k] = xid[i]
	}
	return u, diags
}

// closure marks the ids reachable from start along deps (forward) or
// along dependents (backward, over configured and recorded deps alike, so
// that nothing that physically depends on a resource is missed).
func (u *universe) closure(start []int, forward bool) []bool {
	n := len(u.addrs)
	var next [][]int
	if forward {
		next = u.cfgDeps
	} else {
		next = make([][]int, n)
		for i := range n {
			for _, d := range u.cfgDeps[i] {
				next[d] = append(next[d], i)
			}
			for _, d := range u.recDeps[i] {
				next[d] = append(next[d], i)
			}
		}
	}
	seen := make([]bool, n)
	queue := slices.Clone(start)
	for _, i := range start {
		seen[i] = true
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range next[i] {
			if !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	return seen
}

func (u *universe) lookupAll(addrs []string, flag string, diags diag.Diagnostics) ([]int, diag.Diagnostics) {
	var out []int
	for _, a := range addrs {
		i, ok := u.ids[a]
		if !ok {
			diags = diags.Errorf(diag.Range{}, "", CodeUnknownAddr, "%s %s: no resource has this address in the configuration or the state", flag, a)
			continue
		}
		out = append(out, i)
	}
	return out, diags
}

// selection returns which ids the plan covers: the targets with their
// dependencies (destroy: their dependents), minus the excludes with their
// dependents.
func (u *universe) selection(opts Options, diags diag.Diagnostics) ([]bool, diag.Diagnostics) {
	n := len(u.addrs)
	selected := make([]bool, n)
	if len(opts.Targets) > 0 {
		var ids []int
		ids, diags = u.lookupAll(opts.Targets, "--target", diags)
		selected = u.closure(ids, !opts.Destroy)
	} else {
		for i := range selected {
			selected[i] = true
		}
	}
	if len(opts.Excludes) > 0 {
		var ids []int
		ids, diags = u.lookupAll(opts.Excludes, "--exclude", diags)
		for i, ex := range u.closure(ids, false) {
			if ex {
				selected[i] = false
			}
		}
	}
	_, diags = u.lookupAll(opts.Replace, "--replace", diags)
	return selected, diags
}

func (u *universe) newChange(i int) ResourceChange {
	c := ResourceChange{Address: u.addrs[i]}
	if r := u.rec[i]; r != nil {
		c.Type = r.Type
		c.Before = r.Spec
		if c.Before == nil {
			c.Before = map[string]graph.Value{}
		}
		c.PriorDependencies = u.names(u.recDeps[i])
		c.Driver = r.Driver
		c.Management = r.Management
		c.Sensitive = r.Sensitive
		c.DerivedBy = r.DerivedBy
		c.SetByPolicy = r.SetByPolicy
	}
	if g := u.cfg[i]; g != nil {
		if c.Type != "" && c.Type != g.Type {
			c.PriorType = c.Type
		}
		c.Type = g.Type
		c.After = g.Spec
		if c.After == nil {
			c.After = map[string]graph.Value{}
		}
		c.Dependencies = u.names(u.cfgDeps[i])
		if u.cfgWaits != nil {
			c.OperationWaits = u.cfgWaits[i]
		}
		c.Driver = g.Driver
		c.Management = g.Management
		c.Sensitive = unionSorted(c.Sensitive, g.Sensitive)
		c.DerivedBy = g.DerivedBy
		c.SetByPolicy = g.SetByPolicy
		c.Lookup = g.Lookup
	}
	if c.Before != nil && c.After != nil {
		c.ChangedPaths = ChangedPaths(c.Before, c.After)
		// A record without a driver (written by hand) says nothing
		// about its operations.
		if r := u.rec[i]; r.Driver.Name != "" {
			c.OperationPaths = OperationPaths(r.Driver.Operations, u.cfg[i].Driver.Operations)
			if c.OperationPaths != nil {
				c.PriorOperations = r.Driver.Operations
			}
		}
	}
	return c
}

func (u *universe) names(ids []int) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for k, i := range ids {
		out[k] = u.addrs[i]
	}
	slices.Sort(out)
	return out
}

func (u *universe) destroyChanges(selected []bool) []ResourceChange {
	out := []ResourceChange{}
	for i := range u.addrs {
		if !selected[i] || u.rec[i] == nil {
			continue
		}
		c := u.newChange(i)
		// A destroy plan shows what goes away, not the configured values.
		c.After, c.ChangedPaths, c.PriorType = nil, nil, ""
		c.OperationPaths, c.PriorOperations = nil, nil
		c.Type, c.Driver, c.Management = u.rec[i].Type, u.rec[i].Driver, u.rec[i].Management
		c.Action, c.Reason = Delete, ReasonDestroyRequested
		// Unmanaged now or when recorded: never ours to delete.
		if c.Management == graph.Unmanaged || (u.cfg[i] != nil && u.cfg[i].Management == graph.Unmanaged) {
			c.Action = Forget
		}
		out = append(out, c)
	}
	return out
}

// changes plans a normal plan: configured resources in dependency order,
// so that a replaced dependency is decided before its dependents, then
// recorded resources no longer configured.
func (u *universe) changes(ctx context.Context, selected []bool, opts Options, diags diag.Diagnostics) ([]ResourceChange, diag.Diagnostics, error) {
	replace := map[string]bool{}
	for _, a := range opts.Replace {
		replace[a] = true
	}
	at := make([]int, len(u.addrs)) // id -> index in out, or -1
	for i := range at {
		at[i] = -1
	}
	out := make([]ResourceChange, 0, len(u.addrs))
	for k, i := range u.cfgOrder {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, diags, err
			}
		}
		if !selected[i] {
			continue
		}
		c := u.newChange(i)
		g, r := u.cfg[i], u.rec[i]
		cbd := opts.CreateBeforeDestroy || g.CreateBeforeDestroy
		c.Action, c.Reason, c.ReasonPaths = decide(g, r, c.ChangedPaths, c.OperationPaths, replace[g.Address], cbd)
		if c.Reason == ReasonImportFilter {
			c.Import = g.Import
		}
		if replace[g.Address] && c.Reason != ReasonReplaceRequested {
			diags = diags.Warnf(diag.Range{}, "", CodeReplaceIgnore,
				"--replace %s has no effect: it is %s", g.Address, replaceIgnoredWhy(g, r))
		}
		u.forceByDependencies(&c, i, out, at, cbd)
		at[i] = len(out)
		out = append(out, c)
	}
	for i := range u.addrs {
		if !selected[i] || u.cfg[i] != nil {
			continue
		}
		c := u.newChange(i)
		c.Action, c.Reason = Delete, ReasonNoResourceConfig
		if c.Management == graph.Unmanaged {
			c.Action = Forget
		}
		if replace[c.Address] {
			diags = diags.Warnf(diag.Range{}, "", CodeReplaceIgnore,
				"--replace %s has no effect: it is no longer configured and will be deleted", c.Address)
		}
		out = append(out, c)
	}
	return out, diags, nil
}

func replaceIgnoredWhy(g *graph.Resource, r *state.Resource) string {
	if g.Management == graph.Unmanaged {
		return "unmanaged, so it is only read"
	}
	if r == nil {
		return "not in the state yet, so it will be created"
	}
	return "replaced anyway"
}

// decide is the one place that chooses a configured resource's own action
// and reason from its desired and recorded forms (changed: the spec paths
// that differ; opChanged: the operation paths); dependencies are
// considered afterwards (forceByDependencies). An operation change is
// applied as a spec change is: in place when the driver can, else by
// replacement; but a change confined to operations outside the life cycle
// (a health check, discovery or command script) is an update that runs
// nothing (ResourceChange.RecordsOnly), for any driver, since the object
// does not change. A resource whose last apply did not succeed, or that a
// health check found failed since, is created again when its driver could
// update it, because the walk then runs the whole actuator (goal-oriented
// repair, the recorded object keeping its ids), not the update: the plan
// says what will run.
func decide(g *graph.Resource, r *state.Resource, changed, opChanged []string, replaceRequested, cbd bool) (Action, Reason, []string) {
	if g.Management == graph.Unmanaged {
		return decideUnmanaged(r, changed)
	}
	if len(g.Import) > 0 && (r == nil || r.Management == graph.Unmanaged || !r.Succeeded() && r.Feedback.Enacted.IsZero()) {
		// Not ours yet, or its adoption failed: adopt the object its
		// import filter finds, never create one.
		return Create, ReasonImportFilter, nil
	}
	if r == nil || r.Management == graph.Unmanaged {
		// A resource that was only read before is not ours yet: create it.
		return Create, ReasonNotInState, nil
	}
	inPlace := canUpdateInPlace(g.Driver)
	// A change confined to operations outside the life cycle, or to the
	// attribute values the spec assigns, needs no update in place, but
	// does not hide a failure either.
	recordsOnly := recordsOnlyChange(changed, opChanged, r.Driver.Operations, g.Driver.Operations)
	declared := len(changed) > 0 || len(opChanged) > 0
	switch {
	case replaceRequested:
		return replacement(cbd), ReasonReplaceRequested, nil
	case r.Type != g.Type:
		return replacement(cbd), ReasonTypeChanged, nil
	case declared && !inPlace && !recordsOnly:
		return replacement(cbd), ReasonCannotUpdate, changed
	case !r.Succeeded() && !inPlace:
		return replacement(cbd), failureReason(r), nil
	case !r.Succeeded() && (!declared || recordsOnly || r.Feedback.Enacted.IsZero()):
		// Never enacted: the walk creates it, whatever changed since; nor
		// does a change outside the life cycle repair a failed object.
		return Create, failureReason(r), nil
	case len(changed) > 0:
		return Update, ReasonSpecChanged, changed
	case len(opChanged) > 0:
		reason, paths := OperationReason(opChanged, r.Driver.Operations, g.Driver.Operations)
		return Update, reason, paths
	case r.Versions.NeedsSync():
		// Saved without change (XOS: updated > enacted): the actuator runs
		// again, whole, as after a failure; it is idempotent.
		return Create, ReasonTouched, nil
	}
	return NoOp, ReasonNone, nil
}

// decideUnmanaged decides for a resource that is only read. A record made
// while the resource was managed is read again, so that the state stops
// treating it as ours (destroy then forgets it).
func decideUnmanaged(r *state.Resource, changed []string) (Action, Reason, []string) {
	if r == nil || len(changed) > 0 || !r.Succeeded() || r.Management != graph.Unmanaged {
		return Read, ReasonUnmanagedRead, changed
	}
	if r.Versions.NeedsSync() {
		return Read, ReasonTouched, nil
	}
	return NoOp, ReasonNone, nil
}

// failureReason says why a resource that did not succeed runs again:
// ReasonInstanceFailed when its last apply succeeded (it was enacted, and
// no attempt came after) and a health check since recorded it failed,
// ReasonLastApplyFailed otherwise.
func failureReason(r *state.Resource) Reason {
	fb := r.Feedback
	if fb.BackendCode == state.BackendError && !fb.Enacted.IsZero() && !fb.LastAttempt.After(fb.Enacted) {
		return ReasonInstanceFailed
	}
	return ReasonLastApplyFailed
}

// forceByDependencies applies the rules for dependencies: a resource now
// hosted on (or contained in) another resource than the one recorded
// moves, so it is replaced; one hosted on a replaced (or re-created)
// resource is replaced with it, because it lives on the old one; one whose
// spec or operation inputs read a replaced resource's feedback (an
// Unknown reference) is updated in place when its driver can, else
// replaced, because the values it was given will change. Other dependents
// are left alone, and so are the dependents of a resource whose create
// runs again over the recorded object (ResourceChange.Reruns): it is not
// a new object. Deps are decided first, so the rules cascade.
func (u *universe) forceByDependencies(c *ResourceChange, i int, out []ResourceChange, at []int, cbd bool) {
	g := u.cfg[i]
	if g.Management == graph.Unmanaged || u.rec[i] == nil || c.Action == Create && !c.Reruns() {
		return
	}
	var refs, targets []string
	refsDone := false
	for _, d := range u.cfgDeps[i] {
		dep := u.addrs[d]
		if at[d] >= 0 && u.required[[2]int{i, d}] && out[at[d]].runsAgain() && !slices.Contains(targets, dep) {
			targets = append(targets, dep)
		}
		if u.hosted[[2]int{i, d}] && len(u.rec[i].Dependencies) > 0 && !slices.Contains(u.recDeps[i], d) {
			// A new host: the resource moves, whatever the host's own
			// action. A record without dependencies (written by hand or
			// by an old version) says nothing about its host, so it is
			// not taken to have moved.
			c.moveToNewHost(dep, cbd)
			continue
		}
		// A dependency created anew (recorded state lost it) is a new object
		// for its dependents, as a replaced one is.
		if at[d] < 0 || !out[at[d]].makesNewObject() {
			continue
		}
		if u.hosted[[2]int{i, d}] {
			c.replaceWithHost(cbd)
		} else {
			if !refsDone {
				refs, refsDone = unionSorted(specRefs(g.Spec), operationRefs(g.Driver.Operations)), true
			}
			if _, found := slices.BinarySearch(refs, dep); !found {
				continue
			}
			c.rereadDependency(g, dep, cbd)
		}
		if c.Reason == ReasonDependencyReplaced {
			c.ForcedBy = append(c.ForcedBy, dep)
		}
	}
	c.notifyTargetChanged(g, targets)
}

// notifyTargetChanged makes c (of resource g), when it still runs nothing
// once every other rule has forced what it forces (a whole update or a
// replacement runs more than these operations would), an update that runs
// g's Configure.target_changed operations (ReasonTargetChanged) because
// targets, the targets of g's relationships that run their operations
// again, are ForcedBy. Every relationship of g that defines target_changed
// runs it: the operation keys do not say which relationship leads to
// which target.
func (c *ResourceChange) notifyTargetChanged(g *graph.Resource, targets []string) {
	if c.Action != NoOp || len(targets) == 0 {
		return
	}
	if keys := targetChangedOperations(g.Driver); len(keys) > 0 {
		c.Action, c.Reason, c.ReasonPaths, c.ForcedBy = Update, ReasonTargetChanged, keys, targets
	}
}

// runsAgain reports whether the change runs the operations of a recorded
// object again, or makes a new one in its place: an update that runs
// something, a create run again, a replacement.
func (c *ResourceChange) runsAgain() bool {
	return c.Action == Update && !c.RecordsOnly() && c.Reason != ReasonTargetChanged || c.Reruns() || c.Action.IsReplace()
}

// targetChangedOperations returns the keys of drv's target_changed
// operations with an implementation, in the order the drivers run a
// phase (driver.PhaseOperations): the plain key, then by requirement and
// index.
func targetChangedOperations(drv graph.Driver) []string {
	type key struct {
		key, req string
		index    int
	}
	var keys []key
	for k, op := range drv.Operations {
		if name, req, index, ok := graph.ParseRelationshipOperationKey(k); ok && name == "target_changed" && op.Implementation != "" {
			keys = append(keys, key{k, req, index})
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.req, b.req), cmp.Compare(a.index, b.index))
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.key
	}
	return out
}

// makesNewObject reports whether the change leaves a new object in place
// of the recorded one: a replacement, or a create that does not run again
// over the recorded object.
func (c *ResourceChange) makesNewObject() bool {
	return c.Action.IsReplace() || c.Action == Create && !c.Reruns()
}

// moveToNewHost replaces c, hosted on dep now and not before.
func (c *ResourceChange) moveToNewHost(dep string, cbd bool) {
	if !c.Action.IsReplace() || c.Reason == ReasonDependencyReplaced {
		c.Action, c.Reason, c.ReasonPaths, c.ForcedBy = replacement(cbd), ReasonHostChanged, nil, nil
	}
	if c.Reason == ReasonHostChanged {
		c.ForcedBy = append(c.ForcedBy, dep)
	}
}

// replaceWithHost replaces c, whose host is a new object.
func (c *ResourceChange) replaceWithHost(cbd bool) {
	if !c.Action.IsReplace() {
		if c.Reason != ReasonDependencyReplaced {
			c.ReasonPaths = nil
		}
		c.Action, c.Reason = replacement(cbd), ReasonDependencyReplaced
	}
}

// rereadDependency updates c (of resource g), which reads the feedback of
// dep, a new object; replaces it when its driver cannot update in place.
func (c *ResourceChange) rereadDependency(g *graph.Resource, dep string, cbd bool) {
	if c.Action == NoOp || c.RecordsOnly() {
		// What it reads changes: its update must run, which
		// applies its new operations too (still in OperationPaths).
		c.Action, c.Reason, c.ReasonPaths = Update, ReasonDependencyReplaced, nil
		if !canUpdateInPlace(g.Driver) {
			c.Action = replacement(cbd)
		}
	}
	if c.Reason == ReasonDependencyReplaced {
		c.ReasonPaths = unionSorted(c.ReasonPaths, unionSorted(keysReading(g.Spec, dep), inputsReading(g.Driver.Operations, dep)))
	}
}

// keysReading returns the top-level spec keys whose Unknown values read
// addr, sorted.
func keysReading(spec map[string]graph.Value, addr string) []string {
	var out []string
	for k, v := range spec {
		if _, found := slices.BinarySearch(specRefs(map[string]graph.Value{k: v}), addr); found {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// specRefs returns the addresses the spec's Unknown values read, sorted.
func specRefs(spec map[string]graph.Value) []string {
	var out []string
	var walk func(graph.Value)
	walk = func(v graph.Value) {
		switch x := v.(type) {
		case graph.Unknown:
			out = append(out, x.Refs()...)
		case []graph.Value:
			for _, e := range x {
				walk(e)
			}
		case map[string]graph.Value:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, v := range spec {
		walk(v)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ChangedPaths returns the dot paths at which two specs differ, sorted:
// map keys join with ".", list elements by index when both lists have the
// same length, otherwise the list's own path. Unknown values compare as
// expressions.
func ChangedPaths(before, after map[string]graph.Value) []string {
	var out []string
	diffMaps("", before, after, &out)
	return out
}

// UnionKeys returns the keys of a and b, each once, sorted (the plan views
// list a change's fields so too).
func UnionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func diffMaps(prefix string, a, b map[string]graph.Value, out *[]string) {
	for _, k := range UnionKeys(a, b) {
		x, inA := a[k]
		y, inB := b[k]
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if !inA || !inB {
			*out = append(*out, p)
			continue
		}
		diffValues(p, x, y, out)
	}
}

func diffValues(p string, x, y graph.Value, out *[]string) {
	if xm, ok := x.(map[string]graph.Value); ok {
		if ym, ok := y.(map[string]graph.Value); ok {
			diffMaps(p, xm, ym, out)
			return
		}
	}
	if xl, ok := x.([]graph.Value); ok {
		if yl, ok := y.([]graph.Value); ok && len(xl) == len(yl) {
			for i := range xl {
				diffValues(p+"."+strconv.Itoa(i), xl[i], yl[i], out)
			}
			return
		}
	}
	if !graph.Equal(x, y) {
		*out = append(*out, p)
	}
}

// checkDeletionGuard enforces the ORC deletion guard as a plan invariant:
// no resource is deleted while a resource that depends on it remains. A
// remaining resource's dependencies are its configured ones when the plan
// creates, updates or keeps it, its recorded ones when the plan leaves it
// out (excluded or not targeted). Replacements are not deletions here,
// their dependents being ordered around them (see Plan.Steps), except that
// a resource left out of the plan cannot stay on a host that is replaced.
func (u *universe) checkDeletionGuard(changes []ResourceChange, selected []bool, diags diag.Diagnostics) diag.Diagnostics {
	deleted := make([]bool, len(u.addrs))
	someDeleted := false
	for i := range changes {
		if changes[i].Action == Delete || changes[i].Action.IsReplace() {
			someDeleted = true
		}
		if changes[i].Action == Delete {
			deleted[u.ids[changes[i].Address]] = true
		}
	}
	if !someDeleted {
		return diags
	}
	planned := make([]*ResourceChange, len(u.addrs))
	for i := range changes {
		planned[u.ids[changes[i].Address]] = &changes[i]
	}
	for i := range u.addrs {
		var deps []int
		why := ""
		switch c := planned[i]; {
		case c != nil && (c.Action == Delete || c.Action == Forget):
			continue
		case c != nil:
			deps, why = u.cfgDeps[i], "is kept by this plan"
		case u.rec[i] != nil:
			deps, why = u.recDeps[i], "is outside the selected resources (--target/--exclude)"
		default:
			continue
		}
		for _, d := range deps {
			if planned[i] == nil && u.hosted[[2]int{i, d}] && planned[d] != nil && planned[d].Action.IsReplace() {
				diags = diags.Append(diag.Diagnostic{
					Severity: diag.Error, Code: CodeDeletionGuard,
					Summary: fmt.Sprintf("cannot replace %s: %s is hosted on it and %s", u.addrs[d], u.addrs[i], why),
					Detail:  "Replacing a host deletes what runs on it. Select " + u.addrs[i] + " too, or leave " + u.addrs[d] + " out.",
				})
			}
			if deleted[d] {
				diags = diags.Append(diag.Diagnostic{
					Severity: diag.Error, Code: CodeDeletionGuard,
					Summary: fmt.Sprintf("cannot delete %s: %s depends on it and %s", u.addrs[d], u.addrs[i], why),
					Detail:  "A resource is never deleted while a resource that depends on it remains. Select " + u.addrs[i] + " for deletion too, or keep " + u.addrs[d] + ".",
				})
			}
		}
	}
	return diags
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func unionSorted(a, b []string) []string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func permute(changes []ResourceChange, order []int) []ResourceChange {
	out := make([]ResourceChange, len(order))
	for k, i := range order {
		out[k] = changes[i]
	}
	return out
}

// feedbackValue flattens the parts of feedback that a refresh observes.
func feedbackValue(fb state.Feedback) map[string]graph.Value {
	m := map[string]graph.Value{
		"status": map[string]graph.Value{
			"active": fb.Status.Active, "converging": fb.Status.Converging, "failed": fb.Status.Failed,
			"message": fb.Status.Message,
		},
		"instance_id": fb.InstanceID,
	}
	if len(fb.Attributes) > 0 {
		m["attributes"] = fb.Attributes
	}
	if len(fb.Signals) > 0 {
		m["signals"] = fb.Signals
	}
	return m
}

// refresh asks the refresher about every selected recorded resource and
// reports what differs from the recorded feedback.
func (u *universe) refresh(ctx context.Context, rf Refresher, selected []bool, diags diag.Diagnostics) ([]ResourceDrift, diag.Diagnostics, error) {
	out := []ResourceDrift{}
	if rf == nil {
		return out, diags, nil
	}
	for i, r := range u.rec {
		if r == nil || !selected[i] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, diags, err
		}
		fb, err := rf.Refresh(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, diags, ctx.Err()
			}
			diags = diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeRefresh,
				Summary: fmt.Sprintf("cannot refresh %s", r.Address), Detail: err.Error()})
			continue
		}
		before, after := feedbackValue(r.Feedback), feedbackValue(fb)
		if paths := ChangedPaths(before, after); len(paths) > 0 {
			out = append(out, ResourceDrift{Address: r.Address, Type: r.Type, Paths: paths, Before: before, After: after})
		}
	}
	if o, ok := rf.(Observer); ok {
		out = u.observedDrift(o.Observed(), selected, out)
	}
	return out, diags, nil
}

// observedDrift adds to out the drift of what the refresher observed of
// resources it did not refresh (see Observer), in address order.
func (u *universe) observedDrift(obs map[string]state.Feedback, selected []bool, out []ResourceDrift) []ResourceDrift {
	drifted := make(map[string]bool, len(out))
	for _, d := range out {
		drifted[d.Address] = true
	}
	for i, r := range u.rec {
		fb, ok := obs[u.addrs[i]]
		if r == nil || !ok || drifted[r.Address] || (selected[i] && r.Driver.HasOperation(graph.OpHealthCheck)) {
			continue
		}
		before, after := feedbackValue(r.Feedback), feedbackValue(fb)
		if paths := ChangedPaths(before, after); len(paths) > 0 {
			out = append(out, ResourceDrift{Address: r.Address, Type: r.Type, Paths: paths, Before: before, After: after})
		}
	}
	return out
}
