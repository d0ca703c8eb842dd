package core

// Phase 1b — limits: the length and character limits of DESIGN §7 on what
// a file names and describes, checked on each user file's tree right after
// its header, before anything reads the names.
//
// Errors detected here (codes in pkg/tosca's doc.go):
//   - a name over 255 characters or with a control character (tosca.bad_name):
//     type, repository, import, input, output, property, attribute,
//     capability, requirement, interface, operation, notification,
//     artifact, node template, relationship template, group, policy,
//     workflow and step names, and metadata keys
//   - a description over 64 KiB, or a metadata value (template_name,
//     template_author and template_version included) over 64 KiB (tosca.too_long)
//
// The checks only report: the file compiles as if they had passed, so that
// a long name raises nothing more than its own diagnostic.

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// limitWalk carries the compiler through one file's tree. keys is the
// path to the node being walked, joined into a YAML path only when
// something is reported (most files report nothing, and a path per name
// would cost an allocation each).
type limitWalk struct {
	c    *Session
	keys []PathKey
}

// PathKey is a mapping key, or with Index ≥ 0 a list index.
type PathKey struct {
	Key   string
	Index int
}

// CheckLimits walks the sections of a user file's tree root. Embedded type
// files are ours and skip it.
func (c *Session) CheckLimits(root *yamlsrc.Node) {
	w := &limitWalk{c: c}
	eachPair(root, func(k, v *yamlsrc.Node) {
		w.push(k.Value)
		defer w.pop()
		switch key := k.Value; {
		case key == "description":
			w.text(v, "description", yamlsrc.MaxDescriptionBytes)
		case key == "metadata":
			w.metadata(v)
		case key == "template_name" || key == "template_author" || key == "template_version":
			// The 1.0 spelling of template metadata.
			w.text(v, "metadata value", yamlsrc.MaxMetadataValueBytes)
		case key == "repositories":
			w.names(v, "repository name", true)
		case key == "imports":
			w.imports(v)
		case strings.HasSuffix(key, "_types"):
			// Type definitions; an interface type's own keys name its
			// operations, as an interface definition's do.
			w.names(v, strings.ReplaceAll(strings.TrimSuffix(key, "s"), "_", " ")+" name", true)
		case key == "topology_template":
			w.entity(v, true)
		}
	})
}

// eachPair calls fn with the key and value of each entry of a mapping, in
// order, without building a slice of pairs.
func eachPair(n *yamlsrc.Node, fn func(k, v *yamlsrc.Node)) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i], n.Content[i+1])
	}
}

func (w *limitWalk) push(key string) { w.keys = append(w.keys, PathKey{Key: key, Index: -1}) }
func (w *limitWalk) pushIndex(i int) { w.keys = append(w.keys, PathKey{Index: i}) }
func (w *limitWalk) pop()            { w.keys = w.keys[:len(w.keys)-1] }

// path renders the keys as the YAML paths of other diagnostics do
// (a.b[0].c).
func (w *limitWalk) path() string { return PathOf(w.keys) }

// PathOf renders keys (keynames and sequence indices) as a YAML path.
func PathOf(keys []PathKey) string {
	var b strings.Builder
	for _, k := range keys {
		switch {
		case k.Index >= 0:
			b.WriteString("[" + Itoa(int64(k.Index)) + "]")
		case b.Len() > 0:
			b.WriteString("." + k.Key)
		default:
			b.WriteString(k.Key)
		}
	}
	return b.String()
}

// name reports a bad name: k, the current key, is named what ("property
// name").
func (w *limitWalk) name(k *yamlsrc.Node, what string) {
	if p := yamlsrc.NameProblem(what, k.Value); p != "" {
		w.c.Errorf(k.Range, w.path(), CodeBadName, "%s", p)
	}
}

// text reports a scalar longer than limit bytes.
func (w *limitWalk) text(v *yamlsrc.Node, what string, limit int) {
	if v == nil || v.Kind != yamlsrc.Scalar {
		return
	}
	if p := yamlsrc.TextProblem(what, v.Value, limit); p != "" {
		w.c.Errorf(v.Range, w.path(), CodeTooLong, "%s", p)
	}
}

func (w *limitWalk) metadata(md *yamlsrc.Node) {
	eachPair(md, func(k, v *yamlsrc.Node) {
		w.push(k.Value)
		defer w.pop()
		w.name(k, "metadata key name")
		w.text(v, "metadata value", yamlsrc.MaxMetadataValueBytes)
	})
}

