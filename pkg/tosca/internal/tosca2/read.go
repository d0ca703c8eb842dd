package tosca2

// Phase 1 (2.0) — read: the grammar of a TOSCA 2.0 file (§6).
//
// Errors detected here (codes in doc.go):
//   - tosca_definitions_version missing, not tosca_2_0, or not the first key (§6.1: it MUST be the
//     first line) (tosca.version)
//   - keynames the 2.0 grammar does not define (tosca.unknown_field); keynames of TOSCA 1.x that
//     2.0 dropped or renamed: an error where 2.0 has a replacement the file must use
//     (topology_template), a warning where xosplan reads them as 1.x did (tosca.legacy_keyname)
//   - a section of the wrong YAML kind, or written without a value where it defines entities
//     (types, repositories, functions, imports, the service template and its sections): an
//     empty section is {} or [] (tosca.wrong_kind)
//   - a profile that also defines a service template (§6.7.1), a profile name that is not a
//     string (tosca.profile)
//   - description not a string; metadata of a type, template or definition not a map
//     (tosca.wrong_kind, tosca.metadata); the file's own metadata not a map is a warning;
//     a metadata value, at any depth, of a YAML type §5.3.1 does not name (tosca.metadata)
//   - a dsl_definitions entry without an anchor (§6.3) (tosca.missing_field)
//   - repositories without url, of the wrong kind (tosca.missing_field, tosca.wrong_kind)
//   - duplicate keys anywhere (tosca.duplicate_key: §6.8.4, §6.9.1 make every repeated name an
//     error in 2.0)

