package tosca1

// Phase 9 — render: the checked topology becomes a graph.Graph.
//
// Each node template is one Resource (Address = template name). Its Spec
// holds "properties" (assigned and default values), "capabilities" (only
// the capabilities assigned: their "properties", and "attributes" when
// assigned), "attributes" and
// "artifacts" (only when set). The driver is exec when a Standard or
// Configure operation has an implementation, noop otherwise. An
// implementation that names an artifact of the template (or of its type
// chain) is that artifact's file (artifactImplementation). Requirements
// become edges whose kind follows the relationship type.
//
// Placement requests: a node template deriving from tosca.nodes.Compute asks
// for its host capability's num_cpus (VCPU), mem_size (MEMORY_MB, TOSCA
// units: 1 MB = 10^6 bytes, so "4096 MB" asks for 4096) and disk_size
// (DISK_GB, rounded up), and its os capability's architecture as a
// HW_ARCH_* trait (arch.go: amd64 asks for HW_ARCH_X86_64). A
// tosca.policies.Placement policy adds, to each of its targets, the
// traits in its properties required_traits and
// forbidden_traits (lists of trait names) and the aggregate groups in
// member_of (a list whose items are an aggregate name or a list of names,
// any of which will do).
//
// Health checks: an interface of type xosplan.interfaces.Health (xosplan's
// own types) is a health check; its operation check becomes the exec
// driver's graph.OpHealthCheck, and the template's metadata
// xosplan.health_interval the driver option graph.OptionHealthInterval.
//
// No errors are detected here beyond values of operation inputs (phase 4
// and 7 codes) and xosplan.health_interval (tosca.health_interval), and a
// resource or edge the graph refuses (tosca.internal_error, a bug of
// xosplan, reported rather than lost); an os
// architecture without a standard trait is a warning (arch.go), and so is
// a health check on a template without lifecycle operations
// (tosca.health_check).

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

func (c *compiler) render() *graph.Graph {
	g := graph.New()
	t := c.topo
	edges := 0
	for _, nt := range t.nodeList {
		edges += len(nt.reqs)
	}
	g.Grow(len(t.nodeList), edges)
	// The resources are allocated together.
	slab := make([]graph.Resource, len(t.nodeList))
	for i, nt := range t.nodeList {
		if c.Stopped() {
			return g
		}
		if nt.typ == nil {
			continue
		}
		c.addResource(g, c.renderNode(nt, &slab[i]), nt.path)
	}
	dropped := c.addEdges(g, nil)
	if len(dropped) > 0 {
		// Implicit matches closed a cycle: build the graph again without
		// them, so that only the cycles the author wrote are reported.
		fresh := graph.New()
		for _, r := range g.Resources() {
			c.addResource(fresh, r, "")
		}
		c.addEdges(fresh, dropped)
		g = fresh
	}
	c.addReads(g)
	c.applyPlacementPolicies(g)
	c.renderModelPolicies(g)
	if len(t.outputs) > 0 {
		g.Outputs = make(map[string]graph.Value, len(t.outputs))
		for _, o := range t.outputs {
			before := c.SecretReads
			g.Outputs[o.name] = c.rawValue(o.val, o.path+".value", &scope{at: o.val.Range, outputs: true})
			if c.SecretReads > before || c.definedSecret(o.n) {
				g.SensitiveOutputs = append(g.SensitiveOutputs, o.name)
			}
		}
		sort.Strings(g.SensitiveOutputs)
	}
	// What reads a secret of another resource at apply time is secret.
	secretOut := map[string]bool{}
	for _, name := range g.SensitiveOutputs {
		secretOut[name] = true
	}
	c.SpreadSecrets(g, secretOut)
	if len(secretOut) > len(g.SensitiveOutputs) {
		g.SensitiveOutputs = slices.Sorted(maps.Keys(secretOut))
	}
	// A sensitive input may reach a resource only inside a value known at
	// apply time (concat with an attribute): apply must know it whole.
	for _, name := range slices.Sorted(maps.Keys(t.inputs)) {
		if in := t.inputs[name]; in.d.sensitive && in.val != nil {
			g.Secrets = append(g.Secrets, in.val)
		}
	}
	for _, f := range c.files {
		if f.dir != "" || f == c.root {
			g.Sources = append(g.Sources, f.name)
		}
	}
	sort.Strings(g.Sources)
	return g
}

// addEdges adds an edge per matched requirement, skipping the implicit
// matches in skip. It returns the implicit matches that take part in a
// dependency cycle (none when skip is given).
func (c *compiler) addEdges(g *graph.Graph, skip map[*reqAssign]bool) map[*reqAssign]bool {
	implicit := map[string]*reqAssign{}
	for _, nt := range c.topo.nodeList {
		if c.Stopped() {
			return nil
		}
		for _, ra := range nt.reqs {
			if ra.target == nil || nt.typ == nil || ra.target.typ == nil || skip[ra] {
				continue
			}
			e := graph.Edge{Source: nt.name, Target: ra.target.name, Kind: c.edgeKind(ra), Name: ra.name, Range: ra.key}
			if ra.implicit {
				implicit[e.Source+"\x00"+e.Name] = ra
			}
			c.AddEdge(g, e, ra.path)
		}
	}
	if len(implicit) == 0 || skip != nil {
		return nil
	}
	var dropped map[*reqAssign]bool
	for _, cyc := range g.Cycles() {
		for _, e := range cyc {
			if ra, ok := implicit[e.Source+"\x00"+e.Name]; ok {
				if dropped == nil {
					dropped = map[*reqAssign]bool{}
				}
				dropped[ra] = true
			}
		}
	}
	return dropped
}

