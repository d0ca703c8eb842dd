package tosca2

// Phase 2 (2.0) — imports: the files and profiles a TOSCA 2.0 file brings
// in (§6.8).
//
// Errors detected here:
//   - an import entry of the wrong form: with both url and profile or neither, a repository with
//     a profile or with a URL that has a scheme, unknown keynames, a namespace that is not a name
//     (tosca.wrong_kind, tosca.missing_field, tosca.unknown_field)
//   - an imported file that does not exist, or outside the configuration root, special or too
//     large (tosca.import_not_found, tosca.import_outside_root, tosca.import_not_regular,
//     tosca.import_too_large)
//   - an import over the network: a URL with a scheme other than file, or through a repository
//     whose url has such a scheme (tosca.network_import), unless Options.ImportMap maps it to a
//     local file; an undeclared repository (tosca.unknown_repository)
//   - a profile no profile of the search path or the embedded ones declares (tosca.profile)
//   - everything phase 1 reports, for each imported file
//
// A url is read relative to the importing file's folder; a url with a
// leading "/" from the root of the repository that holds the importing
// file (§6.8.2.2): the configuration root (its first folder) for the
// template's files, the search folder a profile was found in for a
// profile's files. A repository whose url is a file: URL or has no scheme
// (a path from the folder of the file that defines it) is local: an
// import's url names a file from its root (§6.8.2.2), read with the same
// checks, and that file's own "/" urls start at that root. Each file is
// loaded once however often it is imported, and files that import each
// other are loaded once each; the namespace an import gives is recorded
// per importing file (scope.go).

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// loadFile checks a 2.0 file's grammar and loads its imports depth first,
// then records it (imported definitions are declared before the ones
// that use them).
func (c *compiler) loadFile(f *file, isRoot bool) {
	if !c.readHeader(f, isRoot) {
		c.FailedImport()
		return
	}
	if !f.normative {
		c.CheckLimits(f.root)
	}
	c.scope(f)
	if in := f.root.Get("imports"); in != nil && in.Kind == yamlsrc.Sequence {
		for i, it := range in.Content {
			if c.Ctx.Err() != nil {
				break
			}
			c.loadImport(f, it, "imports["+core.Itoa(int64(i))+"]")
		}
	}
	c.order = append(c.order, f)
	c.state.files = append(c.state.files, f)
}

// importKeys lists the keynames of an import definition (§6.8.1).
func importKeys() []string {
	return []string{"url", "profile", "repository", "namespace", "description", "metadata"}
}

func legacyImport(key string) string {
	switch key {
	case "file":
		return "TOSCA 2.0 names it url (§6.8.1)"
	case "namespace_prefix":
		return "TOSCA 2.0 names it namespace (§6.8.1)"
	case "namespace_uri":
		return "TOSCA 2.0 has no namespace URIs"
	}
	return ""
}

// importEntry is one parsed import definition.
type importEntry struct {
	url, profile, repository, namespace string
	at                                  *yamlsrc.Node
}

// parseImport reads an import definition: a url string, or a map.
func (c *compiler) parseImport(it *yamlsrc.Node, path string) (importEntry, bool) {
	imp := importEntry{at: it}
	switch {
	case it.IsString() && it.Value != "":
		imp.url = it.Value
		return imp, true
	case it.Kind != yamlsrc.Mapping:
		c.Errorf(it.Range, path, core.CodeWrongKind, "an import must be a url or a map, found %s", it.Describe())
		return imp, false
	}
	c.keys(it, path, func() string { return "import" }, importKeys(), legacyImport)
	c.metadata(it, path)
	var urlN, profN *yamlsrc.Node
	imp.url, urlN = c.str(it, path, "url")
	if urlN == nil {
		// The 1.x spelling, read with the warning keys gave.
		imp.url, urlN = c.str(it, path, "file")
	}
	imp.profile, profN = c.str(it, path, "profile")
	imp.repository, _ = c.str(it, path, "repository")
	var nsN *yamlsrc.Node
	imp.namespace, nsN = c.str(it, path, "namespace")
	if nsN == nil {
		imp.namespace, nsN = c.str(it, path, "namespace_prefix")
	}
	if nsN != nil && (imp.namespace == "" || strings.ContainsAny(imp.namespace, ": \t")) {
		c.Errorf(nsN.Range, path+".namespace", core.CodeWrongKind, "namespace %q is not a name (no colon or space)", imp.namespace)
		imp.namespace = ""
	}
	switch {
	case urlN != nil && profN != nil:
		c.Errorf(it.Range, path, core.CodeWrongKind, "an import names either a url or a profile, not both (§6.8.1)")
		return imp, false
	case urlN == nil && profN == nil:
		c.Errorf(it.Range, path, core.CodeMissingField, "import is missing required field \"url\" or \"profile\"")
		return imp, false
	case profN != nil && imp.repository != "":
		c.Errorf(it.Range, path, core.CodeWrongKind, "an import of a profile names no repository (§6.8.1)")
		return imp, false
	case urlN != nil && imp.repository != "" && strings.Contains(imp.url, "://"):
		c.Errorf(urlN.Range, path+".url", core.CodeWrongKind, "url %q has a scheme, so it names no repository (§6.8.2.2)", imp.url)
		return imp, false
	}
	if urlN != nil {
		imp.at = urlN
	} else {
		imp.at = profN
	}
	return imp, true
}

