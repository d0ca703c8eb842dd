package executor

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// nextVersions returns the versions (XOS's bookkeeping times) of r, the
// record a driver call of action made of a resource recorded before as
// cur (nil when new), at now: updated moves when the spec the
// configuration gives changed, changed_by_policy when a value a model
// policy sets did, changed_by_step when what the actuator reports did,
// and enacted, after a call that succeeded, becomes the version it
// actuated, max(updated, changed_by_policy). A health check enacts no new
// version: it only observes.
func nextVersions(cur, r *state.Resource, action string, failed bool, now time.Time) state.Versions {
	var v state.Versions
	var prior state.Feedback
	if cur == nil {
		v.Updated = now
		if len(r.SetByPolicy) > 0 {
			v.ChangedByPolicy = now
		}
	} else {
		v, prior = cur.CurrentVersions(), cur.Feedback
		user, policy := specChanges(cur, r)
		if user || v.Updated.IsZero() {
			v.Updated = now
		}
		if policy {
			v.ChangedByPolicy = now
		}
	}
	if stepChanged(prior, r.Feedback) {
		// What the step reported came after the spec it actuated was
		// saved: a policy that read the spec has not seen it.
		v.ChangedByStep = state.Latest(now, v.Updated.Add(time.Nanosecond))
	}
	if !failed && action != ActionHealth && action != ActionDelete {
		v.Enacted = state.Latest(v.Updated, v.ChangedByPolicy)
	}
	return v
}

// specChanges reports whether the spec of r differs from cur's outside
// the paths a model policy sets (a change the configuration made), and
// at those paths or in which policy sets them (a change a policy made).
func specChanges(cur, r *state.Resource) (user, policy bool) {
	policy = !maps.Equal(cur.SetByPolicy, r.SetByPolicy)
	for _, p := range planner.ChangedPaths(cur.Spec, r.Spec) {
		if setByPolicy(p, cur.SetByPolicy) || setByPolicy(p, r.SetByPolicy) {
			policy = true
		} else {
			user = true
		}
	}
	return user, policy
}

// setByPolicy reports whether the spec path p is, or lies under, a path
// of set.
func setByPolicy(p string, set map[string]string) bool {
	for sp := range set {
		if p == sp || strings.HasPrefix(p, sp+".") || strings.HasPrefix(sp, p+".") {
			return true
		}
	}
	return false
}

// stepChanged reports whether what an actuator reports (attributes,
// signals, instance id, relationships) differs between two feedbacks.
func stepChanged(a, b state.Feedback) bool {
	return a.InstanceID != b.InstanceID ||
		len(planner.ChangedPaths(orEmpty(a.Attributes), orEmpty(b.Attributes))) > 0 ||
		len(planner.ChangedPaths(orEmpty(a.Signals), orEmpty(b.Signals))) > 0 ||
		!slices.EqualFunc(a.Relationships, b.Relationships, func(x, y state.Relationship) bool {
			return x.Requirement == y.Requirement && x.Index == y.Index && x.Target == y.Target &&
				reflect.DeepEqual(orEmpty(x.Attributes), orEmpty(y.Attributes))
		})
}

func orEmpty(m map[string]graph.Value) map[string]graph.Value {
	if m == nil {
		return map[string]graph.Value{}
	}
	return m
}
