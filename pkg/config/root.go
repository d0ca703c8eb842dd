package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
)

// ErrOutsideRoot is wrapped by the error of a name that resolves outside
// a Root (compare with errors.Is).
var ErrOutsideRoot = userfile.ErrOutsideRoot

// ErrNotFolder is wrapped (in an *fs.PathError naming it) by NewRoot's
// error for a root folder that is not a folder.
var ErrNotFolder = errors.New("not a folder")

// Root is a configuration root: the folders every configuration file, and
// every file a configuration names, must lie in once its symbolic links
// are resolved. A Root is immutable and safe for concurrent use.
type Root struct {
	// dirs are the folders as they were given: the front ends build their
	// confinement from them, and messages name the first.
	dirs []string
	fs   *userfile.Root
}

// NewRoot returns the root made of dirs (at least one), each of which must
// be an existing folder: the root a user chose (`--root`). The error wraps
// an *fs.PathError naming the folder, with ErrNotFolder or the system's
// reason.
func NewRoot(dirs ...string) (*Root, error) {
	if len(dirs) == 0 {
		return nil, errors.New("a configuration root needs at least one folder")
	}
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "root", Path: d, Err: ErrNotFolder}
		}
	}
	return newRoot(dirs)
}

func newRoot(dirs []string) (*Root, error) {
	r, err := userfile.NewRoot(dirs...)
	if err != nil {
		return nil, err
	}
	return &Root{dirs: slices.Clone(dirs), fs: r}, nil
}

// FindRoot returns the default configuration root for the paths a command
// was given (files or folders), with wd the working folder: for each path,
// the nearest folder at or above it that holds .git (the repository it
// lives in); else wd when wd contains it; else its own folder (the folder
// itself for a folder). The folders found make one Root. A path that does
// not exist adds no folder (whoever reads it reports it), so a root found
// for no existing path has no folder and allows nothing.
//
// A path is placed by its name, not by where its links lead: a file that
// is a link out of the repository does not widen the root to the link's
// target, it is refused when read.
func FindRoot(wd string, paths []string) (*Root, error) {
	var dirs []string
	wdAbs, _ := filepath.Abs(wd)
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			continue
		}
		dir := abs
		if !fi.IsDir() {
			dir = filepath.Dir(abs)
		}
		switch repo := repositoryOf(dir); {
		case repo != "":
			dir = repo
		case wdAbs != "" && within(wdAbs, dir):
			dir = wdAbs
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return newRoot(dirs)
}

// Dirs returns the root's folders as they were given (NewRoot) or found
// (FindRoot, absolute): what tosca.Options.Root, manifest.Options.Root and
// executor.DriverOptions.Root take.
func (r *Root) Dirs() []string { return slices.Clone(r.dirs) }

// ResolvedDirs returns the root's folders absolute, with every link
// resolved: what the names read are compared with.
func (r *Root) ResolvedDirs() []string { return r.fs.Dirs() }

// String names the root for messages: its first folder, and how many
// others there are.
func (r *Root) String() string { return r.fs.String() }

// Resolve returns the absolute name of path with every link resolved, or
// an error wrapping ErrOutsideRoot when that name is not inside the root.
// A path that does not exist is the system's error.
func (r *Root) Resolve(path string) (string, error) { return r.fs.Resolve(path) }

// repositoryOf returns the nearest folder at or above dir holding .git, or
// "".
func repositoryOf(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// within reports whether name is dir or below it (both clean and
// absolute); names are compared as written, links unresolved.
func within(dir, name string) bool {
	if name == dir {
		return true
	}
	rel, err := filepath.Rel(dir, name)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