// loadImport loads one import of from.
func (c *compiler) loadImport(from *file, it *yamlsrc.Node, path string) {
	imp, ok := c.parseImport(it, path)
	if !ok {
		c.FailedImport()
		return
	}
	var g *file
	if imp.profile != "" {
		g = c.loadProfile(imp.profile, imp.at, path)
	} else {
		g = c.loadURL(from, imp, path)
	}
	if g != nil {
		s := c.scope(from)
		s.imports = append(s.imports, nsImport{ns: imp.namespace, f: g, at: imp.at})
	}
}

// loadURL loads the file an import's url names.
func (c *compiler) loadURL(from *file, imp importEntry, path string) *file {
	at := imp.at.Range
	if imp.repository != "" {
		repo, owner := c.findRepo(from, imp.repository)
		if repo == nil {
			c.Errorf(at, path, core.CodeUnknownRepository, "import %q names repository %q, which neither this file nor what it imports before declares", imp.url, imp.repository)
			c.FailedImport()
			return nil
		}
		u := core.RepositoryURL(repo, imp.url)
		if local, ok := c.opts.ImportMap[u]; ok {
			return c.loadMapped(imp, u, local, path)
		}
		name, dir, ok := core.RepositoryFile(repo, owner.dir, imp.url)
		if !ok {
			c.NetworkImport(at, path, "import %q is fetched from repository %q (%s): xosplan does not use the network; download the file and import it by path", imp.url, imp.repository, u)
			return nil
		}
		// The file lies in the named repository: its own "/" urls start
		// at that repository's root.
		return c.loadLocal(imp, name, dir, path)
	}
	if local, ok := c.opts.ImportMap[imp.url]; ok {
		return c.loadMapped(imp, imp.url, local, path)
	}
	name := imp.url
	if strings.Contains(name, "://") {
		local, ok := core.LocalURL(name)
		if !ok {
			c.NetworkImport(at, path, "import %q is a URL: xosplan does not use the network; download the file and import it by path", imp.url)
			return nil
		}
		name = local
	} else if strings.HasPrefix(name, "/") {
		// From the root of the repository that holds the importing file.
		name = filepath.Join(c.state.repoRoot[from], filepath.FromSlash(strings.TrimLeft(name, "/")))
	} else if from.dir == "" {
		// An embedded profile's sibling.
		return c.loadEmbeddedSibling(from, imp, path)
	} else {
		name = filepath.Join(from.dir, filepath.FromSlash(name))
	}
	return c.loadLocal(imp, name, c.state.repoRoot[from], path)
}

// loadLocal loads the local file name an import resolved to, with the
// checks of Options.Root (readFile); repo is the root of the repository
// that holds it.
func (c *compiler) loadLocal(imp importEntry, name, repo, path string) *file {
	key := core.FileKey(name)
	if g, seen := c.files[key]; seen {
		return g
	}
	data, err := c.ReadFile(name)
	if err != nil {
		at := imp.at.Range
		switch {
		case !errors.Is(err, fs.ErrNotExist):
			c.ImportRefused(imp.url, at, path, err)
		case imp.repository != "":
			c.Errorf(at, path, core.CodeImportNotFound, "import %q not found in repository %q (%s)", imp.url, imp.repository, c.Display(name))
		default:
			c.Errorf(at, path, core.CodeImportNotFound, "import %q not found", imp.url)
		}
		c.FailedImport()
		return nil
	}
	return c.loadParsed(name, key, data, repo, false)
}

