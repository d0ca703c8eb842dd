package tosca1

// Phase 6 — requirements: each requirement assignment is matched to a node
// template and one of its capabilities.
//
// Errors detected here:
//   - a requirement naming something that is neither a node template nor a node type
//     (tosca.unknown_template)
//   - a relationship that is neither a relationship template nor a relationship type
//     (tosca.unknown_type)
//   - a target that lacks the named capability or a capability of the required type
//     (tosca.capability_mismatch), or is not of the node type the definition requires
//     (tosca.node_mismatch)
//   - a source type the capability's valid_source_types excludes (tosca.valid_source_types),
//     a capability type the relationship's valid_target_types excludes (tosca.valid_target_types)
//   - no template in the topology satisfies a requirement given by type only
//     (tosca.unsatisfied_requirement)
//   - a requirement assigned fewer or more times than its occurrences allow; a required
//     requirement without assignment is first matched against the topology (as Puccini and
//     tosca-parser do) and reported only when nothing matches (tosca.occurrences)
//
// Candidates are found through indexes by node type and capability type
// built in phase 5, so matching is linear in the number of requirements.

import (
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

func (c *compiler) matchRequirements() {
	t := c.topo
	// Requirements exposed by substitution mappings are fulfilled by the
	// template that substitutes this topology, not inside it.
	if t.n != nil {
		for _, p := range t.n.Get("substitution_mappings").Get("requirements").Pairs() {
			v := p.Value
			if v.Kind == yamlsrc.Mapping {
				v = v.Get("mapping")
			}
			if items := v.Items(); len(items) == 2 {
				if c.substituted == nil {
					c.substituted = map[string]bool{}
				}
				c.substituted[items[0].Value+"\x00"+items[1].Value] = true
			}
		}
	}
	for _, nt := range t.nodeList {
		if c.Stopped() {
			return
		}
		if nt.typ == nil {
			continue
		}
		for _, ra := range nt.reqs {
			c.matchOne(nt, ra)
		}
		c.checkOccurrences(nt)
	}
}

// checkOccurrences compares the number of assignments of each defined
// requirement with its occurrences; a missing required one is matched
// against the topology first.
func (c *compiler) checkOccurrences(nt *nodeTpl) {
	if len(nt.typ.reqs) == 0 || slices.Contains(nt.directives, "select") || slices.Contains(nt.directives, "substitute") || c.substitutable(nt.typ) {
		return
	}
	// The assignments before any implicit match is added; counted by
	// scanning them (a template has a few) rather than in a map.
	assigned := nt.reqs
	for _, d := range nt.typ.reqs {
		n := 0
		for _, ra := range assigned {
			if ra.name == d.name {
				n++
			}
		}
		if len(c.substituted) > 0 && c.substituted[nt.name+"\x00"+d.name] {
			continue
		}
		if n == 0 && d.min > 0 {
			// A template in the topology satisfies it: xosplan is the
			// orchestrator, so it makes the match (Puccini and tosca-parser
			// accept such templates). The edge orders apply; render drops
			// it again if it would close a dependency cycle.
			if target, cd, n := c.findImplicit(nt, d); target != nil {
				if n > 1 {
					c.warnf(nt.key, nt.path+".requirements", core.CodeImplicitRequirement,
						"requirement %q of node template %q is not assigned; matched to %q, the first of %d node templates that satisfy it", d.name, nt.name, target.name, n)
				}
				nt.reqs = append(nt.reqs, &reqAssign{name: d.name, n: nt.n, key: nt.key, path: nt.path + ".requirements", def: d,
					relType: d.relType, target: target, targetCap: cd, src: nt, implicit: true})
				continue
			}
		}
		switch {
		case n == 0 && d.min > 0:
			c.unassigned(nt, d)
		case n < d.min || (d.max >= 0 && n > d.max):
			at := nt.key
			for _, ra := range nt.reqs {
				if ra.name == d.name {
					at = ra.key
				}
			}
			msg := "requirement %q of node template %q has a wrong number of occurrences: %d assigned, %s allowed"
			if d.occurrences {
				c.errorf(at, nt.path+".requirements", core.CodeOccurrences, msg, d.name, nt.name, n, occText(d.min, d.max))
				break
			}
			// The bound is the default [1, 1], not one the type's author
			// wrote: Puccini and tosca-parser read it as a lower bound
			// only, and templates assign such a requirement twice.
			c.warnf(at, nt.path+".requirements", core.CodeOccurrences, msg+" (the default occurrences of a requirement definition)", d.name, nt.name, n, occText(d.min, d.max))
		}
	}
}

// unassigned reports a required requirement that no assignment and no
// template of the topology fulfils. The orchestrator may fulfil it at
// deploy time (TOSCA 1.3 §2.9, §3.8.2: a dangling requirement is matched
// against what it manages or selects), so that is a warning, even when
// none of the node types the template knows offers what it asks for: the
// orchestrator's own types may (TOSCA 1.3's normative
// tosca.nodes.Container.Application requires a tosca.capabilities.Storage
// that no normative node type offers). Only a requirement that names a
// type nothing defines cannot be fulfilled: an error.
func (c *compiler) unassigned(nt *nodeTpl, d *reqDef) {
	path := nt.path + ".requirements"
	if c.satisfiable(d) {
		c.warnf(nt.key, path, core.CodeUnsatisfied,
			"requirement %q of node template %q is not assigned and no node template in the topology satisfies it; the orchestrator must fulfil it (%s needed)",
			d.name, nt.name, occText(d.min, d.max))
		return
	}
	undefined := (d.capType == nil && d.capName != "") || (d.nodeType == nil && d.nodeName != "")
	if c.lacks(nt.typ) || (undefined && c.ImportFailed >= 0) {
		// An import that could not be loaded may define the name.
		c.FollowOn(c.ImportFailed)
		return
	}
	if !undefined && (d.capType != nil || d.nodeType != nil) {
		c.warnf(nt.key, path, core.CodeUnsatisfied,
			"requirement %q of node template %q is not assigned, and no node type this template knows satisfies it (%s); the orchestrator must fulfil it with a node type of its own (%s needed)",
			d.name, nt.name, c.needs(d), occText(d.min, d.max))
		return
	}
	c.errorf(nt.key, path, core.CodeOccurrences,
		"requirement %q of node template %q is not assigned, and no node type satisfies it: %s", d.name, nt.name, c.needs(d))
}

// satisfiable reports whether some declared node type (of the
// definition's node type, if it names one) has a capability of the
// definition's capability type, or the capability it names.
func (c *compiler) satisfiable(d *reqDef) bool {
	if d.capType == nil && d.nodeType == nil {
		return false
	}
	if c.satisfiers == nil {
		c.satisfiers = map[*reqDef]bool{}
	}
	if ok, seen := c.satisfiers[d]; seen {
		return ok
	}
	ok := false
	for _, t := range c.declared {
		if t.kind != kNode || c.ns[kNode][t.name] != t || t.state != 2 {
			continue
		}
		if d.nodeType != nil && !c.derives(t, d.nodeType) {
			continue
		}
		if d.capType == nil || c.typeOffers(t, d.capName, d.capType) {
			ok = true
			break
		}
	}
	c.satisfiers[d] = ok
	return ok
}

// typeOffers reports whether node type t has the capability name or one of
// capability type ct.
func (c *compiler) typeOffers(t *typeDef, name string, ct *typeDef) bool {
	if t.caps[name] != nil {
		return true
	}
	for _, cd := range t.caps {
		if cd.typ != nil && c.derives(cd.typ, ct) {
			return true
		}
	}
	return false
}

// needs describes what a requirement definition asks for.
func (c *compiler) needs(d *reqDef) string {
	switch {
	case d.capType == nil && d.capName != "":
		return "its capability type " + quote(d.capName) + " is not defined"
	case d.nodeType == nil && d.nodeName != "":
		return "its node type " + quote(d.nodeName) + " is not defined"
	case d.nodeType != nil && d.capType != nil:
		return "no " + quote(d.nodeType.name) + " has a capability of type " + quote(d.capType.name)
	case d.capType != nil:
		return "no node type has a capability of type " + quote(d.capType.name)
	}
	return "it names no capability"
}

// substitutable reports whether an imported service template substitutes
// nodes of type t (its substitution_mappings name t): such a node is
// realised by that topology, which fulfils its requirements (tosca-parser's
// rule).
func (c *compiler) substitutable(t *typeDef) bool {
	if c.substitutes == nil {
		c.substitutes = map[*typeDef]bool{}
		for _, f := range c.order {
			if f == c.root || f.root == nil {
				continue
			}
			if tn := f.root.Get("topology_template").Get("substitution_mappings").Get("node_type"); tn != nil {
				if st := c.lookup(kNode, tn.Value); st != nil {
					c.substitutes[st] = true
				}
			}
		}
	}
	return c.substitutes[t]
}

func occText(lo, hi int) string {
	if hi < 0 {
		return "at least " + itoa(int64(lo))
	}
	if lo == hi {
		return itoa(int64(lo))
	}
	return itoa(int64(lo)) + " to " + itoa(int64(hi))
}

// findImplicit matches an unassigned requirement definition against the
// topology: the first template (in source order) other than nt of the
// definition's node type that offers a capability of its capability type,
// and how many templates would do. The templates that satisfy d are
// listed once (implicitFor): every template of a type asks the same, and
// a scan each would make the matching quadratic.
func (c *compiler) findImplicit(nt *nodeTpl, d *reqDef) (*nodeTpl, *capDef, int) {
	set := c.implicitFor(d)
	n := len(set.list)
	if set.in[nt] {
		n--
	}
	for _, m := range set.list[:min(2, len(set.list))] {
		if m.nt != nt {
			return m.nt, m.cd, n
		}
	}
	return nil, nil, n
}

// implicitSet lists the templates that satisfy a requirement definition,
// in source order, with the capability each offers.
type implicitSet struct {
	list []implicitMatch
	in   map[*nodeTpl]bool
}

type implicitMatch struct {
	nt *nodeTpl
	cd *capDef
}

// implicitFor returns the templates that satisfy d, listed on first use.
func (c *compiler) implicitFor(d *reqDef) *implicitSet {
	if set := c.implicit[d]; set != nil {
		return set
	}
	var cands []*nodeTpl
	switch {
	case d.nodeType != nil:
		cands = c.topo.byType[d.nodeType]
	case d.capType != nil:
		cands = c.topo.byCap[d.capType]
	}
	set := &implicitSet{in: map[*nodeTpl]bool{}}
	for _, cand := range cands {
		cd := c.capabilityFor(cand, d.capName, d.capType)
		if d.capType != nil && cd == nil {
			continue
		}
		set.list = append(set.list, implicitMatch{cand, cd})
		set.in[cand] = true
	}
	if c.implicit == nil {
		c.implicit = map[*reqDef]*implicitSet{}
	}
	c.implicit[d] = set
	return set
}

// capabilityFor finds the target's capability named name, or else the first
// one (in definition order) whose type derives from typ.
func (c *compiler) capabilityFor(target *nodeTpl, name string, typ *typeDef) *capDef {
	if name != "" {
		if cd := target.typ.caps[name]; cd != nil {
			return cd
		}
	}
	if typ == nil && name != "" {
		typ = c.lookup(kCapability, name)
	}
	if typ == nil {
		return nil
	}
	for _, cn := range target.typ.capOrder {
		cd := target.typ.caps[cn]
		if cd.typ != nil && c.derives(cd.typ, typ) {
			return cd
		}
	}
	return nil
}

func (c *compiler) matchOne(nt *nodeTpl, ra *reqAssign) {
	d := ra.def
	capName, nodeName := ra.capName, ra.nodeName
	var capType *typeDef
	if d != nil {
		if capName == "" {
			capName = d.capName
			capType = d.capType
		}
		if nodeName == "" {
			nodeName = d.nodeName
		}
	}
	c.matchRelationship(nt, ra)
	// Target node.
	target, capType, ok := c.matchTarget(nt, ra, nodeName, capName, capType)
	if !ok {
		return
	}
	if target.typ == nil {
		ra.target = target
		return
	}
	explicitNode := ra.nodeName != ""
	if d != nil && d.nodeType != nil && !c.derives(target.typ, d.nodeType) && explicitNode {
		c.warnf(rangeOf(ra.nodeN), ra.path, core.CodeNodeMismatch, "requirement %q of node template %q needs a %q, but %q is a %q", ra.name, nt.name, d.nodeType.name, target.name, target.typ.name)
	}
	if capName != "" || capType != nil {
		cd := c.capabilityFor(target, capName, capType)
		if cd == nil && c.lacks(target.typ) {
			ra.target = target
			return
		}
		c.checkTargetCapability(nt, ra, target, cd, capName, capType)
	}
	ra.target = target
}

// matchRelationship resolves the relationship of ra: a relationship
// template or type it names, else its definition's.
func (c *compiler) matchRelationship(nt *nodeTpl, ra *reqAssign) {
	if ra.relName != "" {
		if rt := c.topo.rels[ra.relName]; rt != nil {
			ra.relTpl, ra.relType = rt, rt.typ
		} else if ty := c.lookup(kRelationship, ra.relName); ty != nil {
			ra.relType = ty
			c.noteType(ra.relN, ty)
		} else if c.xosTopology() {
			// In an XOS recipe, XOS's engine reads relationship names itself
			// (XOS 3.x's tosca.relationships.SameHost is declared nowhere):
			// a warning, and the requirement orders like DependsOn.
			c.warnf(ra.relN.Range, ra.path+".relationship", core.CodeUnknownType, "requirement %q of node template %q names relationship %q, which is not declared; XOS reads it as a plain dependency", ra.name, nt.name, ra.relName)
		} else {
			c.unknownType(kRelationship, ra.relN, ra.path+".relationship", false, "requirement %q of node template %q names relationship %q, which is neither a relationship template nor a relationship type", ra.name, nt.name, ra.relName)
		}
	} else if ra.def != nil {
		ra.relType = ra.def.relType
	}
	if ra.relBody != nil && ra.relType != nil {
		c.readIfaceAssignments(ra.relType, ra.relBody.Get("interfaces"), ra.path+".relationship.interfaces", "relationship of requirement "+quote(ra.name))
	}
}

// matchTarget finds the target node template of ra: the one named, else
// the first fitting template of the node type named or of the capability
// type. It reports false, after any diagnostic, when there is none; the
// capability type is the one candidates were chosen by.
func (c *compiler) matchTarget(nt *nodeTpl, ra *reqAssign, nodeName, capName string, capType *typeDef) (*nodeTpl, *typeDef, bool) {
	var target *nodeTpl
	var cands []*nodeTpl
	explicitNode := ra.nodeName != ""
	switch {
	case nodeName == "":
	case c.topo.nodes[nodeName] != nil && (explicitNode || c.lookup(kNode, nodeName) == nil):
		target = c.topo.nodes[nodeName]
	case c.lookup(kNode, nodeName) != nil:
		cands = c.topo.byType[c.lookup(kNode, nodeName)]
		if explicitNode {
			c.noteType(ra.nodeN, c.lookup(kNode, nodeName))
		}
	default:
		at := ra.key
		if ra.nodeN != nil {
			at = ra.nodeN.Range
		}
		if explicitNode {
			c.errorf(at, ra.path, core.CodeUnknownTemplate, "requirement %q of node template %q names %q, which is neither a node template nor a node type", ra.name, nt.name, nodeName)
		}
		return nil, capType, false
	}
	if target == nil && cands == nil && nodeName == "" {
		ct := capType
		if ct == nil && capName != "" {
			ct = c.lookup(kCapability, capName)
			if ra.capName != "" {
				c.noteType(ra.capN, ct)
			}
		}
		if ct == nil {
			// A capability name without a node: left to the orchestrator.
			return nil, capType, false
		}
		cands = c.topo.byCap[ct]
		capType = ct
	}
	if target == nil {
		target = c.firstCandidate(nt, ra, cands, capName, capType)
		if target == nil {
			// The orchestrator may still select or substitute a node for a
			// requirement given by type only (Puccini, tosca-parser).
			c.warnf(ra.key, ra.path, core.CodeUnsatisfied, "no node template in the topology satisfies requirement %q of node template %q", ra.name, nt.name)
			return nil, capType, false
		}
	}
	return target, capType, true
}

// firstCandidate is the first of cands, other than nt, with the
// capability wanted that ra's node filter accepts; nil for none.
func (c *compiler) firstCandidate(nt *nodeTpl, ra *reqAssign, cands []*nodeTpl, capName string, capType *typeDef) *nodeTpl {
	for _, cand := range cands {
		if cand == nt || cand.typ == nil {
			continue
		}
		if (capName != "" || capType != nil) && c.capabilityFor(cand, capName, capType) == nil {
			continue
		}
		if ra.filter != nil && !c.filterAccepts(ra.filter, cand) {
			continue
		}
		return cand
	}
	return nil
}

// checkTargetCapability reports a target lacking the capability wanted,
// else records it in ra.targetCap and checks the relationship's valid
// target types and the capability's valid source types.
func (c *compiler) checkTargetCapability(nt *nodeTpl, ra *reqAssign, target *nodeTpl, cd *capDef, capName string, capType *typeDef) {
	if cd == nil {
		what := capName
		if what == "" {
			what = capType.name
		}
		if capName == "" || c.lookup(kCapability, capName) != nil || ra.capName != "" {
			c.errorf(capRange(ra), ra.path, core.CodeCapabilityMismatch, "requirement %q of node template %q: node template %q has no capability %q", ra.name, nt.name, target.name, what)
		}
		return
	}
	ra.targetCap = cd
	if rel := ra.relType; rel != nil && !rel.xos && len(rel.validTargets) > 0 && cd.typ != nil && !c.derivesAny(cd.typ, rel.validTargets) {
		c.errorf(ra.key, ra.path, core.CodeValidTarget, "relationship type %q of requirement %q cannot target capability %q of type %q", rel.name, ra.name, cd.name, cd.typ.name)
	}
	if len(cd.validSources) > 0 && !c.derivesAny(nt.typ, cd.validSources) {
		c.errorf(ra.key, ra.path, core.CodeValidSource, "capability %q of node template %q does not accept node template %q of type %q as a source", cd.name, target.name, nt.name, nt.typ.name)
	}
}

// capRange points at the capability keyname when written, else at the
// requirement.
func capRange(ra *reqAssign) diag.Range {
	if ra.capN != nil {
		return ra.capN.Range
	}
	return ra.key
}

// filterAccepts evaluates a node_filter against a candidate: property
// constraints on its properties, and capability property constraints on
// the capability named (or typed) in each capabilities entry.
func (c *compiler) filterAccepts(filter *yamlsrc.Node, cand *nodeTpl) bool {
	if !c.propsMatch(filter.Get("properties"), c.propsOf(cand)) {
		return false
	}
	for _, it := range filter.Get("capabilities").Items() {
		for _, p := range it.Pairs() {
			cd := c.capabilityFor(cand, p.Key.Value, nil)
			if cd == nil || !c.propsMatch(p.Value.Get("properties"), c.capPropsOf(cand)[cd.name]) {
				return false
			}
		}
	}
	return true
}

// filterConstraint parses a node_filter constraint once (a filter is
// evaluated against every candidate), reporting a malformed one once.
func (c *compiler) filterConstraint(n *yamlsrc.Node) *values.Constraint {
	if con, ok := c.filterCons[n]; ok {
		return con
	}
	con, ds := values.ParseConstraint(n, "")
	c.Diags = c.Diags.Extend(ds)
	if ds.HasErrors() {
		con = nil
	}
	if c.filterCons == nil {
		c.filterCons = map[*yamlsrc.Node]*values.Constraint{}
	}
	c.filterCons[n] = con
	return con
}

// filterEntries returns the property filters of a node_filter's
// properties: the one-key maps of a list, or the entries of a map.
func filterEntries(n *yamlsrc.Node) []yamlsrc.Pair {
	if n != nil && n.Kind == yamlsrc.Mapping {
		return n.Pairs()
	}
	var out []yamlsrc.Pair
	for _, it := range n.Items() {
		out = append(out, it.Pairs()...)
	}
	return out
}

// propsMatch checks a node_filter property list ([{name: constraint or
// [constraints]}]) against property values.
func (c *compiler) propsMatch(list *yamlsrc.Node, props map[string]graph.Value) bool {
	for _, p := range filterEntries(list) {
		v, ok := props[p.Key.Value]
		if !ok {
			return false
		}
		cs := []*yamlsrc.Node{p.Value}
		if p.Value.Kind == yamlsrc.Sequence {
			cs = p.Value.Content
		}
		for _, cn := range cs {
			con := c.filterConstraint(cn)
			if con == nil || con.Check(v) != nil {
				return false
			}
		}
	}
	return true
}
