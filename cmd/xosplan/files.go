package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes for files that cannot be read as configuration.
const (
	codeNotFound   = "load.not_found"
	codeUnreadable = "load.unreadable"
	codeNotRegular = "load.not_regular_file"
	codeTooLarge   = "load.too_large"
	codeNoFiles    = "load.no_files"
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

// readUserFile reads a configuration or inputs file. It checks first that
// the path names a regular file within maxFileBytes, so that a FIFO, a
// device, a symlink loop or a huge file is a diagnostic, never a hang or an
// out-of-memory.
func readUserFile(path string) ([]byte, *diag.Diagnostic) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fileProblem(path, err)
	}
	if !fi.Mode().IsRegular() {
		d := diag.Diagnostic{Severity: diag.Error, Code: codeNotRegular, Range: diag.Range{File: path},
			Summary: fmt.Sprintf("%s is not a regular file (%s)", path, describeMode(fi.Mode()))}
		return nil, &d
	}
	if fi.Size() > maxFileBytes {
		d := diag.Diagnostic{Severity: diag.Error, Code: codeTooLarge, Range: fileStart(path),
			Summary: fmt.Sprintf("file is %d bytes; the limit is %d bytes (%d MiB)", fi.Size(), maxFileBytes, maxFileBytes>>20)}
		return nil, &d
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileProblem(path, err)
	}
	defer f.Close()
	// The file may grow between Stat and Read: read one byte past the limit
	// to notice.
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fileProblem(path, err)
	}
	if len(data) > maxFileBytes {
		d := diag.Diagnostic{Severity: diag.Error, Code: codeTooLarge, Range: fileStart(path),
			Summary: fmt.Sprintf("file is larger than the limit of %d bytes (%d MiB)", maxFileBytes, maxFileBytes>>20)}
		return nil, &d
	}
	return data, nil
}

// fileProblem turns an error of the file system into a diagnostic naming
// the path.
func fileProblem(path string, err error) *diag.Diagnostic {
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

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// sourceCache gives renderers the text of files named in diagnostics, read
// on demand with the checks of readUserFile and kept for the rest of the
// run. Files that cannot be read have no snippet. It is safe for concurrent
// use.
type sourceCache struct {
	mu    sync.Mutex
	files map[string][]byte
}

func newSourceCache() *sourceCache { return &sourceCache{files: map[string][]byte{}} }

// get returns the content of path, reading it if needed.
func (s *sourceCache) get(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if data, ok := s.files[path]; ok {
		return data, data != nil
	}
	data, problem := readUserFile(path)
	if problem != nil {
		data = nil
	}
	s.files[path] = data
	return data, data != nil
}
