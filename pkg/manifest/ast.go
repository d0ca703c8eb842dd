package manifest

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// application is one manifest file: an `application:` composite named by
// its file name.
type application struct {
	name string
	file string
	root *component
	// policies are the application's model policies (policies.go).
	policies []*policyDecl
}

// component is a node of the composite tree. The application's root is a
// component with an empty name and path.
type component struct {
	app    *application
	parent *component
	name   string
	path   string // dot-joined names below the application root; "" for the root
	yaml   string // YAML path, for diagnostics
	rng    diag.Range

	kind    string // "" for a plain composite
	kindRng diag.Range
	known   *kindInfo // nil for plain composites and unknown kinds

	ifaces      []*iface
	ifaceByName map[string]*iface
	required    []ident
	config      []*configEntry
	configByKey map[string]*configEntry
	children    []*component
	childByName map[string]*component
	bindings    []*binding

	// values holds the configuration that applies to the component, keyed
	// "interface.pin": its own, overridden by what ancestors pass down
	// through bind().
	values map[string]*yamlsrc.Node
	// factory is the scripted.ComponentFactory a scripted.Component's
	// factory.name finds in the environment; provider is the application
	// a reference.Service resolves to. Both may be nil.
	factory  *component
	provider *application
}

type ident struct {
	name string
	rng  diag.Range
}

// iface is one interface of a component: declared pins, implicit pins of
// the component's kind, and wildcard re-exports ("*": bind(c#i.*)).
type iface struct {
	name     string
	yaml     string
	pins     []*pin
	byName   map[string]*pin // built once an interface has many pins
	implicit bool
	// bound is set when a binding or a bind() reaches the interface, for
	// the required-interface check.
	bound bool
	// star holds the targets of a "*" entry; their pins are re-exported
	// under this interface.
	star []target
}

// pin is one declared, implicit or re-exported pin.
type pin struct {
	name     string
	rng      diag.Range
	yaml     string
	kind     pinKind
	sig      signature
	implicit bool
	// bind holds the targets when the pin is a bind() expression; kind
	// and sig are then taken from the first resolved target.
	bind []target
	// valid is false when the declaration was malformed (already
	// reported): later checks skip the pin instead of piling on.
	valid bool
	// exported is true for bind() pins and wildcard re-exports; leaves
	// then lists the declared pins below that they stand for.
	exported bool
	leaves   []pinRef
}

// pinRef is a declared pin of a component: what a binding finally
// connects once re-exports are followed down.
type pinRef struct {
	c     *component
	iface string
	p     *pin
}

func (r pinRef) String() string {
	if r.c.path == "" {
		return r.iface + "." + r.p.name
	}
	return r.c.path + "#" + r.iface + "." + r.p.name
}

// target is one path#iface.pin of a bind() expression.
type target struct {
	path  []string
	iface string
	pin   string // "*" for a wildcard
	text  string
	rng   diag.Range
}

type configEntry struct {
	key    string
	keyRng diag.Range
	yaml   string
	value  *yamlsrc.Node
}

// binding is one [a, b] entry of a composite's bindings.
type binding struct {
	ends [2]endpoint
	text string
	yaml string
	rng  diag.Range
}

type endpoint struct {
	path  []string
	iface string // "" binds every interface the two sides share
	text  string
	rng   diag.Range
}

func (c *component) address() string {
	if c.path == "" {
		return c.app.name
	}
	return c.app.name + "." + c.path
}

// isBound reports whether a binding or a bind() reaches the interface.
func (c *component) isBound(iface string) bool {
	f := c.ifaceByName[iface]
	return f != nil && f.bound
}

func (c *component) describe() string {
	if c.path == "" {
		return "application " + quote(c.app.name)
	}
	return "component " + quote(c.path)
}

func quote(s string) string { return "\"" + s + "\"" }

func (c *component) addIface(f *iface) {
	if c.ifaceByName == nil {
		c.ifaceByName = map[string]*iface{}
	}
	c.ifaces = append(c.ifaces, f)
	c.ifaceByName[f.name] = f
}

// manyPins is where a map beats a scan of the pin list.
const manyPins = 16

func (f *iface) addPin(p *pin) {
	f.pins = append(f.pins, p)
	switch {
	case f.byName != nil:
		f.byName[p.name] = p
	case len(f.pins) > manyPins:
		f.byName = make(map[string]*pin, len(f.pins))
		for _, q := range f.pins {
			f.byName[q.name] = q
		}
	}
}

// pin returns the pin called name, or nil. Most interfaces have a few
// pins, so a scan is cheaper than a map per interface.
func (f *iface) pin(name string) *pin {
	if f.byName != nil {
		return f.byName[name]
	}
	for _, p := range f.pins {
		if p.name == name {
			return p
		}
	}
	return nil
}

// replacePin swaps the pin of the same name for p.
func (f *iface) replacePin(p *pin) {
	for i, q := range f.pins {
		if q.name == p.name {
			f.pins[i] = p
		}
	}
	if f.byName != nil {
		f.byName[p.name] = p
	}
}
