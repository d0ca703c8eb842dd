package placement

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
)

// Allocations is what one consumer holds: provider name -> resource class
// -> amount.
type Allocations map[string]map[string]int64

// clone returns a deep copy.
func (a Allocations) clone() Allocations {
	out := make(Allocations, len(a))
	for p, res := range a {
		r := make(map[string]int64, len(res))
		for rc, n := range res {
			r[rc] = n
		}
		out[p] = r
	}
	return out
}

// ConsumerAllocations is a consumer's allocations with its identity and
// generation.
type ConsumerAllocations struct {
	Allocations Allocations
	ProjectID   string
	UserID      string
	// Generation is the consumer generation; Exists is false when the
	// consumer holds nothing (Placement then reports no generation).
	Generation int64
	Exists     bool
}

// WriteOptions carry the consumer-level fields of an allocation write.
type WriteOptions struct {
	ProjectID, UserID string
	// CheckGeneration enables the consumer-generation guard of microversion
	// 1.28+: Generation must be nil for a new consumer and equal to the
	// current generation for an existing one.
	CheckGeneration bool
	Generation      *int64
}

// Allocations returns a consumer's allocations (empty, Exists false, for an
// unknown consumer).
func (m *Model) Allocations(consumerID string) ConsumerAllocations {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.consumers[consumerID]
	if !ok {
		return ConsumerAllocations{Allocations: Allocations{}}
	}
	return ConsumerAllocations{Allocations: Allocations(c.allocs).clone(), ProjectID: c.project,
		UserID: c.user, Generation: c.generation, Exists: true}
}

// PutAllocations replaces all of a consumer's allocations atomically: either
// every check passes and the whole set is written, or nothing changes.
// Checks, per provider and class, in Placement's order: the provider exists
// (400), the class exists (400), the amount is >= 1 (400), the provider has
// an inventory of the class (409), min_unit/max_unit/step_size (409), and
// capacity: usage after the write must fit, unless the provider is already
// over capacity and the write does not make it worse (409). Empty
// allocations delete the consumer. Touched providers and the consumer get
// their generations bumped.
func (m *Model) PutAllocations(consumerID string, allocs Allocations, o WriteOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.consumers[consumerID]
	if err := checkConsumerGeneration(old, o); err != nil {
		return err
	}
	if err := m.checkAllocations(consumerID, allocs); err != nil {
		return err
	}
	touched := touchedBy(allocs)
	if old != nil {
		touched.add(old.allocs)
	}
	if err := m.checkCapacity(touched, old, allocs); err != nil {
		return err
	}
	m.commitAllocations(consumerID, touched, old, allocs, o)
	return nil
}

// checkConsumerGeneration is the consumer-generation guard of microversion
// 1.28+ (WriteOptions.CheckGeneration); old is nil for a new consumer.
func checkConsumerGeneration(old *consumer, o WriteOptions) error {
	if !o.CheckGeneration {
		return nil
	}
	switch {
	case old == nil && o.Generation != nil:
		return conflict(CodeConcurrentUpdate, "consumer generation conflict - expected null but got %d", *o.Generation)
	case old != nil && o.Generation == nil:
		return conflict(CodeConcurrentUpdate, "consumer generation conflict - expected %d but got None", old.generation)
	case old != nil && *o.Generation != old.generation:
		return conflict(CodeConcurrentUpdate, "consumer generation conflict - expected %d but got %d", old.generation, *o.Generation)
	}
	return nil
}

