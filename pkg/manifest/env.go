package manifest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Options configures CompileEnvironment.
type Options struct {
	// Registry holds the component kinds; nil means DefaultRegistry().
	Registry *Registry
	// Root lists the folders of the configuration root, which confines
	// the manifest files: each must lie inside one of them once its links
	// are resolved (a manifest in a folder that links out of the project
	// is refused unread). Empty means each file's own folder. (pkg/config
	// finds the default root of a configuration; its Root.Dirs gives these
	// folders.)
	Root []string
	// Files, when not nil, holds files read in place of the file system
	// (the unsaved buffers of an editor): a manifest it contains is read
	// from it, unconfined, since its text is the caller's own; any other
	// is read from disk inside Root.
	Files Files
}

// Files is a set of files a compile reads in place of the file system
// (Options.Files). Its methods are safe for concurrent use.
type Files interface {
	// Contains reports whether name is one of its files.
	Contains(name string) bool
	// ReadFile returns the content of the file name, refusing one larger
	// than max bytes. It stops when ctx is done. No error quotes content.
	ReadFile(ctx context.Context, name string, max int64) ([]byte, error)
}

// environment is the set of applications compiled together.
type environment struct {
	reg    *Registry
	apps   []*application // sorted by name
	byName map[string]*application
	links  []link
}

// CompileEnvironment loads manifests (files, or folders whose *.yml and
// *.yaml files are taken, not recursively) as ONE environment: one
// application per file, named by the file name without its extension. It
// checks everything, resolves factories and services across the
// applications, and compiles them to one IR graph. The graph is non-nil
// whenever at least one manifest could be read, even with errors, so
// that callers can show what was understood; diagnostics are sorted.
func CompileEnvironment(ctx context.Context, paths []string, opts Options) (*graph.Graph, diag.Diagnostics) {
	_, g, diags := compileEnvironment(ctx, paths, opts)
	return g, diags
}

// compileEnvironment is CompileEnvironment, with the environment (nil
// when no manifest could be read) and the registry it used.
func compileEnvironment(ctx context.Context, paths []string, opts Options) (*environment, *graph.Graph, diag.Diagnostics) {
	reg := opts.Registry
	if reg == nil {
		reg = DefaultRegistry()
	}
	files, diags := expandPaths(paths, opts.Files)
	var sources []source
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, diags.Errorf(diag.Range{File: f}, "", CodeRead, "stopped before reading %s: %v", f, context.Cause(ctx)).Sort()
		}
		var data []byte
		var err error
		if opts.Files != nil && opts.Files.Contains(f) {
			data, err = opts.Files.ReadFile(ctx, f, yamlsrc.DefaultMaxFileBytes)
		} else {
			data, err = readManifest(ctx, f, opts.Root)
		}
		if err != nil {
			diags = diags.Errorf(diag.Range{File: f}, "", CodeRead, "cannot read manifest: %v", err)
			continue
		}
		sources = append(sources, source{file: f, data: data})
	}
	env, g, ds := compileSources(ctx, reg, sources, opts.Root)
	if ctx.Err() != nil {
		// What the checks cut short found is not reported.
		var at diag.Range
		if len(files) > 0 {
			at.File = files[0]
		}
		return nil, nil, diags.Errorf(at, "", CodeRead, "stopped before every manifest was checked: %v", context.Cause(ctx)).Sort()
	}
	if env != nil {
		env.reg = reg
	}
	return env, g, diags.Extend(ds).Sort()
}

// readManifest reads one manifest through userfile: inside the root made
// of rootDirs (its own folder when there are none), a regular file within
// the YAML size limit. The error names the file and the reason, never its
// content.
func readManifest(ctx context.Context, file string, rootDirs []string) ([]byte, error) {
	if len(rootDirs) == 0 {
		rootDirs = []string{filepath.Dir(file)}
	}
	root, err := userfile.NewRoot(rootDirs...)
	if err != nil {
		return nil, err
	}
	return userfile.Read(ctx, file, userfile.Options{Root: root, MaxBytes: yamlsrc.DefaultMaxFileBytes})
}

