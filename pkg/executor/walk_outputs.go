package executor

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// placeOutputs moves the attributes a driver reported under the name of
// a graph.OutputAttribute (an operation output mapped onto an attribute
// of a relationship or of its target) out of fb's attributes: those of
// the resource's relationships into its relationships, over those prior
// recorded (as the resource's own attributes are kept from one apply to
// the next); those of targets into toTargets, by target address.
func placeOutputs(fb state.Feedback, prior *state.Resource) (attrs map[string]graph.Value, rels []state.Relationship, toTargets map[string]map[string]graph.Value) {
	rels = fb.Relationships
	if rels == nil && prior != nil {
		rels = prior.Feedback.Relationships
	}
	attrs = fb.Attributes
	copied := false
	for _, key := range slices.Sorted(maps.Keys(fb.Attributes)) {
		a, ok := graph.ParseOutputAttribute(key)
		if !ok {
			continue
		}
		if !copied {
			attrs, rels, copied = maps.Clone(attrs), cloneRelationships(rels), true
		}
		v := attrs[key]
		delete(attrs, key)
		if a.Requirement == "" {
			if toTargets == nil {
				toTargets = map[string]map[string]graph.Value{}
			}
			if toTargets[a.Target] == nil {
				toTargets[a.Target] = map[string]graph.Value{}
			}
			toTargets[a.Target][a.Name] = v
			continue
		}
		i := slices.IndexFunc(rels, func(r state.Relationship) bool { return r.Requirement == a.Requirement && r.Index == a.Index })
		if i < 0 {
			rels = append(rels, state.Relationship{Requirement: a.Requirement, Index: a.Index})
			i = len(rels) - 1
		}
		rels[i].Target = a.Target
		if rels[i].Attributes == nil {
			rels[i].Attributes = map[string]graph.Value{}
		}
		rels[i].Attributes[a.Name] = v
	}
	if copied && len(attrs) == 0 {
		attrs = nil
	}
	slices.SortFunc(rels, func(a, b state.Relationship) int {
		if c := strings.Compare(a.Requirement, b.Requirement); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
	return attrs, rels, toTargets
}

// cloneRelationships copies rels deeply enough that placeOutputs may
// change the copy's attributes.
func cloneRelationships(rels []state.Relationship) []state.Relationship {
	out := slices.Clone(rels)
	for i := range out {
		out[i].Attributes = maps.Clone(out[i].Attributes)
	}
	return out
}

// setTargetAttributes sets, in the current records, the attributes that
// a relationship's operations mapped onto its target (by the target's
// address), and returns the journal records of the targets so changed.
// A target with no record (it failed, or is not recorded any more) gets
// none: there is no object to hold them. w.mu is held.
func (w *walker) setTargetAttributes(toTargets map[string]map[string]graph.Value, now time.Time) []state.Record {
	var recs []state.Record
	for _, addr := range slices.Sorted(maps.Keys(toTargets)) {
		cur, ok := w.records[addr]
		if !ok {
			continue
		}
		r := *cur
		r.Feedback.Attributes = maps.Clone(r.Feedback.Attributes)
		if r.Feedback.Attributes == nil {
			r.Feedback.Attributes = map[string]graph.Value{}
		}
		maps.Copy(r.Feedback.Attributes, toTargets[addr])
		w.records[addr] = &r
		recs = append(recs, state.Record{Kind: state.RecordOutcome, Address: addr, Action: actionOutputs, Time: now, Resource: &r})
	}
	return recs
}

// actionOutputs is the action of the journal record of a relationship's
// target whose attributes a relationship operation set.
const actionOutputs = "relationship outputs"
