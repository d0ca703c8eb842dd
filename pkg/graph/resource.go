package graph

import (
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Management says whether xosplan owns a resource's life cycle.
type Management string

const (
	// Managed resources are created, updated and deleted by xosplan.
	Managed Management = "managed"
	// Unmanaged resources must already exist; xosplan only reads them
	// (TOSCA directives: [select], XOS must-exist, Tonomi reference.Service).
	Unmanaged Management = "unmanaged"
)

// Driver names of the executor's actuators.
const (
	DriverExec     = "exec"     // TOSCA interface operations as subprocesses
	DriverScripted = "scripted" // the Tonomi script protocol
	DriverNoop     = "noop"     // nothing to run; the state still records it
	DriverAnsible  = "ansible"  // TOSCA operations whose implementations are Ansible playbooks
	// DriverPlacement reconciles Placement objects against a Placement API.
	DriverPlacement = "placement"
)

// OptionPlacementKind is the driver option of a DriverPlacement resource
// that says what it is: one of the PlacementKind* values.
const OptionPlacementKind = "placement_kind"

// Kinds of Placement objects (OptionPlacementKind).
const (
	PlacementKindTrait         = "custom_trait"
	PlacementKindResourceClass = "custom_resource_class"
	PlacementKindProvider      = "resource_provider"
)

// InputAnsibleHost is the operation input through which pkg/tosca tells
// the Ansible driver where an operation runs: a map with "address", the
// list of candidate addresses of the Compute the node is hosted on
// (public_address, then private_address, values the walk resolves), and
// "user" when the Compute's endpoint gives one. No such input, or no
// address, runs the playbook on this machine. The driver takes it out of
// the variables it passes to the playbook.
const InputAnsibleHost = "xosplan_host"

// InputAnsibleRelationship is the operation input through which pkg/tosca
// tells the Ansible driver the relationship a relationship operation
// belongs to: a map with "requirement", "index" and "target", as an
// OutputAttribute names it. What the playbook reports that the
// operation's outputs do not map sets that relationship's attribute of
// the same name (SELF in a relationship operation is the relationship, as
// in xOpera). The driver takes it out of the variables it passes.
const InputAnsibleRelationship = "xosplan_relationship"

// Well-known operation keys. TOSCA operations use "Interface.operation"
// with the interface's short name ("Standard.create",
// "Configure.pre_configure_source"; a relationship's operation shared
// with another relationship of the resource is
// "Configure.pre_configure_source@db[1]": RelationshipOperationKey);
// scripted components use these names, and so does a TOSCA health check
// (xosplan.interfaces.Health's check is OpHealthCheck).
const (
	OpLaunch      = "launch"
	OpDestroy     = "destroy"
	OpHealthCheck = "healthCheck"
	OpReconfigure = "reconfigure"
	OpDiscovery   = "discovery"
	// OpLookup finds an unmanaged resource by its Resource.Lookup keys
	// (TOSCA: the read operation of an xosplan.interfaces.Lookup
	// interface); driver.LookupOutcome reads what it reports.
	OpLookup = "lookup"
	// OpCommandPrefix + "interface.pin" names a command script.
	OpCommandPrefix = "command."
)

// OptionHealthInterval is the driver option (a Go duration, "5m") that
// sets how often a synchronizer runs one resource's health check
// (OpHealthCheck), instead of its --health-interval: pkg/manifest writes
// it from a component's factory.healthCheckInterval, pkg/tosca from a
// node template's metadata xosplan.health_interval, pkg/sync reads it.
const OptionHealthInterval = "health_interval"

// OptionDiscoverySchedule is the driver option (a Quartz cron expression,
// seconds first: "0 0/5 * * * ?") that says when a synchronizer runs a
// resource's discovery (OpDiscovery). A front end writes it only after
// checking the expression (internal/quartz): pkg/manifest from a
// factory's component.discoverySchedule; pkg/sync reads it without
// knowing which format it came from.
const OptionDiscoverySchedule = "schedule"

// OptionArtifacts is the driver option of a node whose operations are
// Ansible playbooks (DriverAnsible): its artifacts, those its template
// declares and those its type declares or inherits, as a map from the
// artifact's name to its file, written relative to the folder of the
// node template's file (a type's artifact taken from the folder of the
// file that declares it), or as written for a URL or an absolute path.
// The driver puts each beside the playbooks as they run, and the plan's
// digest of each operation covers them (a changed artifact is
// implementation_changed). pkg/tosca writes it for 1.x and 2.0.
const OptionArtifacts = "artifacts"

// Driver says which actuator applies a resource and with what.
type Driver struct {
	// Name is one of the Driver* constants.
	Name string `json:"name"`
	// Operations maps an operation key to what runs for it.
	Operations map[string]Operation `json:"operations,omitempty"`
	// Options holds driver-specific settings (for scripted: the factory
	// name, the discovery schedule, …), canonical values.
	Options map[string]Value `json:"options,omitempty"`
}

// HasOperation reports whether the driver defines the operation key.
func (d Driver) HasOperation(key string) bool {
	_, ok := d.Operations[key]
	return ok
}

// Operation is one thing a driver can run.
type Operation struct {
	// Implementation is the script or artifact path, as written (relative
	// to the resource's source file for TOSCA, a container path for
	// scripted components).
	Implementation string `json:"implementation,omitempty"`
	// Dependencies are further files the implementation needs.
	Dependencies []string `json:"dependencies,omitempty"`
	// Digest is "sha256:<hex>" of what the operation runs: of the
	// implementation file's content, or, with dependencies, of the
	// digests of the implementation and each dependency in order, one a
	// line. Empty when a file could not be read within the configuration
	// root (or before the configuration's files were digested): then the
	// content is not compared.
	Digest string `json:"digest,omitempty"`
	// Inputs are passed to the implementation (environment variables for
	// exec, the stdin document for scripted); values may be Unknown.
	Inputs map[string]Value `json:"inputs,omitempty"`
	// Sensitive lists, sorted, the Inputs names whose values are secrets
	// (derived from a sensitive property or input): they are never
	// rendered, and plan files hold null in their place.
	Sensitive []string `json:"sensitive,omitempty"`
	// Outputs maps an output name to the attribute it sets ("" = same name).
	Outputs map[string]string `json:"outputs,omitempty"`
	// Timeout bounds the run; zero means the executor's default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Range is where the operation is declared.
	Range diag.Range `json:"-"`
}

// PlacementRequest asks for a place to run with the semantics of
// OpenStack Placement. Resource classes and traits use Placement's names
// (VCPU, MEMORY_MB, DISK_GB; HW_ARCH_X86_64, CUSTOM_*).
type PlacementRequest struct {
	Resources map[string]int64 `json:"resources,omitempty"`
	Required  []string         `json:"required,omitempty"`
	Forbidden []string         `json:"forbidden,omitempty"`
	// MemberOf lists aggregate groups: the provider must be in at least one
	// aggregate of every group.
	MemberOf [][]string `json:"member_of,omitempty"`
	// ForbiddenAggregates excludes providers in any of these aggregates.
	ForbiddenAggregates []string `json:"forbidden_aggregates,omitempty"`
	// Policies names the policies that contributed to the request.
	Policies []string `json:"policies,omitempty"`
}

// Resource is one thing to actuate.
type Resource struct {
	// Address is stable and unique: the template or component name, nested
	// names joined by ".".
	Address string `json:"address"`
	// Type is the resource's type name; TypeChain lists Type first, then
	// each type it derives from, up to the root.
	Type      string   `json:"type"`
	TypeChain []string `json:"type_chain,omitempty"`
	Driver    Driver   `json:"driver"`
	// Spec is the declarative state: canonical values (see Value); values
	// that depend on other resources' feedback are Unknown.
	Spec map[string]Value `json:"spec"`
	// Sensitive lists the Spec paths (dot-joined) whose values must never be
	// rendered.
	Sensitive []string `json:"sensitive,omitempty"`
	// Management is Managed or Unmanaged.
	Management Management `json:"management"`
	// Lookup holds the keys that find an unmanaged resource: XOS's
	// tosca_key fields (name, login_base, email, …), the properties a
	// TOSCA select template assigns. The read of the resource looks the
	// object up by them through its OpLookup operation; the plan shows
	// them.
	Lookup map[string]Value `json:"lookup,omitempty"`
	// Import is the import filter of a managed resource (ORC's
	// spec.import.filter): the first apply adopts the one existing object
	// whose fields equal every key, found by its OpLookup operation or
	// among its factory's discoveries, instead of creating one. nil when
	// the resource declares none. Never an ID field (IsIDField).
	Import map[string]Value `json:"import,omitempty"`
	// Request asks placement for a host; nil when the resource needs none.
	Request *PlacementRequest `json:"placement,omitempty"`
	// CreateBeforeDestroy asks for replacement as create, then delete.
	CreateBeforeDestroy bool `json:"create_before_destroy,omitempty"`
	// DerivedBy names the model policy (Policy.Name) that derived the
	// resource; empty for a resource the configuration declares.
	DerivedBy string `json:"derived_by,omitempty"`
	// SetByPolicy maps each Spec path (dot-joined) whose value a model
	// policy set on the resource to that policy's name (Policy.Name); nil
	// when no policy set anything.
	SetByPolicy map[string]string `json:"set_by_policy,omitempty"`
	// Range is where the resource is declared.
	Range diag.Range `json:"-"`
}

// IsIDField reports whether a filter key names an object's id ("id",
// "uuid", "instance_id", "instanceId", in any case): an import filter
// never does (ORC: an id is given as such, `xosplan import ADDRESS ID`).
func IsIDField(key string) bool {
	switch strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(key, "_", ""), "-", "")) {
	case "id", "uuid", "instanceid":
		return true
	}
	return false
}

