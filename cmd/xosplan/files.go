package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// Diagnostic codes for files that cannot be read as configuration.
const (
	codeNotFound    = "load.not_found"
	codeUnreadable  = "load.unreadable"
	codeNotRegular  = "load.not_regular_file"
	codeTooLarge    = "load.too_large"
	codeOutsideRoot = "load.outside_root"
	codeNoFiles     = "load.no_files"
)

// maxFileBytes is the size above which a file is refused before it is
// read, the same limit yamlsrc applies to what it is given.
const maxFileBytes = yamlsrc.DefaultMaxFileBytes

// fileStart is the range of a file-level problem: the file's first
// character, so that every output format can point somewhere.
func fileStart(path string) diag.Range {
	p := diag.Pos{Line: 1, Column: 1}
	return diag.Range{File: path, Start: p, End: p}
}

// readUserFile reads a configuration file (root: the configuration root)
// or a file the person running xosplan named with a flag (root nil:
// --inputs, --providers). Every check is userfile's: a FIFO, a device, a
// symlink loop, a file over maxFileBytes or, for configuration, a name
// that resolves outside the root is a diagnostic that quotes nothing of
// the file, never a hang, an out-of-memory or a read.
func readUserFile(ctx context.Context, path string, root *userfile.Root) ([]byte, *diag.Diagnostic) {
	data, err := userfile.Read(ctx, path, userfile.Options{Root: root, MaxBytes: maxFileBytes})
	if err != nil {
		return nil, fileProblem(path, err)
	}
	return data, nil
}

// readNamedFile reads a file the person running xosplan named with a flag
// (--inputs, --providers): checked as every file is but not confined to
// the configuration root, and one whose snippets diagnostics may show.
func (c *cli) readNamedFile(ctx context.Context, path string) ([]byte, *diag.Diagnostic) {
	c.sources.allow(path)
	return readUserFile(ctx, path, nil)
}

// fileProblem turns an error of the file system or of userfile into a
// diagnostic naming the path.
func fileProblem(path string, err error) *diag.Diagnostic {
	var ue *userfile.Error
	if errors.As(err, &ue) {
		d := diag.Diagnostic{Severity: diag.Error, Range: fileStart(path)}
		switch {
		case errors.Is(err, userfile.ErrNotRegular):
			d.Code, d.Range = codeNotRegular, diag.Range{File: path}
			d.Summary = fmt.Sprintf("%s is not a regular file (%s)", path, ue.Detail)
		case errors.Is(err, userfile.ErrTooLarge):
			d.Code, d.Summary = codeTooLarge, "file is "+ue.Detail
		case errors.Is(err, userfile.ErrOutsideRoot):
			d.Code, d.Range = codeOutsideRoot, diag.Range{File: path}
			d.Summary = fmt.Sprintf("%s is outside the configuration root (%s); xosplan reads only configuration inside it (see --root)", path, ue.Detail)
		default:
			d.Code, d.Summary = codeUnreadable, ue.Error()
		}
		return &d
	}
	code := codeUnreadable
	if errors.Is(err, fs.ErrNotExist) {
		code = codeNotFound
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &diag.Diagnostic{Severity: diag.Error, Code: code, Range: diag.Range{File: path},
		Summary: fmt.Sprintf("cannot read %s: %v", path, err)}
}

// rootFlag is --root, the configuration root of the commands that read
// configuration or run what it names.
type rootFlag struct{ dir string }

func (f *rootFlag) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "root", "", "the configuration root `DIR`: every file the configuration imports, runs or names must lie inside it "+
		"(default: the repository holding the configuration, else the working folder when it holds it, else each file's folder)")
}

// root returns --root, or the default root of paths (userfile.FindRoot
// from the working folder), and makes it the root of the snippets c shows.
func (f rootFlag) root(c *cli, paths []string) (*userfile.Root, error) {
	var r *userfile.Root
	if f.dir != "" {
		fi, err := os.Stat(f.dir)
		if err == nil && !fi.IsDir() {
			err = errors.New("not a folder")
		}
		if err == nil {
			r, err = userfile.NewRoot(f.dir)
		}
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", f.dir, plainError(err))
		}
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the configuration root: %w", err)
		}
		if r, err = userfile.FindRoot(wd, paths); err != nil {
			return nil, fmt.Errorf("finding the configuration root: %w", err)
		}
	}
	c.sources.confine(r)
	return r, nil
}

// executorRoot is the root the exec driver confines implementations to:
// root (--root, or the configuration root when the command has one), and
// the repositories (else the folders) of the work folders prior records,
// where a destroy run without configuration finds each resource's scripts:
// the state is the user's own file, named like --state. nil when neither
// gives a folder: each resource's own folder.
func (f rootFlag) executorRoot(c *cli, root *userfile.Root, prior *state.State) (*userfile.Root, error) {
	if root == nil && f.dir != "" {
		var err error
		if root, err = f.root(c, nil); err != nil {
			return nil, err
		}
	}
	var dirs []string
	if root != nil {
		dirs = root.Dirs()
	}
	var recorded []string
	if prior != nil {
		for _, r := range prior.Resources {
			if d, ok := r.Feedback.Extra[executor.ExtraWorkDir].(string); ok && d != "" {
				recorded = append(recorded, d)
			}
		}
	}
	if len(recorded) > 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the configuration root: %w", err)
		}
		found, err := userfile.FindRoot(wd, recorded)
		if err != nil {
			return nil, fmt.Errorf("finding the configuration root: %w", err)
		}
		dirs = append(dirs, found.Dirs()...)
	}
	if len(dirs) == 0 {
		return nil, nil
	}
	return userfile.NewRoot(dirs...)
}

// plainError strips the path of a *fs.PathError, which the message names
// already.
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sourceCache gives renderers the text of files named in diagnostics, read
// on demand and kept for the rest of the run. It reads only the
// configuration's own files, inside the root the command confined it to,
// and the files the person running xosplan named with a flag: a diagnostic
// about a refused import, or anything else outside, never has a snippet,
// so no output format can show a line of a file that is not the
// configuration's. It is safe for concurrent use.
type sourceCache struct {
	mu    sync.Mutex
	root  *userfile.Root
	named map[string]bool
	files map[string][]byte
}

func newSourceCache() *sourceCache {
	return &sourceCache{named: map[string]bool{}, files: map[string][]byte{}}
}

// confine sets the configuration root whose files may be shown.
func (s *sourceCache) confine(r *userfile.Root) {
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

// get returns the content of path, reading it if needed.
func (s *sourceCache) get(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if data, ok := s.files[path]; ok {
		return data, data != nil
	}
	var data []byte
	if s.named[path] || s.root != nil {
		root := s.root
		if s.named[path] {
			root = nil
		}
		// Snippets are drawn after the work is done, with the checks of
		// every read: the read cannot block and is bounded.
		data, _ = userfile.Read(context.Background(), path, userfile.Options{Root: root, MaxBytes: maxFileBytes})
	}
	s.files[path] = data
	return data, data != nil
}
