package tosca2

import (
	"slices"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// Attribute values known at compile time, of the relationships a
// requirement assignment makes (internal/tosca1/relattrs.go says what
// they are for).

// relAttrDefaults evaluates, for a TOSCA 2.0 requirement assignment
// whose relationship assigns no attributes (it names a type, or none),
// its relationship type's attribute defaults in the relationship's
// context. The type's definitions were checked where they are declared.
func (c *compiler) relAttrDefaults(ev *eval, ra *reqAssign) {
	if ra.relAttrs != nil || ra.relType == nil || !c.attrValued(ra.relType) {
		// Of a type whose attributes give no value (the simple profile's
		// have none), there is nothing to evaluate: relAttrsOf reads no
		// value and so leaves the relationship's attributes out.
		return
	}
	rev := *ev
	rev.rel = ra.relCtx()
	c.Quietly(func() {
		ra.relAttrs = c.assignProps(&rev, ra.relType.attrs, ra.relType.attrNames(), nil, ra.path, "relationship.attributes", owner{kind: "relationship of requirement", name: ra.name}, false)
	})
}

// relAttrsOf is the spec's "relationships" of nd: an entry per relationship an
// assignment makes (its count), indexed as graph.OutputAttribute counts
// them (firstRelIndex).
func relAttrsOf(nd *node) map[string]graph.Value {
	// Most relationships have no attribute value: then there is no
	// entry to make.
	if !slices.ContainsFunc(nd.reqs, func(ra *reqAssign) bool { return ra.target != nil && hasValue(ra.relAttrs) }) {
		return nil
	}
	out := map[string]graph.Value{}
	found := false
	for _, ra := range nd.reqs {
		entry := map[string]graph.Value{}
		if ra.target != nil {
			entry["target"] = address(ra.target, -1)
			if attrs := core.DropNil(ra.relAttrs); len(attrs) > 0 {
				entry["attributes"] = attrs
				found = true
			}
		}
		list, _ := out[ra.name].([]graph.Value)
		for range relCount(ra) {
			list = append(list, entry)
		}
		out[ra.name] = list
	}
	if !found {
		return nil
	}
	return out
}

// relSecretPaths lists the paths of the secret attributes of nd's
// relationships (graph.RelationshipPath), every one its assignments make:
// those defined sensitive, and those whose value read a secret where the
// relationship, or the relationship template it names, assigns it. Where
// no value read a secret (most templates), the paths of the values are
// not built: only the definitions decide.
func (c *compiler) relSecretPaths(nd *node) []string {
	var out []string
	derived := len(c.SecretAt) > 0
	for _, ra := range nd.reqs {
		if ra.relType == nil {
			continue
		}
		secret := c.secretDefs(ra.relType).attrs
		if len(secret) == 0 && !derived {
			continue
		}
		first := firstRelIndex(nd, ra)
		var tpl string
		if derived {
			tpl = "service_template.relationship_templates." + core.Text(ra.rel) + ".attributes."
		}
		for name := range ra.relType.attrs {
			if !slices.Contains(secret, name) && (!derived || (!c.SecretAt[ra.path+".relationship.attributes."+name] && !c.SecretAt[tpl+name])) {
				continue
			}
			for i := range relCount(ra) {
				out = append(out, graph.RelationshipPath(ra.name, int(first+i), name))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasValue reports whether m holds a value that is not nil.
func hasValue(m map[string]graph.Value) bool {
	for _, v := range m {
		if v != nil {
			return true
		}
	}
	return false
}

// attrValued reports whether an attribute definition of t gives a value
// (a fixed value or a default) for relAttrDefaults to evaluate; kept per
// type.
func (c *compiler) attrValued(t *typeDef) bool {
	return perType(&c.state.attrValued, t, func(t *typeDef) bool { return anyDefault(t.attrs) })
}