// source is one manifest's file name and content, or its parsed
// document (benchmarks measure the checks apart from YAML parsing).
type source struct {
	file string
	data []byte
	root *yamlsrc.Node
}

// compileSources is CompileEnvironment after the files are read; it
// returns the environment too, nil when no manifest could be read.
func compileSources(ctx context.Context, reg *Registry, sources []source, rootDirs []string) (*environment, *graph.Graph, diag.Diagnostics) {
	var diags diag.Diagnostics
	env := &environment{byName: map[string]*application{}}
	for _, src := range sources {
		if ctx.Err() != nil {
			return nil, nil, diags
		}
		name := strings.TrimSuffix(filepath.Base(src.file), filepath.Ext(src.file))
		var app *application
		var ds diag.Diagnostics
		if src.root != nil {
			app, ds = buildApplication(reg, src.file, name, src.root, nil)
		} else {
			app, ds = loadApplication(ctx, reg, src.file, name, src.data)
		}
		diags = diags.Extend(ds)
		if app == nil {
			continue
		}
		if prev := env.byName[name]; prev != nil {
			diags = diags.Errorf(app.root.rng, "", CodeDuplicateApplication,
				"application %q is also defined by %s: one environment holds each application name once", name, prev.file)
			continue
		}
		env.byName[name] = app
		env.apps = append(env.apps, app)
	}
	if len(env.apps) == 0 {
		return nil, nil, diags
	}
	slices.SortFunc(env.apps, func(a, b *application) int { return strings.Compare(a.name, b.name) })
	for _, app := range env.apps {
		if ctx.Err() != nil {
			return nil, nil, diags
		}
		r := &resolver{}
		r.resolve(app.root)
		r.resolveOpen()
		r.check(app)
		diags = diags.Extend(r.diags)
		env.links = append(env.links, r.links...)
	}
	diags = diags.Extend(env.connect())
	if ctx.Err() != nil {
		return nil, nil, diags
	}
	g, ds := env.compile()
	return env, g, diags.Extend(ds, env.addPolicies(g, rootDirs))
}

// expandPaths turns the arguments into a sorted, duplicate-free list of
// manifest files. A path that buffers contains is a file, on disk or not.
func expandPaths(paths []string, buffers Files) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		key := f
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		if buffers != nil && buffers.Contains(p) {
			add(p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			diags = diags.Errorf(diag.Range{File: p}, "", CodeRead, "cannot read %s: %v", p, err)
			continue
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			diags = diags.Errorf(diag.Range{File: p}, "", CodeRead, "cannot list folder %s: %v", p, err)
			continue
		}
		n := 0
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.Type().IsRegular() && (ext == ".yml" || ext == ".yaml") {
				add(filepath.Join(p, e.Name()))
				n++
			}
		}
		if n == 0 {
			diags = diags.Errorf(diag.Range{File: p}, "", CodeRead, "folder %s holds no *.yml or *.yaml manifest", p)
		}
	}
	slices.Sort(files)
	return files, diags
}

// connect resolves what crosses applications: factories named by scripted
// components, discovery that two factories would share, and the
// applications that reference.Service components stand for.
func (env *environment) connect() diag.Diagnostics {
	var diags diag.Diagnostics
	discovering := map[string]*component{} // managed application → factory
	for _, app := range env.apps {
		walkComponents(app.root, func(c *component) {
			switch c.kind {
			case KindScriptedComponent:
				diags = env.findFactory(c, diags)
			case KindComponentFactory:
				v := c.values["component.application"]
				name, _ := v.String()
				if name == "" || c.values["component.discoveryScript"].IsNull() || c.values["component.discoverySchedule"].IsNull() {
					return
				}
				if prev := discovering[name]; prev != nil {
					diags = diags.Errorf(v.Range, "", CodeDiscoveryShared,
						"factories %q and %q both discover application %q in this environment; a discovering factory serves one environment only and discovered instances would be adopted twice",
						prev.address(), c.address(), name)
					return
				}
				discovering[name] = c
			case KindService:
				diags = env.findProvider(c, diags)
			case KindSubmodule:
				diags = env.checkSubmodule(c, diags)
			}
		})
	}
	return diags
}

