package tosca1

// Phase 1 — read: the grammar of a service template file.
//
// Errors detected here (codes in doc.go):
//   - the file cannot be read, is not YAML, or is not a map (tosca.read, tosca.wrong_kind)
//   - tosca_definitions_version missing, not first, or not a supported version (tosca.version)
//   - unknown top-level sections and unknown keynames anywhere in the grammar (tosca.unknown_field)
//   - a section of the wrong YAML kind (tosca.wrong_kind)
//   - missing required keynames (tosca.missing_field)
//   - metadata template_name/template_author not strings, template_version not a version (tosca.metadata)
//   - description not a string (tosca.wrong_kind)
//   - a repository without url (tosca.missing_field)
//   - duplicate mapping keys (tosca.duplicate_key; a warning inside type sections, where XOS's
//     generator repeats tosca.relationships.BelongsToOne and PyYAML-based tools keep the last)

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// file is one loaded service template or type-definition file.
type file struct {
	// name is the path used in diagnostics (as the user wrote it, joined
	// with import paths), or a pseudo name for embedded definitions.
	name string
	// key identifies the file so that it is parsed once.
	key string
	// dir resolves relative imports; empty for embedded files.
	dir  string
	root *yamlsrc.Node
	// version is the file's tosca_definitions_version, normalised.
	version string
	// prefix is the namespace_prefix the file was imported with.
	prefix string
	// imported lists the 1.x files this one imports, each with the
	// namespace_prefix of its import (types.go: qualified).
	imported []prefixedImport
	// normative marks the embedded normative types; nonNormative the
	// embedded non-normative ones among them (nonnormative.go).
	normative, nonNormative bool
}

// Supported tosca_definitions_version values.
const (
	version10 = "tosca_simple_yaml_1_0"
	version11 = "tosca_simple_yaml_1_1"
	version12 = "tosca_simple_yaml_1_2"
	version13 = "tosca_simple_yaml_1_3"
)

// normaliseVersion maps the accepted spellings of tosca_definitions_version
// to one of the version constants. The OASIS namespace URI form is the 1.0
// spelling of the conformance suite.
func normaliseVersion(v string) (string, bool) {
	switch v {
	case version10, version11, version12, version13:
		return v, true
	case "http://docs.oasis-open.org/tosca/ns/simple/yaml/1.0":
		return version10, true
	case "tosca_simple_profile_for_nfv_1_0_0":
		// The NFV profile builds on 1.0; its types are embedded (profiles.go).
		return version10, true
	case "tosca_simple_profile_for_mec_1_0_0":
		// A profile of 1.0 that tosca-parser accepts; its extra types are not
		// embedded, so templates using them report unknown types.
		return version10, true
	}
	return "", false
}

// embeddedParse is the parse of an embedded type file: the data parsed,
// its tree, which the compiler only reads, and what parsing it reported.
type embeddedParse struct {
	data  []byte
	root  *yamlsrc.Node
	diags diag.Diagnostics
}

// embeddedParses holds the parse of each embedded file, by key, made once
// per process: the files are constant, and parsing the normative types
// again was nearly half of compiling a small template (and of validating
// a folder of them). Only what a parse of constant data returns is kept,
// and the trees are never written to, so compiles running at once share
// them safely.
var embeddedParses sync.Map

// parseEmbedded is parseData for the embedded file key: data parsed once
// (embeddedParses), its diagnostics reported to every compile that loads
// it. Data other than what was parsed under the key is parsed anew.
func (c *compiler) parseEmbedded(key, name string, data []byte) *yamlsrc.Node {
	p, ok := embeddedParses.Load(key)
	if !ok {
		sub := core.Session{Ctx: c.Ctx}
		root := sub.ParseData(name, data)
		p, _ = embeddedParses.LoadOrStore(key, &embeddedParse{data: data, root: root, diags: sub.Diags})
	}
	ep := p.(*embeddedParse)
	if !bytes.Equal(ep.data, data) {
		return c.ParseData(name, data)
	}
	// Copied: a caller may change its diagnostics in place.
	c.Diags = append(c.Diags, ep.diags...)
	return ep.root
}

