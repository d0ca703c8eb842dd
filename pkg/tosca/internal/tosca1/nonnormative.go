package tosca1

// Phase 2 (end) — the non-normative types of the Simple Profile (MySQL,
// Apache, WordPress, Node.js, Docker; normative.NonNormative), which the
// specification defines for its examples and templates written from them
// use without importing a definition.
//
// Once every file is loaded, the template's files are scanned for type
// names (see typeRefs). When one names a non-normative type that no loaded
// file defines, the embedded definitions are loaded after the normative
// types, as normative types: a template's own definition of any of them
// replaces the embedded one silently, and a type the version's normative
// file already has keeps that definition.
//
// Warnings detected here:
//   - each non-normative type supplied, once, where the template first names it
//     (tosca.nonnormative_type): another orchestrator may define it otherwise or not at all

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/normative"
)

// nonNormativeRef is a type name written in a template that means a
// non-normative type.
type nonNormativeRef struct {
	full string
	k    kind
	n    *yamlsrc.Node
	path string
	// own marks xosplan's own types (normative.Xosplan), supplied without
	// a warning.
	own bool
}

// loadNonNormative loads the non-normative types when a loaded file names
// one that no loaded file defines, and warns of each such type once.
func (c *compiler) loadNonNormative() {
	w := typeRefWalker{aliases: nonNormativeAliases()}
	w.ref = func(n *yamlsrc.Node) {
		r, ok := w.aliases[n.Value]
		if !ok {
			return
		}
		for _, seen := range w.refs {
			if seen.full == r.full {
				return
			}
		}
		if !c.definedInFiles(r.k, r.full) && !c.definedInFiles(r.k, n.Value) {
			r.n, r.path = n, w.path()
			w.refs = append(w.refs, r)
		}
	}
	for _, f := range c.order {
		if f.normative || f.root == nil {
			continue
		}
		for i := 0; i+1 < len(f.root.Content); i += 2 {
			section := f.root.Content[i].Value
			if section == "description" || section == "metadata" || section == "imports" {
				continue
			}
			w.stack = append(w.stack[:0], pathKey{Key: section, Index: -1})
			w.walk(f.root.Content[i+1], section, strings.HasSuffix(section, "_types"))
		}
	}
	var warned []nonNormativeRef
	own := false
	for _, r := range w.refs {
		if r.own {
			own = true
		} else {
			warned = append(warned, r)
		}
	}
	if own {
		name, data := normative.Xosplan()
		c.loadEmbeddedTypes("normative:xosplan", name, data)
	}
	if len(warned) == 0 {
		return
	}
	name, data := normative.NonNormative()
	if !c.loadEmbeddedTypes("normative:non-normative", name, data) {
		return
	}
	for _, r := range warned {
		c.warnf(r.n.Range, r.path, core.CodeNonNormativeType, "%s %q is not a normative TOSCA type: xosplan supplies the definition the TOSCA Simple Profile gives for it (non-normative types); another orchestrator may define it otherwise or not at all, so import a definition of your own to be sure", r.k.Word(), r.full)
	}
}

// loadEmbeddedTypes loads an embedded type file after the normative
// types, as normative types that a template's own definitions replace.
func (c *compiler) loadEmbeddedTypes(key, name string, data []byte) bool {
	root := c.parseEmbedded(key, name, data)
	if root == nil {
		return false
	}
	f := &file{name: name, key: key, root: root, version: version13, normative: true, nonNormative: true}
	c.files[f.key] = f
	at := 0
	for i, g := range c.order {
		if g.normative {
			at = i + 1
		}
	}
	c.order = append(c.order[:at], append([]*file{f}, c.order[at:]...)...)
	return true
}

// definedInFiles reports whether a loaded file defines a type of kind k
// under the name written.
func (c *compiler) definedInFiles(k kind, name string) bool {
	for _, f := range c.order {
		if f.root != nil && f.root.Get(k.Section()).Get(name) != nil {
			return true
		}
	}
	return false
}

