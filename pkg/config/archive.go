package config

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of reading a CSAR archive; the package documentation
// explains each.
const (
	CodeNotZip            = "csar.not_zip"
	CodeArchiveTooLarge   = "csar.too_large"
	CodeTooManyEntries    = "csar.too_many_entries"
	CodeTotalTooLarge     = "csar.total_too_large"
	CodeCompressionRatio  = "csar.compression_ratio"
	CodeUnsafeName        = "csar.unsafe_name"
	CodeDuplicateEntry    = "csar.duplicate_entry"
	CodeSymlinkEntry      = "csar.symlink"
	CodeNotRegularEntry   = "csar.not_regular_entry"
	CodeUnreadableArchive = "csar.unreadable"
)

// ArchiveLimits bound what is read of a CSAR archive, which arrives in a
// pull request like any template: a zip bomb, a million entries or an
// entry named ../../.bashrc is refused before anything of it is used. A
// zero field takes its default.
type ArchiveLimits struct {
	// Size is the largest archive file accepted, checked before it is
	// read (default DefaultArchiveBytes).
	Size int64
	// Entries is the most entries (files and folders) an archive may list
	// (default DefaultArchiveEntries). Its central directory may take at
	// most directoryBytesPerEntry bytes per allowed entry, which bounds
	// the memory spent listing it whatever its header claims.
	Entries int
	// Total is the most uncompressed bytes of all its files together,
	// checked on the sizes the archive declares when it is opened and
	// counted again on the bytes actually read (default
	// DefaultArchiveTotalBytes).
	Total int64
	// Ratio is the highest compression ratio (uncompressed to compressed
	// size) of an entry larger than ratioFloor (default
	// DefaultArchiveRatio).
	Ratio int64
}

// Defaults of ArchiveLimits. One YAML file of an archive is bounded by
// MaxFileBytes, as any configuration file.
const (
	DefaultArchiveBytes      = 256 << 20
	DefaultArchiveEntries    = 10_000
	DefaultArchiveTotalBytes = 1 << 30
	DefaultArchiveRatio      = 100
)

// ratioFloor is the size under which an entry's compression ratio is not
// judged: small files of repeated text compress far beyond 100:1, and
// what they can expand to is small anyway.
const ratioFloor = 1 << 20

// directoryBytesPerEntry is the average room each allowed entry may take
// in the central directory (a header of 46 bytes, the name, the extra
// fields): ample for real archives, and small enough that listing a
// hostile one cannot take much memory.
const directoryBytesPerEntry = 512

// endSearchBytes is what archive/zip reads from the end of a file to find
// the end of the central directory (its last 1 KiB, then 65 KiB), besides
// the directory itself.
const endSearchBytes = 66 << 10

func (l ArchiveLimits) withDefaults() ArchiveLimits {
	if l.Size <= 0 {
		l.Size = DefaultArchiveBytes
	}
	if l.Entries <= 0 {
		l.Entries = DefaultArchiveEntries
	}
	if l.Total <= 0 {
		l.Total = DefaultArchiveTotalBytes
	}
	if l.Ratio <= 0 {
		l.Ratio = DefaultArchiveRatio
	}
	return l
}

// archive is an open CSAR archive. Its members are looked up by their
// clean slash-separated path; nothing is extracted. It is safe for
// concurrent reads; close releases the file.
type archive struct {
	// path names the archive as the user gave it (diagnostics name its
	// members path!/member).
	path   string
	file   *os.File
	limits ArchiveLimits
	// files and dirs are the members by clean path; dirs holds the
	// folders entries name or imply, listed those that have an entry of
	// their own.
	files  map[string]*zip.File
	dirs   map[string]bool
	listed map[string]bool
	// read counts the uncompressed bytes read from every member, against
	// limits.Total.
	read atomic.Int64
}

// errArchiveTotal is the error of a read that takes the bytes read from an
// archive past its Total limit.
var errArchiveTotal = errors.New("the archive's files expand to more than its limit")

