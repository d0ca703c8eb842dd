package tosca2

// Phase 9 (2.0) — render: the graph.Graph of a 2.0 service template, as
// for 1.x (render.go).
//
//   - Each node template is one resource at its name; with count, one per
//     representation at name[i] (§14.1), so that plan and apply address
//     each.
//   - Each requirement assigned a node template is an edge from every
//     representation of the source to every representation of the
//     target, its kind from the relationship type's name (HostedOn,
//     ConnectsTo, AttachesTo, RoutesTo, else depends_on); a requirement
//     fulfilled by a node type is left to the orchestrator.
//   - The operations of the interfaces named or typed Standard are
//     exec-driver operations "Standard.<operation>" (the simple profile's
//     lifecycle), and those of the Configure interfaces of a template's
//     relationships operations of the source, each relationship's its own
//     (graph.RelationshipOperationKey, core.RelationshipOps), as for 1.x; an
//     assignment with a count runs them once for each relationship it
//     makes.
//     An implementation (§11.8) is a file, the name of an artifact of the
//     node template or its type, or an inline artifact definition, with
//     dependencies of the same forms and a timeout; an artifact's file is
//     taken from the folder of the file that declares it. Every file is
//     written relative to the template's folder, where operations run,
//     and confined to the configuration root.
//     An operation's inputs are those the template assigns over the
//     values (else defaults) its type's operation and interface input
//     definitions give; in a relationship's operations SELF is the
//     relationship.
//   - An allocation (§8.5.5) is a placement request of the source
//     representation: num_cpus (or num-cpu) → VCPU, mem_size → MEMORY_MB,
//     disk_size → DISK_GB (sizes read as "<number> <unit>" in bytes).
//   - Values that only apply time knows ($get_attribute, …) stay
//     graph.Unknown in the spec.

