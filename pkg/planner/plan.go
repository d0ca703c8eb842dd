package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// FormatVersion is the version of the plan data and plan file format this
// package writes. A minor bump only adds fields; a major bump breaks readers.
// 2.0 records what the plan was made from (configuration, input_salt,
// create_before_destroy, placement_source) so that apply makes it again,
// and digests input values with argon2id under the plan's own salt; a 1.x
// plan cannot be checked that way and is refused. A change's derived_by
// came without a bump: it is left out when empty, so a plan without
// derived resources is byte for byte what 2.0 wrote (its plan ID too),
// and a reader that does not know it ignores it. So came the state a plan
// is bound to (state), left out when the plan is bound to none; an
// xosplan that does not know it refuses a plan that has it (the plan_id
// no longer matches what it reads), which is the safe way round.
const FormatVersion = "2.0"

// Action is what apply does to one resource.
type Action uint8

// The actions. The zero value is NoOp.
const (
	// NoOp leaves the resource as it is.
	NoOp Action = iota
	// Create makes a resource that is not in state.
	Create
	// Read looks up an unmanaged resource; it never creates or deletes.
	Read
	// Update changes the resource in place through its driver.
	Update
	// DeleteThenCreate replaces the resource, the old one going first.
	DeleteThenCreate
	// CreateThenDelete replaces the resource, the new one coming first.
	CreateThenDelete
	// Delete removes the resource and its state.
	Delete
	// Forget drops an unmanaged resource from state without touching it.
	Forget
)