// nonNormativeAliases maps each name a template may write for a
// non-normative type (its full name and the short and "tosca:" names the
// compiler gives normative types, see declare) to that type. A short name
// two of them share (Docker, MySQL) is left out: which one it means
// depends on where it is written.
func nonNormativeAliases() map[string]nonNormativeRef {
	out := map[string]nonNormativeRef{}
	shared := map[string]bool{}
	for _, full := range normative.NonNormativeTypes() {
		var k kind
		for _, kk := range []kind{kArtifact, kCapability, kNode} {
			if strings.HasPrefix(full, kk.NormPrefix()) {
				k = kk
			}
		}
		rest := strings.TrimPrefix(full, k.NormPrefix())
		last := full[strings.LastIndexByte(full, '.')+1:]
		for _, alias := range []string{full, rest, last, "tosca:" + rest, "tosca:" + last} {
			if prev, taken := out[alias]; taken && prev.full != full {
				shared[alias] = true
			}
			out[alias] = nonNormativeRef{full: full, k: k}
		}
	}
	for alias := range shared {
		delete(out, alias)
	}
	for _, full := range normative.XosplanTypes() {
		k := kPolicy
		if strings.HasPrefix(full, "xosplan.interfaces.") {
			k = kInterface
		}
		out[full] = nonNormativeRef{full: full, k: k, own: true}
	}
	return out
}

// typeRefWalker finds the scalars of a file that stand where a type name
// may (walk), calling ref for each; stack holds the keynames and indices
// leading to the node being walked, for the YAML path of a diagnostic.
type typeRefWalker struct {
	aliases map[string]nonNormativeRef
	ref     func(*yamlsrc.Node)
	refs    []nonNormativeRef
	stack   []pathKey
}

// path is the YAML path of the node being walked.
func (w *typeRefWalker) path() string { return pathOf(w.stack) }

// walk visits n, the value of the keyname key: ref is called for the
// value of type, derived_from, node, capability, relationship, node_type,
// entry_schema and key_schema; for the short forms of requirement
// definitions and assignments and, inside type definitions (inTypes), of
// capability definitions; for the items of valid_source_types and
// valid_target_types, and inside type definitions of members and targets.
func (w *typeRefWalker) walk(n *yamlsrc.Node, key string, inTypes bool) {
	switch n.Kind {
	case yamlsrc.Mapping:
		// Content, not Pairs: the walk covers every template and must not
		// allocate.
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			// The key is pushed only for what looks further (most pairs of
			// a template are scalars that name no type).
			switch {
			case v.Kind != yamlsrc.Scalar:
				if k != "description" && k != "metadata" {
					w.stack = append(w.stack, pathKey{Key: k, Index: -1})
					w.walk(v, k, inTypes)
					w.stack = w.stack[:len(w.stack)-1]
				}
			case isTypeKeyname(k), key == "requirements", inTypes && key == "capabilities":
				w.stack = append(w.stack, pathKey{Key: k, Index: -1})
				w.ref(v)
				w.stack = w.stack[:len(w.stack)-1]
			}
		}
	case yamlsrc.Sequence:
		for i, it := range n.Content {
			if it.Kind == yamlsrc.Scalar && !(key == "valid_source_types" || key == "valid_target_types" || inTypes && (key == "members" || key == "targets")) {
				continue
			}
			w.stack = append(w.stack, pathKey{Index: i})
			if it.Kind == yamlsrc.Scalar {
				w.ref(it)
			} else {
				// Items of a requirements list keep the list's keyname:
				// their short forms name types too.
				w.walk(it, key, inTypes)
			}
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
}

// isTypeKeyname reports whether a keyname's value is a type name.
func isTypeKeyname(k string) bool {
	switch k {
	case "type", "derived_from", "node", "capability", "relationship", "node_type", "entry_schema", "key_schema":
		return true
	}
	return false
}
