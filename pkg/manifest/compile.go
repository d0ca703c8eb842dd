package manifest

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Spec keys and driver options the compiler writes besides configuration.
const (
	// OptionFactory is the factory.name of a scripted.Component.
	OptionFactory = "factory"
	// OptionFactoryAddress is the address of the factory resource that
	// factory.name resolved to, when it is in the environment.
	OptionFactoryAddress = "factory_address"
	// OptionApplication is a factory's component.application.
	OptionApplication = "application"
	// OptionSchedule is a factory's component.discoverySchedule (Quartz
	// cron): the driver option every front end writes a discovery
	// schedule to.
	OptionSchedule = graph.OptionDiscoverySchedule
	// OptionHealthInterval is a scripted.Component's
	// factory.healthCheckInterval: how often `xosplan sync` runs its
	// health check (a Go duration); the driver option every front end
	// writes it to.
	OptionHealthInterval = graph.OptionHealthInterval
	// OptionLocator is a reference.Submodule's __locator.application-id.
	OptionLocator = "application_id"
	// OptionProvider is the application a reference.Service resolved to.
	OptionProvider = "provider"
)

// compile builds the graph: one resource per component, edges from
// bindings (consumers after providers), containment, factories and
// resolved services.
func (env *environment) compile() (*graph.Graph, diag.Diagnostics) {
	var diags diag.Diagnostics
	g := graph.New()
	resources := map[*component]*graph.Resource{}
	for _, app := range env.apps {
		g.Sources = append(g.Sources, app.file)
		walkComponents(app.root, func(c *component) {
			if c.path == "" {
				return
			}
			res := resource(c)
			res.Request = computeRequest(res)
			if err := g.AddResource(res); err != nil {
				diags = diags.Errorf(c.rng, c.yaml, CodeDuplicateAddress, "address %q is already taken by another application's component; rename the file or the component", res.Address)
				return
			}
			resources[c] = res
		})
	}
	slices.Sort(g.Sources)
	edges := &edgeAdder{g: g, resources: resources, seen: map[edgeKey]bool{}}
	reads := env.bindSignals(edges)
	env.addStructuralEdges(edges)
	diags = diags.Extend(edges.diags)
	diags = diags.Extend(addReads(g, reads, resources, env.factoryMembers()))
	for _, cyc := range g.Cycles() {
		diags = diags.Errorf(cyc[0].Range, "", CodeDependencyCycle,
			"bindings form a dependency cycle, so no component can be applied first: %s", graph.CyclePath(cyc))
	}
	env.outputs(g, resources)
	return g, diags
}

// edgeAdder adds the edges between components' resources, each (source,
// target, name) once, none from a component to itself.
type edgeAdder struct {
	g         *graph.Graph
	resources map[*component]*graph.Resource
	seen      map[edgeKey]bool
	diags     diag.Diagnostics
}

type edgeKey struct {
	src, dst *component
	name     string
}

func (a *edgeAdder) add(src, dst *component, kind graph.EdgeKind, name string, rng diag.Range) {
	k := edgeKey{src, dst, name}
	if src == dst || a.seen[k] {
		return
	}
	a.seen[k] = true
	s, d := a.resources[src], a.resources[dst]
	if s == nil || d == nil {
		return
	}
	a.diags = a.diags.Extend(addEdge(a.g, graph.Edge{Source: s.Address, Target: d.Address, Kind: kind, Name: name, Range: rng}))
}

// bindSignals adds an edge for each binding and returns the signals
// consumers read. Consumed signals become Unknown spec values read from
// the real publisher: through a resolved reference.Service to the
// application that provides it.
func (env *environment) bindSignals(edges *edgeAdder) []signalRead {
	signals := map[*graph.Resource]map[string][]graph.Value{}
	var reads []signalRead
	for _, l := range env.links {
		edges.add(l.consumer.c, l.provider.c, graph.Binding, l.via.text, l.via.rng)
		if l.consumer.p == nil || l.consumer.p.kind != pinConsume {
			continue
		}
		res := edges.resources[l.consumer.c]
		if res == nil {
			continue
		}
		if signals[res] == nil {
			signals[res] = map[string][]graph.Value{}
		}
		key := l.consumer.iface + "." + l.consumer.p.name
		for _, src := range env.publishers(l.provider) {
			if r := edges.resources[src.c]; r != nil {
				signals[res][key] = append(signals[res][key], graph.Unknown{Func: "signal", Args: []graph.Value{r.Address, src.iface, src.p.name}})
				reads = append(reads, signalRead{consumer: l.consumer.c, publisher: src, key: key, rng: l.via.rng})
			}
		}
	}
	for res, m := range signals {
		for key, us := range m {
			res.Spec[key] = oneOrList(us)
		}
	}
	return reads
}

