package tosca

// Phase 2 — imports: the files a service template brings in.
//
// Errors detected here:
//   - an import entry of the wrong form, or without file (tosca.wrong_kind, tosca.missing_field,
//     tosca.unknown_field)
//   - an imported file that does not exist (tosca.import_not_found)
//   - a URL import, or an import through a repository: xosplan never uses the network
//     (tosca.network_import); an import naming an undeclared repository (tosca.unknown_repository)
//   - an import cycle, named in order (tosca.import_cycle)
//   - everything phase 1 reports, for each imported file
//
// Relative paths resolve against the importing file's folder and then, as
// tosca-parser does, against the top-level template's folder. XOS recipes
// import custom_types/<model>.yaml, which XOS generates at start-up; when
// such a file is not on disk the embedded copy from custom_definitions is
// used. Each file is parsed once, however often it is imported.

import (
	"os"
	"path/filepath"
	"strings"

	customdefs "github.com/xosplan/xosplan/custom_definitions"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/normative"
)

// loadRoot reads the top-level file, the normative types of its version
// and every import. It returns nil when the root file cannot be used.
func (c *compiler) loadRoot(path string) *file {
	root := c.readFile(path, diag.Range{}, "")
	if root == nil {
		return nil
	}
	c.version = version13
	written := text(root.Get("tosca_definitions_version"))
	if v, ok := normaliseVersion(written); ok {
		c.version = v
	}
	c.loadNormative(c.version)
	c.loadProfile(written)
	f := &file{name: path, key: fileKey(path), dir: filepath.Dir(path), root: root}
	c.root = f
	c.files[f.key] = f
	c.loadFile(f, nil)
	return f
}

func fileKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// loadNormative loads the embedded normative types of a version.
func (c *compiler) loadNormative(version string) {
	if name, data, ok := normative.For(version); ok {
		c.loadEmbedded(name, data, "normative:"+version, version)
	}
}

// loadProfile loads the extra types of a profile version (NFV), as
// normative types.
func (c *compiler) loadProfile(version string) {
	if name, data, ok := profileFor(version); ok {
		c.loadEmbedded(name, data, "profile:"+version, version10)
	}
}

// loadEmbedded adds an embedded type file, read as TOSCA version, to the
// files in load order; its types are normative (not the user's to fix).
func (c *compiler) loadEmbedded(name string, data []byte, key, version string) {
	root := c.parseData(name, data)
	if root == nil {
		return
	}
	f := &file{name: name, key: key, root: root, version: version, normative: true}
	c.files[f.key] = f
	c.order = append(c.order, f)
}

// loadFile checks a file's header and loads its imports depth first, then
// appends the file to c.order (so that imported types are declared before
// the types that use them). stack is the chain of importers.
func (c *compiler) loadFile(f *file, stack []*file) {
	f.loading = true
	c.readHeader(f, stack == nil)
	c.checkLimits(f)
	stack = append(stack, f)
	for i, it := range f.root.Get("imports").Items() {
		if c.ctx.Err() != nil {
			break
		}
		c.loadImport(f, it, "imports["+itoa(int64(i))+"]", stack)
	}
	f.loading = false
	c.order = append(c.order, f)
}

// importSpec is one parsed import entry.
type importSpec struct {
	file, repository, prefix string
	at                       *yamlsrc.Node
}

// longImportKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func longImportKeys() []string {
	return []string{"file", "repository", "namespace_uri", "namespace_prefix"}
}

func (c *compiler) parseImport(it *yamlsrc.Node, path string) (importSpec, bool) {
	spec := importSpec{at: it}
	switch {
	case it.Kind == yamlsrc.Scalar && !it.IsNull():
		spec.file = it.Value
		return spec, true
	case it.Kind != yamlsrc.Mapping:
		c.errorf(it.Range, path, CodeWrongKind, "an import must be a file name or a map, found %s", it.Describe())
		return spec, false
	}
	long, at := it, it.Range
	if len(it.Content) == 2 && !contains(longImportKeys(), it.Content[0].Value) {
		at = it.Content[0].Range
		// TOSCA 1.0 named form: `- name: file` or `- name: {file: …}`.
		path = joinPath(path, it.Content[0].Value)
		v := it.Content[1]
		if v.Kind == yamlsrc.Scalar && !v.IsNull() {
			spec.file, spec.at = v.Value, v
			return spec, true
		}
		long = v
	}
	if !c.checkKeys(long, path, "import", longImportKeys()...) {
		if long.IsNull() {
			c.errorf(at, path, CodeMissingField, "import is missing required field \"file\"")
		}
		return spec, false
	}
	fn, fnode := c.str(long, path, "file")
	if fnode == nil {
		c.errorf(at, path, CodeMissingField, "import is missing required field \"file\"")
		return spec, false
	}
	spec.file, spec.at = fn, fnode
	spec.repository, _ = c.str(long, path, "repository")
	spec.prefix, _ = c.str(long, path, "namespace_prefix")
	return spec, true
}