import (
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// loadRoot starts a 2.0 compile at the top-level file, already parsed:
// it sets up the 2.0 state and the profile index, then loads the file and
// its imports.
func (c *compiler) loadRoot(path string, root *yamlsrc.Node) *file {
	c.state = &compileState{
		scopes:     map[*file]*scope{},
		repoRoot:   map[*file]string{},
		profiles:   map[string]*file{},
		checked:    map[*yamlsrc.Node]bool{},
		calls:      map[*yamlsrc.Node]*sig{},
		evaluating: map[*yamlsrc.Node]bool{},
	}
	var stack []string
	c.CheckDuplicates(root, 0, false, &stack)
	f := &file{name: path, key: core.FileKey(path), dir: filepath.Dir(path), root: root, version: Version}
	c.root = f
	c.files[f.key] = f
	// A url with a leading "/" starts at the root of the repository that
	// holds the file (§6.8.2.2): a CSAR's root, else the folder of the
	// top-level template, whose tree is the service's repository.
	repo := f.dir
	if c.Files != nil && len(c.opts.Root) > 0 {
		repo = c.opts.Root[0]
	}
	c.state.repoRoot[f] = repo
	c.setupProfiles(f)
	c.loadFile(f, true)
	return f
}

// TopLevelKeys lists the keynames of a TOSCA 2.0 file (§6.1); a function
// so that no package-level slice can be changed.
func TopLevelKeys() []string {
	return []string{
		"tosca_definitions_version", "description", "metadata", "dsl_definitions", "artifact_types",
		"data_types", "capability_types", "interface_types", "relationship_types", "node_types",
		"group_types", "policy_types", "repositories", "functions", "profile", "imports", "service_template",
	}
}

// legacyTopLevel maps the top-level keynames of TOSCA 1.x that 2.0 does
// not have to what a 2.0 file writes instead.
func legacyTopLevel(key string) string {
	switch key {
	case "topology_template":
		return "TOSCA 2.0 names it service_template (§6.9)"
	case "namespace":
		return "TOSCA 2.0 gives namespaces on imports (§6.8.4)"
	case "template_name", "template_author", "template_version":
		return "TOSCA 2.0 writes it under metadata (§5.3.1)"
	}
	return ""
}

// entitySections reports whether a top-level keyname holds definitions,
// which a keyname written without a value leaves undefined: an error
// (an empty section is {} or []).
func entitySections(key string) bool {
	switch key {
	case "artifact_types", "data_types", "capability_types", "interface_types", "relationship_types",
		"node_types", "group_types", "policy_types", "repositories", "functions", "imports", "service_template":
		return true
	}
	return false
}

// readHeader checks the file-level grammar of a 2.0 file.
//
// An imported file that is not a TOSCA 2.0 file is reported once, at its
// version, and not read further (false): its keynames are another
// grammar's.
func (c *compiler) readHeader(f *file, isRoot bool) bool {
	root := f.root
	vp, ok := root.GetPair("tosca_definitions_version")
	switch {
	case !ok:
		c.Errorf(diag.Range{File: f.name, Start: root.Range.Start}, "", core.CodeVersion, "the file is missing required field \"tosca_definitions_version\"")
		if !isRoot {
			return false
		}
	case vp.Value.Kind != yamlsrc.Scalar || vp.Value.Value != Version:
		what := "the template version %q is not tosca_2_0"
		if !isRoot {
			what = "the imported file's version %q is not tosca_2_0: a TOSCA 2.0 file imports TOSCA 2.0 files and profiles"
		}
		c.Errorf(vp.Value.Range, "tosca_definitions_version", core.CodeVersion, what, vp.Value.Value)
		if !isRoot {
			return false
		}
	case root.Content[0] != vp.Key:
		c.Errorf(vp.Key.Range, "tosca_definitions_version", core.CodeVersion, "tosca_definitions_version must be the first line of a TOSCA file (§6.1)")
	}
	f.version = Version
	for _, p := range root.Pairs() {
		k := p.Key.Value
		switch {
		case slices.Contains(TopLevelKeys(), k):
		case legacyTopLevel(k) != "":
			c.Errorf(p.Key.Range, k, core.CodeUnknownField, "%q is not a keyname of a TOSCA 2.0 file: %s", k, legacyTopLevel(k))
			continue
		default:
			c.Errorf(p.Key.Range, k, core.CodeUnknownField, "a TOSCA 2.0 file has no keyname %q", k)
			continue
		}
		if entitySections(k) {
			want := yamlsrc.Mapping
			if k == "imports" {
				want = yamlsrc.Sequence
			}
			c.section(p, k, want)
		}
	}
	if p, ok := root.GetPair("description"); ok {
		c.description(p, "description")
	}
	if md, ok := root.GetPair("metadata"); ok && !md.Value.IsNull() {
		if md.Value.Kind != yamlsrc.Mapping {
			// §5.3.1: metadata "MAY be ignored" and "SHOULD NOT affect
			// runtime behavior"; the TC's suite accepts a file whose
			// metadata is a note.
			c.Warnf(md.Key.Range, "metadata", core.CodeMetadata, "metadata should be a map, found %s; it is ignored", md.Value.Describe())
		} else {
			c.ReadMetadata(md.Value, "metadata", true)
			c.metadataTypes(md.Value, "metadata")
		}
	}
	if pn, ok := root.GetPair("profile"); ok {
		c.readProfileName(f, pn)
	}
	if dn := root.Get("dsl_definitions"); dn != nil {
		c.readDSL(dn)
	}
	if rn := root.Get("repositories"); rn != nil && rn.Kind == yamlsrc.Mapping {
		c.readRepositories(rn)
	}
	if st, ok := root.GetPair("service_template"); ok && st.Value.Kind == yamlsrc.Mapping {
		c.checkServiceTemplateKeys(st.Value)
	}
	return true
}

// section checks that a section holds the kind it should, and that it
// is not written without a value. It reports whether the section can be
// read.
func (c *compiler) section(p yamlsrc.Pair, path string, want yamlsrc.Kind) bool {
	switch {
	case p.Value.IsNull():
		c.Errorf(p.Key.Range, path, core.CodeWrongKind, "%s has no value; an empty %s is written %s, or the keyname left out", p.Key.Value, want, emptyOf(want))
		return false
	case p.Value.Kind != want:
		c.Errorf(p.Key.Range, path, core.CodeWrongKind, "%s must be a %s, found %s", p.Key.Value, want, p.Value.Describe())
		return false
	}
	return true
}

func emptyOf(k yamlsrc.Kind) string {
	if k == yamlsrc.Sequence {
		return "[]"
	}
	return "{}"
}

// description checks a description: a string (or null).
func (c *compiler) description(p yamlsrc.Pair, path string) {
	if !p.Value.IsNull() && !p.Value.IsString() {
		c.Errorf(p.Key.Range, path, core.CodeWrongKind, "description must be a string, found %s", p.Value.Describe())
	}
}

// metadata checks the metadata of a type, template or definition: a map
// of any values (§5.3.1).
func (c *compiler) metadata(n *yamlsrc.Node, path string) {
	p, ok := n.GetPair("metadata")
	if !ok || p.Value.IsNull() || p.Value.Kind == yamlsrc.Mapping {
		return
	}
	c.Errorf(p.Value.Range, core.JoinPath(path, "metadata"), core.CodeMetadata, "metadata must be a map, found %s", p.Value.Describe())
}

// metadataTypes checks that the values of a metadata map, at any depth,
// are of the YAML types §5.3.1 names: "!!map", "!!seq", "!!str",
// "!!null", "!!bool", "!!int", "!!float" — not !!binary, !!set, !!omap
// or a local tag. A timestamp-looking plain scalar is a string in YAML
// 1.2, whatever a YAML 1.1 resolver tags it; one written with the
// !!timestamp tag is that YAML type, which §9.1.2.1 forbids.
func (c *compiler) metadataTypes(n *yamlsrc.Node, path string) {
	for _, p := range n.Pairs() {
		c.metadataValue(p.Value, core.JoinPath(path, p.Key.Value))
	}
}

func (c *compiler) metadataValue(n *yamlsrc.Node, path string) {
	switch n.Tag {
	case yamlsrc.TagMap:
		c.metadataTypes(n, path)
	case yamlsrc.TagSeq:
		for i, it := range n.Content {
			c.metadataValue(it, path+"["+core.Itoa(int64(i))+"]")
		}
	case yamlsrc.TagStr, yamlsrc.TagNull, yamlsrc.TagBool, yamlsrc.TagInt, yamlsrc.TagFloat:
	case yamlsrc.TagTimestamp:
		if n.Tagged {
			c.Errorf(core.RangeOf(n), path, core.CodeMetadata, "a metadata value is tagged !!timestamp, a YAML type TOSCA 2.0 does not accept (§5.3.1, §9.1.2.1); write it as a string")
		}
	default:
		c.Errorf(core.RangeOf(n), path, core.CodeMetadata, "a metadata value is of YAML type %s; metadata values are maps, lists, strings, nulls, booleans, integers and floats (§5.3.1)", n.Tag)
	}
}

// readProfileName checks the profile keyname: a name, in a file that
// defines no service template (§6.7.1).
func (c *compiler) readProfileName(f *file, p yamlsrc.Pair) {
	if p.Value.Kind != yamlsrc.Scalar || !p.Value.IsString() || p.Value.Value == "" {
		c.Errorf(p.Key.Range, "profile", core.CodeProfile, "profile must be a name, found %s", p.Value.Describe())
		return
	}
	if st, ok := f.root.GetPair("service_template"); ok {
		c.Errorf(st.Key.Range, "service_template", core.CodeProfile, "file declares profile %q and a service template; a TOSCA file that defines a profile must not define a service template (§6.7.1)", p.Value.Value)
	}
}

// readDSL checks dsl_definitions: each entry holds the anchor its
// aliases refer to (§6.3).
func (c *compiler) readDSL(n *yamlsrc.Node) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, "dsl_definitions", core.CodeWrongKind, "dsl_definitions must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		if p.Value.Anchor == "" {
			c.Errorf(p.Key.Range, "dsl_definitions."+p.Key.Value, core.CodeMissingField, "dsl definition %q has no anchor (&name): nothing can refer to it (§6.3)", p.Key.Value)
		}
	}
}