// addStructuralEdges adds the edges of containment, of factories and of
// resolved services.
func (env *environment) addStructuralEdges(edges *edgeAdder) {
	for _, app := range env.apps {
		walkComponents(app.root, func(c *component) {
			if c.parent != nil && c.parent.path != "" {
				edges.add(c.parent, c, graph.Contains, "components", c.rng)
			}
			if c.factory != nil {
				edges.add(c, c.factory, graph.Reference, "factory.name", c.values["factory.name"].Range)
			}
			if c.provider == nil {
				return
			}
			for _, f := range c.ifaces {
				for _, p := range f.pins {
					for _, src := range env.publishers(pinRef{c, f.name, p}) {
						edges.add(c, src.c, graph.Reference, "service "+f.name+"."+p.name, c.rng)
					}
				}
			}
		})
	}
}

// signalRead is a consumed signal: the consumer's spec reads the
// publisher's pin at key.
type signalRead struct {
	consumer  *component
	publisher pinRef
	key       string
	rng       diag.Range
}

// addReads orders each consumer of a signal after what it reads, with a
// graph.Reads edge where no edge joins the two yet: after the publisher
// (a binding may reach it only through a reference.Service or an
// endpoint), and, for a factory's factory.instances, after every
// component of that factory too, since the signal maps their ids and is
// complete only once they are applied.
func addReads(g *graph.Graph, reads []signalRead, resources map[*component]*graph.Resource, members map[*component][]*component) diag.Diagnostics {
	var diags diag.Diagnostics
	type pair struct{ src, dst string }
	linked := map[pair]bool{}
	for _, e := range g.Edges() {
		linked[pair{e.Source, e.Target}] = true
	}
	add := func(r signalRead, dst *component) {
		s, d := resources[r.consumer], resources[dst]
		if s == nil || d == nil || s == d || linked[pair{s.Address, d.Address}] {
			return
		}
		linked[pair{s.Address, d.Address}] = true
		diags = diags.Extend(addEdge(g, graph.Edge{Source: s.Address, Target: d.Address, Kind: graph.Reads, Name: r.key, Range: r.rng}))
	}
	for _, r := range reads {
		add(r, r.publisher.c)
		if r.publisher.c.kind == KindComponentFactory && r.publisher.iface == "factory" && r.publisher.p.name == "instances" {
			for _, m := range members[r.publisher.c] {
				add(r, m)
			}
		}
	}
	return diags
}

// addEdge adds e to g. Its callers add only edges between resources g
// holds, so a refusal is a bug of xosplan; it is reported at e's position
// (CodeInternal) rather than lost, since the plan would otherwise order
// the two resources wrongly without saying so.
func addEdge(g *graph.Graph, e graph.Edge) diag.Diagnostics {
	var diags diag.Diagnostics
	if err := g.AddEdge(e); err != nil {
		diags = diags.Errorf(e.Range, "", CodeInternal, "the dependency of %s on %s cannot be kept: %v", e.Source, e.Target, err)
	}
	return diags
}

// factoryMembers maps each factory to the components whose factory.name
// finds it, in the order of the environment.
func (env *environment) factoryMembers() map[*component][]*component {
	out := map[*component][]*component{}
	for _, app := range env.apps {
		walkComponents(app.root, func(c *component) {
			if c.factory != nil {
				out[c.factory] = append(out[c.factory], c)
			}
		})
	}
	return out
}

// outputs exposes each application's top-level published signals as
// graph outputs named "application.interface.pin", read at apply time
// from the components that publish them.
func (env *environment) outputs(g *graph.Graph, resources map[*component]*graph.Resource) {
	for _, app := range env.apps {
		for _, f := range app.root.ifaces {
			for _, p := range f.pins {
				if !p.valid || p.kind != pinPublish {
					continue
				}
				var vals []graph.Value
				for _, l := range leavesOf(app.root, f.name, p) {
					if r := resources[l.c]; r != nil && l.c != app.root {
						vals = append(vals, graph.Unknown{Func: "signal", Args: []graph.Value{r.Address, l.iface, l.p.name}})
					}
				}
				if len(vals) == 0 {
					continue
				}
				if g.Outputs == nil {
					g.Outputs = map[string]graph.Value{}
				}
				g.Outputs[app.name+"."+f.name+"."+p.name] = oneOrList(vals)
			}
		}
	}
}

