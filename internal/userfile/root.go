package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Root is the set of folders (and single files) a configuration may read:
// the configuration root, plus what the user allowed explicitly. A name is
// inside the root when, after resolving every symbolic link, it is one of
// the folders or lies below one, or is one of the allowed files. The zero
// Root allows nothing; a nil *Root is never consulted (Options.Root nil
// means no confinement).
type Root struct {
	dirs  []string        // resolved absolute folders
	files map[string]bool // resolved absolute files
	// shown is the first folder as given, for messages.
	shown string
}

// NewRoot returns a root made of dirs (at least one). Each folder is
// resolved (absolute, links followed) now; a folder that does not exist is
// an error.
func NewRoot(dirs ...string) (*Root, error) {
	r := &Root{files: map[string]bool{}}
	for _, d := range dirs {
		if err := r.AddDir(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// AddDir adds a folder to the root.
func (r *Root) AddDir(dir string) error {
	resolved, err := resolve(dir)
	if err != nil {
		return err
	}
	if r.shown == "" {
		r.shown = dir
	}
	if !slices.Contains(r.dirs, resolved) {
		r.dirs = append(r.dirs, resolved)
	}
	return nil
}

// AllowFile adds one file outside the folders (an --import-map target, say).
func (r *Root) AllowFile(path string) error {
	resolved, err := resolve(path)
	if err != nil {
		return err
	}
	if r.files == nil {
		r.files = map[string]bool{}
	}
	r.files[resolved] = true
	return nil
}

// Dirs returns the root's resolved folders.
func (r *Root) Dirs() []string { return slices.Clone(r.dirs) }

// Resolve returns the absolute name of path with every link resolved, or
// an ErrOutsideRoot *Error when that name is not inside the root. A path
// that does not exist is the operating system's error.
func (r *Root) Resolve(path string) (string, error) {
	resolved, err := resolve(path)
	if err != nil {
		return "", err
	}
	if r.Contains(resolved) {
		return resolved, nil
	}
	return "", r.outside(path)
}

// Confine is Resolve for a name that need not exist (an implementation
// script a template names, which is checked at compile time and only run
// later): the longest part of the name that exists is resolved through its
// links and the rest appended, and the result must be inside the root.
func (r *Root) Confine(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	existing, rest := abs, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	resolved = filepath.Join(resolved, rest)
	if r.Contains(resolved) {
		return resolved, nil
	}
	return "", r.outside(path)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// String names the root for messages: its first folder as given, and how
// many others there are.
func (r *Root) String() string { return r.describe() }

func (r *Root) outside(path string) error {
	return &Error{Path: path, Reason: ErrOutsideRoot, Detail: "the configuration root is " + r.describe()}
}

// Contains reports whether a resolved absolute name is inside the root.
func (r *Root) Contains(resolved string) bool {
	if r.files[resolved] {
		return true
	}
	for _, d := range r.dirs {
		if within(d, resolved) {
			return true
		}
	}
	return false
}

func (r *Root) describe() string {
	switch {
	case len(r.dirs) == 0:
		return "empty"
	case len(r.dirs) == 1:
		return r.shown
	}
	return r.shown + " and " + plural(len(r.dirs)-1, "other folder")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// within reports whether name is dir or below it (both clean and absolute).
func within(dir, name string) bool {
	if name == dir {
		return true
	}
	rel, err := filepath.Rel(dir, name)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve makes path absolute and follows every link in it.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// The system's error says it better ("too many levels of
		// symbolic links" where EvalSymlinks says "too many links").
		if _, serr := os.Stat(abs); serr != nil {
			err = serr
		}
		return "", &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	return resolved, nil
}