// repositoryKeys lists the keynames of a repository definition (§6.5).
func repositoryKeys() []string { return []string{"description", "metadata", "url"} }

// readRepositories checks repository definitions: a URL, or a map with
// url (§6.5). A 1.x credential is read as 1.x did, with a warning.
func (c *compiler) readRepositories(n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		path := "repositories." + p.Key.Value
		switch {
		case p.Value.IsString():
		case p.Value.Kind == yamlsrc.Mapping:
			c.keys(p.Value, path, func() string { return "repository " + core.Quote(p.Key.Value) }, repositoryKeys(), legacyRepository)
			c.metadata(p.Value, path)
			if u := p.Value.Get("url"); u.IsNull() {
				c.Errorf(p.Key.Range, path, core.CodeMissingField, "repository %q is missing required field \"url\"", p.Key.Value)
			} else if !u.IsString() {
				c.Errorf(u.Range, path+".url", core.CodeWrongKind, "url must be a string, found %s", u.Describe())
			}
		default:
			c.Errorf(p.Value.Range, path, core.CodeWrongKind, "repository %q must be a URL or a map, found %s", p.Key.Value, p.Value.Describe())
		}
	}
}

func legacyRepository(key string) string {
	if key == "credential" {
		return "TOSCA 2.0 repository definitions have no credential (§6.5)"
	}
	return ""
}

