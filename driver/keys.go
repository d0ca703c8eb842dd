package driver

// Keys the walk and the drivers share in a resource's options and
// feedback.
const (
	// OptionFactoryAddress is the graph.Driver.Options key of the address
	// of a component's factory (written by pkg/manifest): the walk passes
	// the factory's recorded state as Request.Factory and publishes its
	// SignalFactoryInstances.
	OptionFactoryAddress = "factory_address"
	// SignalFactoryInstances is the factory signal mapping natural ids to
	// instance ids.
	SignalFactoryInstances = "factory.instances"
	// ExtraInstanceID holds the synthetic instance id ("instanceId" of the
	// Tonomi protocol, InstanceID); Feedback.InstanceID holds the natural
	// id the scripts key instances by.
	ExtraInstanceID = "instance_id"
	// ExtraWorkDir is the folder an exec resource was applied from.
	ExtraWorkDir = "work_dir"
	// ExtraScriptRoot is the script root a scripted resource was applied
	// with.
	ExtraScriptRoot = "script_root"
)

// SourceRecorder is implemented by drivers whose later actions (a delete,
// a refresh, a command) must find the resource's files without the
// configuration: Source returns the Feedback.Extra key and the folder the
// walk records for req (ExtraWorkDir and Request.WorkDir for exec,
// ExtraScriptRoot and Request.ScriptRoot for scripted); an empty folder
// records nothing.
type SourceRecorder interface {
	Source(req Request) (key, dir string)
}

// InstanceConfirmer is implemented by drivers whose objects are instances
// known by an id that their health check alone can speak for (scripted
// components of a factory): executor.Import confirms an adopted id through
// the driver (or the factory's last discovery), takes no attributes from
// its caller, and refuses a factory, which has no object of its own. Of
// other drivers it records the id and the attributes given.
type InstanceConfirmer interface {
	Driver
	// ConfirmsInstances marks the driver; it does nothing.
	ConfirmsInstances()
}

// ReadinessOutput is the output through which a lifecycle operation
// reports the object started but not ready: xosplan_status=converging
// (exec: in $XOSPLAN_OUTPUTS; ansible: a set_stats key). The driver then
// returns Outcome.Converging, and the walk holds the dependents until the
// health check reports the object active. It is never an attribute.
const ReadinessOutput = "xosplan_status"
