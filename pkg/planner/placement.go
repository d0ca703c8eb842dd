package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// Diagnostic codes of the placement step.
const (
	// CodeUnplaceable: no provider can take a resource; the detail says
	// which constraint excluded which providers.
	CodeUnplaceable = "planner.placement_unplaceable"
	// CodePlacementRequest: a resource's request cannot be asked (no
	// resources, an unknown trait, a backend error).
	CodePlacementRequest = "planner.placement_request"
	// CodeAllocationStale: a recorded allocation no longer fits the
	// inventory; the resource keeps it until it is next re-created.
	CodeAllocationStale = "planner.placement_allocation_stale"
)

// PlacementOptions say where compute resources may land. Exactly one of
// Model and Service is set.
type PlacementOptions struct {
	// Model is the embedded backend, loaded for this plan alone: the
	// planner writes the recorded allocations and the plan's own claims
	// into it, so each placed resource consumes capacity for the next and
	// Explain sees what is left. Build a fresh model per plan.
	Model *placement.Model
	// Service is a shared backend (a real Placement API). The planner only
	// reads it: it never claims at plan time, and keeps the capacity the
	// plan consumes in its own tally over the candidates' provider
	// summaries.
	Service placement.Service
	// Source names the backend for the plan (Plan.PlacementSource).
	Source PlacementSource
}

// ConsumerID is the placement consumer that holds a resource's
// allocations: derived from the state lineage and the address, so every
// plan and apply of one state names the same consumer.
func ConsumerID(lineage, address string) string {
	return "xosplan:" + lineage + ":" + address
}

// PlacementQuery turns a resource's placement request into an
// allocation-candidates query: one unsuffixed group with the resources,
// each required trait as its own requirement, the forbidden traits and
// the aggregate constraints.
func PlacementQuery(r *graph.PlacementRequest) (placement.Query, error) {
	if r == nil || len(r.Resources) == 0 {
		return placement.Query{}, errors.New("the request names no resources (VCPU, MEMORY_MB, DISK_GB, …)")
	}
	g := placement.RequestGroup{Resources: map[string]int64{}}
	for rc, n := range r.Resources {
		if n <= 0 {
			return placement.Query{}, fmt.Errorf("%s amount %d is not positive", rc, n)
		}
		g.Resources[rc] = n
	}
	for _, t := range sortedCopy(r.Required) {
		if len(g.RequiredAnyOf) == 0 || g.RequiredAnyOf[len(g.RequiredAnyOf)-1][0] != t {
			g.RequiredAnyOf = append(g.RequiredAnyOf, []string{t})
		}
	}
	g.Forbidden = slices.Compact(sortedCopy(r.Forbidden))
	for _, any := range r.MemberOf {
		if len(any) > 0 {
			g.MemberOfAnyOf = append(g.MemberOfAnyOf, sortedCopy(any))
		}
	}
	g.ForbiddenAggs = slices.Compact(sortedCopy(r.ForbiddenAggregates))
	return placement.Query{Groups: []placement.RequestGroup{g}, Version: placement.Latest()}, nil
}

// SeedAllocations writes the allocations recorded in st into m, each
// resource as its ConsumerID, so the embedded model counts them as usage.
// It returns, by address, the recorded allocations that no longer fit m
// (a provider is gone or shrank); those are left out of m.
func SeedAllocations(m *placement.Model, st *state.State) map[string]error {
	if st == nil {
		return nil
	}
	var stale map[string]error
	for i := range st.Resources {
		r := &st.Resources[i]
		if len(r.Feedback.Allocations) == 0 {
			continue
		}
		err := m.PutAllocations(ConsumerID(st.Lineage, r.Address), ToPlacementAllocations(r.Feedback.Allocations), placement.WriteOptions{})
		if err != nil {
			if stale == nil {
				stale = map[string]error{}
			}
			stale[r.Address] = err
		}
	}
	return stale
}

// ToPlacementAllocations converts recorded allocations to the placement
// package's form (amounts of one provider listed twice are added).
func ToPlacementAllocations(l []state.Allocation) placement.Allocations {
	out := placement.Allocations{}
	for _, a := range l {
		if out[a.Provider] == nil {
			out[a.Provider] = map[string]int64{}
		}
		for rc, n := range a.Resources {
			out[a.Provider][rc] += n
		}
	}
	return out
}

