package sync

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// Status is the engine's state as the API shows it.
type Status struct {
	Started time.Time `json:"started"`
	// Ready: a reconcile succeeded since the start.
	Ready         bool       `json:"ready"`
	Reconciling   bool       `json:"reconciling"`
	Reconciles    int        `json:"reconciles"`
	LastReconcile *time.Time `json:"last_reconcile,omitempty"`
	LastSuccess   *time.Time `json:"last_success,omitempty"`
	LastOutcome   string     `json:"last_outcome,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	LastResync    *time.Time `json:"last_resync,omitempty"`
	NextResync    *time.Time `json:"next_resync,omitempty"`
	// RetryQueue counts the resources waiting for a retry.
	RetryQueue int `json:"retry_queue"`
	// Diagnostics are the configuration's, from its last compile.
	Diagnostics []Diagnostic     `json:"diagnostics"`
	Resources   []ResourceStatus `json:"resources"`
	// Cluster describes the synchronizers sharing the work, when this
	// one is a member of a cluster.
	Cluster *ClusterStatus `json:"cluster,omitempty"`
}

// ClusterStatus is what a member of a cluster knows of it.
type ClusterStatus struct {
	// Member names this process; Role is RoleLeader or RoleFollower;
	// Leader names the member that leads (empty while none does).
	Member string `json:"member"`
	Role   string `json:"role"`
	Leader string `json:"leader,omitempty"`
	// Workspace is the state's workspace the members share.
	Workspace string         `json:"workspace,omitempty"`
	Members   []MemberStatus `json:"members"`
}

// Roles of a cluster member.
const (
	RoleLeader   = "leader"
	RoleFollower = "follower"
)

// MemberStatus is one member of a cluster.
type MemberStatus struct {
	// Member is the member's unique name: NAME:PID (NAME defaults to the host name).
	Member string `json:"member"`
	Host   string `json:"host,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Leader bool   `json:"leader"`
	// Alive: it renewed its membership within the lease and its database
	// session is connected.
	Alive     bool       `json:"alive"`
	Heartbeat *time.Time `json:"heartbeat,omitempty"`
	// Capacity is how many actions it runs at once.
	Capacity int `json:"capacity"`
	// Checkout is the digest of its configuration as it last compiled it
	// (sync.CheckoutDigest): a member whose checkout is not the leader's
	// refuses the leader's actions.
	Checkout string `json:"checkout,omitempty"`
	// Running lists the addresses of the actions it runs now (as the
	// leader handed them out; a follower knows its own only).
	Running []string `json:"running"`
}

// Diagnostic is one configuration diagnostic in a Status.
type Diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Summary  string `json:"summary"`
	At       string `json:"at,omitempty"`
}

// Flags are a resource's status flags as its actuator reported them.
type Flags struct {
	Active     bool `json:"active"`
	Converging bool `json:"converging"`
	Failed     bool `json:"failed"`
}