// DerivesFrom reports whether the resource's type is typ or derives from it.
func (r *Resource) DerivesFrom(typ string) bool {
	if r.Type == typ {
		return true
	}
	for _, t := range r.TypeChain {
		if t == typ {
			return true
		}
	}
	return false
}

// EdgeKind says why one resource depends on another.
type EdgeKind string

// Edge kinds used by the front ends.
const (
	HostedOn   EdgeKind = "hosted_on"
	ConnectsTo EdgeKind = "connects_to"
	DependsOn  EdgeKind = "depends_on"
	AttachesTo EdgeKind = "attaches_to"
	RoutesTo   EdgeKind = "routes_to"
	Binding    EdgeKind = "binding"
	Contains   EdgeKind = "contains"
	Reference  EdgeKind = "reference"
	// Reads: the source's spec or operation inputs read the target's
	// properties, attributes, operation outputs or signals, and no other
	// edge joins the two. Name is where the source reads it.
	Reads EdgeKind = "reads"
)

// Edge says Source depends on Target: Target is actuated first and
// destroyed last.
type Edge struct {
	Source string   `json:"source"`
	Target string   `json:"target"`
	Kind   EdgeKind `json:"kind"`
	// Name is the requirement or binding that made the edge (for Reads,
	// where the source reads the target).
	Name string `json:"name,omitempty"`
	// Range is where the requirement, binding or read is written.
	Range diag.Range `json:"-"`
}