// checkAllocations checks each allocation on its own, in provider and
// class order: the provider and the class exist, the amount is in range,
// the provider has an inventory of the class that accepts the amount.
func (m *Model) checkAllocations(consumerID string, allocs Allocations) error {
	for _, pn := range slices.Sorted(maps.Keys(allocs)) {
		p, ok := m.providers[pn]
		if !ok {
			return badRequest("Allocation for resource provider '%s' that does not exist.", pn)
		}
		for _, rc := range slices.Sorted(maps.Keys(allocs[pn])) {
			n := allocs[pn][rc]
			if !m.classExists(rc) {
				return badRequest("Unable to allocate inventory for consumer %s: No such resource class %s.", consumerID, rc)
			}
			if n < 1 || n > MaxInt {
				return badRequest("Allocation of %s on resource provider '%s': %d is out of range 1 to %d", rc, pn, n, MaxInt)
			}
			inv, ok := p.inv[rc]
			if !ok {
				return conflict("", "Unable to allocate inventory: Inventory for '%s' on resource provider '%s' invalid.", rc, pn)
			}
			if !inv.Accepts(n) {
				return conflict("", "Unable to allocate inventory: Allocation for %s on resource provider %s violates min_unit, max_unit, or step_size. Requested: %d, min_unit: %d, max_unit: %d, step_size: %d", rc, pn, n, inv.MinUnit, inv.MaxUnit, inv.StepSize)
			}
		}
	}
	return nil
}

// touched is the set of provider and class pairs a write changes:
// provider name -> class -> true.
type touched map[string]map[string]bool

func touchedBy(a Allocations) touched {
	t := touched{}
	t.add(a)
	return t
}

func (t touched) add(a Allocations) {
	for pn, res := range a {
		if t[pn] == nil {
			t[pn] = map[string]bool{}
		}
		for rc := range res {
			t[pn][rc] = true
		}
	}
}

// checkCapacity compares usage before and after the write for every
// touched pair: usage after must fit, unless the provider is already over
// capacity and the write does not make it worse. Releasing always fits.
func (m *Model) checkCapacity(t touched, old *consumer, allocs Allocations) error {
	for _, pn := range slices.Sorted(maps.Keys(t)) {
		p := m.providers[pn]
		for _, rc := range slices.Sorted(maps.Keys(t[pn])) {
			before := p.used[rc]
			after := before + allocs[pn][rc]
			if old != nil {
				after -= old.allocs[pn][rc]
			}
			inv, ok := p.inv[rc]
			if !ok || allocs[pn][rc] == 0 {
				continue // only releasing
			}
			if after > inv.Capacity() && after > before {
				return conflict("", "Unable to allocate inventory: Unable to create allocation for '%s' on resource provider '%s'. The requested amount would exceed the capacity.", rc, pn)
			}
		}
	}
	return nil
}

// commitAllocations writes checked allocations: usage moves from the old
// allocations to the new, the touched providers and the consumer get their
// generations bumped, and empty allocations delete the consumer.
func (m *Model) commitAllocations(consumerID string, t touched, old *consumer, allocs Allocations, o WriteOptions) {
	if old != nil {
		for pn, res := range old.allocs {
			if p, ok := m.providers[pn]; ok {
				for rc, n := range res {
					p.used[rc] -= n
				}
			}
		}
	}
	for pn, res := range allocs {
		p := m.providers[pn]
		for rc, n := range res {
			p.used[rc] += n
		}
	}
	for pn := range t {
		if p, ok := m.providers[pn]; ok {
			p.generation++
		}
	}
	if len(allocs) == 0 {
		delete(m.consumers, consumerID)
		return
	}
	c := &consumer{project: o.ProjectID, user: o.UserID, allocs: Allocations(allocs).clone()}
	if old != nil {
		c.generation = old.generation
		if c.project == "" {
			c.project, c.user = old.project, old.user
		}
	}
	c.generation++
	m.consumers[consumerID] = c
}

// DeleteAllocations releases everything the consumer holds (404 if it
// holds nothing).
func (m *Model) DeleteAllocations(consumerID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.consumers[consumerID]
	if !ok {
		return &Error{Status: http.StatusNotFound, Code: CodeUndefined,
			Detail: fmt.Sprintf("No allocations for consumer '%s'", consumerID)}
	}
	for pn, res := range c.allocs {
		if p, ok := m.providers[pn]; ok {
			for rc, n := range res {
				p.used[rc] -= n
			}
			p.generation++
		}
	}
	delete(m.consumers, consumerID)
	return nil
}
