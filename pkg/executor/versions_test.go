package executor

import (
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// The versions an apply records follow XOS's rules: updated moves when
// the configuration's part of the spec changes, changed_by_policy when a
// policy's part does, changed_by_step when what the actuator reports
// does, and enacted becomes max(updated, changed_by_policy) after a call
// that succeeded; a failure or a health check enacts nothing.
func TestNextVersions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	base := state.Versions{Updated: t0, Enacted: t0, Policed: t0}
	rec := func(mtu, name string, setBy map[string]string, ip string) *state.Resource {
		return &state.Resource{
			Spec:        map[string]graph.Value{"properties": map[string]graph.Value{"mtu": mtu, "name": name}},
			SetByPolicy: setBy, Versions: base,
			Feedback: state.Feedback{BackendCode: state.BackendOK, Attributes: map[string]graph.Value{"ip": ip}},
		}
	}
	policy := map[string]string{"properties.mtu": "defaults"}
	cur := rec("1500", "a", policy, "10.0.0.1")
	for _, c := range []struct {
		name   string
		cur, r *state.Resource
		action string
		failed bool
		want   state.Versions
	}{
		{"new", nil, rec("1500", "a", nil, ""), ActionCreate, false,
			state.Versions{Updated: now, ChangedByStep: now.Add(time.Nanosecond), Enacted: now}},
		{"new with a policy's value", nil, rec("1500", "a", policy, ""), ActionCreate, false,
			state.Versions{Updated: now, ChangedByStep: now.Add(time.Nanosecond), ChangedByPolicy: now, Enacted: now}},
		{"the configuration changed", cur, rec("1500", "b", policy, "10.0.0.1"), ActionUpdate, false,
			state.Versions{Updated: now, Enacted: now, Policed: t0}},
		{"the policy changed its value", cur, rec("9000", "a", policy, "10.0.0.1"), ActionUpdate, false,
			state.Versions{Updated: t0, ChangedByPolicy: now, Enacted: now, Policed: t0}},
		{"the step reported a new address", cur, rec("1500", "a", policy, "10.0.0.2"), ActionCreate, false,
			state.Versions{Updated: t0, ChangedByStep: now, Enacted: t0, Policed: t0}},
		{"the update failed", cur, rec("1500", "b", policy, "10.0.0.1"), ActionUpdate, true,
			state.Versions{Updated: now, Enacted: t0, Policed: t0}},
		{"a health check", cur, rec("1500", "a", policy, "10.0.0.1"), ActionHealth, false, base},
	} {
		if got := nextVersions(c.cur, c.r, c.action, c.failed, now); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}
