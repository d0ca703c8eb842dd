package tosca1

// Phase 2 — imports: the files a service template brings in.
//
// Errors detected here:
//   - an import entry of the wrong form, or without file (tosca.wrong_kind, tosca.missing_field,
//     tosca.unknown_field)
//   - an imported file that does not exist (tosca.import_not_found)
//   - an import that resolves, once its links are followed, outside the configuration root
//     (Options.Root), absolute paths and file:// URLs included (tosca.import_outside_root); one
//     that is not a regular file: a FIFO, a device (tosca.import_not_regular); one over the
//     16 MiB file limit (tosca.import_too_large). A refused file is never opened for reading, so
//     no diagnostic can quote it.
//   - as warnings, an operation implementation (or dependency) or an artifact file that resolves
//     outside the configuration root (tosca.implementation_outside_root,
//     tosca.artifact_outside_root); checked when the graph is rendered, from the folder the
//     executor runs the operations in, which refuses to run such an implementation
//   - a URL import, or an import through a repository on the network (or through a URL written
//     as its repository): xosplan never uses the network (tosca.network_import), unless
//     Options.ImportMap maps the URL to a local file; an import naming an undeclared repository
//     (tosca.unknown_repository). A repository whose url is a file: URL or has no scheme (a
//     path, relative to the file that defines the repository) is local: its files are read as
//     relative imports are, confined to the root alike, and one it lacks is
//     tosca.import_not_found
//   - everything phase 1 reports, for each imported file
//
// Relative paths resolve against the importing file's folder and then, as
// tosca-parser does, against the top-level template's folder (then up to
// three folders above the importer, inside the root only). XOS recipes
// import custom_types/<model>.yaml, which XOS generates at start-up; when
// such a file is not on disk the embedded copy from custom_definitions is
// used. Each file is parsed once, however often it is imported, and files
// that import each other (a cycle) are loaded once each.

import (
	"path/filepath"
	"slices"
	"strings"

	customdefs "github.com/xosplan/xosplan/custom_definitions"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/normative"
)

// loadRoot loads the top-level file path, parsed as root, the normative
// types of its version and every import.
func (c *compiler) loadRoot(path string, root *yamlsrc.Node) *file {
	var stack []string
	c.CheckDuplicates(root, 0, true, &stack)
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
	c.loadFile(f, true)
	return f
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
	root := c.parseEmbedded(key, name, data)
	if root == nil {
		return
	}
	f := &file{name: name, key: key, root: root, version: version, normative: true}
	c.files[f.key] = f
	c.order = append(c.order, f)
}

// loadFile checks a file's header and loads its imports depth first, then
// appends the file to c.order (so that imported types are declared before
// the types that use them). isRoot is set for the top-level file.
func (c *compiler) loadFile(f *file, isRoot bool) {
	c.readHeader(f, isRoot)
	c.CheckLimits(f.root)
	for i, it := range f.root.Get("imports").Items() {
		if c.Ctx.Err() != nil {
			break
		}
		c.loadImport(f, it, "imports["+itoa(int64(i))+"]")
	}
	c.order = append(c.order, f)
}

// importSpec is one parsed import entry.
type importSpec struct {
	// from is the importing file.
	from                     *file
	file, repository, prefix string
	at                       *yamlsrc.Node
}

func (c *compiler) parseImport(it *yamlsrc.Node, path string) (importSpec, bool) {
	spec := importSpec{at: it}
	switch {
	case it.Kind == yamlsrc.Scalar && !it.IsNull():
		spec.file = it.Value
		return spec, true
	case it.Kind != yamlsrc.Mapping:
		c.errorf(it.Range, path, core.CodeWrongKind, "an import must be a file name or a map, found %s", it.Describe())
		return spec, false
	}
	long, at := it, it.Range
	if len(it.Content) == 2 && !slices.Contains(longImportKeys(), it.Content[0].Value) {
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
			c.errorf(at, path, core.CodeMissingField, "import is missing required field \"file\"")
		}
		return spec, false
	}
	fn, fnode := c.str(long, path, "file")
	if fnode == nil {
		c.errorf(at, path, core.CodeMissingField, "import is missing required field \"file\"")
		return spec, false
	}
	spec.file, spec.at = fn, fnode
	spec.repository, _ = c.str(long, path, "repository")
	spec.prefix, _ = c.str(long, path, "namespace_prefix")
	if ns := long.Get("namespace_uri"); ns != nil {
		c.checkNamespace(ns, joinPath(path, "namespace_uri"), "namespace_uri")
	}
	return spec, true
}