// addReads adds a graph.Reads edge from each node template to each one
// it names in get_property, get_attribute or get_operation_output, unless
// an edge already leads there: what a template reads must be applied
// first, whether or not a requirement says so. Each edge is placed at the
// first read in the file (then by path), so that the graph does not
// depend on the order values were evaluated in.
func (c *compiler) addReads(g *graph.Graph) {
	if len(c.reads) == 0 {
		return
	}
	type pair struct{ src, dst string }
	linked := map[pair]bool{}
	for _, e := range g.Edges() {
		linked[pair{e.Source, e.Target}] = true
	}
	reads := slices.Clone(c.reads)
	slices.SortStableFunc(reads, func(a, b readRef) int {
		return cmp.Or(cmp.Compare(a.reader.name, b.reader.name), cmp.Compare(a.target.name, b.target.name),
			cmp.Compare(a.at.File, b.at.File), cmp.Compare(a.at.Start.Byte, b.at.Start.Byte), cmp.Compare(a.where, b.where))
	})
	for _, r := range reads {
		k := pair{r.reader.name, r.target.name}
		if linked[k] || r.reader.typ == nil || r.target.typ == nil {
			continue
		}
		linked[k] = true
		c.AddEdge(g, graph.Edge{Source: k.src, Target: k.dst, Kind: graph.Reads, Name: r.where, Range: r.at}, r.reader.path)
	}
}

// addResource adds r to g. A node template named again in the same
// mapping is a duplicate key, reported as such (CodeDuplicateKey), and the
// first one is kept; any other refusal is a bug of xosplan, reported at
// the template (CodeInternal) rather than lost, since the plan would
// otherwise leave the template out without saying so.
func (c *compiler) addResource(g *graph.Graph, r *graph.Resource, path string) {
	err := g.AddResource(r)
	if err == nil || errors.Is(err, graph.ErrDuplicateResource) && slices.ContainsFunc(c.Diags, func(d diag.Diagnostic) bool {
		return d.Code == core.CodeDuplicateKey && d.Severity == diag.Error
	}) {
		return
	}
	c.errorf(r.Range, path, core.CodeInternal, "node template %s cannot be compiled into the graph: %v", r.Address, err)
}

func (c *compiler) edgeKind(ra *reqAssign) graph.EdgeKind {
	rel := ra.relType
	if rel == nil && ra.def != nil {
		rel = ra.def.relType
	}
	for _, k := range []struct {
		name string
		kind graph.EdgeKind
	}{
		{"tosca.relationships.HostedOn", graph.HostedOn},
		{"tosca.relationships.ConnectsTo", graph.ConnectsTo},
		{"tosca.relationships.AttachesTo", graph.AttachesTo},
		{"tosca.relationships.RoutesTo", graph.RoutesTo},
	} {
		if rel != nil && c.derivesName(rel, k.name) {
			return k.kind
		}
	}
	return graph.DependsOn
}

// renderNode renders nt into r (zero) and returns r.
func (c *compiler) renderNode(nt *nodeTpl, r *graph.Resource) *graph.Resource {
	props := c.propsOf(nt)
	spec := map[string]graph.Value{"properties": dropNil(props)}
	if caps := c.capPropsOf(nt); len(caps) > 0 {
		m := make(map[string]graph.Value, len(caps))
		for name, p := range caps {
			m[name] = map[string]graph.Value{"properties": dropNil(p)}
			if a := dropNil(nt.capAttrs[name]); len(a) > 0 {
				m[name].(map[string]graph.Value)["attributes"] = a
			}
		}
		spec["capabilities"] = m
	}
	attrs := nt.attrs
	if nt.attrsN == nil {
		attrs = c.nodeAttrDefaults(nt)
	}
	if len(attrs) > 0 {
		spec["attributes"] = dropNil(attrs)
	}
	if rels := c.relAttrsOf(nt); rels != nil {
		spec["relationships"] = rels
	}
	if len(nt.artifacts) > 0 {
		m := make(map[string]graph.Value, len(nt.artifacts))
		for _, a := range nt.artifacts {
			m[a.name] = a.file
			c.ConfineNamed(a.fileNode, a.file, filepath.Dir(nt.key.File), nt.path+".artifacts."+a.name, core.CodeArtifactOutsideRoot, "artifact")
			c.checkPackaged(a.fileNode, false, nil, nt.path+".artifacts."+a.name)
		}
		spec["artifacts"] = m
	}
	*r = graph.Resource{
		Address:    nt.name,
		Type:       nt.typ.name,
		TypeChain:  c.chainOf(nt.typ),
		Spec:       spec,
		Management: graph.Managed,
		Range:      nt.key,
	}
	r.Driver = c.renderDriver(nt)
	if r.Driver.Name == graph.DriverAnsible {
		if arts := c.artifactOption(nt); len(arts) > 0 {
			if r.Driver.Options == nil {
				r.Driver.Options = map[string]graph.Value{}
			}
			r.Driver.Options[graph.OptionArtifacts] = arts
		}
	}
	r.Sensitive = c.secretPaths(nt, spec)
	if slices.Contains(nt.directives, "select") {
		r.Management = graph.Unmanaged
		r.Lookup = assignedProps(nt.n.Get("properties"), nt.props)
	}
	c.PlacementResource(r, nt.path)
	c.applyXOS(nt, r)
	if nt.metadata != nil {
		// The filter is metadata: without any, no need to search nt.n.
		c.ImportFilter(nt.n, nt.path, nt.name, "select, must-exist", r)
	}
	// A key is shown in plans and passed to the lookup: never a secret.
	for k := range r.Lookup {
		if slices.Contains(r.Sensitive, "properties."+k) {
			delete(r.Lookup, k)
		}
	}
	r.Request = c.computeRequest(nt)
	return r
}

