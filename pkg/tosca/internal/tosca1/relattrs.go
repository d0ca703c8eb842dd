package tosca1

import (
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Attribute values known at compile time.
//
// A node template's attribute assignment (TOSCA 1.3 §3.8.3) or an
// attribute definition's default is the attribute's value until an
// operation output replaces it. The node's are in its spec's
// "attributes"; those of the relationships its requirements make (the
// relationship type's defaults, a relationship template's assignment) in
// its spec's "relationships": per requirement a list with one entry per
// assignment of it (the index graph.OutputAttribute counts),
// {target, attributes}. The executor records them when it creates the
// resource and reads them where nothing recorded one yet. A sensitive
// attribute definition of a relationship type makes its path
// (graph.RelationshipPath) sensitive.
//
// The attributes the normative root types define (tosca_id, tosca_name,
// state, whose default "initial" every node and relationship inherits)
// are the orchestrator's to set, not values a template gives: only an
// assignment records them, as before.

// nodeAttrDefaults evaluates the defaults of nt's attribute definitions
// when the template assigns no attributes (resolveFunctions evaluates
// the assignment, defaults included, when it does).
func (c *compiler) nodeAttrDefaults(nt *nodeTpl) map[string]graph.Value {
	defs, withDefault := templateAttrDefs(nt.typ)
	if !withDefault {
		// Nothing to evaluate: without an assignment, only defaults
		// give values (and missing ones are not reported).
		return nil
	}
	s := nt.selfScope()
	return c.assignProps(nt.typ, defs, nil, nt.path+".attributes", "node template "+quote(nt.name), "attribute", s, ignoreMissing)
}

// templateAttrDefs returns the attribute definitions of t but those its
// normative root type (tosca.nodes.Root, tosca.relationships.Root)
// defines and no type below redefines, and whether any of them has a
// default. It is computed once per type (the map is shared: read only).
func templateAttrDefs(t *typeDef) (defs map[string]*propDef, withDefault bool) {
	if t.tplAttrs == nil {
		t.tplAttrs = &tplAttrDefs{defs: t.attrs}
		root := t
		for root.parent != nil {
			root = root.parent
		}
		if root.name == "tosca.nodes.Root" || root.name == "tosca.relationships.Root" {
			out := make(map[string]*propDef, len(t.attrs))
			for name, d := range t.attrs {
				if root.attrs[name] != d {
					out[name] = d
				}
			}
			t.tplAttrs.defs = out
		}
		for _, d := range t.tplAttrs.defs {
			t.tplAttrs.withDefault = t.tplAttrs.withDefault || d.hasDefault
		}
	}
	return t.tplAttrs.defs, t.tplAttrs.withDefault
}

// relAttrsOf returns the spec's "relationships" of nt: nil when no
// relationship of it has an attribute value.
func (c *compiler) relAttrsOf(nt *nodeTpl) map[string]graph.Value {
	// The values first, in the requirements' order; the maps only for a
	// node that has some (most have none, and building them for every
	// requirement was 5% of a compile's allocations).
	var attrs []map[string]graph.Value
	for i, ra := range nt.reqs {
		if ra.target == nil {
			continue
		}
		if a := c.relAttrValues(ra); len(a) > 0 {
			if attrs == nil {
				attrs = make([]map[string]graph.Value, len(nt.reqs))
			}
			attrs[i] = a
		}
	}
	if attrs == nil {
		return nil
	}
	out := map[string]graph.Value{}
	for i, ra := range nt.reqs {
		entry := map[string]graph.Value{}
		if ra.target != nil {
			entry["target"] = ra.target.name
			if attrs[i] != nil {
				entry["attributes"] = attrs[i]
			}
		}
		list, _ := out[ra.name].([]graph.Value)
		out[ra.name] = append(list, entry)
	}
	return out
}

// relAttrValues evaluates the attribute values of ra's relationship: the
// relationship template's assignment over its type's defaults. The
// template's values were checked where it is declared; evaluated again
// for each requirement that uses it (SOURCE and TARGET differ), they
// report nothing twice.
func (c *compiler) relAttrValues(ra *reqAssign) map[string]graph.Value {
	if ra.relType == nil {
		return nil
	}
	n := relAttrNode(ra)
	defs, _ := templateAttrDefs(ra.relType)
	if n == nil && len(defs) == 0 {
		return nil
	}
	path, what := relAttrSource(ra)
	var attrs map[string]graph.Value
	c.Quietly(func() {
		attrs = c.assignProps(ra.relType, ra.relType.attrs, n, path, what, "attribute", &scope{at: ra.key, req: ra}, ignoreMissing)
	})
	for name := range attrs {
		if _, assigned := n.GetPair(name); defs[name] == nil && !assigned {
			delete(attrs, name)
		}
	}
	return dropNil(attrs)
}

// relAttrSource returns the path where ra's relationship attribute
// values are assigned (relAttrNode: the relationship template's
// attributes, none for a relationship written in the requirement, which
// assigns none in 1.x) and what owns them.
func relAttrSource(ra *reqAssign) (path, what string) {
	if rt := ra.relTpl; ra.relBody == nil && rt != nil {
		return rt.path + ".attributes", "relationship template " + quote(rt.name)
	}
	return ra.path + ".relationship.attributes", "relationship of requirement " + quote(ra.name)
}

// relAttrNode is the node relAttrSource names: the relationship
// template's attributes, or nil.
func relAttrNode(ra *reqAssign) *yamlsrc.Node {
	if rt := ra.relTpl; ra.relBody == nil && rt != nil {
		return rt.n.Get("attributes")
	}
	return nil
}

// relSecretPaths lists, sorted, the paths of the secret attributes of
// nt's relationships (graph.RelationshipPath): those defined sensitive,
// and those whose value read a secret (a sensitive input, secrets.go)
// where relAttrsOf evaluated it.
func (c *compiler) relSecretPaths(nt *nodeTpl) []string {
	var out []string
	// With no secret read anywhere (most templates) the paths need not be
	// built: a relationship's attribute is secret only if defined so.
	anySecret := len(c.SecretAt) > 0
	for _, ra := range nt.reqs {
		if ra.relType == nil || (!anySecret && len(ra.relType.secretPaths().attrs) == 0) {
			continue
		}
		idx, _ := ra.index()
		var path string
		if anySecret {
			path, _ = relAttrSource(ra)
		}
		for name, d := range ra.relType.attrs {
			if d.sensitive || (anySecret && c.SecretAt[joinPath(path, name)]) {
				out = append(out, graph.RelationshipPath(ra.name, idx, name))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