func (c *compiler) loadImport(from *file, it *yamlsrc.Node, path string) {
	spec, ok := c.parseImport(it, path)
	if !ok {
		return
	}
	spec.from = from
	at := spec.at.Range
	if spec.repository != "" {
		repo, def := c.root.root.Get("repositories").Get(spec.repository), c.root
		if repo == nil {
			repo, def = from.root.Get("repositories").Get(spec.repository), from
		}
		switch {
		case repo != nil:
			u := repositoryURL(repo, spec.file)
			if local, ok := c.opts.ImportMap[u]; ok {
				c.loadMapped(spec, u, local, path)
				return
			}
			if name, _, ok := repositoryFile(repo, def.dir, spec.file); ok {
				c.loadRepositoryFile(spec, name, path)
				return
			}
			c.NetworkImport(at, path, "import %q is fetched from repository %q: xosplan does not use the network; download the file and import it by path", spec.file, spec.repository)
		case strings.Contains(spec.repository, "://"):
			// A URL where the name of a declared repository belongs
			// (TOSCA 1.3 §3.6.8): what it asks for is the network all
			// the same.
			c.NetworkImport(at, path, "import %q is fetched from %q: xosplan does not use the network; download the file and import it by path (repository names a declared repository, not a URL)", spec.file, spec.repository)
		default:
			c.errorf(at, path, core.CodeUnknownRepository, "import %q names repository %q, which is not declared", spec.file, spec.repository)
			c.FailedImport()
		}
		return
	}
	if local, ok := c.opts.ImportMap[spec.file]; ok {
		c.loadMapped(spec, spec.file, local, path)
		return
	}
	written := spec.file
	if strings.Contains(spec.file, "://") && !embedsSOL001URL(spec.file) {
		local, ok := core.LocalURL(spec.file)
		if !ok {
			c.NetworkImport(at, path, "import %q is a URL: xosplan does not use the network; download the file and import it by path", spec.file)
			return
		}
		spec.file = local
	}
	name, data, found := c.locate(from, spec.file)
	if !found {
		c.errorf(at, path, core.CodeImportNotFound, "import %q not found", spec.file)
		c.FailedImport()
		return
	}
	embedded := data != nil
	key := name
	if !embedded {
		key = fileKey(name)
		// XOS resolves custom_types/ against its own folder of generated
		// types, not the recipe's, so finding them above the recipe is
		// expected there.
		xos := strings.HasPrefix(filepath.ToSlash(spec.file), "custom_types/")
		if !xos && !filepath.IsAbs(spec.file) && from.dir != "" && filepath.Clean(name) != filepath.Join(from.dir, spec.file) && (c.root.dir == "" || filepath.Clean(name) != filepath.Join(c.root.dir, spec.file)) {
			c.warnf(at, path, core.CodeImportFallback, "import %q is not relative to the importing file; found %s (tosca-parser compatibility)", spec.file, c.Display(name))
		}
	}
	c.loadFound(spec, written, name, key, data, embedded, false, path)
}

// loadRepositoryFile loads the file name an import found in a local
// repository (repositoryFile). It is read as a relative import is: inside
// the configuration root once its links are followed, a regular file,
// within the size limit, refused unread otherwise; but from the
// repository alone, without the folders a relative import falls back to.
func (c *compiler) loadRepositoryFile(spec importSpec, name, path string) {
	if !c.Exists(name) {
		c.errorf(spec.at.Range, path, core.CodeImportNotFound, "import %q not found in repository %q (%s)", spec.file, spec.repository, c.Display(name))
		c.FailedImport()
		return
	}
	c.loadFound(spec, spec.file, name, fileKey(name), nil, false, false, path)
}

// loadMapped loads the local file an import map entry gives for the URL
// u. The mapping is the user's explicit permission to read that one file,
// so the compile's root allows it (userfile.Root.AllowFile) wherever it
// lies; it is read with every other check of an import (links resolved, a
// regular file, the size limit, the context). The file's own imports are
// confined to the root as usual.
func (c *compiler) loadMapped(spec importSpec, u, local, path string) {
	name, err := filepath.Abs(local)
	if err != nil {
		name = filepath.Clean(local)
	}
	key := fileKey(name)
	if f, seen := c.files[key]; seen {
		c.noteImport(spec.at.Range, name, false)
		spec.link(f)
		return
	}
	data, ok := c.ReadMapped(u, name, spec.at.Range, path)
	if !ok {
		return
	}
	c.loadFound(spec, u, name, key, data, false, true, path)
}