// assignedProps returns the properties a template assigns (assigned, its
// properties node) with their values, the keys a select template's
// object is looked up by; nil when it assigns none.
func assignedProps(assigned *yamlsrc.Node, values map[string]graph.Value) map[string]graph.Value {
	var keys map[string]graph.Value
	for _, p := range assigned.Pairs() {
		if v, ok := values[p.Key.Value]; ok && v != nil {
			if keys == nil {
				keys = map[string]graph.Value{}
			}
			keys[p.Key.Value] = v
		}
	}
	return keys
}

// secretPaths lists, sorted, the spec paths of nt's secret values: its
// sensitive properties and those derived from a secret (secrets.go),
// likewise for the capability properties in spec, and every sensitive
// attribute as "attributes.<name>".
func (c *compiler) secretPaths(nt *nodeTpl, spec map[string]graph.Value) []string {
	var out []string
	derived := c.secretNode[nt]
	if caps, ok := spec["capabilities"].(map[string]graph.Value); ok && derived {
		for _, name := range slices.Sorted(maps.Keys(caps)) {
			props, _ := caps[name].(map[string]graph.Value)["properties"].(map[string]graph.Value)
			for _, p := range slices.Sorted(maps.Keys(props)) {
				if c.SecretAt[nt.path+".capabilities."+name+".properties."+p] {
					out = append(out, "capabilities."+name+".properties."+p)
				}
			}
		}
	}
	ts := nt.typ.secretPaths()
	if derived {
		// Filtered, then sorted: most nodes have no secret property, and
		// sorting all of their type's property names for each of them was 3%
		// of a compile's allocations.
		var props []string
		for name, d := range nt.typ.props {
			if d.sensitive || c.SecretAt[nt.path+".properties."+name] {
				props = append(props, "properties."+name)
			}
		}
		slices.Sort(props)
		out = append(out, props...)
		out = append(slices.Clone(ts.attrs), out...)
	} else if len(ts.attrs)+len(ts.props) > 0 {
		// The type's alone, the same for each of its templates: a copy,
		// since what reads a secret adds to it (core.SpreadSecrets).
		out = make([]string, 0, len(ts.attrs)+len(ts.props))
		out = append(append(out, ts.attrs...), ts.props...)
	}
	if rels := c.relSecretPaths(nt); len(rels) > 0 {
		out = append(out, rels...)
		slices.Sort(out)
	}
	return out
}

// isLifecycle reports whether iface holds operations the exec driver runs.
func isLifecycle(iface string) bool { return iface == "Standard" || iface == "Configure" }

// renderDriver collects the Standard and Configure operations of a node
// template: the type's definitions overlaid with the template's
// assignments, plus the Configure operations of its requirements'
// relationships.
func (c *compiler) renderDriver(nt *nodeTpl) graph.Driver {
	// Most templates assign no operations and their types define none
	// with an implementation or inputs: skip the work (memoized per type).
	if nt.ifacesN == nil && !c.hasOpWork(nt.typ, false) && !c.relationshipsBusy(nt) {
		drv := graph.Driver{Name: graph.DriverNoop}
		c.healthInterval(nt, &drv)
		return drv
	}
	ops := map[string]graph.Operation{}
	where := map[string]core.OpSite{}
	c.nodeOps(nt, ops, where)
	// Each relationship's operations are its own (core.RelationshipOps): two
	// requirements defining the same operation both run.
	relOps := c.relationshipOps(nt)
	core.RelationshipOps(relOps, ops, where)
	drv := graph.Driver{Name: c.ChooseDriver(nt.name, nt.key.File, ops, where)}
	if check, ok := ops[graph.OpHealthCheck]; ok && (drv.Name == graph.DriverNoop || check.Implementation == "") {
		// A check needs something to check and to repair what it finds
		// failed or missing: the lifecycle operations of exec or ansible.
		if drv.Name == graph.DriverNoop {
			c.warnf(check.Range, nt.path+".interfaces", core.CodeHealthCheck,
				"the health check of node template %q never runs: it has no lifecycle operation to create what it checks", nt.name)
		}
		delete(ops, graph.OpHealthCheck)
	}
	if len(ops) > 0 {
		drv.Operations = ops
	}
	c.healthInterval(nt, &drv)
	return drv
}