// loadMapped loads the local file an import map entry gives for the URL
// u (core.Session.ReadMapped: the mapping is the user's permission for
// the file).
func (c *compiler) loadMapped(imp importEntry, u, local, path string) *file {
	name, err := filepath.Abs(local)
	if err != nil {
		name = filepath.Clean(local)
	}
	key := core.FileKey(name)
	if g, seen := c.files[key]; seen {
		return g
	}
	data, ok := c.ReadMapped(u, name, imp.at.Range, path)
	if !ok {
		return nil
	}
	return c.loadParsed(name, key, data, filepath.Dir(name), false)
}

// loadParsed parses a file's data and loads it as a 2.0 file; repo is
// the root its "/" urls are read from. It returns nil when the file is
// not a YAML map (reported).
func (c *compiler) loadParsed(name, key string, data []byte, repo string, embedded bool) *file {
	var root *yamlsrc.Node
	if embedded {
		root = c.ParseData(name, data)
	} else {
		root = c.ParseYAML(name, data)
		if root != nil {
			var stack []string
			c.CheckDuplicates(root, 0, false, &stack)
		}
	}
	f := &file{name: name, key: key, dir: filepath.Dir(name), root: root, normative: embedded}
	if embedded {
		f.dir = ""
	}
	c.files[key] = f
	if root == nil {
		c.FailedImport()
		return nil
	}
	c.state.repoRoot[f] = repo
	c.loadFile(f, false)
	return f
}

// loadProfile loads a profile by name: from the search path, else from
// the embedded profiles (profilepath.go).
func (c *compiler) loadProfile(name string, at *yamlsrc.Node, path string) *file {
	if f, ok := c.state.profiles[name]; ok {
		return f
	}
	var f *file
	if e, ok := c.state.index.lookup(name); ok {
		key := core.FileKey(e.path)
		if g, seen := c.files[key]; seen {
			f = g
		} else {
			data, err := c.ReadFile(e.path)
			if err != nil {
				c.ImportRefused(e.path, at.Range, path, err)
				c.FailedImport()
				return nil
			}
			f = c.loadParsed(e.path, key, data, e.dir, false)
		}
	} else if fname, data, ok := embeddedProfile(name); ok {
		key := "profile:" + fname
		if g, seen := c.files[key]; seen {
			f = g
		} else {
			f = c.loadParsed(fname, key, data, "", true)
		}
	} else {
		c.unknownProfile(name, at, path)
		c.FailedImport()
		return nil
	}
	if f != nil {
		c.state.profiles[name] = f
	}
	return f
}

// loadEmbeddedSibling loads a file an embedded profile imports by a
// relative url.
func (c *compiler) loadEmbeddedSibling(from *file, imp importEntry, path string) *file {
	name := filepath.ToSlash(filepath.Join(filepath.Dir(from.name), imp.url))
	key := "profile:" + name
	if g, seen := c.files[key]; seen {
		return g
	}
	data, ok := embeddedProfileFile(name)
	if !ok {
		c.Errorf(imp.at.Range, path, core.CodeImportNotFound, "import %q not found", imp.url)
		c.FailedImport()
		return nil
	}
	return c.loadParsed(name, key, data, "", true)
}

// unknownProfile reports a profile that nothing declares, naming where
// xosplan looked.
func (c *compiler) unknownProfile(name string, at *yamlsrc.Node, path string) {
	where := "the profile search path is empty (set it with --profile-path or XOSPLAN_PROFILE_PATH)"
	if dirs := c.state.index.Dirs(); len(dirs) > 0 {
		shown := make([]string, len(dirs))
		for i, d := range dirs {
			shown[i] = c.Display(d)
		}
		where = "no file of the profile search path declares it (" + strings.Join(shown, ", ") + ")"
	}
	c.ErrorDetail(core.RangeOf(at), path, core.CodeProfile, "xosplan embeds "+strings.Join(embeddedProfileNames(), " and ")+".",
		"unknown profile %q: %s", name, where)
}

// setupProfiles makes the profile index of the compile: Options.Profiles,
// else one built from Options.ProfilePath. The search folders are the
// user's: their files may be read wherever they lie.
func (c *compiler) setupProfiles(root *file) {
	x := c.opts.Profiles
	if x == nil && len(c.opts.ProfilePath) > 0 {
		var err error
		x, err = NewProfileIndex(c.Ctx, c.opts.ProfilePath)
		if err != nil {
			c.Errorf(diag.Range{File: root.name}, "", core.CodeRead, "reading the profile search path: %v", core.PlainErr(err))
		}
	}
	c.state.index = x
	for _, d := range x.Dirs() {
		_ = c.FSRoot.AddDir(d)
	}
}
