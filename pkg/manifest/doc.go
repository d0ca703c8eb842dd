// Package manifest owns the Tonomi-style `application:` manifest format:
// its grammar (composites, interfaces and pins, bind() expressions,
// bindings, required interfaces), the registry of platform component
// kinds with their implicit interfaces, the checks, environments of
// several manifests, and the compilation to the graph IR. It executes
// nothing.
//
// # Phases
//
// load.go reads one file into a composite tree with source positions;
// resolve.go resolves bind() targets and bindings and checks directions
// and types; checks.go holds the per-kind checks (scripted components,
// factories, configuration values, required interfaces, discovery
// schedules with internal/quartz); env.go joins manifests into an
// environment; compile.go builds the graph, a discovery schedule in the
// format-neutral driver option graph.OptionDiscoverySchedule.
//
// # Addresses
//
// Every resource address starts with the application name (the file name
// without its extension), then the component path: "VM Factory.factory",
// "starter-java-web.main.workflow". The prefix is there even when the
// environment has a single file, so that adding a manifest to an
// environment never renames the resources already in it. Application
// names may contain spaces; component names may not contain '.', '#' or
// ','; an address that two applications would share is an error.
//
// # Decisions where the sources are silent
//
//   - [a, b] binds the interfaces a and b both have, pin by pin by name;
//     then each interface without a namesake on the other side pairs its
//     pins by name with pins of the complementary kind anywhere on the
//     other side (real manifests bind a keystore service's
//     keypair-store.get-keypair to a workflow's keystore.get-keypair, and
//     `[slave, jenkins-server]` feeds the slave's jenkins-server interface
//     from the server's result interface). [a#i, b] binds a's interface i
//     to b's interface i, or pin by pin to any of b's interfaces. Two
//     consumers (or two senders) of the same name are left alone: both
//     take the value from elsewhere; two publishers or two receivers, or
//     a signal against a command, are a direction mismatch. A binding
//     that joins nothing is a warning.
//   - An interface named in `required:` is satisfied when a binding or a
//     bind() reaches it.
//   - cobalt.common.HttpEndpoint relays a URL between the components it is
//     bound to (`[hub, url]`, `[url, nodes]` in the corpus); its bindings
//     are not checked pin by pin, and it satisfies the required
//     interfaces of what it is bound to, which are then applied after it.
//   - object is JSON of any shape: it is assignable to and from every
//     type. Command arguments and results pair by name, not position
//     (real manifests list them in different orders).
//   - A configuration value written as a string with an expression
//     ("{$.x}" or "${x}") is not type-checked: the platform evaluates it.
//   - A scripted.Component whose factory is not in the environment is a
//     warning (validating one file alone is common); naming an
//     application that holds no scripted.ComponentFactory is an error.
//   - A reference.Service resolves to the one application of the
//     environment whose top-level interfaces provide all its pins; with
//     none it stays an unmanaged outside service, with several it is a
//     warning.
//   - A reference.Submodule whose application is in the environment must
//     declare the same pins, kinds and signatures as that application's
//     top-level interfaces; otherwise it is trusted as written.
//   - workflow.Instance triggers name pins of the component; triggers,
//     propagateStatus and schedule name workflows of
//     configuration.workflows (checked when it is a map).
//   - Two factories with discovery for the same application in one
//     environment are an error: discovered instances would be adopted
//     twice, and the platform disables discovery for a factory that
//     serves more than one environment.
//   - Configuration keys whose pin name mentions a password, secret,
//     private key, token or credential are listed in Resource.Sensitive,
//     since the format has no marker for secrets.
//   - Edges point from consumers and senders to publishers and receivers;
//     a cycle of them is an error, since nothing could be applied first.
//     Top-level published signals become graph outputs
//     ("application.interface.pin").
//   - `policies:` on the application (an xosplan extension) declares
//     model policies, compiled to graph.Policy named
//     "<application>.<entry>" (policies.go); their implementations must
//     be regular files inside the configuration root, since they run at
//     plan time.
//   - Discovery schedules use the Quartz syntax the platform uses (6 or 7
//     fields, seconds first; one of day-of-month and day-of-week is "?").
//
// # For editors
//
// CompileEnvironmentIndexed runs CompileEnvironment and returns, with its
// results unchanged, a symbols.Index of the environment (index.go): its
// files, applications, components, declared pins and the registry's
// component types, and what names them (component types, bind() targets,
// binding ends). Options.Files reads an editor's unsaved buffers in place
// of the files on disk. PinKinds and PinTypes list the pin grammar for
// completion; JSONSchema (schema.go) is the JSON Schema of a manifest.
//
// # Diagnostic codes
//
// Every problem is a diag.Diagnostic with one of these codes, and with
// file:line:col except for files that cannot be read at all (file only):
//
//	manifest.read                      the file or folder cannot be read
//	manifest.not_manifest              no top-level `application:` map
//	manifest.structure                 a section has the wrong shape (map, list, string)
//	manifest.unknown_key               a key the grammar does not have
//	manifest.duplicate_key             a key repeated in one map
//	manifest.bad_name                  an empty or ill-formed name: over 255 characters, with a control character (names, pin display names, the file name) or a reserved character
//	manifest.bad_pin                   a malformed pin declaration or type
//	manifest.bad_bind                  a malformed bind() expression
//	manifest.bad_binding               a malformed bindings entry
//	manifest.unknown_component         bind or binding to a missing component
//	manifest.unknown_interface         bind, binding or required naming a missing interface
//	manifest.unknown_pin               bind or configuration naming a missing pin
//	manifest.direction_mismatch        pins that do not pair (publish↔consume, send↔receive)
//	manifest.type_mismatch             incompatible signal or command types
//	manifest.config_type               a configuration value that does not fit its pin's type
//	manifest.unknown_kind              (warning) a component type the registry does not know
//	manifest.binding_empty             (warning) a binding whose sides share no interface
//	manifest.scripted_missing_script   scripted.Component without launchScript or destroyScript
//	manifest.command_script_pin        commandScripts entry naming no receive-command pin
//	manifest.scripted_multiple         more than one scripted.Component in a manifest
//	manifest.scripted_pin_kind         a pin kind a scripted component or factory cannot have
//	manifest.factory_partial_discovery some but not all of component.application/discoveryScript/discoverySchedule
//	manifest.bad_schedule              a discovery schedule that is not a Quartz cron expression
//	manifest.schedule_too_frequent     (warning) a schedule firing more often than once a minute
//	manifest.bad_health_interval       a factory.healthCheckInterval that is not a duration of a second or more
//	manifest.required_unbound          a required interface that nothing binds
//	manifest.factory_not_found         (warning) factory.name names no application of the environment
//	manifest.not_a_factory             factory.name names an application without a factory
//	manifest.factory_not_exported      (warning) a factory whose component interface is not top-level
//	manifest.discovery_shared          two discovering factories for one application
//	manifest.service_ambiguous         (warning) a reference.Service several applications provide
//	manifest.duplicate_application     two manifests with one application name
//	manifest.duplicate_address         two resources with one address
//	manifest.unknown_workflow          a trigger, propagateStatus or schedule naming an undeclared workflow
//	manifest.submodule_mismatch        a reference.Submodule whose interfaces do not mirror its application's
//	manifest.dependency_cycle          bindings that make components depend on each other in a cycle
//	manifest.policy_implementation     a model policy's implementation that is a URL, missing, not a regular file or outside the configuration root
//	manifest.internal_error            a dependency the compiler could not add to the graph (a bug of xosplan, reported rather than lost)
package manifest