// relationshipsBusy reports whether a requirement of nt has a
// relationship that may carry operations.
func (c *compiler) relationshipsBusy(nt *nodeTpl) bool {
	busy := false
	for _, ra := range nt.reqs {
		busy = busy || (ra.relType != nil && (ra.relBody != nil || ra.relTpl != nil || c.hasOpWork(ra.relType, true)))
	}
	return busy
}

// nodeOps renders the lifecycle and health-check operations of nt's own
// interfaces into ops, and where they run into where.
func (c *compiler) nodeOps(nt *nodeTpl, ops map[string]graph.Operation, where map[string]core.OpSite) {
	s := nt.selfScope()
	// Sorted, so that two interfaces with the same short name resolve the
	// same way every time.
	for _, name := range slices.Sorted(maps.Keys(nt.typ.ifaces)) {
		d := nt.typ.ifaces[name]
		short := c.ifaceShortName(name, d)
		health := c.isHealthIface(d)
		lookup := c.isLookupIface(d)
		if !isLifecycle(short) && !health && !lookup {
			continue
		}
		assigned := nt.ifacesN.Get(name)
		for opName, od := range d.ops {
			key := short + "." + opName
			if health {
				if opName != healthCheckOp {
					continue
				}
				key = graph.OpHealthCheck
			}
			if lookup {
				if opName != lookupReadOp {
					continue
				}
				key = graph.OpLookup
			}
			an := assigned.Get(opName)
			if an == nil {
				an = assigned.Get("operations").Get(opName)
			}
			op, ok := c.renderOp(od, an, d.inputs, assigned.Get("inputs"), nt.path+".interfaces."+name+"."+opName, s)
			if ok {
				ops[key] = op
				opPath := nt.path + ".interfaces." + name + "." + opName
				where[key] = core.OpSite{Path: opPath, Host: c.operationHost(opPath, nt, nt, nil)}
			}
		}
	}
}

// relationshipOps renders the Configure operations of the relationships
// of nt's requirements.
func (c *compiler) relationshipOps(nt *nodeTpl) []core.RelationshipOp {
	var relOps []core.RelationshipOp
	for _, ra := range nt.reqs {
		rel := ra.relType
		if rel == nil {
			continue
		}
		rs := &scope{at: ra.key, req: ra, node: nt}
		for _, name := range slices.Sorted(maps.Keys(rel.ifaces)) {
			d := rel.ifaces[name]
			if c.ifaceShortName(name, d) != "Configure" {
				continue
			}
			var assigned *yamlsrc.Node
			if ra.relBody != nil {
				assigned = ra.relBody.Get("interfaces").Get(name)
			} else if ra.relTpl != nil {
				assigned = ra.relTpl.n.Get("interfaces").Get(name)
			}
			for opName, od := range d.ops {
				an := assigned.Get(opName)
				if an == nil {
					an = assigned.Get("operations").Get(opName)
				}
				op, ok := c.renderOp(od, an, d.inputs, assigned.Get("inputs"), ra.path+".relationship.interfaces."+name+"."+opName, rs)
				if ok {
					relOps = append(relOps, c.relationshipOp(nt, ra, name, opName, op))
				}
			}
		}
	}
	return relOps
}

// relationshipOp is the rendered operation opName of interface name of
// ra's relationship, with where it runs.
func (c *compiler) relationshipOp(nt *nodeTpl, ra *reqAssign, name, opName string, op graph.Operation) core.RelationshipOp {
	idx, _ := ra.index()
	opPath := ra.path + ".relationship.interfaces." + name + "." + opName
	runsOn := nt
	if core.TargetSideOp(opName) {
		runsOn = ra.target
	}
	site := core.OpSite{Path: opPath, Host: c.operationHost(opPath, runsOn, nt, ra.target)}
	if ra.target != nil {
		site.Rel = map[string]graph.Value{"requirement": ra.name, "index": int64(idx), "target": ra.target.name}
	}
	return core.RelationshipOp{Name: opName, Req: ra.name, Index: idx, Op: op, Site: site}
}

// healthCheckOp is the operation of xosplan.interfaces.Health.
const healthCheckOp = "check"

// healthIfaceType is the interface type of a TOSCA health check, from
// xosplan's own types (normative.Xosplan).
const healthIfaceType = "xosplan.interfaces.Health"