func walkComponents(c *component, fn func(*component)) {
	fn(c)
	for _, ch := range c.children {
		walkComponents(ch, fn)
	}
}

func (env *environment) findFactory(c *component, diags diag.Diagnostics) diag.Diagnostics {
	v := c.values["factory.name"]
	name, ok := v.String()
	if !ok || name == "" {
		return diags // reported by checkScripted
	}
	app := env.byName[name]
	if app == nil {
		return diags.Warnf(v.Range, "", CodeFactoryNotFound,
			"factory %q is not in this environment; add %q to it before applying %q", name, name+".yml", c.path)
	}
	walkComponents(app.root, func(f *component) {
		if f.kind == KindComponentFactory && c.factory == nil {
			c.factory = f
		}
	})
	if c.factory == nil {
		return diags.Errorf(v.Range, "", CodeNotAFactory, "application %q (%s) holds no scripted.ComponentFactory", name, app.file)
	}
	return diags
}

// findProvider finds the one other application whose top-level
// interfaces provide every pin the service declares, with the same
// direction and a compatible type.
func (env *environment) findProvider(s *component, diags diag.Diagnostics) diag.Diagnostics {
	pins := 0
	for _, f := range s.ifaces {
		pins += len(f.pins)
	}
	if pins == 0 {
		return diags
	}
	var found []*application
	for _, app := range env.apps {
		if app == s.app || !provides(app.root, s) {
			continue
		}
		found = append(found, app)
	}
	switch len(found) {
	case 0:
	case 1:
		s.provider = found[0]
	default:
		names := make([]string, len(found))
		for i, a := range found {
			names[i] = quote(a.name)
		}
		diags = diags.Warnf(s.rng, s.yaml, CodeServiceAmbiguous,
			"service %q could be any of %s; it is left unresolved (an existing service)", s.path, strings.Join(names, ", "))
	}
	return diags
}

func provides(root, s *component) bool {
	for _, f := range s.ifaces {
		g := root.ifaceByName[f.name]
		if g == nil && len(f.pins) > 0 {
			return false
		}
		for _, p := range f.pins {
			q := g.pin(p.name)
			if q == nil || !q.valid || !p.valid || q.kind != p.kind {
				return false
			}
			if !p.kind.isCommand() && !assignable(q.sig.Type, p.sig.Type) {
				return false
			}
		}
	}
	return true
}

// checkSubmodule compares a reference.Submodule's declared interfaces with
// the top-level interfaces of the application it names, when that
// application is in the environment: they must mirror each other.
func (env *environment) checkSubmodule(c *component, diags diag.Diagnostics) diag.Diagnostics {
	id, _ := c.values["__locator.application-id"].String()
	child := env.byName[id]
	if child == nil || child == c.app {
		return diags
	}
	for _, f := range c.ifaces {
		if f.implicit {
			continue
		}
		g := child.root.ifaceByName[f.name]
		for _, p := range f.pins {
			var q *pin
			if g != nil {
				q = g.pin(p.name)
			}
			switch {
			case !p.valid:
			case q == nil:
				diags = diags.Errorf(p.rng, p.yaml, CodeSubmoduleMismatch,
					"submodule %q declares %s.%s, but application %q has no such top-level pin", c.path, f.name, p.name, id)
			case q.valid && (q.kind != p.kind || q.sig.String(q.kind) != p.sig.String(p.kind)):
				diags = diags.Errorf(p.rng, p.yaml, CodeSubmoduleMismatch,
					"submodule %q declares %s.%s as %s, but application %q has %s", c.path, f.name, p.name, p.sig.String(p.kind), id, q.sig.String(q.kind))
			}
		}
	}
	return diags
}