// openArchive opens the archive at name through userfile (a regular file
// within the root and limits.Size, never blocking) and checks every entry
// it lists: the first one that breaks a limit or is unsafe (a name that
// climbs out or is absolute, a link, a device, a duplicate) refuses the
// whole archive with one diagnostic naming it. The caller closes the
// archive.
func openArchive(ctx context.Context, name string, root *Root, limits ArchiveLimits) (*archive, *diag.Diagnostic) {
	limits = limits.withDefaults()
	opts := userfile.Options{MaxBytes: limits.Size}
	if root != nil {
		opts.Root = root.fs
	}
	f, fi, err := userfile.Open(ctx, name, opts)
	if err != nil {
		d := fileProblem(name, err)
		if errors.Is(err, userfile.ErrTooLarge) {
			d.Code, d.Range = CodeArchiveTooLarge, diag.Range{File: name}
			d.Summary = "archive is " + strings.TrimPrefix(d.Summary, "file is ")
		}
		return nil, d
	}
	a := &archive{path: name, file: f, limits: limits, files: map[string]*zip.File{}, dirs: map[string]bool{}, listed: map[string]bool{}}
	budget := &budgetReaderAt{r: f, left: endSearchBytes + int64(limits.Entries)*directoryBytesPerEntry}
	zr, err := zip.NewReader(budget, fi.Size())
	budget.left = -1
	switch {
	case errors.Is(err, errDirectoryBudget):
		return a.fail(diag.Range{File: name}, CodeTooManyEntries, "the archive's directory is larger than %d entries need; the limit is %d entries", limits.Entries, limits.Entries)
	case errors.Is(err, zip.ErrFormat):
		return a.fail(diag.Range{File: name}, CodeNotZip, "%s is not a zip archive, which a CSAR is (TOSCA 1.3 §6.1)", name)
	case err != nil:
		return a.fail(diag.Range{File: name}, CodeNotZip, "%s is not a readable zip archive (%s), which a CSAR is (TOSCA 1.3 §6.1)", name, plainZipError(err))
	case len(zr.File) > limits.Entries:
		return a.fail(diag.Range{File: name}, CodeTooManyEntries, "the archive has %d entries; the limit is %d", len(zr.File), limits.Entries)
	}
	var total uint64
	for _, zf := range zr.File {
		if d := a.add(zf); d != nil {
			a.close()
			return nil, d
		}
		if zf.Mode().IsRegular() {
			total += zf.UncompressedSize64
		}
	}
	if total > uint64(limits.Total) {
		return a.fail(diag.Range{File: name}, CodeTotalTooLarge, "the archive's files add up to %d bytes uncompressed; the limit is %s", total, userfile.SizeText(limits.Total))
	}
	return a, nil
}

// fail closes the archive and returns the diagnostic of its refusal.
func (a *archive) fail(at diag.Range, code, format string, args ...any) (*archive, *diag.Diagnostic) {
	a.close()
	return nil, &diag.Diagnostic{Severity: diag.Error, Code: code, Range: at, Summary: fmt.Sprintf(format, args...)}
}