// ResourceStatus is one resource in a Status.
type ResourceStatus struct {
	Address string `json:"address"`
	Type    string `json:"type,omitempty"`
	Driver  string `json:"driver,omitempty"`
	// Status is the state's status text (active, converging, error,
	// pending, ok), or "not_created" for a configured resource the state
	// does not record yet.
	Status        string     `json:"status"`
	Flags         Flags      `json:"flags"`
	BackendCode   int        `json:"backend_code"`
	BackendStatus string     `json:"backend_status,omitempty"`
	LastEnacted   *time.Time `json:"last_enacted,omitempty"`
	LastCheck     *time.Time `json:"last_check,omitempty"`
	NextCheck     *time.Time `json:"next_check,omitempty"`
	NextRetry     *time.Time `json:"next_retry,omitempty"`
	NextDiscovery *time.Time `json:"next_discovery,omitempty"`
	// LastDriftCheck, NextDriftCheck and Drift are the drift check's
	// (Options.CheckDrift): Drift says what check mode predicted would
	// change, until a check finds the resource in line again.
	LastDriftCheck *time.Time `json:"last_drift_check,omitempty"`
	NextDriftCheck *time.Time `json:"next_drift_check,omitempty"`
	Drift          string     `json:"drift,omitempty"`
	// Updated, Enacted, Policed, ChangedByStep and ChangedByPolicy are
	// XOS's versions as the state records them (state.Versions); NeedsSync
	// says updated or changed_by_policy is later than enacted: the next
	// reconcile actuates it (after `xosplan touch` or POST
	// /v1/resources/{addr}/resync, among others).
	Updated         *time.Time `json:"updated,omitempty"`
	Enacted         *time.Time `json:"enacted,omitempty"`
	Policed         *time.Time `json:"policed,omitempty"`
	ChangedByStep   *time.Time `json:"changed_by_step,omitempty"`
	ChangedByPolicy *time.Time `json:"changed_by_policy,omitempty"`
	NeedsSync       bool       `json:"needs_sync,omitempty"`
	// SetByPolicy maps each spec path a model policy set to its name.
	SetByPolicy map[string]string `json:"set_by_policy,omitempty"`
	Failures    int               `json:"failures,omitempty"`
	LastError   string            `json:"last_error,omitempty"`
	// RunningOn names the cluster member running an action of the
	// resource now (empty outside a cluster, and when none runs).
	RunningOn string `json:"running_on,omitempty"`
	// WaitingOn names the resource this one waits for; Waiting says why
	// it (or what it waits on) waits. Waiting is not an error.
	WaitingOn string `json:"waiting_on,omitempty"`
	Waiting   string `json:"waiting,omitempty"`
	// ConfigurationErrors are the errors of the configuration that hold
	// this resource (Goal.Held): it waits for them to be fixed, and
	// what depends on it waits on it.
	ConfigurationErrors []Diagnostic `json:"configuration_errors,omitempty"`
	// Discovered lists a factory's instances that xosplan does not manage
	// (adopt one with `xosplan import`).
	Discovered any `json:"discovered,omitempty"`
	// Lookup is, for an unmanaged resource, what its last read did: the
	// keys, whether a lookup operation checked that the object exists
	// ("checked": false is a read nothing could do), and the id found.
	Lookup any `json:"lookup,omitempty"`
	// Commands lists the resource's command invocations, pending or
	// completed (`xosplan invoke`), oldest first.
	Commands []CommandStatus `json:"commands,omitempty"`
	// Activity is the resource's recent activity, oldest first (in
	// Resource's answer only).
	Activity []Activity `json:"activity,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// Status returns the engine's state now, resources sorted by address.
func (e *Engine) Status() Status { return e.status(true) }

// status is Status, with its resources or (the console's summary)
// without them.
func (e *Engine) status(resources bool) Status {
	cluster, runningOn := e.clusterStatus()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Status{Cluster: cluster, Started: e.run.started.UTC(), Ready: e.run.ready, Reconciling: e.run.reconciling, Reconciles: e.run.reconciles,
		LastReconcile: timePtr(e.run.lastReconcile), LastSuccess: timePtr(e.run.lastSuccess), LastOutcome: e.run.lastOutcome,
		LastError: e.run.lastError, LastResync: timePtr(e.lastResync), NextResync: timePtr(e.nextResync),
		Diagnostics: []Diagnostic{}, Resources: []ResourceStatus{}}
	for _, d := range e.configDiags {
		s.Diagnostics = append(s.Diagnostics, statusDiagnostic(d))
	}
	for _, t := range e.tracked {
		if !t.nextRetry.IsZero() && t.needsChange == "" {
			s.RetryQueue++
		}
	}
	if !resources {
		return s
	}
	n := 0
	if e.recorded != nil {
		n = len(e.recorded.Resources)
	}
	if e.goal != nil {
		n = max(n, e.goal.Desired.Len())
	}
	s.Resources = make([]ResourceStatus, 0, n)
	seen := make(map[string]bool, n)
	if e.recorded != nil {
		for i := range e.recorded.Resources {
			r := &e.recorded.Resources[i]
			seen[r.Address] = true
			s.Resources = append(s.Resources, e.resourceStatus(r.Address, r, false))
		}
	}
	if e.goal != nil {
		for _, a := range e.goal.Desired.Addresses() {
			if !seen[a] {
				seen[a] = true
				s.Resources = append(s.Resources, e.resourceStatus(a, nil, false))
			}
		}
		// A held template the compiler could not build is in neither.
		for _, a := range slices.Sorted(maps.Keys(e.goal.Held)) {
			if !seen[a] {
				s.Resources = append(s.Resources, e.resourceStatus(a, nil, false))
			}
		}
	}
	for i := range s.Resources {
		s.Resources[i].RunningOn = runningOn[s.Resources[i].Address]
	}
	s.Resources = sortedByAddress(s.Resources)
	return s
}

// sortedByAddress returns list sorted by address: an order of indices is
// sorted, then the entries (large structs) are moved once each.
func sortedByAddress(list []ResourceStatus) []ResourceStatus {
	if slices.IsSortedFunc(list, func(a, b ResourceStatus) int { return strings.Compare(a.Address, b.Address) }) {
		return list
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(list[a].Address, list[b].Address) })
	out := make([]ResourceStatus, len(list))
	for i, j := range order {
		out[i] = list[j]
	}
	return out
}

// clusterStatus asks the cluster, when there is one, for its status, and
// maps each address an action runs for to the member running it.
func (e *Engine) clusterStatus() (*ClusterStatus, map[string]string) {
	c := e.opts.Cluster
	if c == nil {
		return nil, nil
	}
	cs := c.Status()
	runningOn := map[string]string{}
	for _, m := range cs.Members {
		for _, a := range m.Running {
			runningOn[a] = m.Member
		}
	}
	return &cs, runningOn
}

// Resource returns one resource's status with its activity log; false
// when neither the state nor the configuration has it.
func (e *Engine) Resource(addr string) (ResourceStatus, bool) {
	_, runningOn := e.clusterStatus()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recorded != nil {
		for i := range e.recorded.Resources {
			if r := &e.recorded.Resources[i]; r.Address == addr {
				rs := e.resourceStatus(addr, r, true)
				rs.RunningOn = runningOn[addr]
				return rs, true
			}
		}
	}
	if e.goal != nil {
		if _, ok := e.goal.Desired.Resource(addr); ok || e.goal.Held[addr] != nil {
			rs := e.resourceStatus(addr, nil, true)
			rs.RunningOn = runningOn[addr]
			return rs, true
		}
	}
	return ResourceStatus{}, false
}

// resourceStatus builds one entry; the caller holds e.mu.
func (e *Engine) resourceStatus(addr string, r *state.Resource, activity bool) ResourceStatus {
	rs := ResourceStatus{Address: addr, Status: "not_created"}
	if r != nil {
		fb := &r.Feedback
		rs.Type, rs.Driver, rs.Status = r.Type, r.Driver.Name, r.StatusText()
		rs.Flags = Flags{Active: fb.Status.Active, Converging: fb.Status.Converging, Failed: fb.Status.Failed}
		rs.BackendCode, rs.BackendStatus = fb.BackendCode, fb.BackendStatus
		rs.LastEnacted = timePtr(fb.Enacted)
		v := r.CurrentVersions()
		rs.Updated, rs.Enacted, rs.Policed = timePtr(v.Updated), timePtr(v.Enacted), timePtr(v.Policed)
		rs.ChangedByStep, rs.ChangedByPolicy = timePtr(v.ChangedByStep), timePtr(v.ChangedByPolicy)
		rs.NeedsSync, rs.SetByPolicy = v.NeedsSync(), r.SetByPolicy
		if found, ok := fb.Attributes[executor.AttrDiscovered]; ok {
			rs.Discovered = found
		}
		if lk, ok := fb.Extra[executor.ExtraLookup]; ok {
			rs.Lookup = lk
		}
		rs.Commands = commandsOf(r)
	} else if e.goal != nil {
		if g, ok := e.goal.Desired.Resource(addr); ok {
			rs.Type, rs.Driver = g.Type, g.Driver.Name
		}
	}
	if t := e.tracked[addr]; t != nil {
		rs.LastCheck, rs.NextCheck = timePtr(t.lastCheck), timePtr(t.nextCheck)
		if t.needsChange == "" {
			rs.NextRetry = timePtr(t.nextRetry)
		}
		if t.schedule != nil {
			rs.NextDiscovery = timePtr(t.nextDiscover)
		}
		rs.LastDriftCheck, rs.NextDriftCheck, rs.Drift = timePtr(t.lastDriftCheck), timePtr(t.nextDriftCheck), t.drift
		rs.Failures, rs.LastError = t.failures, t.lastError
		rs.WaitingOn, rs.Waiting = t.waitingOn, t.waitReason
		if activity {
			rs.Activity = slices.Clone(t.activity)
		}
	}
	if e.goal != nil {
		for _, d := range e.goal.Held[addr] {
			rs.ConfigurationErrors = append(rs.ConfigurationErrors, statusDiagnostic(d))
		}
	}
	return rs
}

// statusDiagnostic is d as a Status shows it.
func statusDiagnostic(d diag.Diagnostic) Diagnostic {
	sev := "warning"
	if d.Severity == diag.Error {
		sev = "error"
	}
	return Diagnostic{Severity: sev, Code: d.Code, Summary: d.Summary, At: d.Range.String()}
}