// serviceTemplateKeys lists the keynames of a service template (§6.9.1).
func serviceTemplateKeys() []string {
	return []string{"description", "metadata", "inputs", "outputs", "node_templates", "relationship_templates",
		"groups", "policies", "substitution_mappings", "workflows", "functions"}
}

// checkServiceTemplateKeys checks the keynames and section kinds of a
// service template.
func (c *compiler) checkServiceTemplateKeys(st *yamlsrc.Node) {
	const path = "service_template"
	c.keys(st, path, func() string { return "the service template" }, serviceTemplateKeys(), nil)
	c.metadata(st, path)
	if p, ok := st.GetPair("description"); ok {
		c.description(p, path+".description")
	}
	for _, p := range st.Pairs() {
		switch k := p.Key.Value; k {
		case "policies":
			c.section(p, path+"."+k, yamlsrc.Sequence)
		case "inputs", "outputs", "node_templates", "relationship_templates", "groups", "substitution_mappings", "workflows", "functions":
			c.section(p, path+"."+k, yamlsrc.Mapping)
		}
	}
	if _, ok := st.GetPair("node_templates"); !ok {
		c.Errorf(st.Range, path, core.CodeMissingField, "the service template is missing required field \"node_templates\" (§6.9.1)")
	}
}

// keys reports every keyname of the map n that the 2.0 grammar does not
// allow there. legacy, when set, names the 1.x keynames 2.0 dropped and
// why: those are warnings (xosplan reads them as 1.x did). It returns
// false when n is not a map (reported, unless null).
func (c *compiler) keys(n *yamlsrc.Node, path string, what func() string, allowed []string, legacy func(string) string) bool {
	if n.IsNull() {
		return false
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "%s must be a map, found %s", what(), n.Describe())
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yamlsrc.Scalar && slices.Contains(allowed, k.Value) {
			// description and metadata have one grammar wherever they
			// are allowed (§5.3).
			switch {
			case k.Value == "description" && !v.IsNull() && !v.IsString():
				c.Errorf(k.Range, core.JoinPath(path, k.Value), core.CodeWrongKind, "description must be a string, found %s", v.Describe())
			case k.Value == "metadata" && !v.IsNull() && v.Kind != yamlsrc.Mapping:
				c.Errorf(v.Range, core.JoinPath(path, k.Value), core.CodeMetadata, "metadata must be a map, found %s", v.Describe())
			case k.Value == "metadata":
				c.metadataTypes(v, core.JoinPath(path, k.Value))
			}
			continue
		}
		if legacy != nil && k.Kind == yamlsrc.Scalar {
			if why := legacy(k.Value); why != "" {
				c.Warnf(k.Range, core.JoinPath(path, k.Value), core.CodeLegacyKeyname, "%q in %s is a TOSCA 1.x keyname: %s; read as TOSCA 1.3 reads it", k.Value, what(), why)
				continue
			}
		}
		c.Errorf(k.Range, core.JoinPath(path, k.Value), core.CodeUnknownField, "%s contains unknown field %q", what(), k.Value)
		c.SuggestLast(k.Value, slices.Values(allowed))
	}
	return true
}

// str returns a string keyname's value, reporting one that is not a
// string; nil when absent or null.
func (c *compiler) str(n *yamlsrc.Node, path, key string) (string, *yamlsrc.Node) {
	v := n.Get(key)
	if v.IsNull() {
		return "", nil
	}
	if v.Kind != yamlsrc.Scalar || !v.IsString() {
		c.Errorf(v.Range, core.JoinPath(path, key), core.CodeWrongKind, "%s must be a string, found %s", key, v.Describe())
		return "", nil
	}
	return v.Value, v
}

// boolValue reads a boolean keyname (required, optional, variadic): a YAML
// boolean. ok is false when absent or not a boolean (reported).
func (c *compiler) boolValue(n *yamlsrc.Node, path, key string) (val, set bool) {
	v := n.Get(key)
	if v.IsNull() {
		return false, false
	}
	b, ok := v.Bool()
	if !ok {
		c.Errorf(v.Range, core.JoinPath(path, key), core.CodeWrongKind, "%s must be true or false, found %s", key, v.Describe())
		return false, false
	}
	return b, true
}