// isHealthIface reports whether an interface definition is a health
// check: its type is or derives from xosplan.interfaces.Health. Its check
// operation is the exec driver's graph.OpHealthCheck.
func (c *compiler) isHealthIface(d *ifaceDef) bool {
	return d.typ != nil && c.derivesName(d.typ, healthIfaceType)
}

// lookupReadOp is the operation of xosplan.interfaces.Lookup.
const lookupReadOp = "read"

// lookupIfaceType is the interface type of a TOSCA lookup, from xosplan's
// own types (normative.Xosplan).
const lookupIfaceType = "xosplan.interfaces.Lookup"

// isLookupIface reports whether an interface definition is a lookup: its
// type is or derives from xosplan.interfaces.Lookup. Its read operation
// is the driver's graph.OpLookup.
func (c *compiler) isLookupIface(d *ifaceDef) bool {
	return d.typ != nil && c.derivesName(d.typ, lookupIfaceType)
}

// healthIntervalKey is the node template metadata key that sets how
// often a synchronizer runs the template's health check.
const healthIntervalKey = "xosplan.health_interval"

// minHealthInterval bounds xosplan.health_interval from below: a check a
// second is already more than a synchronizer should run per resource.
const minHealthInterval = time.Second

// healthInterval checks the template's metadata xosplan.health_interval
// and sets it as the driver's graph.OptionHealthInterval: a Go duration
// of at least a second, on a template with a health check (else a
// warning: nothing would use it).
func (c *compiler) healthInterval(nt *nodeTpl, drv *graph.Driver) {
	n := nt.metadata.Get(healthIntervalKey)
	if n == nil {
		return
	}
	path := nt.path + ".metadata." + healthIntervalKey
	d, err := time.ParseDuration(text(n))
	if n.Kind != yamlsrc.Scalar || err != nil || d < minHealthInterval {
		c.errorf(n.Range, path, core.CodeHealthInterval,
			"%s must be a duration of at least %s, such as \"30s\", \"5m\" or \"1h\", found %s", healthIntervalKey, minHealthInterval, describeValue(n))
		return
	}
	if !drv.HasOperation(graph.OpHealthCheck) {
		c.warnf(n.Range, path, core.CodeHealthInterval,
			"%s has no effect: node template %q has no health check (an interface of type %s)", healthIntervalKey, nt.name, healthIfaceType)
		return
	}
	drv.Options = map[string]graph.Value{graph.OptionHealthInterval: n.Value}
}

// hasOpWork reports (memoized) whether a type defines a Standard or
// health check (or, for relationships, Configure) operation with an
// implementation or inputs.
func (c *compiler) hasOpWork(t *typeDef, configure bool) bool {
	if v, ok := c.opWork[t]; ok {
		return v
	}
	work := false
	for name, d := range t.ifaces {
		short := c.ifaceShortName(name, d)
		if (configure && short != "Configure") || (!configure && !isLifecycle(short) && !c.isHealthIface(d) && !c.isLookupIface(d)) {
			continue
		}
		work = work || len(d.inputs) > 0
		for _, od := range d.ops {
			work = work || (od.impl != nil && !od.impl.IsNull()) || len(od.inputs) > 0
		}
	}
	if c.opWork == nil {
		c.opWork = map[*typeDef]bool{}
	}
	c.opWork[t] = work
	return work
}

func (c *compiler) ifaceShortName(name string, d *ifaceDef) string {
	switch {
	case name == "Standard" || (d.typ != nil && c.derivesName(d.typ, "tosca.interfaces.node.lifecycle.Standard")):
		return "Standard"
	case name == "Configure" || (d.typ != nil && c.derivesName(d.typ, "tosca.interfaces.relationship.Configure")):
		return "Configure"
	}
	return name
}

// renderOp builds one operation from its definition and assignment. It
// reports false when neither gives an implementation or inputs.
func (c *compiler) renderOp(od *opDef, an *yamlsrc.Node, ifaceInputs map[string]*yamlsrc.Node, assignedIfaceInputs *yamlsrc.Node, path string, s *scope) (graph.Operation, bool) {
	// Range tells the executor which file a relative implementation path
	// is relative to: the type's definition unless the template assigns it.
	op := graph.Operation{Range: rangeOf(od.n)}
	impl := od.impl
	var assigned []yamlsrc.Pair
	var inputs []yamlsrc.Pair
	for _, k := range slices.Sorted(maps.Keys(ifaceInputs)) {
		inputs = append(inputs, yamlsrc.Pair{Key: &yamlsrc.Node{Value: k}, Value: ifaceInputs[k]})
	}
	inputs = append(inputs, assignedIfaceInputs.Pairs()...)
	// TOSCA 1.3 operation outputs (§3.6.17), of the type's definition
	// and then of the template's assignment: name: [ SELF, attribute, … ].
	if od.n != nil && od.n.Kind == yamlsrc.Mapping {
		c.mapOpOutputs(&op, od.n, path, s)
	}
	for _, k := range slices.Sorted(maps.Keys(od.inputs)) {
		inputs = append(inputs, yamlsrc.Pair{Key: &yamlsrc.Node{Value: k}, Value: od.inputs[k]})
	}
	if an != nil {
		switch an.Kind {
		case yamlsrc.Scalar:
			if !an.IsNull() {
				impl, op.Range = an, an.Range
			}
		case yamlsrc.Mapping:
			if i := an.Get("implementation"); i != nil {
				impl, op.Range = i, i.Range
			}
			assigned = an.Get("inputs").Pairs()
			c.mapOpOutputs(&op, an, path, s)
		}
	}
	c.renderImpl(&op, impl, path, s)
	if len(inputs)+len(assigned) > 0 {
		c.renderOpInputs(&op, od, inputs, assigned, path, s)
	}
	if op.Implementation == "" && len(op.Inputs) == 0 {
		return op, false
	}
	return op, true
}