// TopLevelKeys lists the keynames of a 1.x service template; a function so
// that no package-level slice can be changed.
func TopLevelKeys() []string {
	return []string{
		"tosca_definitions_version", "namespace", "metadata", "template_name", "template_author",
		"template_version", "description", "dsl_definitions", "repositories", "imports",
		"artifact_types", "data_types", "capability_types", "interface_types", "relationship_types",
		"node_types", "group_types", "policy_types", "topology_template",
	}
}

// readHeader checks the file-level grammar that does not depend on types:
// version, metadata, description, repositories, section kinds.
func (c *compiler) readHeader(f *file, isRoot bool) {
	root := f.root
	vp, ok := root.GetPair("tosca_definitions_version")
	switch {
	case !ok:
		if isRoot {
			c.errorf(diag.Range{File: f.name, Start: root.Range.Start}, "", core.CodeVersion, "template is missing required field \"tosca_definitions_version\"")
		}
		f.version = c.version
	default:
		s, isStr := vp.Value.String()
		v, known := normaliseVersion(s)
		switch {
		case !isStr || !known:
			c.errorf(vp.Value.Range, "tosca_definitions_version", core.CodeVersion,
				"the template version %q is invalid; valid versions are %s", vp.Value.Value, strings.Join(SupportedVersions(), ", "))
		case root.Content[0] != vp.Key:
			// The specification asks for it first (TOSCA 1.3 §3.9.3.1),
			// but a YAML mapping is unordered (YAML 1.2 §3.2.1.1): the
			// version is declared all the same.
			c.warnf(vp.Key.Range, "tosca_definitions_version", core.CodeVersion, "tosca_definitions_version should be the first line of the template")
		}
		f.version = v
		if f.version == "" {
			f.version = c.version
		}
	}
	if f.version == "" {
		f.version = version13
	}
	c.checkKeys(root, "", "template", TopLevelKeys()...)
	if md := root.Get("metadata"); md != nil {
		c.ReadMetadata(md, "metadata", true)
	}
	for _, k := range []string{"template_name", "template_author"} {
		if n := root.Get(k); n != nil && !n.IsString() {
			c.errorf(n.Range, k, core.CodeMetadata, "%s must be a string, found %s", k, n.Describe())
		}
	}
	if p, ok := root.GetPair("description"); ok && !p.Value.IsNull() && !p.Value.IsString() {
		c.errorf(p.Key.Range, "description", core.CodeWrongKind, "description must be a string, found %s", p.Value.Describe())
	}
	if n := root.Get("repositories"); n != nil {
		c.readRepositories(n)
	}
	if n := root.Get("namespace"); n != nil {
		c.checkNamespace(n, "namespace", "namespace")
	}
	for _, p := range root.Pairs() {
		k := p.Key.Value
		if strings.HasSuffix(k, "_types") || k == "topology_template" || k == "repositories" || k == "metadata" {
			if !p.Value.IsNull() && p.Value.Kind != yamlsrc.Mapping {
				c.errorf(p.Key.Range, k, core.CodeWrongKind, "%s must be a map, found %s", k, p.Value.Describe())
			}
		}
		if k == "imports" && !p.Value.IsNull() && p.Value.Kind != yamlsrc.Sequence {
			c.errorf(p.Key.Range, k, core.CodeWrongKind, "imports must be a list, found %s", p.Value.Describe())
		}
	}
}

// checkNamespace checks a namespace URI (a template's namespace, an
// import's namespace_uri): a string, and a warning when it is not an
// absolute URI (TOSCA 1.3 §3.9.3, §3.6.8).
func (c *compiler) checkNamespace(n *yamlsrc.Node, path, what string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Scalar {
		c.errorf(n.Range, path, core.CodeWrongKind, "%s must be a URI string, found %s", what, n.Describe())
		return
	}
	if u, err := url.Parse(n.Value); err != nil || u.Scheme == "" {
		c.warnf(n.Range, path, core.CodeValue, "%s %q is not an absolute URI", what, n.Value)
	}
}