// imports checks the names of 1.0-style named imports (- name: file).
func (w *limitWalk) imports(list *yamlsrc.Node) {
	for i, it := range list.Items() {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 || slices.Contains(LongImportKeys(), it.Content[0].Value) {
			continue
		}
		w.pushIndex(i)
		w.push(it.Content[0].Value)
		w.name(it.Content[0], "import name")
		w.pop()
		w.pop()
	}
}

// names checks the keys of a map of named entities and walks each entity.
// defs says whether the entities are definitions (their properties,
// attributes and inputs have definitions) or assignments (those hold
// values, which are data and not walked).
func (w *limitWalk) names(sec *yamlsrc.Node, what string, defs bool) {
	eachPair(sec, func(k, v *yamlsrc.Node) {
		w.push(k.Value)
		defer w.pop()
		w.name(k, what)
		if what == "interface name" || what == "interface type name" {
			w.iface(v, defs)
		} else {
			w.entity(v, defs)
		}
	})
}

// namedList checks a list of single-key maps (requirements, and policies
// before 1.3); a map is accepted too.
func (w *limitWalk) namedList(sec *yamlsrc.Node, what string, defs bool) {
	if sec.Kind == yamlsrc.Mapping {
		w.names(sec, what, defs)
		return
	}
	for i, it := range sec.Items() {
		w.pushIndex(i)
		w.names(it, what, defs)
		w.pop()
	}
}

// values checks the names of a map of assigned values without walking
// into the values.
func (w *limitWalk) values(sec *yamlsrc.Node, what string) {
	eachPair(sec, func(k, _ *yamlsrc.Node) {
		w.push(k.Value)
		w.name(k, what)
		w.pop()
	})
}

// sectionWhat names the entities of each section that holds named ones.
func sectionWhat(key string) string {
	switch key {
	case "properties":
		return "property name"
	case "attributes":
		return "attribute name"
	case "inputs":
		return "input name"
	case "outputs":
		return "output name"
	case "capabilities":
		return "capability name"
	case "requirements":
		return "requirement name"
	case "interfaces":
		return "interface name"
	case "operations":
		return "operation name"
	case "notifications":
		return "notification name"
	case "artifacts":
		return "artifact name"
	case "node_templates":
		return "node template name"
	case "relationship_templates":
		return "relationship template name"
	case "groups":
		return "group name"
	case "policies":
		return "policy name"
	case "workflows":
		return "workflow name"
	case "steps":
		return "step name"
	}
	return ""
}

// entity walks a definition, template or topology: its description, its
// metadata and its sections of named entities. Templates are assignments,
// so below node_templates and the other template sections defs is false.
func (w *limitWalk) entity(n *yamlsrc.Node, defs bool) {
	eachPair(n, func(k, v *yamlsrc.Node) { w.entityPair(k, v, defs) })
}

func (w *limitWalk) entityPair(k, v *yamlsrc.Node, defs bool) {
	key := k.Value
	what := sectionWhat(key)
	if what == "" && key != "description" && key != "metadata" && key != "entry_schema" && key != "key_schema" {
		return
	}
	w.push(key)
	defer w.pop()
	switch {
	case key == "description":
		w.text(v, "description", yamlsrc.MaxDescriptionBytes)
	case key == "metadata":
		w.metadata(v)
	case key == "entry_schema" || key == "key_schema":
		w.entity(v, defs)
	case (key == "properties" || key == "attributes" || key == "inputs") && !defs:
		w.values(v, what)
	case key == "requirements" || key == "policies":
		w.namedList(v, what, defs && key == "requirements")
	case key == "node_templates" || key == "relationship_templates" || key == "groups":
		w.names(v, what, false)
	default:
		w.names(v, what, defs)
	}
}

// iface walks an interface definition, type or assignment: the keys the
// grammar reserves (ifaceMetaKeys) are walked as in any entity, and the
// others name operations.
func (w *limitWalk) iface(n *yamlsrc.Node, defs bool) {
	eachPair(n, func(k, v *yamlsrc.Node) {
		if slices.Contains(IfaceMetaKeys(), k.Value) {
			w.entityPair(k, v, defs)
			return
		}
		w.push(k.Value)
		defer w.pop()
		w.name(k, "operation name")
		w.entity(v, defs)
	})
}

// IfaceMetaKeys lists the keynames of an interface definition that are
// no operation names (1.x grammar); a function so that no
// package-level slice can be changed.
func IfaceMetaKeys() []string {
	return []string{"type", "description", "inputs", "operations", "notifications", "derived_from", "version", "metadata"}
}