// loadFound loads the file an import resolved to, unless it is loaded
// already: data is its content when embedded (an embedded file has no
// folder) or read already, else it is read now through the root.
func (c *compiler) loadFound(spec importSpec, written, name, key string, data []byte, embedded, read bool, path string) {
	at := spec.at.Range
	c.noteImport(at, name, embedded)
	if f, seen := c.files[key]; seen {
		// Each file is loaded once. A file still loading is one of the
		// importer's own importers: files that import each other (a cycle)
		// are allowed, since a TOSCA import only brings definitions into
		// one namespace, and the types of every file in the cycle are
		// declared before any is resolved.
		spec.link(f)
		return
	}
	if !embedded && !read {
		var err error
		if data, err = c.ReadFile(name); err != nil {
			// Not recorded as loaded: every entry that names the file
			// gets its own diagnostic.
			c.ImportRefused(written, at, path, err)
			c.FailedImport()
			return
		}
	}
	var root *yamlsrc.Node
	if embedded {
		root = c.parseEmbedded(key, name, data)
	} else {
		root = c.ParseData(name, data)
	}
	f := &file{name: name, key: key, dir: filepath.Dir(name), root: root}
	if embedded {
		f.dir = ""
	}
	spec.link(f)
	c.files[key] = f
	if root == nil {
		c.FailedImport()
		return
	}
	c.loadFile(f, false)
}

// prefixedImport is one import of a 1.x file: the file it brings in and
// its namespace_prefix ("" for none).
type prefixedImport struct {
	to     *file
	prefix string
}

// link records that the import spec brought in f: f's types are
// reachable by the spec's prefix, and through the importer's own
// prefixes (qualified, in types.go).
func (spec importSpec) link(f *file) {
	f.addPrefix(spec.prefix)
	if spec.from != nil && spec.from != f {
		spec.from.imported = append(spec.from.imported, prefixedImport{to: f, prefix: spec.prefix})
	}
}

// addPrefix adds p to the namespace prefixes the file is imported with:
// prefixes are kept per file, so a file imported twice with two prefixes
// is reachable through both.
func (f *file) addPrefix(p string) {
	if p == "" || slices.Contains(f.prefixes(), p) {
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
		if c.Exists(name) {
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
		if c.Exists(p) {
			return p, nil, true
		}
	}
	if name, data, ok := c.locateSOL001(from, name); ok {
		return name, data, true
	}
	// tosca-parser's own test data imports type files relative to the
	// folder the tests run in, above the importing file; look up to three
	// folders up (reported as a warning by the caller), never out of the
	// root: a guess may not reach a file the template did not name.
	for dir, i := from.dir, 0; dir != "" && i < 3; i++ {
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
		if p := filepath.Join(dir, name); c.Exists(p) && c.InRoot(p) {
			return p, nil, true
		}
	}
	if name, data, ok := placementTypes(name); ok {
		return name, data, true
	}
	if strings.HasPrefix(filepath.ToSlash(name), "custom_types/") || from.dir == "" {
		base := filepath.Base(name)
		if data, ok := customdefs.Lookup(base); ok {
			return "custom_definitions/" + base, data, true
		}
	}
	return "", nil, false
}

// checkPackaged reports, in a self-contained package
// (Options.SelfContained), an artifact file or an operation
// implementation n names by a relative path that is no file of the
// package, taken from the folder of the file it is written in. An
// implementation (impl set) may name an artifact of its node instead. A
// URL is not fetched, an absolute path names a file of the target host,
// and a name outside the root has confineNamed's warning: none is judged
// here. Each written name is reported once.
func (c *compiler) checkPackaged(n *yamlsrc.Node, impl bool, artifacts []*artifactDef, path string) {
	name := text(n)
	if !c.opts.SelfContained || n == nil || name == "" || strings.Contains(name, "://") || filepath.IsAbs(filepath.FromSlash(name)) {
		return
	}
	for _, a := range artifacts {
		if impl && a.name == name {
			return
		}
	}
	// Embedded type files name no files of the package.
	if f := c.files[fileKey(n.Range.File)]; f == nil || f.dir == "" {
		return
	}
	p := filepath.Join(filepath.Dir(n.Range.File), filepath.FromSlash(name))
	if c.PackagedChecked(n) || c.Exists(p) {
		return
	}
	if !c.InFiles(p) {
		if _, err := c.FSRoot.Confine(p); err != nil {
			return
		}
	}
	c.MarkPackaged(n)
	if impl {
		c.errorf(n.Range, path, core.CodeImplNotFound, "implementation %q is neither an artifact of the node nor a file of the package (%s)", name, c.Display(p))
		return
	}
	c.errorf(n.Range, path, core.CodeArtifactNotFound, "artifact file %q is not a file of the package (%s)", name, c.Display(p))
}
