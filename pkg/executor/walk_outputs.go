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
		i := relationshipIndex(rels, state.Relationship{Requirement: a.Requirement, Index: a.Index})
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
	sortRelationships(rels)
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

// addSensitiveOutputs registers with the walk's Redactor the values that
// a driver reported for graph.OutputAttribute names (attrs) which are
// sensitive: an attribute of one of the resource's relationships that its
// sensitive paths name (state.RelationshipPath), or an attribute of a
// relationship's target that the target's do ("attributes.<name>").
func (w *walker) addSensitiveOutputs(attrs map[string]graph.Value, sensitive []string) {
	for key, v := range attrs {
		a, ok := graph.ParseOutputAttribute(key)
		if !ok {
			continue
		}
		paths := state.AttributePaths(w.sensitiveOf(a.Target))
		if a.Requirement != "" {
			paths = state.RelationshipAttributePaths(sensitive, a.Requirement, a.Index)
		}
		w.redact.AddPaths(map[string]graph.Value{a.Name: v}, paths)
	}
}

// sensitiveOf returns the sensitive paths of the resource at addr: as
// configured, else as recorded.
func (w *walker) sensitiveOf(addr string) []string {
	if w.opts.Desired != nil {
		if r, ok := w.opts.Desired.Resource(addr); ok {
			return r.Sensitive
		}
	}
	if r, ok := w.lookup(addr); ok {
		return r.Sensitive
	}
	return nil
}

// specRelationships reads the relationship attributes a spec assigns:
// spec["relationships"] maps each requirement to a list with one entry per
// assignment of it, {target, attributes}. Sorted by requirement and index.
func specRelationships(spec map[string]graph.Value) []state.Relationship {
	reqs, _ := spec["relationships"].(map[string]graph.Value)
	var out []state.Relationship
	for _, req := range slices.Sorted(maps.Keys(reqs)) {
		list, _ := reqs[req].([]graph.Value)
		for i, e := range list {
			m, _ := e.(map[string]graph.Value)
			target, _ := m["target"].(string)
			attrs, _ := m["attributes"].(map[string]graph.Value)
			out = append(out, state.Relationship{Requirement: req, Index: i, Target: target, Attributes: attrs})
		}
	}
	return out
}

// withAssigned returns the attributes, and relationships, to record after
// a create or update enacted spec (resolved): the values the spec assigns
// (a template's assignment or a definition's default, TOSCA 1.3 §3.8.3,
// 2.0 attribute definitions), under those the operations' outputs set
// (attrs, rels). A value that the spec enacted before (prior) assigned
// and that no output replaced since follows the new assignment.
func withAssigned(attrs map[string]graph.Value, rels []state.Relationship, spec map[string]graph.Value, prior *state.Resource) (map[string]graph.Value, []state.Relationship) {
	var priorSpec map[string]graph.Value
	if prior != nil {
		priorSpec = prior.Feedback.Resolved
	}
	assigned, _ := spec["attributes"].(map[string]graph.Value)
	before, _ := priorSpec["attributes"].(map[string]graph.Value)
	attrs = overlayAssigned(attrs, assigned, before)
	assignedRels := specRelationships(spec)
	if len(assignedRels) == 0 {
		return attrs, rels
	}
	priorRels := specRelationships(priorSpec)
	rels = cloneRelationships(rels)
	for _, a := range assignedRels {
		var was map[string]graph.Value
		if i := relationshipIndex(priorRels, a); i >= 0 {
			was = priorRels[i].Attributes
		}
		i := relationshipIndex(rels, a)
		if i < 0 {
			if len(a.Attributes) == 0 {
				continue
			}
			rels = append(rels, state.Relationship{Requirement: a.Requirement, Index: a.Index, Target: a.Target})
			i = len(rels) - 1
		}
		rels[i].Attributes = overlayAssigned(rels[i].Attributes, a.Attributes, was)
	}
	sortRelationships(rels)
	return attrs, rels
}

// relationshipIndex is the position in rels of the relationship of a's
// requirement and index, -1 for none.
func relationshipIndex(rels []state.Relationship, a state.Relationship) int {
	return slices.IndexFunc(rels, func(r state.Relationship) bool { return r.Requirement == a.Requirement && r.Index == a.Index })
}

// overlayAssigned returns set (what outputs set, and what was recorded
// before) completed with the known values of assigned; a value that equals
// what the spec assigned before (before) takes the new assignment. set is
// not modified.
func overlayAssigned(set, assigned, before map[string]graph.Value) map[string]graph.Value {
	var out map[string]graph.Value
	for _, k := range slices.Sorted(maps.Keys(assigned)) {
		v := assigned[k]
		if v == nil || graph.HasUnknown(v) {
			continue
		}
		if cur, ok := set[k]; ok {
			old, had := before[k]
			if !had || !graph.Equal(cur, old) {
				continue
			}
		}
		if out == nil {
			out = maps.Clone(set)
			if out == nil {
				out = map[string]graph.Value{}
			}
		}
		out[k] = v
	}
	if out == nil {
		return set
	}
	return out
}

// sortRelationships sorts rels by requirement and index, as the state
// records them.
func sortRelationships(rels []state.Relationship) {
	slices.SortFunc(rels, func(a, b state.Relationship) int {
		if c := strings.Compare(a.Requirement, b.Requirement); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
}
