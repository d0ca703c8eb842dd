package tosca

// Phase 1b — limits: the length and character limits of DESIGN §7 on what
// a file names and describes, checked on each user file's tree right after
// its header, before anything reads the names.
//
// Errors detected here (codes in doc.go):
//   - a name over 255 characters or with a control character (tosca.bad_name):
//     type, repository, import, input, output, property, attribute,
//     capability, requirement, interface, operation, notification,
//     artifact, node template, relationship template, group, policy,
//     workflow and step names, and metadata keys
//   - a description over 64 KiB, or a metadata value over 64 KiB (tosca.too_long)
//
// The checks only report: the file compiles as if they had passed, so that
// a long name raises nothing more than its own diagnostic.

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// limitWalk carries the compiler through one file's tree.
type limitWalk struct{ c *compiler }

// checkLimits walks a user file's sections. Embedded type files are ours
// and skip it.
func (c *compiler) checkLimits(f *file) {
	w := limitWalk{c}
	root := f.root
	for _, p := range root.Pairs() {
		k := p.Key.Value
		switch {
		case k == "description":
			w.text(p.Value, k, "description", yamlsrc.MaxDescriptionBytes)
		case k == "metadata":
			w.metadata(p.Value, k)
		case k == "repositories":
			w.names(p.Value, k, "repository", true)
		case k == "imports":
			w.imports(p.Value, k)
		case strings.HasSuffix(k, "_types"):
			w.types(p.Value, k, strings.ReplaceAll(strings.TrimSuffix(k, "s"), "_", " "))
		case k == "topology_template":
			w.entity(p.Value, k, true)
		}
	}
}

// name reports a bad name key.
func (w limitWalk) name(k *yamlsrc.Node, path, what string) {
	if p := yamlsrc.NameProblem(what+" name", k.Value); p != "" {
		w.c.errorf(k.Range, path, CodeBadName, "%s", p)
	}
}

// text reports a scalar longer than limit bytes.
func (w limitWalk) text(v *yamlsrc.Node, path, what string, limit int) {
	if v == nil || v.Kind != yamlsrc.Scalar {
		return
	}
	if p := yamlsrc.TextProblem(what, v.Value, limit); p != "" {
		w.c.errorf(v.Range, path, CodeTooLong, "%s", p)
	}
}

func (w limitWalk) metadata(md *yamlsrc.Node, path string) {
	for _, p := range md.Pairs() {
		kp := joinPath(path, p.Key.Value)
		w.name(p.Key, kp, "metadata key")
		w.text(p.Value, kp, "metadata value", yamlsrc.MaxMetadataValueBytes)
	}
}

// imports checks the names of 1.0-style named imports (- name: file).
func (w limitWalk) imports(list *yamlsrc.Node, path string) {
	for i, it := range list.Items() {
		if it.Kind == yamlsrc.Mapping && len(it.Content) == 2 && !contains(longImportKeys(), it.Content[0].Value) {
			w.name(it.Content[0], path+"["+itoa(int64(i))+"]."+it.Content[0].Value, "import")
		}
	}
}

// types checks a *_types section: every type is a definition, and an
// interface type's own keys name its operations.
func (w limitWalk) types(sec *yamlsrc.Node, path, what string) {
	for _, p := range sec.Pairs() {
		tp := joinPath(path, p.Key.Value)
		w.name(p.Key, tp, what)
		if what == "interface type" {
			w.iface(p.Value, tp, true)
		} else {
			w.entity(p.Value, tp, true)
		}
	}
}

// names checks the keys of a map of named entities and walks each entity.
// defs says whether the entities are definitions (their properties,
// attributes and inputs have definitions) or assignments (those hold
// values, which are data and not walked).
func (w limitWalk) names(sec *yamlsrc.Node, path, what string, defs bool) {
	for _, p := range sec.Pairs() {
		ep := joinPath(path, p.Key.Value)
		w.name(p.Key, ep, what)
		if what == "interface" {
			w.iface(p.Value, ep, defs)
		} else {
			w.entity(p.Value, ep, defs)
		}
	}
}

// namedList checks a list of single-key maps (requirements, and policies
// before 1.3); a map is accepted too.
func (w limitWalk) namedList(sec *yamlsrc.Node, path, what string, defs bool) {
	if sec.Kind == yamlsrc.Mapping {
		w.names(sec, path, what, defs)
		return
	}
	for i, it := range sec.Items() {
		w.names(it, path+"["+itoa(int64(i))+"]", what, defs)
	}
}

// values checks the names of a map of assigned values without walking
// into the values.
func (w limitWalk) values(sec *yamlsrc.Node, path, what string) {
	for _, p := range sec.Pairs() {
		w.name(p.Key, joinPath(path, p.Key.Value), what)
	}
}

// sectionWhat names the entities of each section that holds named ones.
func sectionWhat(key string) string {
	switch key {
	case "properties":
		return "property"
	case "attributes":
		return "attribute"
	case "inputs":
		return "input"
	case "outputs":
		return "output"
	case "capabilities":
		return "capability"
	case "requirements":
		return "requirement"
	case "interfaces":
		return "interface"
	case "operations":
		return "operation"
	case "notifications":
		return "notification"
	case "artifacts":
		return "artifact"
	case "node_templates":
		return "node template"
	case "relationship_templates":
		return "relationship template"
	case "groups":
		return "group"
	case "policies":
		return "policy"
	case "workflows":
		return "workflow"
	case "steps":
		return "step"
	}
	return ""
}

// entity walks a definition, template or topology: its description, its
// metadata and its sections of named entities. Templates are assignments,
// so below node_templates and the other template sections defs is false.
func (w limitWalk) entity(n *yamlsrc.Node, path string, defs bool) {
	for _, p := range n.Pairs() {
		w.entityPair(p, path, defs)
	}
}

func (w limitWalk) entityPair(p yamlsrc.Pair, path string, defs bool) {
	k := p.Key.Value
	kp := joinPath(path, k)
	switch what := sectionWhat(k); {
	case k == "description":
		w.text(p.Value, kp, "description", yamlsrc.MaxDescriptionBytes)
	case k == "metadata":
		w.metadata(p.Value, kp)
	case k == "entry_schema" || k == "key_schema":
		w.entity(p.Value, kp, defs)
	case what == "":
	case (k == "properties" || k == "attributes" || k == "inputs") && !defs:
		w.values(p.Value, kp, what)
	case k == "requirements" || k == "policies":
		w.namedList(p.Value, kp, what, defs && k == "requirements")
	case k == "node_templates" || k == "relationship_templates" || k == "groups":
		w.names(p.Value, kp, what, false)
	default:
		w.names(p.Value, kp, what, defs)
	}
}

// iface walks an interface definition, type or assignment: the keys the
// grammar reserves are walked as in any entity, and the others name
// operations.
func (w limitWalk) iface(n *yamlsrc.Node, path string, defs bool) {
	reserved := ifaceMetaKeys()
	for _, p := range n.Pairs() {
		if contains(reserved, p.Key.Value) {
			w.entityPair(p, path, defs)
			continue
		}
		op := joinPath(path, p.Key.Value)
		w.name(p.Key, op, "operation")
		w.entity(p.Value, op, defs)
	}
}
