package config

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/manifest"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// Diagnostic codes of loading; the package documentation explains each.
const (
	CodeInternal = "load.internal_error"
	CodeCanceled = "load.canceled"
)

// Options tune Load.
type Options struct {
	// Inputs are TOSCA input values; nil when none are given.
	Inputs map[string]any
	// InputRanges says where each input value was given (see
	// tosca.Options.InputRanges): ReadInputs returns those of an inputs
	// file.
	InputRanges map[string]diag.Range
	// RequireInputs reports required TOSCA inputs that have no value and no
	// default.
	RequireInputs bool
	// InputsFile is the file the input values were read from. It holds
	// values, perhaps secrets, not configuration: when it lies in a folder
	// being walked it is left out rather than reported as a file of
	// unknown format.
	InputsFile string
	// Root is the configuration root: every configuration file, and every
	// file one names, must lie inside it. nil: FindRoot of the paths from
	// the working folder.
	Root *Root
	// ImportMap maps URLs that TOSCA templates import to local files read
	// instead (tosca.Options.ImportMap): the user's permission to read
	// those files, inside the root or not. A relative file is taken from
	// the working folder.
	ImportMap map[string]string
	// ProfilePath lists the folders searched for the TOSCA 2.0 profiles
	// templates import by name (tosca.NewProfileIndex), indexed once per
	// Load; their files may be read wherever they lie.
	ProfilePath []string
	// Archive bounds what is read of each CSAR archive.
	Archive ArchiveLimits
	// SpecLimits bound the strings and lists of every resource's spec.
	SpecLimits SpecLimits
}

// Unit is one compiled unit: a TOSCA service template (with its imports),
// or the manifests of one folder, which form one environment.
type Unit struct {
	Format Format
	// Files are the unit's own files as named in the paths or found by
	// walking a folder (imports are not listed), sorted; for a CSAR, its
	// entry definitions (PKG.csar!/path for an archive's member).
	Files []string
	// Package is the CSAR the unit is the entry definitions of, as named
	// or found: an archive (PKG.csar, PKG.zip) or a folder laid out as an
	// unpacked CSAR; "" for other units.
	Package string
	// Graph is nil when errors prevented compiling.
	Graph *graph.Graph
}

// Result is everything Load found.
type Result struct {
	// Root is the configuration root the files were confined to
	// (Options.Root, else the one FindRoot found); nil when it could not
	// be found. Model policies run only from inside it.
	Root *Root
	// Units are ordered by their first file.
	Units []Unit
	// Diags are sorted.
	Diags diag.Diagnostics
	// Skipped are the files met in a folder walk that are neither TOSCA, a
	// manifest nor a provider inventory, sorted: each has a
	// CodeUnknownFormat warning and is not compiled. (A file of neither
	// format that was named is an error, not skipped.)
	Skipped []string
}

