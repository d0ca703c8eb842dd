package state

import (
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// FormatVersion is the version of the state file format this package writes.
const FormatVersion = 1

// State is a snapshot of recorded state: for every resource, the
// declarative spec last enacted and the feedback its actuator reported,
// kept apart (XOS). The planner decides on declarative state only.
type State struct {
	Version int `json:"version"`
	// Serial grows by one on every change of content.
	Serial uint64 `json:"serial"`
	// Lineage is fixed when the state is created.
	Lineage string `json:"lineage"`
	// Resources are sorted by address.
	Resources []Resource `json:"resources"`
	// Outputs are the configuration's outputs as the last successful apply
	// resolved them, by name; nil (and no "outputs" key in the file) when
	// there are none. A state written before outputs were recorded reads
	// as one without them.
	Outputs map[string]Output `json:"outputs,omitempty"`
	// Sync is what a running `xosplan sync` keeps across restarts; nil
	// (and no "sync" key in the file) when none recorded anything, so a
	// state written before it reads as one without it.
	Sync *SyncInfo `json:"sync,omitempty"`
}

// SyncInfo is the synchronizer's record in the state.
type SyncInfo struct {
	// LastResync is when the synchronizer last finished checking every
	// resource; a restart schedules the next full check from it.
	LastResync time.Time `json:"last_resync"`
}

// Output is one recorded output. Like sensitive spec values, a sensitive
// output is kept in clear (the state file is private, mode 0600); what
// shows it to a person masks it.
type Output struct {
	Value     graph.Value `json:"value"`
	Sensitive bool        `json:"sensitive,omitempty"`
}

// Backend codes, as XOS records them.
const (
	BackendPending = 0
	BackendOK      = 1
	BackendError   = 2
)

// Resource is the recorded state of one resource.
type Resource struct {
	Address    string           `json:"address"`
	Type       string           `json:"type"`
	TypeChain  []string         `json:"type_chain,omitempty"`
	Management graph.Management `json:"management"`
	// Driver is how the resource was applied; deleting a resource that
	// left the configuration uses it.
	Driver graph.Driver `json:"driver"`
	// Dependencies are the addresses it depended on when last enacted, so
	// that deletes of resources no longer configured still run in order.
	Dependencies []string `json:"dependencies,omitempty"`
	// Declarative state.
	Spec      map[string]graph.Value `json:"spec"`
	Sensitive []string               `json:"sensitive,omitempty"`
	// DerivedBy names the model policy that derived the resource
	// (graph.Resource.DerivedBy); empty for a declared one.
	DerivedBy string `json:"derived_by,omitempty"`
	// SetByPolicy maps each spec path (dot-joined, as graph.Resource's)
	// whose value a model policy set to that policy's name
	// (graph.Resource.SetByPolicy); nil when no policy set anything.
	SetByPolicy map[string]string `json:"set_by_policy,omitempty"`
	// Versions are XOS's bookkeeping times of the resource; zero in a
	// state written before they were recorded.
	Versions Versions `json:"versions,omitzero"`
	// Feedback state.
	Feedback Feedback `json:"feedback"`
}

// Versions are XOS's bookkeeping timestamps of one resource (UTC). Each
// of updated, changed_by_step and changed_by_policy marks a change of
// the resource's substance by one actor; enacted and policed are not
// when something ran but which version it ran on.
type Versions struct {
	// Updated is when the declarative spec the configuration gives last
	// changed (as the apply that recorded the change saw it), or when
	// `xosplan touch` saved it without change.
	Updated time.Time `json:"updated,omitzero"`
	// Enacted is the version last actuated successfully:
	// max(Updated, ChangedByPolicy) when it succeeded.
	Enacted time.Time `json:"enacted,omitzero"`
	// Policed is the version the model policies last ran on:
	// max(Updated, ChangedByStep) when they ran.
	Policed time.Time `json:"policed,omitzero"`
	// ChangedByStep is when an actuator (an apply, a health check, a
	// discovery) last changed what it reports: attributes, signals,
	// instance id, relationships.
	ChangedByStep time.Time `json:"changed_by_step,omitzero"`
	// ChangedByPolicy is when a model policy last changed a value it sets
	// in the spec (SetByPolicy).
	ChangedByPolicy time.Time `json:"changed_by_policy,omitzero"`
}

// IsZero reports whether no version is recorded.
func (v Versions) IsZero() bool { return v == Versions{} }

// NeedsSync is XOS's rule for running the actuator: the spec was saved
// (by the configuration or `xosplan touch`) or changed by a policy since
// the version last enacted.
func (v Versions) NeedsSync() bool {
	return v.Updated.After(v.Enacted) || v.ChangedByPolicy.After(v.Enacted)
}

// NeedsPolicy is XOS's rule for running the model policies: the spec was
// saved, or an actuator changed what it reports, since the version the
// policies last ran on.
func (v Versions) NeedsPolicy() bool {
	return v.Updated.After(v.Policed) || v.ChangedByStep.After(v.Policed)
}

// CurrentVersions returns the resource's versions; for a record written
// before versions were kept (none recorded) they are read from its
// feedback: updated when last enacted (or created), and enacted as well
// when its last apply succeeded.
func (r *Resource) CurrentVersions() Versions {
	if !r.Versions.IsZero() {
		return r.Versions
	}
	v := Versions{Updated: Latest(r.Feedback.Enacted, r.Feedback.Created)}
	if r.Succeeded() {
		v.Enacted = v.Updated
	}
	return v
}

// Latest returns the latest of the times given.
func Latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// Status is what an actuator last said about a resource.
type Status struct {
	Active     bool   `json:"active"`
	Converging bool   `json:"converging"`
	Failed     bool   `json:"failed"`
	Message    string `json:"message,omitempty"`
}

// Allocation is a placement claim against one resource provider.
type Allocation struct {
	Provider  string           `json:"provider"`
	Resources map[string]int64 `json:"resources"`
}

// Feedback is the observed state of a resource. It never causes an action
// by itself; it feeds dependents' unknown values at apply time.
type Feedback struct {
	// Resolved is the spec with every Unknown resolved, as last enacted.
	Resolved   map[string]graph.Value `json:"resolved,omitempty"`
	Attributes map[string]graph.Value `json:"attributes,omitempty"`
	// Signals are keyed "interface.pin" (Tonomi).
	Signals map[string]graph.Value `json:"signals,omitempty"`
	// Relationships are the attributes of the relationships whose
	// source is this resource, as its operations' outputs set them
	// (graph.OutputAttribute), sorted by requirement and index.
	Relationships []Relationship `json:"relationships,omitempty"`
	InstanceID    string         `json:"instance_id,omitempty"`
	Status        Status         `json:"status"`
	// BackendCode is BackendPending, BackendOK or BackendError.
	BackendCode   int    `json:"backend_code"`
	BackendStatus string `json:"backend_status,omitempty"`
	Attempts      int    `json:"attempts,omitempty"`
	// Output is the tail of what the last operation printed.
	Output      string                 `json:"output,omitempty"`
	Allocations []Allocation           `json:"allocations,omitempty"`
	Extra       map[string]graph.Value `json:"extra,omitempty"`
	// Times are UTC; Enacted is when Spec last succeeded.
	Created     time.Time `json:"created,omitzero"`
	Enacted     time.Time `json:"enacted,omitzero"`
	LastAttempt time.Time `json:"last_attempt,omitzero"`
}

// Relationship is the recorded feedback of one relationship instance:
// the one that the source resource's requirement Requirement (its
// Index-th assignment of it, from 0) makes to Target.
type Relationship struct {
	Requirement string                 `json:"requirement"`
	Index       int                    `json:"index"`
	Target      string                 `json:"target"`
	Attributes  map[string]graph.Value `json:"attributes,omitempty"`
}

// Relationship returns the recorded relationship of requirement req,
// index idx.
func (f *Feedback) Relationship(req string, idx int) (*Relationship, bool) {
	for i := range f.Relationships {
		if r := &f.Relationships[i]; r.Requirement == req && r.Index == idx {
			return r, true
		}
	}
	return nil, false
}

// Succeeded reports whether the last apply of the resource succeeded.
func (r *Resource) Succeeded() bool { return r.Feedback.BackendCode == BackendOK }

// Lookup returns the recorded resource at addr.
func (s *State) Lookup(addr string) (*Resource, bool) {
	for i := range s.Resources {
		if s.Resources[i].Address == addr {
			return &s.Resources[i], true
		}
	}
	return nil, false
}

// utc returns t in UTC, leaving the zero time alone.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