// oneOrList gives a pin fed from one source that source's value, and a
// pin fed from several the list of them.
func oneOrList(vals []graph.Value) graph.Value {
	if len(vals) == 1 {
		return vals[0]
	}
	return vals
}

// publishers follows a provider pin through a resolved reference.Service
// to the declared pins of the application behind it.
func (env *environment) publishers(p pinRef) []pinRef {
	if p.p == nil || p.c.provider == nil {
		return []pinRef{p}
	}
	f := p.c.provider.root.ifaceByName[p.iface]
	if f == nil || f.pin(p.p.name) == nil {
		return []pinRef{p}
	}
	return f.pin(p.p.name).leaves
}

func resource(c *component) *graph.Resource {
	res := &graph.Resource{
		Address:    c.address(),
		Type:       c.kind,
		Driver:     graph.Driver{Name: graph.DriverNoop},
		Spec:       map[string]graph.Value{},
		Management: graph.Managed,
		Range:      c.rng,
	}
	if res.Type == "" {
		res.Type = "composite"
	}
	for k, v := range c.values {
		// yamlsrc yields only JSON-compatible values except NaN and
		// infinities, which have no canonical form; such a value is left
		// out rather than failing the compile.
		if cv, err := graph.Canonicalize(v.Interface()); err == nil {
			res.Spec[k] = cv
		}
		if isSensitive(k) {
			res.Sensitive = append(res.Sensitive, k)
		}
	}
	slices.Sort(res.Sensitive)
	if c.known != nil {
		res.Driver.Name = c.known.Driver
		res.Management = c.known.Management
	}
	str := func(key string) string {
		s, _ := c.values[key].String()
		return s
	}
	op := func(key, valueKey string) {
		if s := str(valueKey); s != "" {
			if res.Driver.Operations == nil {
				res.Driver.Operations = map[string]graph.Operation{}
			}
			res.Driver.Operations[key] = graph.Operation{Implementation: s, Range: c.values[valueKey].Range}
		}
	}
	opts := map[string]graph.Value{}
	switch c.kind {
	case KindScriptedComponent:
		op(graph.OpLaunch, "factory.launchScript")
		op(graph.OpDestroy, "factory.destroyScript")
		op(graph.OpHealthCheck, "factory.healthCheckScript")
		op(graph.OpReconfigure, "factory.reconfigurationScript")
		for _, p := range c.values["factory.commandScripts"].Pairs() {
			if s, ok := p.Value.String(); ok && s != "" {
				if res.Driver.Operations == nil {
					res.Driver.Operations = map[string]graph.Operation{}
				}
				res.Driver.Operations[graph.OpCommandPrefix+p.Key.Value] = graph.Operation{Implementation: s, Range: p.Value.Range}
			}
		}
		if s := str("factory.name"); s != "" {
			opts[OptionFactory] = s
		}
		if s := str("factory.healthCheckInterval"); s != "" {
			opts[OptionHealthInterval] = s
		}
		if c.factory != nil {
			opts[OptionFactoryAddress] = c.factory.address()
		}
	case KindComponentFactory:
		op(graph.OpDiscovery, "component.discoveryScript")
		if s := str("component.application"); s != "" {
			opts[OptionApplication] = s
		}
		if s := str("component.discoverySchedule"); s != "" {
			opts[OptionSchedule] = s
		}
		if len(res.Driver.Operations) == 0 {
			// Without discovery a factory runs nothing itself; its
			// configuration is what its components' scripts receive.
			res.Driver.Name = graph.DriverNoop
		}
	case KindSubmodule:
		if s := str("__locator.application-id"); s != "" {
			opts[OptionLocator] = s
		}
	case KindService:
		if c.provider != nil {
			opts[OptionProvider] = c.provider.name
		}
	}
	if len(opts) > 0 {
		res.Driver.Options = opts
	}
	return res
}

// isSensitive reports whether a configuration key names a secret. The
// format has no marker for secrets, so the pin name decides: plans must
// not print a password because nobody flagged it.
func isSensitive(key string) bool {
	_, name, _ := strings.Cut(key, ".")
	name = strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "secret", "privatekey", "private-key", "token", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