// checkCredentials checks the credential of every repository of the
// loaded files against tosca.datatypes.Credential (token is required),
// once the types are known. A credential is a secret: the checks do not
// quote it.
func (c *compiler) checkCredentials() {
	cred := c.lookup(kData, "tosca.datatypes.Credential")
	if cred == nil {
		return
	}
	c.InSecret++
	defer func() { c.InSecret-- }()
	for _, f := range c.order {
		if f.normative || f.root == nil {
			continue
		}
		for _, p := range f.root.Get("repositories").Pairs() {
			cn := p.Value.Get("credential")
			if cn.IsNull() || p.Value.Kind != yamlsrc.Mapping {
				continue
			}
			path := "repositories." + p.Key.Value + ".credential"
			what := "credential of repository " + quote(p.Key.Value)
			// Checked field by field, never as a value: {token: …} is a
			// credential here, not a call of the token function.
			if cn.Kind != yamlsrc.Mapping {
				c.mismatch(cn, path, what, "", "the value is not a map (data type \"tosca.datatypes.Credential\")")
				continue
			}
			c.assignFields(cred, cn, path, what, &scope{at: cn.Range, inputsOnly: true}, 1)
		}
	}
}

// SupportedVersions lists the 1.x tosca_definitions_version values the
// compiler reads, as written.
func SupportedVersions() []string {
	return []string{version10, version11, version12, version13}
}

func (c *compiler) readRepositories(n *yamlsrc.Node) {
	if n.Kind != yamlsrc.Mapping {
		return
	}
	for _, p := range n.Pairs() {
		path := "repositories." + p.Key.Value
		switch {
		case p.Value.IsString():
		case p.Value.Kind == yamlsrc.Mapping:
			c.checkKeys(p.Value, path, "repository "+quote(p.Key.Value), "description", "url", "credential")
			if u := p.Value.Get("url"); u == nil || u.IsNull() {
				c.errorf(p.Key.Range, path, core.CodeMissingField, "repository %q is missing required field \"url\"", p.Key.Value)
			} else if !u.IsString() {
				c.errorf(u.Range, path+".url", core.CodeWrongKind, "url must be a string, found %s", u.Describe())
			}
		default:
			c.errorf(p.Value.Range, path, core.CodeWrongKind, "repository %q must be a URL or a map, found %s", p.Key.Value, p.Value.Describe())
		}
	}
}

// checkKeys reports every key of the mapping n that is not allowed. It
// returns false when n is not a mapping (after reporting it, unless n is
// null, which callers treat as empty).
func (c *compiler) checkKeys(n *yamlsrc.Node, path, what string, allowed ...string) bool {
	return c.checkKeysOf(n, path, func() string { return what }, allowed...)
}

// checkKeysOf is checkKeys with the subject's name built only when a
// problem is reported (it runs for every template of large topologies).
func (c *compiler) checkKeysOf(n *yamlsrc.Node, path string, what func() string, allowed ...string) bool {
	if n.IsNull() {
		return false
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "%s must be a map, found %s", what(), n.Describe())
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(allowed, k.Value) {
			c.lenientf(k.Range, joinPath(path, k.Value), core.CodeUnknownField, "%s contains unknown field %q", what(), k.Value)
			c.SuggestLast(k.Value, slices.Values(allowed))
		}
	}
	return true
}

// str returns a string-valued keyname, reporting a non-string.
func (c *compiler) str(n *yamlsrc.Node, path, key string) (string, *yamlsrc.Node) {
	v := n.Get(key)
	if v == nil || v.IsNull() {
		return "", nil
	}
	if v.Kind != yamlsrc.Scalar {
		c.errorf(v.Range, joinPath(path, key), core.CodeWrongKind, "%s must be a string, found %s", key, v.Describe())
		return "", nil
	}
	return v.Value, v
}

// strList reads a list of strings (a single string is accepted as a list
// of one, as tosca-parser does).
func (c *compiler) strList(v *yamlsrc.Node, path, what string) []string {
	if v.IsNull() {
		return nil
	}
	if v.Kind == yamlsrc.Scalar {
		return []string{v.Value}
	}
	if v.Kind != yamlsrc.Sequence {
		c.errorf(v.Range, path, core.CodeWrongKind, "%s must be a list, found %s", what, v.Describe())
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		if it.Kind != yamlsrc.Scalar || it.IsNull() {
			c.errorf(it.Range, path, core.CodeWrongKind, "%s must list strings, found %s", what, it.Describe())
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

// keyAt returns the range of a mapping's key, or fallback when absent:
// problems with a whole section point at its name.
func keyAt(n *yamlsrc.Node, key string, fallback diag.Range) diag.Range {
	if p, ok := n.GetPair(key); ok {
		return p.Key.Range
	}
	return fallback
}