// add checks one entry of the archive and records it.
func (a *archive) add(zf *zip.File) *diag.Diagnostic {
	problem := func(code, format string, args ...any) *diag.Diagnostic {
		return &diag.Diagnostic{Severity: diag.Error, Code: code, Range: diag.Range{File: diag.MemberName(a.path, zf.Name)},
			Summary: fmt.Sprintf(format, args...)}
	}
	if why := unsafeEntryName(zf.Name); why != "" {
		// The name may be anything: it is quoted, never used as a path.
		return &diag.Diagnostic{Severity: diag.Error, Code: CodeUnsafeName, Range: diag.Range{File: a.path},
			Summary: fmt.Sprintf("the archive has an entry named %q, which %s; xosplan reads no archive that holds one", zf.Name, why)}
	}
	mode := zf.Mode()
	name := path.Clean(strings.TrimSuffix(zf.Name, "/"))
	switch {
	case mode&fs.ModeSymlink != 0:
		return problem(CodeSymlinkEntry, "the archive entry %s is a symbolic link; xosplan reads no archive that holds one", name)
	case !mode.IsRegular() && !mode.IsDir():
		return problem(CodeNotRegularEntry, "the archive entry %s is %s, not a file or a folder", name, userfile.DescribeMode(mode))
	case a.files[name] != nil || a.listed[name]:
		return problem(CodeDuplicateEntry, "the archive lists %s twice; which one is meant is ambiguous", name)
	case a.dirs[name] && mode.IsRegular():
		return problem(CodeDuplicateEntry, "the archive lists %s both as a file and as a folder", name)
	case mode.IsRegular() && zf.UncompressedSize64 > ratioFloor && zf.UncompressedSize64/max(zf.CompressedSize64, 1) > uint64(a.limits.Ratio):
		return problem(CodeCompressionRatio, "the archive entry %s expands from %d to %d bytes, more than %d times (a zip bomb?)",
			name, zf.CompressedSize64, zf.UncompressedSize64, a.limits.Ratio)
	}
	if mode.IsDir() {
		a.dirs[name] = true
		a.listed[name] = true
	} else {
		a.files[name] = zf
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if a.files[dir] != nil {
			return problem(CodeDuplicateEntry, "the archive lists %s both as a file and as a folder", dir)
		}
		a.dirs[dir] = true
	}
	return nil
}

