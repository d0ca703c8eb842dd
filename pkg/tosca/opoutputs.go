package tosca

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// outputAttribute is the attribute an operation output (TOSCA 1.3
// §3.6.17 attribute mapping: [ SELF | SOURCE | TARGET, attribute, … ],
// whose last element names the attribute; a plain name stands for
// itself) sets, as graph.Operation.Outputs names it. In an operation of a
// requirement's relationship (s.req) SELF is the relationship: its
// attribute is the relationship's (graph.OutputAttribute of the
// requirement and its index); TARGET is the requirement's target, whose
// attribute it sets; SOURCE is the node the operation runs with, as in
// a node's own operations.
func (c *compiler) outputAttribute(m *yamlsrc.Node, s *scope, path string) string {
	items := m.Items()
	if len(items) == 0 {
		return m.Value
	}
	name := items[len(items)-1].Value
	if s == nil || s.req == nil || len(items) < 2 {
		return name
	}
	ra := s.req
	switch items[0].Value {
	case "SELF":
		if ra.relType == nil || ra.target == nil {
			return name
		}
		if t := ra.relType; !c.lacks(t) && t.attrs[name] == nil {
			c.warnf(items[len(items)-1].Range, path, CodeUnknownProperty,
				"operation output: %s declares no attribute %q; only this output sets it", (&relRef{ra: ra, tpl: ra.relTpl}).what(), name)
		}
		idx, _ := ra.index()
		return graph.OutputAttribute{Requirement: ra.name, Index: idx, Target: ra.target.name, Name: name}.String()
	case "TARGET":
		if ra.target == nil {
			return name
		}
		return graph.OutputAttribute{Target: ra.target.name, Name: name}.String()
	}
	return name
}
