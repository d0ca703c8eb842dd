package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes for files that cannot be read as configuration; the
// package documentation explains each.
const (
	CodeNotFound    = "load.not_found"
	CodeUnreadable  = "load.unreadable"
	CodeNotRegular  = "load.not_regular_file"
	CodeTooLarge    = "load.too_large"
	CodeOutsideRoot = "load.outside_root"
	CodeNoFiles     = "load.no_files"
)

// MaxFileBytes is the size above which a file is refused before it is
// read, the same limit yamlsrc applies to what it is given.
const MaxFileBytes = yamlsrc.DefaultMaxFileBytes

// fileStart is the range of a file-level problem: the file's first
// character, so that every output format can point somewhere.
func fileStart(path string) diag.Range {
	p := diag.Pos{Line: 1, Column: 1}
	return diag.Range{File: path, Start: p, End: p}
}

// ReadFile reads a configuration file confined to root, or, with a nil
// root, a file the person running xosplan named (an inputs file, a
// provider inventory), which is checked the same way but may lie
// anywhere. A FIFO, a device, a symbolic-link loop, a file over
// MaxFileBytes or, with a root, a name that resolves outside it is a
// diagnostic that quotes nothing of the file, never a hang, an
// out-of-memory or a read.
//
// A member of a CSAR archive, named PKG.csar!/path (diag.MemberName), is
// read from the archive, which is opened as Load opens it (confined to
// root, every entry checked, within the default ArchiveLimits).
func ReadFile(ctx context.Context, path string, root *Root) ([]byte, *diag.Diagnostic) {
	if archivePath, member, ok := diag.SplitMember(path); ok {
		a, problem := openArchive(ctx, archivePath, root, ArchiveLimits{})
		if problem != nil {
			return nil, problem
		}
		defer a.close()
		data, err := a.readFile(ctx, member, MaxFileBytes)
		if err != nil {
			return nil, fileProblem(path, err)
		}
		return data, nil
	}
	opts := userfile.Options{MaxBytes: MaxFileBytes}
	if root != nil {
		opts.Root = root.fs
	}
	data, err := userfile.Read(ctx, path, opts)
	if err != nil {
		return nil, fileProblem(path, err)
	}
	return data, nil
}

// fileProblem turns an error of the file system or of userfile into a
// diagnostic naming the path.
func fileProblem(path string, err error) *diag.Diagnostic {
	var ue *userfile.Error
	if errors.As(err, &ue) {
		d := diag.Diagnostic{Severity: diag.Error, Range: fileStart(path)}
		switch {
		case errors.Is(err, userfile.ErrNotRegular):
			d.Code, d.Range = CodeNotRegular, diag.Range{File: path}
			d.Summary = fmt.Sprintf("%s is not a regular file (%s)", path, ue.Detail)
		case errors.Is(err, userfile.ErrTooLarge):
			d.Code, d.Summary = CodeTooLarge, "file is "+ue.Detail
		case errors.Is(err, userfile.ErrOutsideRoot):
			d.Code, d.Range = CodeOutsideRoot, diag.Range{File: path}
			d.Summary = fmt.Sprintf("%s is outside the configuration root (%s); xosplan reads only configuration inside it (see --root)", path, ue.Detail)
		default:
			d.Code, d.Summary = CodeUnreadable, ue.Error()
		}
		return &d
	}
	code := CodeUnreadable
	switch _, _, member := diag.SplitMember(path); {
	case errors.Is(err, fs.ErrNotExist):
		code = CodeNotFound
	case member:
		code = CodeUnreadableArchive
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &diag.Diagnostic{Severity: diag.Error, Code: code, Range: diag.Range{File: path},
		Summary: fmt.Sprintf("cannot read %s: %v", path, err)}
}
