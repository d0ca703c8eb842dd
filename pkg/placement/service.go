package placement

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Service is what a consumer (the planner, the executor) needs of a
// placement backend: find candidates, claim one for a consumer, release a
// consumer's claim. The embedded Model implements it; a client of a real
// Placement API is the other backend.
type Service interface {
	// Candidates answers an allocation-candidates query.
	Candidates(ctx context.Context, q Query) (*Candidates, error)
	// Claim writes the consumer's allocations, replacing what it held.
	// generation is nil for a consumer that holds nothing yet, else the
	// consumer generation last seen; a mismatch (someone else wrote in
	// between) is ErrGenerationConflict, and a claim that no longer fits
	// is ErrConflict — the caller re-places or fails.
	Claim(ctx context.Context, consumer string, allocs Allocations, generation *int64) error
	// Release frees everything the consumer holds; releasing a consumer
	// that holds nothing is not an error, so destroy can be repeated.
	Release(ctx context.Context, consumer string) error
}

var _ Service = (*Model)(nil)

// Claim implements Service with the consumer-generation guard.
func (m *Model) Claim(ctx context.Context, consumer string, allocs Allocations, generation *int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return m.PutAllocations(consumer, allocs, WriteOptions{CheckGeneration: true, Generation: generation})
}

// Release implements Service.
func (m *Model) Release(ctx context.Context, consumer string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.DeleteAllocations(consumer); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

// Exclusion says why a provider cannot serve a request group.
type Exclusion struct {
	Provider string
	// Group is the suffix of the request group ("" for the unsuffixed one).
	Group string
	// Reason is one of: "inventory" (no inventory of a class), "capacity",
	// "unit" (min_unit, max_unit or step_size), "trait", "forbidden_trait",
	// "aggregate", "tree", "root_trait".
	Reason string
	Detail string
}

// Explain lists, for every provider that offers some requested class (or
// every root, for root traits), the first constraint of each request group
// it fails, in provider-name order. It is what a plan shows when a
// resource cannot be placed. Unsuffixed-group traits are judged per
// provider here, although a candidate may collect them from several
// providers of a tree.
func (m *Model) Explain(q Query) []Exclusion {
	m.mu.Lock()
	defer m.mu.Unlock()
	ix := m.index()
	var out []Exclusion
	for _, p := range ix.all {
		for _, g := range q.Groups {
			if reason, detail := m.exclusion(p, g, q); reason != "" {
				out = append(out, Exclusion{Provider: p.name, Group: g.Suffix, Reason: reason, Detail: detail})
			}
		}
	}
	return out
}

func (m *Model) exclusion(p *provider, g RequestGroup, q Query) (string, string) {
	offers := false
	for rc := range g.Resources {
		if _, ok := p.inv[rc]; ok {
			offers = true
		}
	}
	if !offers {
		return "", ""
	}
	if g.InTree != "" {
		if t, ok := m.providers[g.InTree]; !ok || t.root != p.root {
			return "tree", fmt.Sprintf("not in the tree of %s", g.InTree)
		}
	}
	if !rootTraitsOK(p.root, q) && !p.traits[SharesViaAggregate] {
		return "root_trait", fmt.Sprintf("root %s does not satisfy root_required", p.root.name)
	}
	for _, t := range g.Forbidden {
		if p.traits[t] {
			return "forbidden_trait", "has forbidden trait " + t
		}
	}
	if !anyOfOK(func(t string) bool { return p.traits[t] }, g.RequiredAnyOf) {
		var missing []string
		for _, any := range g.RequiredAnyOf {
			missing = append(missing, strings.Join(any, " or "))
		}
		return "trait", "lacks required trait(s) " + strings.Join(missing, ", ")
	}
	var root *provider
	if g.Suffix == "" {
		root = p.root
	}
	if !aggsOK(p, g, root, root) {
		return "aggregate", "not in the required aggregates (or in a forbidden one)"
	}
	for _, rc := range slices.Sorted(maps.Keys(g.Resources)) {
		amt := g.Resources[rc]
		inv, ok := p.inv[rc]
		switch {
		case !ok:
			if g.Suffix != "" {
				return "inventory", "has no " + rc
			}
		case !inv.Accepts(amt):
			return "unit", fmt.Sprintf("%s %d is outside min_unit %d / max_unit %d / step_size %d", rc, amt, inv.MinUnit, inv.MaxUnit, inv.StepSize)
		case p.used[rc]+amt > inv.Capacity():
			return "capacity", fmt.Sprintf("%s: %d requested, %d free of capacity %d", rc, amt, max(inv.Capacity()-p.used[rc], 0), inv.Capacity())
		}
	}
	return "", ""
}