func (c *compiler) loadImport(from *file, it *yamlsrc.Node, path string, stack []*file) {
	spec, ok := c.parseImport(it, path)
	if !ok {
		return
	}
	at := spec.at.Range
	if spec.repository != "" {
		repo := c.root.root.Get("repositories").Get(spec.repository)
		if repo == nil {
			repo = from.root.Get("repositories").Get(spec.repository)
		}
		if repo == nil {
			c.errorf(at, path, CodeUnknownRepository, "import %q names repository %q, which is not declared", spec.file, spec.repository)
			return
		}
		c.errorf(at, path, CodeNetworkImport, "import %q is fetched from repository %q: xosplan does not use the network; download the file and import it by path", spec.file, spec.repository)
		return
	}
	if i := strings.Index(spec.file, "://"); i > 0 && !embedsSOL001URL(spec.file) {
		if strings.HasPrefix(spec.file, "file://") {
			spec.file = strings.TrimPrefix(spec.file, "file://")
		} else {
			c.errorf(at, path, CodeNetworkImport, "import %q is a URL: xosplan does not use the network; download the file and import it by path", spec.file)
			return
		}
	}
	name, data, found := c.locate(from, spec.file)
	if !found {
		c.errorf(at, path, CodeImportNotFound, "import %q not found", spec.file)
		return
	}
	key := name
	if data == nil {
		key = fileKey(name)
		// XOS resolves custom_types/ against its own folder of generated
		// types, not the recipe's, so finding them above the recipe is
		// expected there.
		xos := strings.HasPrefix(filepath.ToSlash(spec.file), "custom_types/")
		if !xos && !filepath.IsAbs(spec.file) && from.dir != "" && filepath.Clean(name) != filepath.Join(from.dir, spec.file) && (c.root.dir == "" || filepath.Clean(name) != filepath.Join(c.root.dir, spec.file)) {
			c.warnf(at, path, CodeImportFallback, "import %q is not relative to the importing file; found %s (tosca-parser compatibility)", spec.file, name)
		}
	}
	if f, seen := c.files[key]; seen {
		if f.loading {
			chain := make([]string, 0, len(stack)+1)
			start := 0
			for i, s := range stack {
				if s == f {
					start = i
				}
			}
			for _, s := range stack[start:] {
				chain = append(chain, s.name)
			}
			chain = append(chain, f.name)
			c.errorf(at, path, CodeImportCycle, "import cycle: %s", strings.Join(chain, " -> "))
			return
		}
		f.addPrefix(spec.prefix)
		return
	}
	var root *yamlsrc.Node
	if data != nil {
		root = c.parseData(name, data)
	} else {
		root = c.readFile(name, at, path)
	}
	f := &file{name: name, key: key, dir: filepath.Dir(name), root: root}
	if data != nil {
		f.dir = ""
	}
	f.addPrefix(spec.prefix)
	c.files[key] = f
	if root == nil {
		return
	}
	c.loadFile(f, stack)
}

// prefixes are kept per file; a file imported twice with two prefixes is
// reachable through both.
func (f *file) addPrefix(p string) {
	if p == "" || contains(f.prefixes(), p) {
		return
	}
	if f.prefix == "" {
		f.prefix = p
		return
	}
	f.prefix += "\x00" + p
}

func (f *file) prefixes() []string {
	if f.prefix == "" {
		return nil
	}
	return strings.Split(f.prefix, "\x00")
}

// locate finds an imported file: relative to the importer, then relative
// to the top-level file, then (for XOS custom_types/<model>.yaml) among the
// embedded XOS types. data is non-nil for an embedded file.
func (c *compiler) locate(from *file, name string) (string, []byte, bool) {
	if embedsSOL001URL(name) {
		return c.locateSOL001(from, name)
	}
	if filepath.IsAbs(name) {
		if exists(name) {
			return name, nil, true
		}
		return "", nil, false
	}
	var tried []string
	if from.dir != "" {
		tried = append(tried, filepath.Join(from.dir, name))
	}
	if c.root.dir != "" {
		tried = append(tried, filepath.Join(c.root.dir, name))
	}
	for _, p := range tried {
		if exists(p) {
			return p, nil, true
		}
	}
	if name, data, ok := c.locateSOL001(from, name); ok {
		return name, data, true
	}
	// tosca-parser's own test data imports type files relative to the
	// folder the tests run in, above the importing file; look up to three
	// folders up (reported as a warning by the caller).
	for dir, i := from.dir, 0; dir != "" && i < 3; i++ {
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
		if p := filepath.Join(dir, name); exists(p) {
			return p, nil, true
		}
	}
	if strings.HasPrefix(filepath.ToSlash(name), "custom_types/") || from.dir == "" {
		base := filepath.Base(name)
		if data, ok := customdefs.Lookup(base); ok {
			return "custom_definitions/" + base, data, true
		}
	}
	return "", nil, false
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