// Load finds the configuration files under paths, detects the format of
// each, and compiles them: every TOSCA file on its own (tosca.Compile),
// and the manifest files of each folder as one environment
// (manifest.CompileEnvironment); provider inventories are checked. Manifest
// files named one by one group by folder too, so that `env/*.yaml` and
// `env` agree.
//
// A path is a file (any name) or a folder, walked recursively for *.yaml and
// *.yml files; hidden folders (.git …) are skipped and symbolic links to
// folders are not followed, so a link loop cannot trap the walk. Unreadable
// paths, special files, files over the size limit and files (or links)
// outside the configuration root are diagnostics; the other files are
// still compiled. Files are compiled in parallel, bounded by GOMAXPROCS;
// the result does not depend on the order they finish in. When ctx is
// done no new file is started and a CodeCanceled diagnostic says so.
func Load(ctx context.Context, paths []string, opts Options) Result {
	var res Result
	root := opts.Root
	if root == nil {
		wd, _ := os.Getwd()
		var err error
		if root, err = FindRoot(wd, paths); err != nil {
			res.Diags = res.Diags.Errorf(diag.Range{}, "", CodeUnreadable, "finding the configuration root: %v", err)
			return res
		}
	}
	res.Root = root
	files, packages, named, diags := findFiles(ctx, paths)
	files = withoutFile(files, opts.InputsFile)
	res.Diags = diags

	toscaFiles, envs, providerFiles, skipped, detectDiags := detectAll(ctx, root, files, named)
	res.Skipped = skipped
	res.Diags = res.Diags.Extend(detectDiags, checkProviders(ctx, root, providerFiles))
	packageUnits, archives, packageDiags := loadPackages(ctx, root, packages, opts.Archive)
	defer func() {
		for _, a := range archives {
			a.close()
		}
	}()
	res.Diags = res.Diags.Extend(packageDiags)

	units := make([]Unit, 0, len(toscaFiles)+len(envs)+len(packageUnits))
	for _, f := range toscaFiles {
		units = append(units, Unit{Format: FormatTOSCA, Files: []string{f}})
	}
	for _, dir := range slices.Sorted(maps.Keys(envs)) {
		units = append(units, Unit{Format: FormatManifest, Files: envs[dir]})
	}
	units = append(units, packageUnits...)
	var profiles *tosca.ProfileIndex
	if len(opts.ProfilePath) > 0 {
		var err error
		if profiles, err = tosca.NewProfileIndex(ctx, opts.ProfilePath); err != nil {
			res.Diags = res.Diags.Errorf(diag.Range{}, "", CodeUnreadable, "reading the profile search path: %v", err)
		}
	}
	res.Diags = res.Diags.Extend(inInputsFile(compileAll(ctx, root, units, archives, profiles, opts), opts.InputsFile))
	res.Diags = res.Diags.Extend(inInputsFile(checkSpecLimits(ctx, root, units, opts.SpecLimits), opts.InputsFile))
	if ctx.Err() != nil {
		res.Diags = res.Diags.Errorf(diag.Range{}, "", CodeCanceled, "stopped before every file was checked: %v", context.Cause(ctx))
	}
	slices.SortStableFunc(units, func(a, b Unit) int { return strings.Compare(a.Files[0], b.Files[0]) })
	res.Units = units
	res.Diags = res.Diags.Sort()
	return res
}

// detectAll detects the format of every file, in parallel, and sorts them
// by front end: TOSCA files, manifest files by folder, provider
// inventories, and the files met in a walk (not named) that are none of
// these, skipped.
func detectAll(ctx context.Context, root *Root, files []string, named map[string]bool) (toscaFiles []string, envs map[string][]string, providers, skipped []string, diags diag.Diagnostics) {
	type detected struct {
		format Format
		diags  diag.Diagnostics
	}
	det := make([]detected, len(files))
	parallel(ctx, len(files), func(i int) {
		det[i].format, det[i].diags = detectFormat(ctx, root, files[i], !named[files[i]])
	})
	envs = map[string][]string{}
	for i, f := range files {
		diags = diags.Extend(det[i].diags)
		switch det[i].format {
		case FormatTOSCA:
			toscaFiles = append(toscaFiles, f)
		case FormatManifest:
			envs[filepath.Dir(f)] = append(envs[filepath.Dir(f)], f)
		case FormatProviders:
			providers = append(providers, f)
		case "":
			if !named[f] && !det[i].diags.HasErrors() {
				skipped = append(skipped, f)
			}
		}
	}
	return toscaFiles, envs, providers, skipped, diags
}

// checkProviders checks the provider inventories found among the
// configuration.
func checkProviders(ctx context.Context, root *Root, files []string) diag.Diagnostics {
	diags := make([]diag.Diagnostics, len(files))
	parallel(ctx, len(files), func(i int) {
		data, problem := ReadFile(ctx, files[i], root)
		if problem != nil {
			diags[i] = diags[i].Append(*problem)
			return
		}
		_, diags[i] = placement.LoadProviders(files[i], data)
	})
	var all diag.Diagnostics
	return all.Extend(diags...)
}

// loadPackages finds the entry definitions of each CSAR package, in
// parallel, and returns a unit for each that has one, the archives opened
// (by path; the caller closes them) and every problem of the packages.
func loadPackages(ctx context.Context, root *Root, packages []string, limits ArchiveLimits) ([]Unit, map[string]*archive, diag.Diagnostics) {
	type loaded struct {
		unit    *Unit
		archive *archive
		diags   diag.Diagnostics
	}
	out := make([]loaded, len(packages))
	parallel(ctx, len(packages), func(i int) {
		p := &out[i]
		var files packageFiles = &folderPackage{dir: packages[i], root: root, limits: limits}
		if diag.IsArchiveName(packages[i]) {
			a, problem := openArchive(ctx, packages[i], root, limits)
			if problem != nil {
				p.diags = p.diags.Append(*problem)
				return
			}
			p.archive, files = a, a
		}
		entry, diags := csarEntry(ctx, files)
		p.diags = diags
		if entry != "" {
			p.unit = &Unit{Format: FormatTOSCA, Files: []string{files.name(entry)}, Package: packages[i]}
		}
	})
	var units []Unit
	archives := map[string]*archive{}
	var diags diag.Diagnostics
	for i, p := range out {
		diags = diags.Extend(p.diags)
		if p.archive != nil {
			archives[packages[i]] = p.archive
		}
		if p.unit != nil {
			units = append(units, *p.unit)
		}
	}
	return units, archives, diags
}

