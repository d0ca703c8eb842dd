package tosca2

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// opOutputs maps the outputs of an operation onto the attributes they
// set (graph.Operation.Outputs): the mapping of each output definition
// (§9.3 "mapping"), overridden by the operation assignment's parameter
// mapping assignments (§9.9: name: [ <tosca_path>, attribute, … ]). The
// path may only reach the local node or relationship (§9.9): in a node's
// operation [SELF, attribute] is the node's, [SELF, RELATIONSHIP,
// requirement, index, attribute] a relationship of its requirement's; in
// a relationship's operation (rel) [SELF, attribute] is the
// relationship's, [SELF, SOURCE, attribute] the source node's and
// [SELF, TARGET, attribute] the target's. Nil when there are none.
func (c *compiler) opOutputs(nd *node, rel *relEnd, def, assigned *yamlsrc.Node) map[string]string {
	var out map[string]string
	set := func(name string, m *yamlsrc.Node) {
		if attr, ok := c.outputAttribute(nd, rel, m.Items()); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = attr
		}
	}
	for _, p := range def.Get("outputs").Pairs() {
		if m := p.Value.Get("mapping"); m != nil {
			set(p.Key.Value, m)
		}
	}
	for _, p := range assigned.Get("outputs").Pairs() {
		set(p.Key.Value, p.Value)
	}
	return out
}

// outputAttribute is the attribute the mapping items (a TOSCA path from
// SELF, then the attribute's name and fields) name, as
// graph.Operation.Outputs names it; ok is false for a mapping that names
// none xosplan records (a capability's attribute, another template).
func (c *compiler) outputAttribute(nd *node, rel *relEnd, items []*yamlsrc.Node) (string, bool) {
	if len(items) < 2 || items[0].Value != "SELF" {
		return "", false
	}
	var ra *reqAssign
	if rel != nil {
		ra = rel.ra
	}
	rest := items[1:]
	if ra == nil && rest[0].Value == "RELATIONSHIP" && len(rest) >= 3 {
		idx := int64(0)
		if i, ok := rest[2].Int(); ok && len(rest) >= 4 {
			idx, rest = i, rest[3:]
		} else {
			rest = rest[2:]
		}
		req := items[2].Value
		r := c.relOfIndex(nd, req, idx)
		if r == nil {
			return "", false
		}
		// The target as the relationship's own operations name it.
		end, ok := (&relEnd{ra: r, src: nd, srcIdx: -1, r: idx - firstRelIndex(nd, r)}).target()
		if !ok {
			return "", false
		}
		return graph.OutputAttribute{Requirement: req, Index: int(idx), Target: address(end.node, end.idx), Name: rest[0].Value}.String(), true
	}
	if ra == nil {
		if rest[0].Value == "CAPABILITY" {
			return "", false
		}
		return rest[0].Value, true
	}
	switch rest[0].Value {
	case "SOURCE":
		if len(rest) < 2 {
			return "", false
		}
		return rest[1].Value, true
	case "CAPABILITY", "RELATIONSHIP":
		return "", false
	}
	// The relationship's target: with a count, the representation its
	// node selects for this relationship.
	end, ok := rel.target()
	if !ok {
		return "", false
	}
	target := address(end.node, end.idx)
	if rest[0].Value == "TARGET" {
		if len(rest) < 2 {
			return "", false
		}
		return graph.OutputAttribute{Target: target, Name: rest[1].Value}.String(), true
	}
	idx := firstRelIndex(nd, ra) + max(rel.r, 0)
	return graph.OutputAttribute{Requirement: ra.name, Index: int(idx), Target: target, Name: rest[0].Value}.String(), true
}

// relOfIndex is the assignment of nd's requirement req that makes its
// idx-th relationship, nil when there is none.
func (c *compiler) relOfIndex(nd *node, req string, idx int64) *reqAssign {
	if idx < 0 {
		return nil
	}
	for _, ra := range nd.reqs {
		if ra.name != req {
			continue
		}
		if idx < relCount(ra) {
			return ra
		}
		idx -= relCount(ra)
	}
	return nil
}