// mapOpOutputs adds the operation outputs of n (a definition or an
// assignment) to op.Outputs.
func (c *compiler) mapOpOutputs(op *graph.Operation, n *yamlsrc.Node, path string, s *scope) {
	for _, p := range n.Get("outputs").Pairs() {
		if op.Outputs == nil {
			op.Outputs = map[string]string{}
		}
		op.Outputs[p.Key.Value] = c.outputAttribute(p.Value, s, path+".outputs."+p.Key.Value)
	}
}

// renderImpl sets op's implementation, dependencies and timeout from impl,
// a file or artifact name or a map with primary, dependencies,
// operation_host and timeout.
func (c *compiler) renderImpl(op *graph.Operation, impl *yamlsrc.Node, path string, s *scope) {
	// The executor runs an implementation from the folder of the node
	// template's file; that is where the root check starts too.
	base := ""
	var node *nodeTpl
	var artifacts []*artifactDef
	if s != nil && s.node != nil {
		node = s.node
		base = filepath.Dir(node.key.File)
		artifacts = node.artifacts
	}
	named := func(n *yamlsrc.Node, where string) string {
		if a := c.nodeArtifact(node, text(n)); a != nil {
			if where == ".implementation" || where == ".implementation.primary" {
				c.markPlaybook(path, a.typ)
			}
			return c.artifactImplementation(a, base, path+where)
		}
		c.ConfineNamed(n, text(n), base, path+where, core.CodeImplOutsideRoot, "implementation")
		c.checkPackaged(n, true, artifacts, path+where)
		return text(n)
	}
	switch {
	case impl == nil || impl.IsNull():
	case impl.Kind == yamlsrc.Scalar:
		op.Implementation = named(impl, ".implementation")
	case impl.Kind == yamlsrc.Mapping:
		primary := impl.Get("primary")
		if primary != nil && primary.Kind == yamlsrc.Mapping {
			if tn := primary.Get("type"); tn.IsString() {
				c.markPlaybook(path, c.lookup(kArtifact, tn.Value))
			}
			primary = primary.Get("file")
		}
		op.Implementation = named(primary, ".implementation.primary")
		for _, d := range impl.Get("dependencies").Items() {
			if d.Kind != yamlsrc.Scalar {
				d = d.Get("file")
			}
			if d != nil {
				op.Dependencies = append(op.Dependencies, named(d, ".implementation.dependencies"))
			}
		}
		c.noteOperationHost(impl.Get("operation_host"), path)
		if to := impl.Get("timeout"); to != nil {
			if secs, ok := to.Int(); ok && secs > 0 {
				op.Timeout = time.Duration(secs) * time.Second
			} else {
				c.errorf(to.Range, path+".implementation.timeout", core.CodeValue, "timeout must be a positive integer number of seconds, found %s", describeValue(to))
			}
		}
	}
}

// renderOpInputs sets op.Inputs from the interface's and the operation's
// input definitions and values (inputs) and the template's assigned
// values (assigned), and op.Sensitive to those whose values are secrets.
func (c *compiler) renderOpInputs(op *graph.Operation, od *opDef, inputs, assigned []yamlsrc.Pair, path string, s *scope) {
	op.Inputs = make(map[string]graph.Value, len(inputs)+len(assigned))
	// secret marks the inputs whose values are secrets (secrets.go).
	var secret map[string]bool
	mark := func(name string, before int) {
		if c.SecretReads > before {
			if secret == nil {
				secret = map[string]bool{}
			}
			secret[name] = true
		}
	}
	for _, p := range inputs {
		before := c.SecretReads
		v, ok := c.definedInputValue(p.Value)
		if !ok {
			continue
		}
		op.Inputs[p.Key.Value] = c.rawValue(v, path+".inputs."+p.Key.Value, s)
		mark(p.Key.Value, before)
	}
	// A template's input values are checked against the operation's
	// input definitions (TOSCA 1.3 parameter definitions). A value
	// assigned to an input defined as sensitive stays secret.
	for _, p := range assigned {
		ip := path + ".inputs." + p.Key.Value
		before := c.SecretReads
		if d := c.opInputDef(od, p.Key.Value); d != nil {
			op.Inputs[p.Key.Value] = c.checkAssigned(d, p.Value, ip, "operation input "+quote(p.Key.Value), s)
		} else {
			op.Inputs[p.Key.Value] = c.rawValue(p.Value, ip, s)
		}
		mark(p.Key.Value, before)
	}
	for name := range secret {
		op.Sensitive = append(op.Sensitive, name)
	}
	sort.Strings(op.Sensitive)
}