// unsafeEntryName says why an entry name is refused, or "" when it is a
// plain relative path. Any such name could reach a file outside the
// archive when extracted, or mislead whoever reads it.
func unsafeEntryName(name string) string {
	switch {
	case name == "" || name == "/":
		return "is empty"
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case strings.ContainsRune(name, 0):
		return "holds a NUL character"
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "holds a control character"
	case strings.Contains(name, `\`):
		return "holds a backslash (a zip path separates folders with /)"
	case strings.HasPrefix(name, "/") || len(name) >= 2 && name[1] == ':':
		return "is an absolute path"
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "climbs out of the archive with .."
	}
	return ""
}

// plainZipError drops archive/zip's "zip: " prefix, which the message
// says in its own words.
func plainZipError(err error) string {
	return strings.TrimPrefix(err.Error(), "zip: ")
}

func (a *archive) close() {
	if a.file != nil {
		a.file.Close()
	}
}

// memberPath returns the member path of name, a name the archive's
// members are given (MemberName), or false.
func (a *archive) memberPath(name string) (string, bool) {
	arch, p, ok := diag.SplitMember(name)
	if !ok || arch != a.path {
		return "", false
	}
	return path.Clean(p), true
}

// String names the archive as the user gave it.
func (a *archive) String() string { return a.path }

// name returns the name of the member p in diagnostics and for the front
// end: the archive's name, "!/" and p.
func (a *archive) name(p string) string { return diag.MemberName(a.path, p) }

// allFiles lists the archive's files, sorted.
func (a *archive) allFiles() []string {
	out := make([]string, 0, len(a.files))
	for p := range a.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Contains, Exists and ReadFile make an archive the tosca.Files of a
// compile: the names a compile makes from a member's name are looked up
// among the members.

// Contains reports whether name is the name of a member, existing or not.
func (a *archive) Contains(name string) bool {
	_, ok := a.memberPath(name)
	return ok
}

// Exists reports whether name is the name of a file of the archive.
func (a *archive) Exists(name string) bool {
	p, ok := a.memberPath(name)
	return ok && a.isFile(p)
}

// ReadFile returns the content of the member name, at most max bytes.
func (a *archive) ReadFile(ctx context.Context, name string, max int64) ([]byte, error) {
	p, ok := a.memberPath(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return a.readFile(ctx, p, max)
}

// isFile reports whether p is a file of the archive.
func (a *archive) isFile(p string) bool { return a.files[p] != nil }

// isDir reports whether p is a folder of the archive.
func (a *archive) isDir(p string) bool { return a.dirs[p] }

// topFiles lists the files at the top of the archive, sorted.
func (a *archive) topFiles() []string {
	var out []string
	for p := range a.files {
		if !strings.Contains(p, "/") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// open opens the member p for reading, its decompressed bytes counted
// against the archive's Total limit.
func (a *archive) open(p string) (io.ReadCloser, *zip.File, error) {
	zf := a.files[p]
	name := diag.MemberName(a.path, p)
	switch {
	case zf == nil:
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	case zf.Flags&0x1 != 0:
		return nil, nil, errors.New("the entry is encrypted, which xosplan cannot read")
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, nil, errors.New(plainZipError(err))
	}
	return countingReadCloser{rc: rc, a: a}, zf, nil
}

// readFile returns the content of the member p, at most max bytes (more
// is a userfile.ErrTooLarge error, checked on the declared size before
// reading and on the bytes read), stopping when ctx is done.
func (a *archive) readFile(ctx context.Context, p string, max int64) ([]byte, error) {
	rc, zf, err := a.open(p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	name := diag.MemberName(a.path, p)
	if zf.UncompressedSize64 > uint64(max) {
		return nil, &userfile.Error{Path: name, Reason: userfile.ErrTooLarge, Detail: fmt.Sprintf("%d bytes; the limit is %s", zf.UncompressedSize64, userfile.SizeText(max))}
	}
	data, err := userfile.ReadAll(ctx, rc, name, int64(zf.UncompressedSize64), max)
	if err != nil {
		return nil, a.readError(name, err)
	}
	return data, nil
}

// hashFile writes the content of the member p to h, stopping when ctx is
// done.
func (a *archive) hashFile(ctx context.Context, p string, h hash.Hash) error {
	rc, _, err := a.open(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := copyContext(ctx, h, rc); err != nil {
		return a.readError(diag.MemberName(a.path, p), err)
	}
	return nil
}

// readError is the error of reading the member name: a userfile.Error for
// a limit, archive/zip's reason in plain words for a damaged entry.
func (a *archive) readError(name string, err error) error {
	var ue *userfile.Error
	switch {
	case errors.As(err, &ue), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, errArchiveTotal):
		return &userfile.Error{Path: name, Reason: userfile.ErrTooLarge, Detail: "the archive's files expand to more than its limit of " + userfile.SizeText(a.limits.Total)}
	case errors.Is(err, zip.ErrFormat), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the entry's data does not match the size its header declares (a damaged or forged archive)")
	case errors.Is(err, zip.ErrChecksum):
		return errors.New("the entry's data does not match its checksum (a damaged archive)")
	}
	return errors.New(plainZipError(err))
}

// copyContext copies r to w in chunks, stopping when ctx is done.
func copyContext(ctx context.Context, w io.Writer, r io.Reader) error {
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// countingReadCloser counts what it reads against its archive's Total.
type countingReadCloser struct {
	rc io.ReadCloser
	a  *archive
}

func (c countingReadCloser) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	if c.a.read.Add(int64(n)) > c.a.limits.Total {
		return n, errArchiveTotal
	}
	return n, err
}

func (c countingReadCloser) Close() error { return c.rc.Close() }

// errDirectoryBudget is the error budgetReaderAt gives once archive/zip
// has read more than the directory of an archive within limits can take.
var errDirectoryBudget = errors.New("the archive's directory is larger than its entry limit allows")

// budgetReaderAt serves at most left bytes, then errDirectoryBudget:
// archive/zip lists an archive's entries by reading its central directory
// until a header does not follow, whatever count the archive declares, so
// the bytes it may read bound the entries (and the memory) it lists. A
// negative left lifts the bound, once the listing is done.
type budgetReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left >= 0 {
		if int64(len(p)) > b.left {
			return 0, errDirectoryBudget
		}
		b.left -= int64(len(p))
	}
	return b.r.ReadAt(p, off)
}
