package driver

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// The TOSCA lifecycle a driver of interface operations (exec, a
// playbook-running driver) runs for each action: its phases, in order,
// each a TOSCA operation key of the node's Standard interface or of its
// relationships' Configure interface (TOSCA 1.3 §5.8.4 and §5.8.5; 2.0
// §14.2 is the same order).
var lifecyclePhases = map[string][]string{
	ActionCreate: graph.CreatePhases,
	ActionUpdate: {
		"Configure.pre_configure_source", "Configure.pre_configure_target",
		"Standard.configure",
		"Configure.post_configure_source", "Configure.post_configure_target",
	},
	ActionDelete: {
		"Configure.remove_target", "Configure.remove_source",
		"Standard.stop", "Standard.delete",
	},
}

// LifecyclePhases returns the phases action runs, in order (nil for an
// action with no lifecycle: read, health, discover). The caller must not
// change the slice.
func LifecyclePhases(action string) []string { return lifecyclePhases[action] }

// RequestOperations returns the keys of the operations of drv that req
// runs, in order: req.Operations when set, else LifecycleOperations of
// req.Action.
func RequestOperations(req Request, drv graph.Driver) []string {
	if req.Operations != nil {
		return req.Operations
	}
	return LifecycleOperations(req.Action, drv)
}

// LifecycleOperations returns the keys of the operations of drv that
// action runs, in order: for each of its LifecyclePhases, those
// PhaseOperations gives. An operation without an implementation never
// runs and is left out.
func LifecycleOperations(action string, drv graph.Driver) []string {
	var out []string
	for _, phase := range LifecyclePhases(action) {
		out = append(out, PhaseOperations(drv, phase)...)
	}
	return out
}

// PhaseOperations returns the keys of the operations of drv, with an
// implementation, that run for phase (an operation key: "Standard.create",
// "Configure.add_target"), in order. A node's relationships each have
// their own operations (graph.RelationshipOperationKey): the plain
// "Configure.<operation>" when one relationship alone defines it, else
// one key per relationship, "Configure.<operation>@<requirement>[<index>]",
// which run by requirement name, then index (the order of
// state.Feedback.Relationships). Every relationship's operations run in
// the source's request, target-side ones too (TargetSide).
func PhaseOperations(drv graph.Driver, phase string) []string {
	var out []string
	if op, ok := drv.Operations[phase]; ok && op.Implementation != "" {
		out = append(out, phase)
	}
	name, req, _, ok := graph.ParseRelationshipOperationKey(phase)
	if !ok || req != "" {
		return out
	}
	type rel struct {
		key, req string
		index    int
	}
	var rels []rel
	prefix := phase + "@"
	for _, key := range slices.Sorted(maps.Keys(drv.Operations)) {
		if !strings.HasPrefix(key, prefix) || drv.Operations[key].Implementation == "" {
			continue
		}
		if op, req, index, ok := graph.ParseRelationshipOperationKey(key); ok && op == name && req != "" {
			rels = append(rels, rel{key, req, index})
		}
	}
	slices.SortFunc(rels, func(a, b rel) int {
		return cmp.Or(strings.Compare(a.req, b.req), cmp.Compare(a.index, b.index))
	})
	for _, r := range rels {
		out = append(out, r.key)
	}
	return out
}

// targetSideOperations are the relationship operations TOSCA runs on the
// target's side of the relationship (1.3 §5.8.4.3: to configure the
// target endpoint, to tell the target of a source added or removed).
var targetSideOperations = []string{"pre_configure_target", "post_configure_target", "add_source", "remove_source", "target_changed"}

// TargetSide reports whether key is a relationship operation that
// configures the relationship's target rather than its source
// (pre_configure_target, post_configure_target, add_source,
// remove_source, target_changed). It still runs in the source's request,
// where PhaseOperations orders it: the target was applied before the
// source, and add_source must follow the source's start. A driver that
// reaches machines (a playbook's hosts) runs it against the target's
// host; the exec driver runs everything on this machine.
func TargetSide(key string) bool {
	op, _, _, ok := graph.ParseRelationshipOperationKey(key)
	return ok && slices.Contains(targetSideOperations, op)
}