// definedInputValue is the value of an input of an interface or operation
// definition: an input definition (a map with a type, or of definition
// keynames with a default or value: 1.3 §3.6.14 makes type optional in a
// parameter definition) contributes its default or value, not itself, and
// nothing (false) when it has neither. A sensitive definition counts as a
// secret read.
func (c *compiler) definedInputValue(v *yamlsrc.Node) (*yamlsrc.Node, bool) {
	if v.Kind == yamlsrc.Mapping && (v.Get("type") != nil && len(v.Content) >= 2 || untypedParamDef(v)) {
		if _, isFn := functionName(v); !isFn {
			if c.definedSecret(v) {
				c.SecretReads++
			}
			if dv := v.Get("default"); dv != nil {
				return dv, true
			} else if vv := v.Get("value"); vv != nil {
				return vv, true
			}
			return nil, false
		}
	}
	return v, true
}

// nodeArtifact returns the artifact of nt named name: the template's own
// (which may refine its type's), else one its type defines or inherits;
// nil for none. TOSCA 1.3 (§3.6.16) lets an operation's implementation,
// primary and dependencies name an artifact rather than a file.
func (c *compiler) nodeArtifact(nt *nodeTpl, name string) *artifactDef {
	if nt == nil || name == "" {
		return nil
	}
	for _, a := range nt.artifacts {
		if a.name == name {
			return a
		}
	}
	if nt.typ != nil {
		return nt.typ.artifacts[name]
	}
	return nil
}

// artifactOption is the graph.OptionArtifacts value of nt: every
// artifact of the node, its type's (declared or inherited) and its
// template's (which win), each file written relative to the template's
// folder (artifactFile). Those a template declares were checked where
// renderNode puts them in the spec; a type's are confined here, as
// xOpera links them beside the playbooks too.
func (c *compiler) artifactOption(nt *nodeTpl) map[string]graph.Value {
	base := filepath.Dir(nt.key.File)
	out := map[string]graph.Value{}
	if nt.typ != nil {
		for _, name := range slices.Sorted(maps.Keys(nt.typ.artifacts)) {
			a := nt.typ.artifacts[name]
			if a.file == "" {
				continue
			}
			out[name] = c.artifactFile(a, base)
			c.confineTypeArtifact(a, base, nt.path+".artifacts."+name)
		}
	}
	for _, a := range nt.artifacts {
		if a.file != "" {
			out[a.name] = c.artifactFile(a, base)
		}
	}
	return out
}

// confineTypeArtifact warns of a type's artifact whose file lies outside
// the configuration root (tosca.artifact_outside_root).
func (c *compiler) confineTypeArtifact(a *artifactDef, base, path string) {
	if a.fileNode == nil {
		return
	}
	if f := c.files[fileKey(a.fileNode.Range.File)]; f == nil || f.dir == "" {
		return
	}
	c.ConfineNamed(a.fileNode, a.file, filepath.Dir(a.fileNode.Range.File), path, core.CodeArtifactOutsideRoot, "artifact")
}

// artifactFile returns the file of artifact a as seen from base, the
// folder of the node template's file: as written when the template's own
// folder declares it, else as artifactRelative gives it
// ("types/files/data.txt" for "files/data.txt" in types/app.yaml).
func (c *compiler) artifactFile(a *artifactDef, base string) string {
	resolved, ok := c.artifactRelative(a, base)
	if !ok || filepath.Dir(a.fileNode.Range.File) == base {
		return a.file
	}
	return resolved
}

// artifactRelative returns artifact a's file taken from the folder of the
// file that declares it (a type's artifact may be written in an imported
// file of another folder), written relative to base; false for an
// absolute file, a URL or a file declared in an embedded type file, which
// has no folder.
func (c *compiler) artifactRelative(a *artifactDef, base string) (string, bool) {
	file := filepath.FromSlash(a.file)
	if a.fileNode == nil || file == "" || filepath.IsAbs(file) || strings.Contains(a.file, "://") {
		return "", false
	}
	if f := c.files[fileKey(a.fileNode.Range.File)]; f == nil || f.dir == "" {
		return "", false
	}
	resolved := filepath.Join(filepath.Dir(a.fileNode.Range.File), file)
	if rel, err := filepath.Rel(base, resolved); err == nil {
		resolved = rel
	}
	return filepath.ToSlash(resolved), true
}