// compileAll compiles the units in place, in parallel, and returns their
// diagnostics. The units of archives read their files from archives;
// TOSCA templates find the profiles they import by name in profiles.
func compileAll(ctx context.Context, root *Root, units []Unit, archives map[string]*archive, profiles *tosca.ProfileIndex, opts Options) diag.Diagnostics {
	diags := make([]diag.Diagnostics, len(units))
	dirs := root.Dirs()
	parallel(ctx, len(units), func(i int) {
		u := &units[i]
		defer func() {
			// A front end that panics has a bug; the user still gets one
			// line naming the file, and the other files are checked.
			if r := recover(); r != nil {
				u.Graph = nil
				diags[i] = diags[i].Errorf(diag.Range{File: u.Files[0]}, "", CodeInternal,
					"internal error while compiling %s: %v (this is a bug in xosplan; please report it with the file)", strings.Join(u.Files, ", "), r)
			}
		}()
		switch u.Format {
		case FormatTOSCA:
			topts := tosca.Options{Inputs: opts.Inputs, InputRanges: opts.InputRanges, RequireInputs: opts.RequireInputs, Root: dirs, ImportMap: opts.ImportMap, SelfContained: u.Package != "", Profiles: profiles}
			if a := archives[u.Package]; a != nil {
				// Nothing outside the archive is readable from inside it
				// but the embedded types and the import map's files.
				topts.Files, topts.Root = a, nil
			}
			u.Graph, diags[i] = tosca.Compile(ctx, u.Files[0], topts)
		case FormatManifest:
			u.Graph, diags[i] = manifest.CompileEnvironment(ctx, u.Files, manifest.Options{Root: dirs})
		}
	})
	var all diag.Diagnostics
	return all.Extend(sharedInputs(units, diags)...)
}

// sharedInputs keeps the errors of an input value no TOSCA template
// declares (tosca.UndeclaredInput) only when every TOSCA unit reported
// it: one set of input values serves all the templates of a load (a
// folder of stacks and one --inputs file), so a value one template
// declares is no error in the others. unitDiags are the units'
// diagnostics, in the order of units.
func sharedInputs(units []Unit, unitDiags []diag.Diagnostics) []diag.Diagnostics {
	templates := 0
	undeclared := map[string]int{} // input name → how many units do not declare it
	for i, u := range units {
		if u.Format != FormatTOSCA {
			continue
		}
		templates++
		seen := map[string]bool{}
		for _, d := range unitDiags[i] {
			if name, ok := tosca.UndeclaredInput(d); ok && !seen[name] {
				seen[name] = true
				undeclared[name]++
			}
		}
	}
	if templates < 2 || len(undeclared) == 0 {
		return unitDiags
	}
	out := make([]diag.Diagnostics, len(unitDiags))
	for i, ds := range unitDiags {
		out[i] = slices.DeleteFunc(slices.Clone(ds), func(d diag.Diagnostic) bool {
			name, ok := tosca.UndeclaredInput(d)
			return ok && undeclared[name] < templates
		})
	}
	return out
}

// inInputsFile marks the diagnostics placed in the inputs file Sensitive,
// as ReadInputs marks its own: a compiler that reports a given value where
// it was given does not know that every value of that file may be a
// secret.
func inInputsFile(diags diag.Diagnostics, inputsFile string) diag.Diagnostics {
	if inputsFile == "" {
		return diags
	}
	for i := range diags {
		if diags[i].Range.File == inputsFile {
			diags[i].Sensitive = true
		}
	}
	return diags
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

// ManifestFolders lists the folders of the manifest units, in unit order:
// where scripted components' scripts are looked for by default.
func (r Result) ManifestFolders() []string {
	var out []string
	for _, u := range r.Units {
		if u.Format == FormatManifest && len(u.Files) > 0 {
			out = append(out, filepath.Dir(u.Files[0]))
		}
	}
	return out
}
