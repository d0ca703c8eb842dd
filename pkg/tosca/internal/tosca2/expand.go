package tosca2

// Phase 5b (2.0) — the expansion limit: after the node templates and their
// requirement assignments are read, and before any representation or
// relationship is built, the total they expand to is counted and held to
// maxExpansion, in linear time (nothing is expanded to count it).
//
// Errors detected here:
//   - a service template that expands to more than maxExpansion node
//     representations and relationships, or whose templates with count
//     repeat more than maxExpandedValues YAML nodes of values over their
//     representations (tosca.expansion_limit): one error, at the count
//     that brought the total over the limit, and the compile stops there.

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// limitExpansion adds up the node representations and relationships of
// the service template, template by template in their order, and reports
// the first count that brings the total over maxExpansion. It returns
// false when it did.
func (c *compiler) limitExpansion() bool {
	var total, values int64
	for _, nd := range c.state.topo.nodes {
		total += nd.count
		if total > maxExpansion {
			at, path := countAt(nd.n, nd.key, nd.path)
			c.Errorf(at, path, core.CodeExpansion, "node template %q brings the service template to %d node representations and relationships, over the limit of %d", nd.name, total, maxExpansion)
			return false
		}
		if nd.keys.count != nil && nd.count > 0 { // hasCount(nd.n), taken once (readTemplateKeys)
			// Counted so far, the values repeated stay within the limit
			// (and an int64).
			size := yamlSize(nd.n, maxExpandedValues/nd.count+1)
			if values += size * nd.count; values > maxExpandedValues {
				at, path := countAt(nd.n, nd.key, nd.path)
				c.Errorf(at, path, core.CodeExpansion, "node template %q repeats its values (%s YAML nodes) for each of its %d representations, which brings the values of representations over the limit of %d YAML nodes", nd.name, sizeText(size, maxExpandedValues/nd.count+1), nd.count, maxExpandedValues)
				return false
			}
		}
		for _, ra := range nd.reqs {
			per := relsPerSource(ra)
			// nd.count ≤ maxCount and total ≤ maxExpansion: compared
			// so, the product cannot overflow.
			if per == 0 || nd.count <= (maxExpansion-total)/per {
				total += nd.count * per
				continue
			}
			// The count that multiplies: the assignment's own, else its
			// template's, else that of the template it names.
			at, path := countAt(ra.n, ra.key, ra.path)
			if !hasCount(ra.n) {
				at, path = countAt(nd.n, ra.key, nd.path)
				if !hasCount(nd.n) && ra.target != nil {
					at, path = countAt(ra.target.n, ra.key, ra.target.path)
				}
			}
			c.Errorf(at, path, core.CodeExpansion, "requirement %q of node template %q makes %s relationships, which bring the service template over the limit of %d node representations and relationships", ra.name, nd.name, expansionProduct(nd.count, per), maxExpansion)
			return false
		}
	}
	return true
}

// relsPerSource is how many relationships requirement assignment ra
// makes for each representation of its template: its count, or one to
// every representation of the template it names when no index selects
// one and they are more.
func relsPerSource(ra *reqAssign) int64 {
	per := ra.count
	if ra.countFn {
		per = 1
	}
	if ra.target != nil && ra.nodeIdx == nil && ra.target.count > per {
		per = ra.target.count
	}
	return per
}

func hasCount(n *yamlsrc.Node) bool {
	return n != nil && n.Kind == yamlsrc.Mapping && n.Get("count") != nil
}

// countAt is the range and path of the count keyname's value in the
// template or assignment n at path, else def.
func countAt(n *yamlsrc.Node, def diag.Range, path string) (diag.Range, string) {
	if hasCount(n) {
		return n.Get("count").Range, path + ".count"
	}
	return def, path
}

// expansionProduct writes n × per, or "more than 2^62" when the product
// would not fit.
func expansionProduct(n, per int64) string {
	if n > (1<<62)/per {
		return "more than " + core.Itoa(1<<62)
	}
	return core.Itoa(n * per)
}

// yamlSize counts the YAML nodes of n (an alias's target each time it
// is used), stopping once it has counted max.
func yamlSize(n *yamlsrc.Node, max int64) int64 {
	var size int64
	var walk func(*yamlsrc.Node)
	walk = func(n *yamlsrc.Node) {
		if n == nil || size >= max {
			return
		}
		size++
		for _, ch := range n.Content {
			walk(ch)
		}
	}
	walk(n)
	return size
}

// sizeText writes a size yamlSize stopped counting at max as "at least".
func sizeText(size, max int64) string {
	if size >= max {
		return "at least " + core.Itoa(size)
	}
	return core.Itoa(size)
}

// maxExpansion bounds what a TOSCA 2.0 service template expands to: its
// node representations (a template without count is one, with count as
// many as its count) and its relationships together. A requirement
// assignment of a template makes, for each representation of the
// template, its count of relationships (§14.3) — or, when it names a
// template with count and no index, one to every representation of it,
// the edges plan orders by, if that is more. Each representation is a
// resource and each relationship an edge: the limit bounds the graph, and
// the work that builds it, before any of it is built (limitExpansion).
const maxExpansion = 250_000

// maxExpandedValues bounds the values the representations of 2.0 node
// templates with count repeat: each representation evaluates its
// template's values anew ($node_index may make each differ) and keeps
// them in its resource, so a template of n YAML nodes with count c costs
// about n × c of work and memory, added up over the templates with count.
const maxExpandedValues = 4_000_000