// String returns the action's stable name ("create", "delete-then-create").
func (a Action) String() string {
	switch a {
	case NoOp:
		return "no-op"
	case Create:
		return "create"
	case Read:
		return "read"
	case Update:
		return "update"
	case DeleteThenCreate:
		return "delete-then-create"
	case CreateThenDelete:
		return "create-then-delete"
	case Delete:
		return "delete"
	case Forget:
		return "forget"
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Actions returns the action as Terraform's JSON plan spells it: one verb,
// or two for a replacement in the order they run.
func (a Action) Actions() []string {
	switch a {
	case DeleteThenCreate:
		return []string{"delete", "create"}
	case CreateThenDelete:
		return []string{"create", "delete"}
	}
	return []string{a.String()}
}

// IsReplace reports whether the action replaces the resource.
func (a Action) IsReplace() bool { return a == DeleteThenCreate || a == CreateThenDelete }

// IsChange reports whether the action changes infrastructure or state: every
// action but NoOp and Read. A plan with no such action has no changes.
func (a Action) IsChange() bool { return a != NoOp && a != Read }

// MarshalText writes the action's name.
func (a Action) MarshalText() ([]byte, error) {
	if a > Forget {
		return nil, fmt.Errorf("invalid action %d", uint8(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText reads an action name written by MarshalText.
func (a *Action) UnmarshalText(b []byte) error {
	for c := NoOp; c <= Forget; c++ {
		if c.String() == string(b) {
			*a = c
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}

// Reason says why a resource has its action.
type Reason uint8

// The reasons. ReasonNone goes with NoOp.
const (
	ReasonNone Reason = iota
	// ReasonNotInState: the resource is configured but not recorded.
	ReasonNotInState
	// ReasonSpecChanged: the desired spec differs from the enacted one at
	// ReasonPaths, and the driver can update in place.
	ReasonSpecChanged
	// ReasonCannotUpdate: the spec changed at ReasonPaths and the driver
	// has no in-place update, so the change forces replacement.
	ReasonCannotUpdate
	// ReasonTypeChanged: the resource's type differs from the recorded one.
	ReasonTypeChanged
	// ReasonDependencyReplaced: a dependency in ForcedBy is replaced and
	// this resource is hosted on it or reads its feedback.
	ReasonDependencyReplaced
	// ReasonLastApplyFailed: the last apply did not succeed
	// (backend_code is not ok); the actuator is run again.
	ReasonLastApplyFailed
	// ReasonReplaceRequested: the user asked for it (--replace).
	ReasonReplaceRequested
	// ReasonNoResourceConfig: recorded, but no longer configured.
	ReasonNoResourceConfig
	// ReasonDestroyRequested: a destroy plan (--destroy).
	ReasonDestroyRequested
	// ReasonUnmanagedRead: an unmanaged resource is looked up because it is
	// not recorded yet, its lookup spec changed or its last read failed.
	ReasonUnmanagedRead
	// ReasonHostChanged: the resource is now hosted on (or contained in)
	// another resource, in ForcedBy, than when it was enacted; it moves.
	ReasonHostChanged
	// ReasonOperationChanged: what an operation is given changed (an
	// input value, an output mapping, an operation added or removed); the
	// operation paths are in ReasonPaths ("Standard.configure.inputs.greeting").
	ReasonOperationChanged
	// ReasonImplementationChanged: only what operations run changed (the
	// script or artifact path, its content, its dependencies); the
	// operation keys are in ReasonPaths ("Standard.create").
	ReasonImplementationChanged
	// ReasonInstanceFailed: the last apply succeeded, but a health check
	// since found the object failed (backend_code error); the actuator
	// runs its create again (a scripted component is launched again).
	ReasonInstanceFailed
	// ReasonTouched: nothing changed, but the resource was saved without
	// change (`xosplan touch`, the synchronizer's resync): its recorded
	// updated version is later than the one enacted (XOS: updated >
	// enacted), so its actuator runs again over the recorded object.
	ReasonTouched
	// ReasonTargetChanged: the target of a relationship of the resource,
	// in ForcedBy, runs its operations again (an update, a create run
	// again, a replacement), and the relationship defines TOSCA's
	// Configure.target_changed (1.3 §5.8.4: the source is told that its
	// target changed). The update runs the resource's target_changed
	// operations (ReasonPaths, their keys) and nothing else.
	ReasonTargetChanged
	// ReasonImportFilter: a managed resource that is not recorded declares
	// an import filter (Import): the create adopts the one existing
	// object that matches it instead of creating one.
	ReasonImportFilter

	// lastReason bounds the valid reasons.
	lastReason = ReasonImportFilter
)

// String returns the reason's stable name, as action_reason in JSON plans.
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return ""
	case ReasonNotInState:
		return "not_in_state"
	case ReasonSpecChanged:
		return "spec_changed"
	case ReasonCannotUpdate:
		return "replace_because_cannot_update"
	case ReasonTypeChanged:
		return "replace_because_type_changed"
	case ReasonDependencyReplaced:
		return "dependency_replaced"
	case ReasonLastApplyFailed:
		return "last_apply_failed"
	case ReasonReplaceRequested:
		return "replace_by_request"
	case ReasonNoResourceConfig:
		return "delete_because_no_resource_config"
	case ReasonDestroyRequested:
		return "delete_because_destroy_requested"
	case ReasonUnmanagedRead:
		return "read_because_unmanaged"
	case ReasonHostChanged:
		return "replace_because_host_changed"
	case ReasonOperationChanged:
		return "operation_changed"
	case ReasonImplementationChanged:
		return "implementation_changed"
	case ReasonInstanceFailed:
		return "instance_failed"
	case ReasonTouched:
		return "touched"
	case ReasonTargetChanged:
		return "target_changed"
	case ReasonImportFilter:
		return "import_by_filter"
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// MarshalText writes the reason's name.
func (r Reason) MarshalText() ([]byte, error) {
	if r > lastReason {
		return nil, fmt.Errorf("invalid reason %d", uint8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a reason name written by MarshalText.
func (r *Reason) UnmarshalText(b []byte) error {
	for c := ReasonNone; c <= lastReason; c++ {
		if c.String() == string(b) {
			*r = c
			return nil
		}
	}
	return fmt.Errorf("unknown action reason %q", b)
}

// PlacementDecision records where a resource lands. The planner carries it;
// the placement step fills it at plan time and apply records it in state.
type PlacementDecision struct {
	// Allocations are sorted by provider; apply claims exactly these (it
	// re-places only when a claim conflicts).
	Allocations []state.Allocation `json:"allocations"`
	// Query is the request in Placement's GET /allocation_candidates
	// syntax: what apply re-places with, and what a user can paste into
	// `xosplan placement candidates --query`.
	Query string `json:"query,omitempty"`
	// Kept is true when the resource keeps the allocations recorded in
	// state (it is not re-created): apply claims nothing.
	Kept bool `json:"kept,omitempty"`
}

// ResourceChange is the planned change of one resource.
type ResourceChange struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	// PriorType is the recorded type when it differs from Type.
	PriorType string `json:"prior_type,omitempty"`
	Action    Action `json:"action"`
	Reason    Reason `json:"action_reason"`
	// ChangedPaths lists every dot path whose value differs between Before
	// and After (list elements by index), sorted.
	ChangedPaths []string `json:"changed_paths,omitempty"`
	// OperationPaths lists, sorted, the paths at which the configured
	// operations differ from those recorded (see OperationPaths); nil
	// when they are the same or the resource is not both configured and
	// recorded.
	OperationPaths []string `json:"operation_paths,omitempty"`
	// ReasonPaths are the paths the reason is about: the changed paths for
	// ReasonSpecChanged, the spec paths that changed for
	// ReasonCannotUpdate (none when only operations did), the top-level
	// keys and the operation inputs ("Standard.create.inputs.token") whose
	// values read a replaced dependency for ReasonDependencyReplaced, the
	// operation paths for ReasonOperationChanged, the operation keys for
	// ReasonImplementationChanged.
	ReasonPaths []string `json:"reason_paths,omitempty"`
	// ForcedBy lists the replaced dependencies that forced this change.
	ForcedBy []string `json:"forced_by,omitempty"`
	// DerivedBy names the model policy that derives the resource (the
	// recorded one for a resource no longer configured); empty for a
	// declared resource.
	DerivedBy string `json:"derived_by,omitempty"`
	// SetByPolicy maps each path of After (of Before for a delete) whose
	// value a model policy set to that policy's name; nil when none.
	SetByPolicy map[string]string `json:"set_by_policy,omitempty"`
	// Before is the enacted spec (nil when not recorded); After the desired
	// spec (nil when deleted), which may hold graph.Unknown values. In a
	// plan file, values at Sensitive paths are replaced by nil.
	Before map[string]graph.Value `json:"before"`
	After  map[string]graph.Value `json:"after"`
	// Dependencies are the configured dependencies (creates and updates run
	// after them); PriorDependencies the recorded ones (deletes run before
	// them).
	Dependencies      []string `json:"dependencies,omitempty"`
	PriorDependencies []string `json:"prior_dependencies,omitempty"`
	// OperationWaits lists the operations of the resource that wait for
	// an operation of another resource it is not in Dependencies on
	// (graph.Index.Waits: two resources configured with each other's
	// attributes); the apply starts both and holds each operation until
	// the one it reads has run.
	OperationWaits []graph.OpWait `json:"operation_waits,omitempty"`
	// Driver is the configured driver (the recorded one for deletes); in a
	// plan file, its operations' Sensitive inputs are nil.
	Driver     graph.Driver     `json:"driver"`
	Management graph.Management `json:"management"`
	// Lookup holds the keys a read finds its object by
	// (graph.Resource.Lookup); nil when there are none. In a plan file,
	// left out when nil.
	Lookup map[string]graph.Value `json:"lookup,omitempty"`
	// Import is, for a create with ReasonImportFilter, the filter the
	// object to adopt is found by (graph.Resource.Import); nil otherwise.
	Import map[string]graph.Value `json:"import,omitempty"`
	// PriorOperations are the recorded operations when OperationPaths is
	// not empty (what the change is from), nil otherwise; in a plan file,
	// their Sensitive inputs are nil.
	PriorOperations map[string]graph.Operation `json:"prior_operations,omitempty"`
	// Sensitive lists the spec paths never to render, recorded or desired.
	Sensitive []string `json:"sensitive,omitempty"`
	// Placement is filled by the placement step; nil when not placed.
	Placement *PlacementDecision `json:"placement,omitempty"`
}

// Checked reports whether the read of the change can look its object
// up: its driver has a lookup operation (graph.OpLookup). A read that
// cannot is "not checked": apply records it without knowing whether the
// object exists.
func (c *ResourceChange) Checked() bool {
	return c.Driver.HasOperation(graph.OpLookup)
}

// Imports reports whether the change adopts an existing object, found
// by its import filter, instead of creating one.
func (c *ResourceChange) Imports() bool {
	return c.Action == Create && c.Reason == ReasonImportFilter
}

// Reruns reports whether the change runs the create of a resource that
// is recorded already, because its last apply did not succeed, a health
// check found it failed or it was touched: the actuator runs whole again
// over the recorded object, which keeps its ids and its placement. It is
// not a new object.
func (c *ResourceChange) Reruns() bool {
	return c.Action == Create && (c.Reason == ReasonLastApplyFailed || c.Reason == ReasonInstanceFailed || c.Reason == ReasonTouched)
}

// RecordsOnly reports whether the change is an update in place that runs
// nothing: only operations outside the object's life cycle changed (its
// health check, discovery or command scripts), which change how xosplan
// watches or drives the object, not the object. Apply records the new
// operations over the recorded feedback without calling the driver, so
// such a change is made in place whether or not the driver could update
// the object (decide).
func (c *ResourceChange) RecordsOnly() bool {
	switch {
	case c.Action != Update:
		return false
	case c.Reason == ReasonOperationChanged || c.Reason == ReasonImplementationChanged:
		return len(c.ChangedPaths) == 0 && onlyOutsideLifecycle(c.OperationPaths, c.PriorOperations, c.Driver.Operations)
	case c.Reason == ReasonSpecChanged:
		return recordsOnlyChange(c.ChangedPaths, c.OperationPaths, c.PriorOperations, c.Driver.Operations)
	}
	return false
}

// recordsOnlyChange reports whether spec paths changed and operation
// paths opChanged (operations before and after) make a change that runs
// nothing: operations outside the life cycle, and the attribute values
// the spec assigns (valuesOnly), with something changed.
func recordsOnlyChange(changed, opChanged []string, before, after map[string]graph.Operation) bool {
	if len(changed) == 0 && len(opChanged) == 0 {
		return false
	}
	return valuesOnly(changed) && (len(opChanged) == 0 || onlyOutsideLifecycle(opChanged, before, after))
}

// valuesOnly reports whether the spec paths changed all lie in the
// attribute values a spec assigns (TOSCA: a template's attribute
// assignments and attribute definitions' defaults, "attributes", and
// its relationships', "relationships"): initial values of the object's
// actual state, not configuration its driver acts on, so that a change
// of them alone is recorded (RecordsOnly), the object untouched. No
// paths is vacuously true.
func valuesOnly(changed []string) bool {
	for _, p := range changed {
		top, _, _ := strings.Cut(p, ".")
		if top != "attributes" && top != "relationships" {
			return false
		}
	}
	return true
}

// ResourceDrift is a difference between recorded feedback and what a
// refresh observed. Drift never causes an action.
type ResourceDrift struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	// Paths lists the feedback paths that differ ("attributes.ip",
	// "status.active"), sorted.
	Paths  []string               `json:"paths"`
	Before map[string]graph.Value `json:"before"`
	After  map[string]graph.Value `json:"after"`
}

// Summary counts a plan's actions. Add and Destroy include replacements,
// as Terraform counts them in "Plan: X to add, Y to change, Z to destroy.";
// Replace counts them on their own.
type Summary struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Destroy int `json:"destroy"`
	Replace int `json:"replace"`
	Read    int `json:"read"`
	Forget  int `json:"forget"`
	NoOp    int `json:"no_op"`
}

// Mode is the kind of plan.
type Mode string

// Plan modes.
const (
	ModeNormal      Mode = "normal"
	ModeDestroy     Mode = "destroy"
	ModeRefreshOnly Mode = "refresh-only"
)

// PlacementSource says where a plan's placement decisions came from, so
// that apply can make them again. At most one field is set.
type PlacementSource struct {
	// Inventory is the provider inventory file as given to plan
	// (--providers), or "demo" for the embedded one; the file's digest is
	// among the plan's input digests.
	Inventory string `json:"inventory,omitempty"`
	// API is the Placement API endpoint (--placement-url).
	API string `json:"api,omitempty"`
}

// Plan is the result of planning: plain data, safe to write to a plan file
// and read back. The same inputs give the same Plan, byte for byte.
type Plan struct {
	FormatVersion string `json:"format_version"`
	// PlanID is "sha256:" and the hex digest of the canonical plan JSON
	// with PlanID empty (see ComputeID). Apply makes the plan again from
	// its configuration and requires the same ID (Verify), so an edited
	// plan is refused whatever its ID says.
	PlanID string `json:"plan_id"`
	// Lineage and Serial identify the state snapshot planned against;
	// both are zero when there was no state.
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
	// State names the state the plan was made against (backend, file or
	// database, schema and workspace; never a password); apply refuses
	// the plan for another (CheckState). Nil for a plan not bound to a
	// state, which the file leaves out: such a plan encodes as before the
	// field existed.
	State *state.Identity `json:"state,omitempty"`
	Mode  Mode            `json:"mode"`
	// Configuration lists the configuration paths the plan compiled
	// (files or folders, as given); apply compiles them again.
	Configuration []string `json:"configuration"`
	// InputDigests maps every input file to "sha256:<hex>" of its content,
	// and "var.NAME" for every input value to its argon2id digest under
	// InputSalt (see Digests); apply refuses the plan if one differs.
	InputDigests map[string]string `json:"input_digests"`
	// InputSalt is the random salt of this plan's input value digests
	// (hex), so that the same value gives another digest in another plan.
	InputSalt string `json:"input_salt"`
	// Targets, Excludes, Replace and CreateBeforeDestroy repeat the
	// options that shaped the plan.
	Targets             []string `json:"targets,omitempty"`
	Excludes            []string `json:"excludes,omitempty"`
	Replace             []string `json:"replace,omitempty"`
	CreateBeforeDestroy bool     `json:"create_before_destroy,omitempty"`
	// PlacementSource is where the placement decisions came from; nil
	// when the plan was made without placement.
	PlacementSource *PlacementSource `json:"placement_source,omitempty"`
	// Changes lists one change per selected resource (no-ops included), in
	// the order of each change's first step; Steps gives the full order.
	Changes []ResourceChange `json:"resource_changes"`
	// Drift lists what a refresh observed (refresh-only plans).
	Drift   []ResourceDrift `json:"resource_drift"`
	Summary Summary         `json:"summary"`
}

// Options returns the options that shaped p, for making the same plan
// again: everything Diff records but the input digests, the refresher and
// the placement backend, which the caller supplies (digests made with
// InputSalt, the same health checks, the backend PlacementSource names).
func (p *Plan) Options() Options {
	return Options{
		Destroy:             p.Mode == ModeDestroy,
		RefreshOnly:         p.Mode == ModeRefreshOnly,
		Targets:             slices.Clone(p.Targets),
		Excludes:            slices.Clone(p.Excludes),
		Replace:             slices.Clone(p.Replace),
		CreateBeforeDestroy: p.CreateBeforeDestroy,
		Configuration:       slices.Clone(p.Configuration),
		InputSalt:           p.InputSalt,
		State:               p.State,
	}
}

// HasChanges reports whether applying the plan would change anything:
// some change is neither a no-op nor a read, or (refresh-only) something
// drifted and applying would record it.
func (p *Plan) HasChanges() bool {
	for i := range p.Changes {
		if p.Changes[i].Action.IsChange() {
			return true
		}
	}
	return p.Mode == ModeRefreshOnly && len(p.Drift) > 0
}

// Change returns the change of the resource at addr.
func (p *Plan) Change(addr string) (*ResourceChange, bool) {
	for i := range p.Changes {
		if p.Changes[i].Address == addr {
			return &p.Changes[i], true
		}
	}
	return nil, false
}

func summarize(changes []ResourceChange) Summary {
	var s Summary
	for i := range changes {
		switch changes[i].Action {
		case NoOp:
			s.NoOp++
		case Create:
			s.Add++
		case Read:
			s.Read++
		case Update:
			s.Change++
		case DeleteThenCreate, CreateThenDelete:
			s.Add++
			s.Destroy++
			s.Replace++
		case Delete:
			s.Destroy++
		case Forget:
			s.Forget++
		}
	}
	return s
}

// canUpdateInPlace is the single place that says whether a driver can apply
// a spec change without replacing the resource: an exec or ansible (TOSCA) resource
// when its type has a Standard.configure operation, a scripted (Tonomi)
// component when it has a reconfigure script, a noop resource and a
// Placement object (which the placement driver writes field by field)
// always.
// Any other change replaces the resource.
func canUpdateInPlace(d graph.Driver) bool {
	switch d.Name {
	case graph.DriverNoop, graph.DriverPlacement:
		return true
	case graph.DriverExec, graph.DriverAnsible:
		return d.HasOperation("Standard.configure")
	case graph.DriverScripted:
		return d.HasOperation(graph.OpReconfigure)
	}
	return false
}

// replacement returns the replace action a resource asks for.
func replacement(createBeforeDestroy bool) Action {
	if createBeforeDestroy {
		return CreateThenDelete
	}
	return DeleteThenCreate
}