// FromPlacementAllocations converts allocations to the recorded form,
// sorted by provider.
func FromPlacementAllocations(a placement.Allocations) []state.Allocation {
	out := make([]state.Allocation, 0, len(a))
	for p, res := range a {
		r := make(map[string]int64, len(res))
		for rc, n := range res {
			r[rc] = n
		}
		out = append(out, state.Allocation{Provider: p, Resources: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// totals sums allocations per resource class.
func totals(l []state.Allocation) map[string]int64 {
	out := map[string]int64{}
	for _, a := range l {
		for rc, n := range a.Resources {
			out[rc] += n
		}
	}
	return out
}

func sameAmounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// placer carries the placement step's working data.
type placer struct {
	opts    *PlacementOptions
	lineage string
	// tally is what this plan has placed so far on a shared Service:
	// provider -> class -> amount.
	tally map[string]map[string]int64
}

// placeChanges fills the Placement of every change whose resource asks
// for compute, in address order so that the outcome does not depend on the
// schedule: a created or replaced resource is placed anew; an existing one
// keeps its recorded allocations unless its requested amounts changed
// (an update then re-places it). With the embedded model, what deleted
// resources hold is free for the others, since apply runs deletes first.
// A resource that cannot be
// placed is an error diagnostic naming what excluded each provider.
func placeChanges(ctx context.Context, changes []ResourceChange, desired *graph.Graph, prior *state.State, opts *PlacementOptions, diags diag.Diagnostics) diag.Diagnostics {
	if opts == nil || (opts.Model == nil && opts.Service == nil) {
		return diags
	}
	pl := &placer{opts: opts, lineage: prior.Lineage, tally: map[string]map[string]int64{}}
	var stale map[string]error
	if opts.Model != nil {
		stale = SeedAllocations(opts.Model, prior)
	}
	// A shared service offers no candidate on a provider that is full
	// now, so there what deletes will free is not reused in this plan.
	for i := range changes {
		if c := &changes[i]; c.Action == Delete && opts.Model != nil {
			_ = opts.Model.DeleteAllocations(ConsumerID(prior.Lineage, c.Address))
		}
	}
	for _, i := range askingForCompute(changes, desired) {
		if err := ctx.Err(); err != nil {
			return canceled(diags, err)
		}
		var err error
		if diags, err = pl.placeChange(ctx, &changes[i], desired, prior, stale, diags); err != nil {
			return canceled(diags, err)
		}
	}
	return diags
}

// askingForCompute returns the indexes of the changes whose managed
// resource has a placement request, in address order.
func askingForCompute(changes []ResourceChange, desired *graph.Graph) []int {
	idx := make([]int, 0, len(changes))
	for i := range changes {
		if r, ok := desired.Resource(changes[i].Address); ok && r.Request != nil && r.Management != graph.Unmanaged {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return changes[idx[a]].Address < changes[idx[b]].Address })
	return idx
}

// placeChange fills the Placement of one change whose resource asks for
// compute (see placeChanges); stale holds the recorded allocations that no
// longer fit. err is set only when ctx ended.
func (pl *placer) placeChange(ctx context.Context, c *ResourceChange, desired *graph.Graph, prior *state.State, stale map[string]error, diags diag.Diagnostics) (diag.Diagnostics, error) {
	res, _ := desired.Resource(c.Address)
	var recorded []state.Allocation
	if r, ok := prior.Lookup(c.Address); ok {
		recorded = r.Feedback.Allocations
	}
	q, qerr := PlacementQuery(res.Request)
	switch {
	case c.Action == Update || c.Action == NoOp || c.Reruns():
		if len(recorded) == 0 {
			// Created before placement was in use: it runs wherever
			// it runs; nothing to claim.
			return diags, nil
		}
		if qerr != nil || sameAmounts(totals(recorded), q.Groups[0].Resources) || c.Action != Update {
			return keepPlacement(c, res.Range, recorded, q, qerr, stale, diags), nil
		}
		// Resized: re-placed below, claimed before the update.
	case c.Action == Create || c.Action.IsReplace():
	default:
		return diags, nil
	}
	if qerr != nil {
		return diags.Append(diag.Diagnostic{Severity: diag.Warning, Code: CodePlacementRequest, Range: res.Range,
			Summary: fmt.Sprintf("%s is not placed: %v", c.Address, qerr)}), nil
	}
	d, dg, err := pl.placeOne(ctx, c.Address, q, res.Range)
	if err != nil {
		return diags, err
	}
	if dg != nil {
		return diags.Append(*dg), nil
	}
	c.Placement = d
	return diags, nil
}

// keepPlacement keeps the recorded allocations of an existing resource,
// warning when they no longer fit the provider inventory.
func keepPlacement(c *ResourceChange, rng diag.Range, recorded []state.Allocation, q placement.Query, qerr error, stale map[string]error, diags diag.Diagnostics) diag.Diagnostics {
	if err, ok := stale[c.Address]; ok {
		diags = diags.Append(diag.Diagnostic{Severity: diag.Warning, Code: CodeAllocationStale, Range: rng,
			Summary: fmt.Sprintf("the recorded placement of %s no longer fits the provider inventory", c.Address),
			Detail:  fmt.Sprintf("%v. The resource keeps its allocations until it is next created; replace it (--replace %s) to place it again.", err, c.Address)})
	}
	c.Placement = &PlacementDecision{Allocations: recorded, Kept: true}
	if qerr == nil {
		c.Placement.Query = q.String()
	}
	return diags
}

// placeOne chooses the first candidate that fits and consumes it. A nil
// decision comes with a diagnostic; err is set only when ctx ended.
func (pl *placer) placeOne(ctx context.Context, addr string, q placement.Query, rng diag.Range) (*PlacementDecision, *diag.Diagnostic, error) {
	fail := func(code, summary, detail string) (*PlacementDecision, *diag.Diagnostic, error) {
		return nil, &diag.Diagnostic{Severity: diag.Error, Code: code, Range: rng, Summary: summary, Detail: detail}, nil
	}
	qs := q.String()
	svc := pl.opts.Service
	consumer := ConsumerID(pl.lineage, addr)
	if m := pl.opts.Model; m != nil {
		svc = m
		// The model holds this plan's claims, so its first candidate fits.
		q.Limit = 1
		// A re-placed resource gives up what it held (apply releases it
		// before claiming the new place); it is held again if nothing fits.
		if prev := m.Allocations(consumer); prev.Exists {
			if err := m.DeleteAllocations(consumer); err == nil {
				defer func() {
					if m.Allocations(consumer).Exists {
						return
					}
					_ = m.PutAllocations(consumer, prev.Allocations, placement.WriteOptions{})
				}()
			}
		}
	}
	res, err := svc.Candidates(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return fail(CodePlacementRequest, fmt.Sprintf("cannot place %s: %v", addr, err), "The request was: "+qs)
	}
	reqs := res.Requests
	if pl.opts.Model == nil {
		// A real service's order is its own and not stable between calls;
		// provider-name order keeps the plan deterministic and, for flat
		// clouds, the same as the embedded model's.
		reqs = slices.Clone(reqs)
		sort.SliceStable(reqs, func(i, j int) bool { return providerKey(reqs[i]) < providerKey(reqs[j]) })
	}
	var chosen *placement.AllocationRequest
	rejected := 0
	for i := range reqs {
		if pl.opts.Model != nil || pl.fits(reqs[i], res.Summaries) {
			chosen = &reqs[i]
			break
		}
		rejected++
	}
	if chosen == nil {
		return fail(CodeUnplaceable, fmt.Sprintf("cannot place %s: no resource provider fits %s", addr, qs), pl.explain(q, rejected))
	}
	allocs := chosen.Allocations()
	if pl.opts.Model != nil {
		if err := pl.opts.Model.PutAllocations(consumer, allocs, placement.WriteOptions{}); err != nil {
			return fail(CodeUnplaceable, fmt.Sprintf("cannot place %s: %v", addr, err), "")
		}
	} else {
		for p, byClass := range allocs {
			if pl.tally[p] == nil {
				pl.tally[p] = map[string]int64{}
			}
			for rc, n := range byClass {
				pl.tally[p][rc] += n
			}
		}
	}
	return &PlacementDecision{Allocations: FromPlacementAllocations(allocs), Query: qs}, nil, nil
}

// providerKey names a candidate's providers in order, for sorting.
func providerKey(r placement.AllocationRequest) string {
	var b strings.Builder
	for i, a := range r.Resources {
		if i == 0 || a.Provider != r.Resources[i-1].Provider {
			b.WriteString(a.Provider)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// fits reports whether a candidate from a shared service still fits once
// this plan's earlier placements are counted.
func (pl *placer) fits(r placement.AllocationRequest, sums map[string]placement.ProviderSummary) bool {
	for _, a := range r.Resources {
		s, ok := sums[a.Provider].Resources[a.Class]
		if !ok {
			continue
		}
		if s.Used+pl.tally[a.Provider][a.Class]+a.Amount > s.Capacity {
			return false
		}
	}
	return true
}

// maxListed bounds the providers named per reason in an explanation.
const maxListed = 5

// explain says which constraint excluded which providers. With the
// embedded model it is Model.Explain (the model holds this plan's claims,
// so capacity reflects them); a shared service only says how many
// candidates this plan's own placements used up.
func (pl *placer) explain(q placement.Query, rejected int) string {
	if pl.opts.Model == nil {
		if rejected > 0 {
			return fmt.Sprintf("The service offered %d candidates; resources placed earlier in this plan use up all of them.", rejected)
		}
		return "The Placement service has no allocation candidate for the request."
	}
	ex := pl.opts.Model.Explain(q)
	if len(ex) == 0 {
		var classes []string
		for rc := range q.Groups[0].Resources {
			classes = append(classes, rc)
		}
		sort.Strings(classes)
		return "No provider has an inventory of " + strings.Join(classes, ", ") + "."
	}
	byReason := map[string][]placement.Exclusion{}
	for _, e := range ex {
		byReason[e.Reason] = append(byReason[e.Reason], e)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	var b strings.Builder
	for i, r := range reasons {
		if i > 0 {
			b.WriteByte('\n')
		}
		l := byReason[r]
		fmt.Fprintf(&b, "%s excluded %d provider(s):", reasonName(r), len(l))
		for j, e := range l {
			if j == maxListed {
				fmt.Fprintf(&b, "\n  … and %d more", len(l)-maxListed)
				break
			}
			fmt.Fprintf(&b, "\n  %s: %s", e.Provider, e.Detail)
		}
	}
	return b.String()
}

// reasonName spells an Exclusion reason for people.
func reasonName(r string) string {
	switch r {
	case "forbidden_trait":
		return "forbidden trait"
	case "root_trait":
		return "root trait"
	case "unit":
		return "unit size (min_unit, max_unit, step_size)"
	}
	return r
}

// Claimer claims planned placements at apply time over a placement
// backend; it implements executor.Placer. It remembers what it claimed per
// address, so a retried action does not claim twice, and collects what the
// user must hear of without a failed action (Errors): re-placements, and
// releases that failed after a finished delete. Safe for concurrent use.
type Claimer struct {
	svc     placement.Service
	lineage string

	mu   sync.Mutex
	held map[string][]state.Allocation
	errs []error
}

// NewClaimer returns a Claimer over svc for the state whose lineage is
// given (consumers are ConsumerID(lineage, address)).
func NewClaimer(svc placement.Service, lineage string) *Claimer {
	return &Claimer{svc: svc, lineage: lineage, held: map[string][]state.Allocation{}}
}

// Claim takes d's allocations for the resource before its create or
// update. prior is what the resource holds now (replaced by the claim and
// given back if it fails). The consumer is ours by construction, so what it
// still holds from an interrupted apply is released and the claim repeated
// once. When the pinned providers no longer fit (a conflict), Claim
// re-places once through placement.Place with the plan's query; if that
// fails too, the resource fails cleanly holding what it held before. It
// returns the allocations now held.
func (c *Claimer) Claim(ctx context.Context, address string, d *PlacementDecision, prior []state.Allocation) ([]state.Allocation, error) {
	c.mu.Lock()
	held, ok := c.held[address]
	c.mu.Unlock()
	if ok {
		return held, nil
	}
	consumer := ConsumerID(c.lineage, address)
	if len(prior) > 0 {
		if err := c.svc.Release(ctx, consumer); err != nil {
			return nil, fmt.Errorf("releasing the previous allocations of %s: %w", address, err)
		}
	}
	got := d.Allocations
	err := c.svc.Claim(ctx, consumer, ToPlacementAllocations(d.Allocations), nil)
	if errors.Is(err, placement.ErrGenerationConflict) {
		if rerr := c.svc.Release(ctx, consumer); rerr == nil {
			err = c.svc.Claim(ctx, consumer, ToPlacementAllocations(d.Allocations), nil)
		}
	}
	if err != nil && errors.Is(err, placement.ErrConflict) && d.Query != "" {
		q, perr := placement.ParseQuery(d.Query, placement.Latest())
		if perr == nil {
			var ar placement.AllocationRequest
			if ar, perr = placement.Place(ctx, c.svc, consumer, q, 1); perr == nil {
				got = FromPlacementAllocations(ar.Allocations())
				c.fail(fmt.Errorf("%s: the planned placement no longer fits (%v); re-placed on %s", address, err, providerNames(got)))
				err = nil
			}
		}
		if perr != nil {
			err = fmt.Errorf("the planned allocations no longer fit (%v), and re-placing failed: %w", err, perr)
		}
	}
	if err != nil {
		if len(prior) > 0 {
			if rerr := c.svc.Claim(ctx, consumer, ToPlacementAllocations(prior), nil); rerr != nil {
				err = errors.Join(err, fmt.Errorf("restoring the previous allocations: %w", rerr))
			}
		}
		return nil, fmt.Errorf("claiming the placement of %s: %w", address, err)
	}
	c.mu.Lock()
	c.held[address] = got
	c.mu.Unlock()
	return got, nil
}

// Held returns what Claim took for address in this apply.
func (c *Claimer) Held(address string) ([]state.Allocation, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.held[address]
	return h, ok
}

// Undo gives back what Claim took for address after its action failed,
// restoring prior (what it held before). A failure is kept for Errors.
func (c *Claimer) Undo(ctx context.Context, address string, prior []state.Allocation) {
	c.mu.Lock()
	_, ok := c.held[address]
	delete(c.held, address)
	c.mu.Unlock()
	if !ok {
		return
	}
	consumer := ConsumerID(c.lineage, address)
	var err error
	if len(prior) > 0 {
		if err = c.svc.Release(ctx, consumer); err == nil {
			err = c.svc.Claim(ctx, consumer, ToPlacementAllocations(prior), nil)
		}
	} else {
		err = c.svc.Release(ctx, consumer)
	}
	if err != nil {
		c.fail(fmt.Errorf("giving back the placement of %s after its failure: %w", address, err))
	}
}

// Release frees what the resource holds after it was deleted. A state
// first written by the apply that created the resource had no lineage yet
// when it claimed, so the lineage-less consumer is released too. A failure
// is kept for Errors: the delete itself succeeded.
func (c *Claimer) Release(ctx context.Context, address string) {
	c.mu.Lock()
	delete(c.held, address)
	c.mu.Unlock()
	for _, lineage := range slices.Compact([]string{c.lineage, ""}) {
		if err := c.svc.Release(ctx, ConsumerID(lineage, address)); err != nil {
			c.fail(fmt.Errorf("releasing the placement of %s: %w", address, err))
		}
	}
}

func (c *Claimer) fail(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

func providerNames(l []state.Allocation) string {
	names := make([]string, len(l))
	for i, a := range l {
		names[i] = a.Provider
	}
	return strings.Join(names, ", ")
}

// Errors returns what apply must tell the user although no action failed
// for it, in the order it happened: resources re-placed because their
// planned placement no longer fitted, and releases that failed.
func (c *Claimer) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.errs)
}