// Diagnostic codes; doc.go's table explains each.
const (
	CodeRead                    = "manifest.read"
	CodeNotManifest             = "manifest.not_manifest"
	CodeStructure               = "manifest.structure"
	CodeUnknownKey              = "manifest.unknown_key"
	CodeDuplicateKey            = "manifest.duplicate_key"
	CodeBadName                 = "manifest.bad_name"
	CodeBadPin                  = "manifest.bad_pin"
	CodeBadBind                 = "manifest.bad_bind"
	CodeBadBinding              = "manifest.bad_binding"
	CodeUnknownComponent        = "manifest.unknown_component"
	CodeUnknownInterface        = "manifest.unknown_interface"
	CodeUnknownPin              = "manifest.unknown_pin"
	CodeDirectionMismatch       = "manifest.direction_mismatch"
	CodeTypeMismatch            = "manifest.type_mismatch"
	CodeConfigType              = "manifest.config_type"
	CodeUnknownKind             = "manifest.unknown_kind"
	CodeBindingEmpty            = "manifest.binding_empty"
	CodeScriptedMissingScript   = "manifest.scripted_missing_script"
	CodeCommandScriptPin        = "manifest.command_script_pin"
	CodeScriptedMultiple        = "manifest.scripted_multiple"
	CodeScriptedPinKind         = "manifest.scripted_pin_kind"
	CodeFactoryPartialDiscovery = "manifest.factory_partial_discovery"
	CodeBadSchedule             = "manifest.bad_schedule"
	CodeScheduleTooFrequent     = "manifest.schedule_too_frequent"
	CodeBadHealthInterval       = "manifest.bad_health_interval"
	CodeRequiredUnbound         = "manifest.required_unbound"
	CodeFactoryNotFound         = "manifest.factory_not_found"
	CodeNotAFactory             = "manifest.not_a_factory"
	CodeFactoryNotExported      = "manifest.factory_not_exported"
	CodeDiscoveryShared         = "manifest.discovery_shared"
	CodeServiceAmbiguous        = "manifest.service_ambiguous"
	CodeDuplicateApplication    = "manifest.duplicate_application"
	CodeDuplicateAddress        = "manifest.duplicate_address"
	CodeDependencyCycle         = "manifest.dependency_cycle"
	CodeUnknownWorkflow         = "manifest.unknown_workflow"
	CodeSubmoduleMismatch       = "manifest.submodule_mismatch"
	CodePolicyImplementation    = "manifest.policy_implementation"
	CodeInternal                = "manifest.internal_error"
)
