package core

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// ParseData parses a file that must hold one YAML map (ParseYAML) and
// reports its repeated keys leniently (CheckDuplicates: warnings outside
// topology_template).
func (c *Session) ParseData(name string, data []byte) *yamlsrc.Node {
	root := c.ParseYAML(name, data)
	if root != nil {
		var stack []string
		c.CheckDuplicates(root, 0, true, &stack)
	}
	return root
}

// ParseYAML parses a file that must hold one YAML map, reporting what
// stops that; repeated keys are the caller's to check (their severity
// depends on the TOSCA version).
func (c *Session) ParseYAML(name string, data []byte) *yamlsrc.Node {
	var root *yamlsrc.Node
	var ds diag.Diagnostics
	if c.Parse != nil {
		root, ds = c.Parse(c.Ctx, name, data)
	} else {
		root, ds = yamlsrc.ParseContext(c.Ctx, name, data, yamlsrc.Limits{})
	}
	if c.StoppedNow() {
		// What a parse cut short found is not reported (cancel.go).
		return nil
	}
	c.Diags = c.Diags.Extend(ds)
	if ds.HasErrors() {
		return nil
	}
	if root == nil {
		c.Errorf(diag.Range{File: name, Start: diag.Pos{Line: 1, Column: 1}}, "", CodeWrongKind, "the file is empty; a service template must be a map")
		return nil
	}
	if root.Kind != yamlsrc.Mapping {
		c.Errorf(root.Range, "", CodeWrongKind, "a service template must be a map, found %s", root.Describe())
		return nil
	}
	return root
}

// CheckDuplicates reports repeated mapping keys. Outside topology_template
// (type sections, metadata, imports…) the repeat is a warning and the last
// entry wins: XOS's generator emits repeated tosca.relationships.BelongsToOne
// keys, the OASIS conformance suite repeats metadata keys, and PyYAML, which
// XOS and tosca-parser use, keeps the last. Inside topology_template it is
// an error: silently dropping a template, property or requirement changes
// what gets deployed, and loaders disagree on which value wins.
// The walk keeps the keys above n in stack and joins them into a path only
// when it reports something.
func (c *Session) CheckDuplicates(n *yamlsrc.Node, depth int, lenient bool, stack *[]string) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yamlsrc.Sequence:
		for i, it := range n.Content {
			if !hasContent(it) {
				continue
			}
			*stack = append(*stack, indexKey(i))
			c.CheckDuplicates(it, depth+1, lenient, stack)
			*stack = (*stack)[:len(*stack)-1]
		}
	case yamlsrc.Mapping:
		if len(n.Content) > 2 && hasDuplicateKey(n) {
			for _, d := range n.DuplicateKeys() {
				path := JoinPath(strings.ReplaceAll(strings.Join(*stack, "."), ".[", "["), d.Key.Value)
				if lenient {
					c.Warnf(d.Key.Range, path, CodeDuplicateKey, "duplicate key %q: the last definition wins", d.Key.Value)
				} else {
					c.Errorf(d.Key.Range, path, CodeDuplicateKey, "duplicate key %q", d.Key.Value)
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !hasContent(n.Content[i+1]) {
				// A scalar holds no key: no call, no path step.
				continue
			}
			child := lenient
			if depth == 0 && n.Content[i].Value == "topology_template" {
				child = false
			}
			*stack = append(*stack, n.Content[i].Value)
			c.CheckDuplicates(n.Content[i+1], depth+1, child, stack)
			*stack = (*stack)[:len(*stack)-1]
		}
	}
}

// indexKey is the path element of item i of a sequence, "[i]": a
// constant's slice for the first ten, so that walking a template's
// short lists (its requirements) allocates nothing.
func indexKey(i int) string {
	const small = "[0][1][2][3][4][5][6][7][8][9]"
	if i >= 0 && i < 10 {
		return small[3*i : 3*i+3]
	}
	return "[" + Itoa(int64(i)) + "]"
}

// hasContent reports whether CheckDuplicates may have anything to look at
// in n: a sequence, or a mapping of two keys or more, or of one whose
// value has content (not a requirement's short form, {host: server}).
func hasContent(n *yamlsrc.Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind {
	case yamlsrc.Sequence:
		return len(n.Content) > 0
	case yamlsrc.Mapping:
		if len(n.Content) != 2 {
			return len(n.Content) > 2
		}
		v := n.Content[1] // one level only: a chain of maps is not walked twice
		return v != nil && (v.Kind == yamlsrc.Mapping || v.Kind == yamlsrc.Sequence)
	}
	return false
}

// hasDuplicateKey is a quick allocation-free test for small maps (most of
// a template), falling back to DuplicateKeys for large ones.
func hasDuplicateKey(n *yamlsrc.Node) bool {
	if len(n.Content) > 32 {
		return len(n.DuplicateKeys()) > 0
	}
	for i := 0; i < len(n.Content); i += 2 {
		for j := i + 2; j < len(n.Content); j += 2 {
			if n.Content[i].Value == n.Content[j].Value && n.Content[i].Kind == yamlsrc.Scalar && n.Content[j].Kind == yamlsrc.Scalar {
				return true
			}
		}
	}
	return false
}