import (
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// isCounted reports whether nd's template writes count: it has one
// representation per count, addressed name[i].
func (nd *node) isCounted() bool { return nd.keys.count != nil }

// addresses lists the resource addresses of a node template's
// representations, made once (render runs once the counts are known)
// and shared: callers must not change the list.
func addresses(nd *node) []string {
	if nd.addrs != nil {
		return nd.addrs
	}
	if !nd.isCounted() {
		nd.one[0] = nd.name
		nd.addrs = nd.one[:]
		return nd.addrs
	}
	nd.addrs = make([]string, nd.count)
	for i := range nd.addrs {
		nd.addrs[i] = nd.name + "[" + core.Itoa(int64(i)) + "]"
	}
	return nd.addrs
}

func (c *compiler) render() *graph.Graph {
	// A template with errors is rendered as far as it resolved, as 1.x
	// does: a synchronizer holds the resources the errors belong to and
	// reconciles the others (config.Result.Holds). A template whose type
	// did not resolve is left out, and so is a dependency on it. Counts
	// or values over their budget are never expanded.
	partial := c.Diags.HasErrors()
	if partial && slices.ContainsFunc(c.Diags, func(d diag.Diagnostic) bool {
		return d.Code == core.CodeExpansion || d.Code == core.CodeTooComplex
	}) {
		return nil
	}
	g := graph.New()
	topo := c.state.topo
	for _, f := range c.files {
		if f.dir != "" || f == c.root {
			g.Sources = append(g.Sources, f.name)
		}
	}
	slices.Sort(g.Sources)
	// Room for every resource, and for an edge per requirement of each
	// (exact without count; with, the store grows past it).
	resources, edges := 0, 0
	for _, nd := range topo.nodes {
		if nd.typ == nil {
			continue
		}
		n := len(addresses(nd))
		resources += n
		for _, ra := range nd.reqs {
			if ra.target != nil {
				edges += n
			}
		}
	}
	g.Grow(resources, edges)
	// One allocation for the resources, as 1.x does.
	c.state.resources = make([]graph.Resource, resources)
	for _, nd := range topo.nodes {
		if nd.typ == nil {
			continue
		}
		counted := nd.isCounted()
		for i, addr := range addresses(nd) {
			if c.Stopped() {
				return nil
			}
			nd.index = int64(i)
			if counted {
				// $node_index gives each representation its own values.
				c.nodeValues(c.root, nd)
			}
			r := c.renderNode(nd, addr)
			if err := g.AddResource(r); err != nil {
				c.Errorf(nd.key, nd.path, core.CodeUnknownTemplate, "node template %q: %v", nd.name, err)
			}
		}
		nd.index = nil
	}
	for _, nd := range topo.nodes {
		for _, ra := range nd.reqs {
			if ra.target == nil {
				continue
			}
			kind := edgeKind(ra.relType)
			all := addresses(ra.target)
			var picked pickSet
			for i, src := range addresses(nd) {
				if c.Stopped() {
					return nil
				}
				dsts := all
				if i < len(ra.picks) && ra.picks[i] != nil {
					dsts = nil
					for _, idx := range picked.distinct(ra.picks[i], len(all)) {
						dsts = append(dsts, address(ra.target, idx))
					}
				}
				for _, dst := range dsts {
					if _, rendered := g.Resource(dst); src == dst || (partial && !rendered) {
						continue
					}
					c.AddEdge(g, graph.Edge{Source: src, Target: dst, Kind: kind, Name: ra.name, Range: ra.key}, ra.path)
				}
			}
		}
	}
	rs := g.Resources()
	reads := c.addReads(g, rs)
	if len(topo.outputs) > 0 {
		g.Outputs = topo.outputs
	}
	c.renderSecrets(g, reads)
	finiteGraph(g, rs)
	return g
}

// addReads orders a resource after each other resource whose state its
// values read (an attribute(address, …) unknown in its spec or operation
// inputs), as 1.x does (addReads), where no edge joins them already. rs
// are g's resources; reads reports whether any resource reads one.
func (c *compiler) addReads(g *graph.Graph, rs []*graph.Resource) (reads bool) {
	type pair struct{ src, dst string }
	// The edges are looked at for the first read: most templates have
	// none.
	var linked map[pair]bool
	for _, r := range rs {
		addrs := core.AttributeReads(r)
		reads = reads || len(addrs) > 0
		for _, t := range addrs {
			if _, known := g.Resource(t); !known || t == r.Address {
				continue
			}
			if linked == nil {
				linked = map[pair]bool{}
				for _, e := range g.Edges() {
					linked[pair{e.Source, e.Target}] = true
				}
			}
			k := pair{r.Address, t}
			if linked[k] {
				continue
			}
			linked[k] = true
			c.AddEdge(g, graph.Edge{Source: r.Address, Target: t, Kind: graph.Reads, Range: r.Range}, "")
		}
	}
	return reads
}

// edgeKind maps a relationship type to an edge kind by its chain.
func edgeKind(t *typeDef) graph.EdgeKind {
	if t == nil {
		return graph.DependsOn
	}
	for _, name := range t.chain {
		short := name[strings.LastIndex(name, ":")+1:]
		switch short {
		case "HostedOn":
			return graph.HostedOn
		case "ConnectsTo":
			return graph.ConnectsTo
		case "AttachesTo":
			return graph.AttachesTo
		case "RoutesTo":
			return graph.RoutesTo
		}
	}
	return graph.DependsOn
}

// newResource returns a zero resource from the slab render sized, or a
// new one past it (a count the sizing did not know).
func (c *compiler) newResource() *graph.Resource {
	st := c.state
	if len(st.resources) == 0 {
		return &graph.Resource{}
	}
	r := &st.resources[0]
	st.resources = st.resources[1:]
	return r
}

func (c *compiler) renderNode(nd *node, addr string) *graph.Resource {
	spec := map[string]graph.Value{"properties": core.DropNil(nd.props)}
	var m map[string]graph.Value
	for name, p := range nd.caps {
		if len(p) > 0 {
			if m == nil {
				m = map[string]graph.Value{}
			}
			m[name] = map[string]graph.Value{"properties": core.DropNil(p)}
		}
	}
	if len(m) > 0 {
		spec["capabilities"] = m
	}
	if len(nd.attrs) > 0 {
		spec["attributes"] = core.DropNil(nd.attrs)
	}
	if rels := relAttrsOf(nd); rels != nil {
		spec["relationships"] = rels
	}
	keys := &nd.keys
	if nd.isCounted() {
		spec["node_index"] = nd.index
	}
	r := c.newResource()
	*r = graph.Resource{
		Address: addr,
		Type:    nd.typ.name,
		// Shared by the resources of the type, as 1.x does; clipped so
		// that an append copies.
		TypeChain:  slices.Clip(nd.typ.chain),
		Spec:       spec,
		Management: graph.Managed,
		Range:      nd.key,
	}
	for _, d := range keys.directives.Items() {
		if d.Value == "select" {
			r.Management = graph.Unmanaged
		}
	}
	r.Driver = c.renderDriver(nd)
	if r.Driver.Name == graph.DriverAnsible {
		if arts := c.artifactOption(nd); len(arts) > 0 {
			r.Driver.Options = map[string]graph.Value{graph.OptionArtifacts: arts}
		}
	}
	c.PlacementResource(r, nd.path)
	r.Sensitive = c.secretPaths(nd, spec)
	if r.Management == graph.Unmanaged {
		r.Lookup = lookupKeys(nd, r.Sensitive)
	}
	// A node with a count gives each of its nodes the filter; each must
	// find its own object. The filter is metadata (a template without
	// has none).
	if keys.metadata != nil {
		c.ImportFilter(nd.n, nd.path, nd.name, "select", r)
	}
	r.Request = c.allocationRequest(nd)
	return r
}

// artifactOption is the graph.OptionArtifacts value of nd: every
// artifact of the node, its type's (declared or inherited) and its
// template's (nodeArtifact: the template's wins), each file taken from
// the folder of the file that declares it, written relative to the
// template's folder and confined to the configuration root
// (artifactFile). One in a repository is left out: xosplan fetches
// nothing.
func (c *compiler) artifactOption(nd *node) map[string]graph.Value {
	names := map[string]bool{}
	for name := range nd.typ.artifacts {
		names[name] = true
	}
	for _, p := range nd.n.Get("artifacts").Pairs() {
		names[p.Key.Value] = true
	}
	base := filepath.Dir(nd.key.File)
	out := map[string]graph.Value{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		a := nodeArtifact(nd, name)
		if a == nil || a.Kind != yamlsrc.Mapping || a.Get("repository") != nil {
			continue
		}
		if file, ok := c.artifactFile(a, base, nd.path+".artifacts."+name, core.CodeArtifactOutsideRoot, "artifact"); ok {
			out[name] = file
		}
	}
	return out
}

// lookupIface and lookupReadOp name xosplan's lookup (io.xosplan:1.0's
// interface type Lookup, its operation read).
const (
	lookupIface  = "Lookup"
	lookupReadOp = "read"
)

// lookupKeys returns the keys the object of an unmanaged node is looked
// up by: the properties its template assigns, but for the secret ones
// (sensitive: the resource's Sensitive paths); nil when none.
func lookupKeys(nd *node, sensitive []string) map[string]graph.Value {
	var keys map[string]graph.Value
	for _, p := range nd.n.Get("properties").Pairs() {
		v, ok := nd.props[p.Key.Value]
		if !ok || v == nil || slices.Contains(sensitive, "properties."+p.Key.Value) {
			continue
		}
		if keys == nil {
			keys = map[string]graph.Value{}
		}
		keys[p.Key.Value] = v
	}
	return keys
}

// renderDriver collects the operations of the node template's Standard
// interface and of the Configure interfaces of its requirements'
// relationships (as 1.x does: on the source, core.RelationshipOps).
func (c *compiler) renderDriver(nd *node) graph.Driver {
	drv := graph.Driver{Name: graph.DriverNoop}
	// Most templates have no operation to run: the maps are made for the
	// first.
	var ops map[string]graph.Operation
	var where map[string]core.OpSite
	set := func(key string, op graph.Operation, site core.OpSite) {
		if ops == nil {
			ops, where = map[string]graph.Operation{}, map[string]core.OpSite{}
		}
		ops[key] = op
		where[key] = site
	}
	ifaces := nd.keys.interfaces
	c.lifecycleOps(nd, nil, "Standard", nd.typ, ifaces, nd.path, ".interfaces", func(name string, op graph.Operation, site core.OpSite) {
		set("Standard."+name, op, site)
	})
	var relOps []core.RelationshipOp
	for _, ra := range nd.reqs {
		if ra.relType == nil {
			continue
		}
		assigned := ra.rel.Get("interfaces")
		if tpl := c.state.topo.rels[core.Text(ra.rel)]; tpl != nil {
			assigned = tpl.Get("interfaces")
		}
		if assigned == nil && !c.hasOps(ra.relType, graph.RelationshipInterface) {
			// Nothing to run, for any of its relationships.
			continue
		}
		first := int(firstRelIndex(nd, ra))
		// An assignment with a count makes count relationships (§14.1):
		// each runs its operations, evaluated for it ($relationship_index,
		// its target), its outputs set on its own record. What they all
		// find wrong is reported once (diag.Diagnostics.Sort).
		for r := range relCount(ra) {
			c.lifecycleOps(nd, &relEnd{ra: ra, src: nd, srcIdx: -1, r: r}, graph.RelationshipInterface, ra.relType, assigned, ra.path, ".relationship.interfaces", func(name string, op graph.Operation, site core.OpSite) {
				relOps = append(relOps, core.RelationshipOp{Name: name, Req: ra.name, Index: first + int(r), Op: op, Site: site})
			})
		}
	}
	if len(relOps) > 0 {
		if ops == nil {
			ops, where = map[string]graph.Operation{}, map[string]core.OpSite{}
		}
		core.RelationshipOps(relOps, ops, where)
	}
	// The read of xosplan's Lookup interface (io.xosplan:1.0) finds an
	// unmanaged object.
	c.lifecycleOps(nd, nil, lookupIface, nd.typ, ifaces, nd.path, ".interfaces", func(name string, op graph.Operation, site core.OpSite) {
		if name == lookupReadOp {
			set(graph.OpLookup, op, site)
		}
	})
	if len(ops) > 0 {
		drv.Name = c.ChooseDriver(nd.name, nd.key.File, ops, where)
		if drv.Name == graph.DriverNoop {
			// Operations without implementations (inputs only) are
			// exec's, as they always were.
			drv.Name = graph.DriverExec
		}
		drv.Operations = ops
	}
	return drv
}

// lifecycleKey is a type and an interface kind (hasOps).
type lifecycleKey struct {
	t    *typeDef
	kind string
}

// hasOps reports whether an interface of typ named or typed kind defines
// an operation with an implementation; without, only a template's
// assignments can give one. Kept per type and kind.
func (c *compiler) hasOps(typ *typeDef, kind string) bool {
	return perType(&c.state.hasOps, lifecycleKey{typ, kind}, findOps)
}

// findOps computes hasOps for k's type and kind.
func findOps(k lifecycleKey) bool {
	has := false
	for name, d := range k.t.ifaces {
		if !isKind(name, d, k.kind) {
			continue
		}
		for _, od := range d.ops {
			has = has || od.impl != nil
		}
	}
	return has
}

// isKind reports whether interface name (d) is named or typed kind.
func isKind(name string, d *iface, kind string) bool {
	return name == kind || (d.typ != nil && slices.ContainsFunc(d.typ.chain, func(s string) bool { return s == kind || strings.HasSuffix(s, ":"+kind) }))
}

// lifecycleOps gives add, with their names and where they are written
// and run, the operations with
// an implementation of the interfaces of typ named or typed kind
// (Standard, Configure), the type's definitions overlaid with the
// assignments under assigned, written at owner+under (owner the node's
// or requirement's path); rel is the relationship whose operations
// they are (nil for the node's own).
func (c *compiler) lifecycleOps(nd *node, rel *relEnd, kind string, typ *typeDef, assigned *yamlsrc.Node, owner, under string, add func(name string, op graph.Operation, site core.OpSite)) {
	if assigned == nil && !c.hasOps(typ, kind) {
		return
	}
	base := filepath.Dir(nd.key.File)
	for _, name := range sortedOnce(&typ.ifaceOrder, typ.ifaces) {
		d := typ.ifaces[name]
		if !isKind(name, d, kind) {
			continue
		}
		given := assigned.Get(name).Get("operations")
		for _, opName := range sortedOnce(&d.opOrder, d.ops) {
			od := d.ops[opName]
			impl, at := od.impl, od.n
			var inputs *yamlsrc.Node
			if an := given.Get(opName); an != nil {
				at = an
				if an.IsString() {
					impl = an
				} else if im := an.Get("implementation"); im != nil {
					impl = im
				}
				inputs = an.Get("inputs")
			}
			if impl == nil {
				// Most operations have none: no paths built for them.
				continue
			}
			opPath := owner + under + "." + name + ".operations." + opName
			op, ok := c.implementation(nd, impl, base, opPath+".implementation")
			if !ok {
				continue
			}
			c.markPlaybook(nd, impl, opPath)
			site := core.OpSite{Path: opPath, Host: func() graph.Value { return ansibleHost(nd) }}
			if rel != nil {
				// SELF in a relationship's operation is the relationship
				// (§9.9: the local node or relationship): what its
				// playbook reports that no output maps sets the
				// relationship's attribute, as in 1.x.
				if end, ok := rel.target(); ok {
					idx := firstRelIndex(nd, rel.ra) + max(rel.r, 0)
					site.Rel = map[string]graph.Value{"requirement": rel.ra.name, "index": idx, "target": address(end.node, end.idx)}
				}
			}
			target := rel.targetNode()
			if target != nil && core.TargetSideOp(opName) {
				site.Host = func() graph.Value { return ansibleHost(target) }
			}
			switch oh := core.Text(impl.Get("operation_host")); oh {
			case "ORCHESTRATOR":
				site.Host = func() graph.Value { return nil }
			case "SELF", "HOST", "SOURCE":
				site.Host = func() graph.Value { return ansibleHost(nd) }
			case "TARGET":
				if target != nil {
					site.Host = func() graph.Value { return ansibleHost(target) }
				}
			}
			op.Range = core.RangeOf(at)
			op.Outputs = c.opOutputs(nd, rel, od.n, given.Get(opName))
			if inputs != nil && inputs.Kind != yamlsrc.Mapping {
				inputs = nil
			}
			defined := definedInputs(d, od, inputs)
			if inputs != nil || len(defined) > 0 {
				ev := &eval{c: c, f: c.root, node: nd}
				if rel != nil {
					ev.rel = rel.ra.relCtx()
					if relCount(rel.ra) > 1 {
						ev.rel.index, ev.rel.known = rel.r, true
					}
					ev.rel.once = "the Configure operations"
				}
				op.Inputs = map[string]graph.Value{}
				input := func(ev *eval, name string, v *yamlsrc.Node) {
					// An input secret by its definition or by what it
					// reads is passed, but never shown.
					before := c.SecretReads
					if od.inputs[name].secret() || d.inputs[name].secret() {
						c.enterSecret(v)()
					}
					op.Inputs[name] = ev.evalAt(v, opPath+".inputs."+name)
					if c.SecretReads > before && !slices.Contains(op.Sensitive, name) {
						op.Sensitive = append(op.Sensitive, name)
					}
				}
				for _, name := range slices.Sorted(maps.Keys(defined)) {
					// A definition's value reads the names of its own file.
					dev := *ev
					dev.f = defined[name].f
					input(&dev, name, defined[name].value)
				}
				for _, p := range inputs.Pairs() {
					input(ev, p.Key.Value, p.Value)
				}
				slices.Sort(op.Sensitive)
			}
			add(opName, op, site)
		}
	}
}

// definedInputs returns the inputs of operation od of interface d that
// their definitions give a value (§11.5, outgoing parameters), the
// operation's over the interface's, and that the template's assignment
// (assigned) does not: TOSCA 2.0 calls a definition's "value" the value
// to pass; its default stands in when it has none.
func definedInputs(d *iface, od *opDef, assigned *yamlsrc.Node) map[string]*prop {
	out := map[string]*prop{}
	for _, defs := range []map[string]*prop{d.inputs, od.inputs} {
		for name, p := range defs {
			v := p.value
			if v == nil {
				v = p.def
			}
			if v == nil || v.IsNull() {
				continue
			}
			if _, given := assigned.GetPair(name); given {
				continue
			}
			cp := *p
			cp.value = v
			out[name] = &cp
		}
	}
	return out
}

// implementation reads an operation implementation definition (§11.8)
// into the operation that runs it: its primary artifact and its
// dependencies (implArtifact), and its timeout in seconds. ok is false
// without a primary artifact: nothing runs.
func (c *compiler) implementation(nd *node, impl *yamlsrc.Node, base, path string) (graph.Operation, bool) {
	var op graph.Operation
	if impl == nil {
		return op, false
	}
	primary, at := impl, path
	if impl.Kind == yamlsrc.Mapping {
		primary, at = impl.Get("primary"), path+".primary"
	}
	file, ok := c.implArtifact(nd, primary, base, at)
	if !ok {
		return op, false
	}
	op.Implementation = file
	if impl.Kind != yamlsrc.Mapping {
		return op, true
	}
	for i, d := range impl.Get("dependencies").Items() {
		if f, ok := c.implArtifact(nd, d, base, path+".dependencies["+core.Itoa(int64(i))+"]"); ok {
			op.Dependencies = append(op.Dependencies, f)
		}
	}
	if to := impl.Get("timeout"); to != nil {
		if secs, ok := to.Int(); ok && secs > 0 {
			op.Timeout = time.Duration(secs) * time.Second
		} else {
			c.Errorf(to.Range, path+".timeout", core.CodeValue, "timeout must be a positive integer number of seconds, found %s", to.Describe())
		}
	}
	return op, true
}

// implArtifact is the file an artifact of an implementation runs,
// written relative to base, the folder of the node template, where
// operations run: an inline artifact definition's file, or that of the
// artifact of the node template (or of its type) the name n names,
// taken from the folder of the file that declares it (artifactFile);
// else n is a file relative to base. Either is confined to the root and
// digested as any operation's file. ok is false for no artifact.
func (c *compiler) implArtifact(nd *node, n *yamlsrc.Node, base, path string) (string, bool) {
	switch {
	case n == nil:
		return "", false
	case n.Kind == yamlsrc.Mapping:
		return c.implFile(n, base, path)
	case !n.IsString() || n.Value == "":
		return "", false
	}
	if a := nodeArtifact(nd, n.Value); a != nil {
		return c.implFile(a, base, path)
	}
	c.ConfineNamed(n, n.Value, base, path, core.CodeImplOutsideRoot, "implementation")
	return n.Value, true
}

// implFile is the file of the artifact definition a that an operation
// runs. One in a repository the declaring file sees (findRepo) is the
// repository's URL joined with the file: xosplan fetches nothing, so
// apply fails on it rather than run a local file of the same name.
func (c *compiler) implFile(a *yamlsrc.Node, base, path string) (string, bool) {
	fn := a.Get("file")
	if r := a.Get("repository"); r != nil && fn != nil && fn.IsString() {
		if repo, _ := c.findRepo(c.files[core.FileKey(a.Range.File)], core.Text(r)); repo != nil {
			return core.RepositoryURL(repo, fn.Value), true
		}
	}
	return c.artifactFile(a, base, path, core.CodeImplOutsideRoot, "implementation")
}

// allocationRequest turns the allocations of a node template's
// requirements into one placement request.
func (c *compiler) allocationRequest(nd *node) *graph.PlacementRequest {
	if !slices.ContainsFunc(nd.reqs, func(ra *reqAssign) bool { return ra.alloc != nil }) {
		// Most requirements allocate nothing.
		return nil
	}
	req := &graph.PlacementRequest{Resources: map[string]int64{}}
	ev := &eval{c: c, f: c.root, node: nd}
	for _, ra := range nd.reqs {
		for _, p := range ra.alloc.Pairs() {
			v := ev.evalAt(p.Value, ra.path+".allocation."+p.Key.Value)
			switch strings.ReplaceAll(p.Key.Value, "-", "_") {
			case "num_cpus", "num_cpu":
				if n, ok := v.(int64); ok {
					req.Resources["VCPU"] += n
				}
			case "mem_size":
				if b, ok := bytesOf(v); ok {
					req.Resources["MEMORY_MB"] += int64(math.Ceil(b / 1e6))
				}
			case "disk_size":
				if b, ok := bytesOf(v); ok {
					req.Resources["DISK_GB"] += int64(math.Ceil(b / 1e9))
				}
			}
		}
	}
	if len(req.Resources) == 0 {
		return nil
	}
	return req
}

// bytesOf reads a size "<number> <unit>" in bytes (B, kB, KiB, MB, MiB,
// GB, GiB, TB, TiB).
func bytesOf(v graph.Value) (float64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	size := &scalarDef{units: map[string]float64{"B": 1, "kB": 1e3, "KB": 1e3, "KiB": 1 << 10, "MB": 1e6, "MiB": 1 << 20,
		"GB": 1e9, "GiB": 1 << 30, "TB": 1e12, "TiB": 1 << 40}, canonical: "B"}
	_, b, _, msg := parseScalar(size, s)
	return b, msg == ""
}

// pickSet keeps the representations one source's picks name once each,
// in the order they are named, in time linear in the picks: a slice of
// flags the size of the target's representations, cleared after each
// use, and a map for an index beyond them (of a target whose count only
// apply time knows).
type pickSet struct {
	seen []bool
	out  []int64
}

func (ps *pickSet) distinct(picks []int64, n int) []int64 {
	if len(ps.seen) < n {
		ps.seen = make([]bool, n)
	}
	var beyond map[int64]bool
	ps.out = ps.out[:0]
	for _, idx := range picks {
		if idx < int64(n) {
			if ps.seen[idx] {
				continue
			}
			ps.seen[idx] = true
		} else {
			if beyond[idx] {
				continue
			}
			if beyond == nil {
				beyond = map[int64]bool{}
			}
			beyond[idx] = true
		}
		ps.out = append(ps.out, idx)
	}
	for _, idx := range ps.out {
		if idx < int64(n) {
			ps.seen[idx] = false
		}
	}
	return ps.out
}

// markPlaybook records that the operation at path runs an Ansible
// playbook artifact: its implementation (impl, or its primary) is an
// artifact definition, inline or named, whose type's chain holds
// tosca.artifacts.Implementation.Ansible (or a profile's
// Implementation.Ansible or Ansible).
func (c *compiler) markPlaybook(nd *node, impl *yamlsrc.Node, path string) {
	a := impl
	if a.Kind == yamlsrc.Mapping && a.Get("primary") != nil {
		a = a.Get("primary")
	}
	if a.IsString() {
		a = nodeArtifact(nd, a.Value)
	}
	tn := a.Get("type")
	if !tn.IsString() {
		return
	}
	f := c.files[core.FileKey(a.Range.File)]
	if f == nil {
		return
	}
	t := c.findType(f, core.KArtifact, tn.Value)
	if t == nil {
		return
	}
	for _, name := range t.chain {
		switch name[strings.LastIndex(name, ":")+1:] {
		case core.AnsibleArtifactType, "Implementation.Ansible", "Ansible":
			c.MarkPlaybook(path)
			return
		}
	}
}

// targetNode is the node template the relationship targets; nil for
// none (or a nil relationship: a node's own operations).
func (rel *relEnd) targetNode() *node {
	if rel == nil || rel.ra == nil {
		return nil
	}
	return rel.ra.target
}

// ansibleHost is the value of graph.InputAnsibleHost for operations that
// run on nd's host: following HostedOn requirements from nd to a node
// whose type is or derives from a Compute (core.HostValue); nil runs on
// this machine.
func ansibleHost(nd *node) graph.Value {
	for h, hops := nd, 0; h != nil && hops < 64; hops++ {
		var next *node
		for _, ra := range h.reqs {
			if ra.target != nil && edgeKind(ra.relType) == graph.HostedOn {
				next = ra.target
				break
			}
		}
		if next == nil || next == h {
			return nil
		}
		if slices.ContainsFunc(next.typ.chain, func(s string) bool { return s[strings.LastIndex(s, ":")+1:] == "Compute" }) {
			return core.HostValue(address(next, -1), next.attrs)
		}
		h = next
	}
	return nil
}