// artifactImplementation returns the file an implementation naming
// artifact a runs: the artifact's file, taken from the folder of the file
// that declares it, written relative to base, the folder the executor
// runs the resource's operations from and resolves the implementation in
// (artifactRelative). So it is run, confined to the root and digested as
// any implementation written as a path is. An absolute file or a URL is
// left as written; so is a file declared in an embedded type file.
func (c *compiler) artifactImplementation(a *artifactDef, base, path string) string {
	resolved, ok := c.artifactRelative(a, base)
	if !ok {
		return a.file
	}
	c.ConfineNamed(a.fileNode, resolved, base, path, core.CodeImplOutsideRoot, "implementation")
	c.checkPackaged(a.fileNode, false, nil, path)
	return resolved
}

// untypedParamDef reports whether n, an operation input of a type, is a
// parameter definition written without a type ({default: …}, as xOpera's
// templates write them): a map with a default or a value whose keys are
// all definition keynames.
func untypedParamDef(n *yamlsrc.Node) bool {
	if n.Get("default") == nil && n.Get("value") == nil {
		return false
	}
	for _, p := range n.Pairs() {
		if !slices.Contains(propDefKeys(), p.Key.Value) {
			return false
		}
	}
	return true
}

// opInputDef returns the definition of an operation input when the type
// gives one (a map with a type naming a known type), memoized per operation.
func (c *compiler) opInputDef(od *opDef, name string) *propDef {
	if d, ok := od.defs[name]; ok {
		return d
	}
	var d *propDef
	if n := od.inputs[name]; n != nil && n.Kind == yamlsrc.Mapping {
		if tn := n.Get("type"); tn.IsString() {
			if _, isFn := functionName(n); !isFn && (isPrimitive(tn.Value) || c.lookup(kData, tn.Value) != nil) {
				saved := c.inTypes
				c.inTypes = true
				d = c.readPropDef(&yamlsrc.Node{Kind: yamlsrc.Scalar, Value: name, Range: n.Range}, n, "inputs."+name, "input", true, nil)
				c.inTypes = saved
			}
		}
	}
	if od.defs == nil {
		od.defs = map[string]*propDef{}
	}
	od.defs[name] = d
	return d
}

// computeRequest builds the placement request of a Compute node.
func (c *compiler) computeRequest(nt *nodeTpl) *graph.PlacementRequest {
	if !c.derivesName(nt.typ, "tosca.nodes.Compute") {
		return nil
	}
	req := &graph.PlacementRequest{Resources: map[string]int64{}}
	caps := c.capPropsOf(nt)
	host := caps["host"]
	if v, ok := asInt(host["num_cpus"]); ok {
		req.Resources["VCPU"] = v
	}
	if v, ok := asFloat(host["mem_size"], "scalar-unit.size"); ok {
		req.Resources["MEMORY_MB"] = int64(math.Ceil(v / 1e6))
	}
	if v, ok := asFloat(host["disk_size"], "scalar-unit.size"); ok {
		req.Resources["DISK_GB"] = int64(math.Ceil(v / 1e9))
	}
	if arch, ok := caps["os"]["architecture"].(string); ok && arch != "" {
		if t, known := archTrait(arch); known {
			req.Required = append(req.Required, t)
		} else {
			at := nt.key
			if n := nt.capsN.Get("os").Get("properties").Get("architecture"); n != nil {
				at = n.Range
			}
			c.warnf(at, nt.path+".capabilities.os.properties.architecture", core.CodeValue,
				"architecture %q has no standard HW_ARCH_* trait, so placement does not constrain the architecture of node template %q", arch, nt.name)
		}
	}
	if len(req.Resources) == 0 {
		req.Resources = nil
	}
	if req.Resources == nil && len(req.Required) == 0 {
		return nil
	}
	return req
}

func asInt(v graph.Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	}
	return 0, false
}

// asFloat reads a number, or a scalar-unit value ("4096 MB") in base units.
func asFloat(v graph.Value, unitType string) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := values.ScalarUnit(unitType, x)
		return f, err == nil
	}
	return 0, false
}

func (c *compiler) applyPlacementPolicies(g *graph.Graph) {
	for _, pt := range c.topo.policies {
		if pt.typ == nil || !c.derivesName(pt.typ, "tosca.policies.Placement") {
			continue
		}
		req := strList(pt.props["required_traits"])
		forb := strList(pt.props["forbidden_traits"])
		var member [][]string
		if l, ok := pt.props["member_of"].([]graph.Value); ok {
			for _, it := range l {
				switch x := it.(type) {
				case string:
					member = append(member, []string{x})
				case []graph.Value:
					member = append(member, strList(x))
				}
			}
		}
		if len(req)+len(forb)+len(member) == 0 {
			continue
		}
		for _, nt := range pt.targets {
			r, ok := g.Resource(nt.name)
			if !ok {
				continue
			}
			if r.Request == nil {
				r.Request = &graph.PlacementRequest{}
			}
			r.Request.Required = append(r.Request.Required, req...)
			r.Request.Forbidden = append(r.Request.Forbidden, forb...)
			r.Request.MemberOf = append(r.Request.MemberOf, member...)
			r.Request.Policies = append(r.Request.Policies, pt.name)
		}
	}
}

func strList(v graph.Value) []string {
	l, _ := v.([]graph.Value)
	out := make([]string, 0, len(l))
	for _, it := range l {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
