package main

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/manifest"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// Diagnostic codes of loading.
const (
	// codeUnknownFormat marks a file that is neither TOSCA nor a manifest.
	codeUnknownFormat = "validate.unknown_format"
	// codeInternal marks a bug of xosplan met while compiling a file.
	codeInternal = "load.internal_error"
	// codeCanceled marks a run stopped by a signal before every file was checked.
	codeCanceled = "load.canceled"
)

// Source formats a configuration unit can have.
const (
	formatTOSCA    = "tosca"
	formatManifest = "manifest"
	// formatProviders is a Placement provider inventory (`providers:`, as
	// --providers takes): it is checked, not compiled.
	formatProviders = "providers"
)

// loadOptions tune loadConfig.
type loadOptions struct {
	// Inputs are TOSCA input values (--inputs, --var); nil when none given.
	Inputs map[string]any
	// RequireInputs reports required TOSCA inputs that have no value and no
	// default.
	RequireInputs bool
	// InputsFile is the --inputs file. It holds values, perhaps secrets,
	// not configuration: when it lies in a folder being walked it is left
	// out rather than reported as a file of unknown format.
	InputsFile string
	// Root is the configuration root: every configuration file, and every
	// file one names, must lie inside it. nil: userfile.FindRoot of the
	// paths from the working folder.
	Root *userfile.Root
}

// configUnit is one compiled unit: a TOSCA service template (with its
// imports), or the manifests of one folder, which form one environment.
type configUnit struct {
	Format string
	// Files are the unit's own files as named on the command line or found
	// by walking a folder (imports are not listed), sorted.
	Files []string
	// Graph is nil when errors prevented compiling.
	Graph *graph.Graph
}

// loadResult is everything loadConfig found.
type loadResult struct {
	// Units are ordered by their first file.
	Units []configUnit
	// Diags are sorted.
	Diags diag.Diagnostics
}

// loadConfig finds the configuration files under paths, detects the format
// of each, and compiles them: every TOSCA file on its own (tosca.Compile),
// and the manifest files of each folder as one environment
// (manifest.CompileEnvironment). Manifest files named one by one on the
// command line group by folder too, so `validate env/*.yaml` and
// `validate env` agree.
//
// A path is a file (any name) or a folder, walked recursively for *.yaml and
// *.yml files; hidden folders (.git …) are skipped and symbolic links to
// folders are not followed, so a link loop cannot trap the walk. Unreadable
// paths, special files, files over the size limit and files (or links)
// outside the configuration root are diagnostics; the other files are
// still compiled. Files are compiled in parallel, bounded
// by GOMAXPROCS; the result does not depend on the order they finish in.
func loadConfig(ctx context.Context, paths []string, opts loadOptions) loadResult {
	var res loadResult
	root := opts.Root
	if root == nil {
		wd, _ := os.Getwd()
		var err error
		if root, err = userfile.FindRoot(wd, paths); err != nil {
			res.Diags = res.Diags.Errorf(diag.Range{}, "", codeUnreadable, "finding the configuration root: %v", err)
			return res
		}
	}
	files, diags := findFiles(ctx, paths)
	files = withoutFile(files, opts.InputsFile)
	res.Diags = diags

	type detected struct {
		format string
		diags  diag.Diagnostics
	}
	det := make([]detected, len(files))
	parallel(ctx, len(files), func(i int) {
		det[i].format, det[i].diags = detectFormat(ctx, root, files[i])
	})
	var toscaFiles, providerFiles []string
	envs := map[string][]string{}
	for i, f := range files {
		res.Diags = res.Diags.Extend(det[i].diags)
		switch det[i].format {
		case formatTOSCA:
			toscaFiles = append(toscaFiles, f)
		case formatManifest:
			envs[filepath.Dir(f)] = append(envs[filepath.Dir(f)], f)
		case formatProviders:
			providerFiles = append(providerFiles, f)
		}
	}
	providerDiags := make([]diag.Diagnostics, len(providerFiles))
	parallel(ctx, len(providerFiles), func(i int) {
		data, problem := readUserFile(ctx, providerFiles[i], root)
		if problem != nil {
			providerDiags[i] = providerDiags[i].Append(*problem)
			return
		}
		_, providerDiags[i] = placement.LoadProviders(providerFiles[i], data)
	})
	res.Diags = res.Diags.Extend(providerDiags...)

	units := make([]configUnit, 0, len(toscaFiles)+len(envs))
	for _, f := range toscaFiles {
		units = append(units, configUnit{Format: formatTOSCA, Files: []string{f}})
	}
	for _, dir := range slices.Sorted(maps.Keys(envs)) {
		units = append(units, configUnit{Format: formatManifest, Files: envs[dir]})
	}
	unitDiags := make([]diag.Diagnostics, len(units))
	parallel(ctx, len(units), func(i int) {
		u := &units[i]
		defer func() {
			// A front end that panics has a bug; the user still gets one
			// line naming the file, and the other files are checked.
			if r := recover(); r != nil {
				u.Graph = nil
				unitDiags[i] = unitDiags[i].Errorf(diag.Range{File: u.Files[0]}, "", codeInternal,
					"internal error while compiling %s: %v (this is a bug in xosplan; please report it with the file)", strings.Join(u.Files, ", "), r)
			}
		}()
		switch u.Format {
		case formatTOSCA:
			u.Graph, unitDiags[i] = tosca.Compile(ctx, u.Files[0], tosca.Options{Inputs: opts.Inputs, RequireInputs: opts.RequireInputs, Root: root.Dirs()})
		case formatManifest:
			u.Graph, unitDiags[i] = manifest.CompileEnvironment(ctx, u.Files, manifest.Options{Root: root.Dirs()})
		}
	})
	res.Diags = res.Diags.Extend(unitDiags...)
	if err := ctx.Err(); err != nil {
		res.Diags = res.Diags.Errorf(diag.Range{}, "", codeCanceled, "stopped before every file was checked: %v", err)
	}
	slices.SortStableFunc(units, func(a, b configUnit) int { return strings.Compare(a.Files[0], b.Files[0]) })
	res.Units = units
	res.Diags = res.Diags.Sort()
	return res
}

