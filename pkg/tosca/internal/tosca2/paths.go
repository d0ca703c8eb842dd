package tosca2

import "strings"

// A compile builds a YAML path for every node template, requirement
// assignment and property it reads ("service_template.node_templates.
// app1.properties.port"), which its diagnostics, edges and secret
// bookkeeping name: 10,000 templates make some 50,000 of them, and one
// allocation each was a third of what the 2.0 compile allocates after
// the parse (issue 25 row 4). join writes them one after another into a
// chunk of pathChunk bytes, a strings.Builder that only appends, so that
// every string it returned stays as it was; a chunk costs one allocation
// and is kept alive by any path in it.

// pathChunk is the size of a chunk of paths: about 250 templates' worth.
const pathChunk = 64 << 10

// paths is the chunk join writes into.
type paths struct{ b strings.Builder }

// join returns the concatenation of parts (a path), from the chunk.
func (ps *paths) join(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > pathChunk/8 {
		return strings.Join(parts, "")
	}
	if ps.b.Cap()-ps.b.Len() < n {
		ps.b = strings.Builder{}
		ps.b.Grow(pathChunk)
	}
	start := ps.b.Len()
	for _, p := range parts {
		ps.b.WriteString(p)
	}
	return ps.b.String()[start:]
}
