package manifest

import (
	"fmt"
	"slices"
	"sort"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Kind describes a component type that the platform provides: the
// interfaces every component of that type has without declaring them, and
// how xosplan applies it.
type Kind struct {
	// Name is the type as manifests write it ("scripted.Component").
	Name string
	// Interfaces maps interface → pin → declaration in the manifest's own
	// syntax ("publish-signal(map<string, string>)").
	Interfaces map[string]map[string]string
	// Driver is graph.DriverScripted or graph.DriverNoop.
	Driver string
	// Management is graph.Managed or graph.Unmanaged.
	Management graph.Management
	// Container kinds may hold components of their own (composite.Scaler).
	Container bool
	// OpenInterfaces kinds take whatever interface their bindings need
	// (cobalt.common.HttpEndpoint relays a URL between the components it
	// is bound to), so bindings to them are not checked pin by pin and
	// satisfy required interfaces.
	OpenInterfaces bool
	// OpenConfiguration kinds accept configuration keys that name no pin.
	OpenConfiguration bool
}

// kindInfo is a registered kind with its implicit pins parsed.
type kindInfo struct {
	Kind
	ifaces []*iface // sorted by name, pins sorted by name
}

// Registry holds the component kinds a compilation knows. It is a value:
// build one with DefaultRegistry or NewRegistry and pass it in Options.
// A Registry is safe for concurrent reads once no more kinds are added.
type Registry struct {
	kinds map[string]*kindInfo
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]*kindInfo{}} }

// Register adds or replaces a kind. It fails, leaving the registry as it
// was, when a pin declaration is malformed or the driver is unknown.
func (r *Registry) Register(k Kind) error {
	switch k.Driver {
	case graph.DriverScripted, graph.DriverNoop:
	default:
		return fmt.Errorf("kind %s: driver %q is not %q or %q", k.Name, k.Driver, graph.DriverScripted, graph.DriverNoop)
	}
	if k.Management == "" {
		k.Management = graph.Managed
	}
	info := &kindInfo{Kind: k}
	names := make([]string, 0, len(k.Interfaces))
	for n := range k.Interfaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := &iface{name: n, implicit: true}
		pins := make([]string, 0, len(k.Interfaces[n]))
		for p := range k.Interfaces[n] {
			pins = append(pins, p)
		}
		sort.Strings(pins)
		for _, p := range pins {
			kind, sig, err := parsePinDecl(k.Interfaces[n][p])
			if err != nil {
				return fmt.Errorf("kind %s: pin %s.%s: %w", k.Name, n, p, err)
			}
			f.addPin(&pin{name: p, kind: kind, sig: sig, implicit: true, valid: true})
		}
		info.ifaces = append(info.ifaces, f)
	}
	r.kinds[k.Name] = info
	return nil
}

// Lookup returns the kind registered under name.
func (r *Registry) Lookup(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	if !ok {
		return Kind{}, false
	}
	return k.Kind, true
}

// Names returns the registered kind names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Kind names with behaviour of their own in the checks and the compiler.
const (
	KindScriptedComponent = "scripted.Component"
	KindComponentFactory  = "scripted.ComponentFactory"
	KindService           = "reference.Service"
	KindSubmodule         = "reference.Submodule"
	KindWorkflow          = "workflow.Instance"
	KindScaler            = "composite.Scaler"
	KindCompute           = "compute.Instance"
	KindConstants         = "cobalt.common.Constants"
	KindHTTPEndpoint      = "cobalt.common.HttpEndpoint"
)

// DefaultRegistry returns a fresh registry with the platform's kinds. The
// implicit interfaces come from the custom-components document (scripted
// kinds) and from how real manifests bind to the others.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	str := "configuration(string)"
	for _, k := range []Kind{
		{Name: KindScriptedComponent, Driver: graph.DriverScripted, Interfaces: map[string]map[string]string{
			"factory": {
				"name": str, "launchScript": str, "destroyScript": str, "healthCheckScript": str,
				"reconfigurationScript": str, "commandScripts": "configuration(map<string, string>)",
				// xosplan's own: how often `xosplan sync` runs the health
				// check (a Go duration such as 5m).
				"healthCheckInterval": str,
			},
		}},
		{Name: KindComponentFactory, Driver: graph.DriverScripted, Interfaces: map[string]map[string]string{
			"component": {"application": str, "discoveryScript": str, "discoverySchedule": str},
			"factory":   {"instances": "publish-signal(map<string, string>)"},
		}},
		// A service already present in the environment: only read.
		{Name: KindService, Driver: graph.DriverNoop, Management: graph.Unmanaged},
		// A child application; its declared interfaces mirror the child's
		// top-level interfaces.
		{Name: KindSubmodule, Driver: graph.DriverNoop, Interfaces: map[string]map[string]string{
			"__locator": {"application-id": str},
		}},
		// Workflows run on the platform's workflow engine, which xosplan
		// does not have: the resource records them and runs nothing.
		{Name: KindWorkflow, Driver: graph.DriverNoop, Interfaces: map[string]map[string]string{
			"configuration": {
				"workflows": "configuration(object)", "triggers": "configuration(map<string, string>)",
				"propagateStatus": "configuration(list<object>)", "schedule": "configuration(map<string, string>)",
			},
		}},
		{Name: KindScaler, Driver: graph.DriverNoop, Container: true, Interfaces: map[string]map[string]string{
			"configuration": {"quantity": "configuration(int)", "minQuantity": "configuration(int)"},
			"scale":         {"set-quantity": "receive-command(int quantity)"},
		}},
		{Name: KindCompute, Driver: graph.DriverNoop, Interfaces: map[string]map[string]string{
			"configuration": {"hardwareId": str, "imageId": str, "login": str, "locationId": str},
			"compute": {
				"networks": "publish-signal(map<string, map<string, string>>)",
				"exec":     "receive-command(string command, int timeout => string stdOut, string stdErr => string stdOut, string stdErr, int exitCode)",
				"put-file": "receive-command(string filename, bytes payload)",
				"get-file": "receive-command(string filename => bytes payload)",
			},
		}},
		{Name: KindConstants, Driver: graph.DriverNoop, Interfaces: map[string]map[string]string{
			"configuration": {"values": "configuration(map<string, object>)"},
		}},
		{Name: KindHTTPEndpoint, Driver: graph.DriverNoop, OpenInterfaces: true, Interfaces: map[string]map[string]string{
			"connection": {"url": "publish-signal(string)"},
		}},
	} {
		if err := r.Register(k); err != nil {
			// The table above is ours; a malformed entry is a programming
			// error that every test run would hit at once.
			panic(err)
		}
	}
	return r
}