// parallel runs fn(0) … fn(n-1) on at most GOMAXPROCS goroutines and
// returns when all have finished. Once ctx is done no new call starts.
func parallel(ctx context.Context, n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// findFiles expands the command-line paths into a sorted list of distinct
// files, with a diagnostic for every path that cannot be used. It stops
// walking when ctx is done.
func findFiles(ctx context.Context, paths []string) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	seen := map[string]bool{}
	var files []string
	add := func(f string) {
		f = filepath.Clean(f)
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			diags = diags.Append(*fileProblem(p, err))
			continue
		}
		if !fi.IsDir() {
			// A named file is taken whatever its extension; readUserFile
			// reports special files.
			add(p)
			continue
		}
		before := len(files)
		walkDiags := walkFolder(ctx, p, add)
		diags = diags.Extend(walkDiags)
		if len(files) == before && len(walkDiags) == 0 {
			diags = diags.Warnf(diag.Range{File: p}, "", codeNoFiles, "no *.yaml or *.yml files in folder %s", p)
		}
	}
	slices.Sort(files)
	return files, diags
}

// withoutFile returns files without the ones that are the file skip
// names (the same file, whatever the spelling of its path).
func withoutFile(files []string, skip string) []string {
	if skip == "" {
		return files
	}
	target, err := os.Stat(skip)
	if err != nil {
		return files
	}
	return slices.DeleteFunc(files, func(f string) bool {
		fi, err := os.Stat(f)
		return err == nil && os.SameFile(fi, target)
	})
}

// walkFolder calls add for every YAML file under root, in lexical order,
// until ctx is done.
func walkFolder(ctx context.Context, root string, add func(string)) diag.Diagnostics {
	var diags diag.Diagnostics
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil {
			diags = diags.Append(*fileProblem(path, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !isYAMLName(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a folder is not followed; a broken link or a link
			// loop is reported when the file is read.
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				return nil
			}
		}
		add(path)
		return nil
	})
	return diags
}

func isYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// toscaMarker finds a top-level tosca_definitions_version key: a file that
// has one is TOSCA whatever else it holds, and tosca.Compile parses it
// anyway, so detection skips a second parse of (possibly large) templates.
// toscaMarker and manifestMarker find the top-level key that decides a
// file's format without parsing it, so the front end's parse is the only
// one (manifest.LooksLike is this same key).
var (
	toscaMarker    = regexp.MustCompile(`(?m)^tosca_definitions_version[ \t]*:`)
	manifestMarker = regexp.MustCompile(`(?m)^application[ \t]*:`)
)

// detectFormat reads a file and says which front end takes it. Problems
// reading or parsing it are returned as diagnostics (once: a file that
// fails to parse goes to no front end), and a file that is neither format
// gets a codeUnknownFormat warning.
func detectFormat(ctx context.Context, root *userfile.Root, path string) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	data, problem := readUserFile(ctx, path, root)
	if problem != nil {
		return "", diags.Append(*problem)
	}
	switch {
	case toscaMarker.Match(data):
		return formatTOSCA, nil
	case manifestMarker.Match(data):
		return formatManifest, nil
	}
	// Every document is read so that a multi-document stream of another
	// tool (Kubernetes objects, say) met in a folder walk is an unknown
	// format, not an error; the front end reports extra documents in a
	// file it takes.
	docs, parseDiags := yamlsrc.ParseAll(path, data, yamlsrc.Limits{})
	if parseDiags.HasErrors() {
		return "", parseDiags
	}
	diags = diags.Extend(parseDiags)
	if len(docs) == 0 {
		return "", diags.Warnf(fileStart(path), "", codeUnknownFormat, "file is empty; it is neither a TOSCA template nor a manifest")
	}
	for _, root := range docs {
		switch {
		case tosca.LooksLike(root):
			return formatTOSCA, diags
		case manifest.LooksLike(root):
			return formatManifest, diags
		case isProviderInventory(root):
			return formatProviders, diags
		}
	}
	// Sensitive: a file that is not configuration may hold anything (an
	// inputs file of secrets, say); no line of it is shown.
	return "", diags.Append(diag.Diagnostic{Severity: diag.Warning, Code: codeUnknownFormat, Range: docs[0].Range, Sensitive: true,
		Summary: "neither a TOSCA template nor a manifest; skipped",
		Detail: "A TOSCA file has tosca_definitions_version or TOSCA sections (topology_template, node_types, …); " +
			"a manifest has a top-level application key; a provider inventory has a top-level providers list."})
}

// isProviderInventory reports whether a document is a Placement provider
// inventory: a map whose only key is a `providers` list.
func isProviderInventory(root *yamlsrc.Node) bool {
	pairs := root.Pairs()
	return len(pairs) == 1 && pairs[0].Key.Value == "providers" && pairs[0].Value.Kind == yamlsrc.Sequence
}
