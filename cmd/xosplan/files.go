package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// readNamedFile reads a file the person running xosplan named with a flag
// (--inputs, --providers): checked as every file is but not confined to
// the configuration root, and one whose snippets diagnostics may show.
func (c *cli) readNamedFile(ctx context.Context, path string) ([]byte, *diag.Diagnostic) {
	c.sources.allow(path)
	return config.ReadFile(ctx, path, nil)
}

// rootFlag is --root, the configuration root of the commands that read
// configuration or run what it names.
type rootFlag struct{ dir string }

func (f *rootFlag) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "root", "", "the configuration root `DIR`: every file the configuration imports, runs or names must lie inside it "+
		"(default: the repository holding the configuration, else the working folder when it holds it, else each file's folder)")
}

// root returns --root, or the default root of paths (config.FindRoot from
// the working folder), and makes it the root of the snippets c shows.
func (f rootFlag) root(c *cli, paths []string) (*config.Root, error) {
	var r *config.Root
	if f.dir != "" {
		var err error
		if r, err = config.NewRoot(f.dir); err != nil {
			return nil, fmt.Errorf("--root %s: %w", f.dir, workflow.PlainError(err))
		}
	} else {
		var err error
		if r, err = workflow.FindRoot(paths); err != nil {
			return nil, err
		}
	}
	c.sources.confine(r)
	return r, nil
}

// loadConfig loads the configuration at paths with the root (--root), the
// input values (--inputs, --var) and the import map (--import-map) the
// flags give, and returns it with the root and the diagnostics of the inputs and import
// map files and of the configuration, sorted. Input values are required
// (config.Options.RequireInputs) when requireGiven is set and some were
// given. An error is a usage problem.
func loadConfig(cmd *cobra.Command, c *cli, paths []string, root rootFlag, inputs inputFlags, imports importMapFlags, requireGiven bool) (config.Result, *config.Root, diag.Diagnostics, error) {
	r, err := root.root(c, paths)
	if err != nil {
		return config.Result{}, nil, nil, usagef(cmd, "%v", err)
	}
	vals, diags, err := inputs.values(cmd.Context(), c)
	if err != nil {
		return config.Result{}, nil, nil, usagef(cmd, "%v", err)
	}
	importMap, mapDiags, err := imports.values(cmd.Context(), c)
	if err != nil {
		return config.Result{}, nil, nil, usagef(cmd, "%v", err)
	}
	if err := imports.checkLimits(); err != nil {
		return config.Result{}, nil, nil, usagef(cmd, "%v", err)
	}
	res := config.Load(cmd.Context(), paths, config.Options{Inputs: vals.Values, InputRanges: vals.Ranges,
		RequireInputs: requireGiven && vals.Values != nil, InputsFile: inputs.file, Root: r, ImportMap: importMap,
		ProfilePath: imports.profilePath(c), SpecLimits: imports.specLimits()})
	return res, r, diags.Extend(mapDiags, res.Diags).Sort(), nil
}

// executorRoot returns the folders the exec driver confines implementations
// to (workflow.ExecutorRoot): those of root (--root, or the configuration
// root when the command has one), and those of the work folders prior
// records.
func (f rootFlag) executorRoot(c *cli, root *config.Root, prior *state.State) ([]string, error) {
	if root == nil && f.dir != "" {
		var err error
		if root, err = f.root(c, nil); err != nil {
			return nil, err
		}
	}
	return workflow.ExecutorRoot(root, prior)
}

// sourceCache gives renderers the text of files named in diagnostics, read
// on demand and kept for the rest of the run. It reads only the
// configuration's own files, inside the root the command confined it to,
// and the files the person running xosplan named with a flag: a diagnostic
// about a refused import, or anything else outside, never has a snippet,
// so no output format can show a line of a file that is not the
// configuration's, and the files of the folders the person named (the
// profile search path). It is safe for concurrent use.
type sourceCache struct {
	mu    sync.Mutex
	root  *config.Root
	named map[string]bool
	dirs  []string
	files map[string][]byte
}

func newSourceCache() *sourceCache {
	return &sourceCache{named: map[string]bool{}, files: map[string][]byte{}}
}

// confine sets the configuration root whose files may be shown.
func (s *sourceCache) confine(r *config.Root) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.root = r
}

// allow lets the file the person named with a flag be shown.
func (s *sourceCache) allow(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.named[path] = true
}

// allowDir lets the files of a folder the person named with a flag (a
// profile folder) be shown.
func (s *sourceCache) allowDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs = append(s.dirs, dir)
}

// inNamedDir reports whether path lies in a folder allowDir named; the
// caller holds the lock.
func (s *sourceCache) inNamedDir(path string) bool {
	for _, d := range s.dirs {
		if rel, err := filepath.Rel(d, path); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// get returns the content of path, reading it if needed.
func (s *sourceCache) get(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if data, ok := s.files[path]; ok {
		return data, data != nil
	}
	var data []byte
	named := s.named[path] || s.inNamedDir(path)
	if named || s.root != nil {
		root := s.root
		if named {
			root = nil
		}
		// Snippets are drawn after the work is done, with the checks of
		// every read (config.ReadFile's): the read cannot block and is
		// bounded.
		data, _ = config.ReadFile(context.Background(), path, root)
	}
	s.files[path] = data
	return data, data != nil
}
