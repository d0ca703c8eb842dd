package state

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
)

// DefaultPath is the state file a command uses when --state is not given.
const DefaultPath = "xosplan.state.json"

// Suffixes of the files kept beside the state file.
const (
	BackupSuffix   = ".backup"
	LockSuffix     = ".lock"
	LockInfoSuffix = ".lock.info"
	JournalSuffix  = ".journal"
)

// ErrJournalOpen: the snapshot cannot be written while this File has a
// journal open; close the journal and Compact instead.
var ErrJournalOpen = errors.New("the apply journal is open")

// FileOptions tune a file backend.
type FileOptions struct {
	// LockTimeout is how long Lock waits for a held lock, polling with
	// backoff. Zero means: until ctx's deadline when it has one, else try
	// once.
	LockTimeout time.Duration
	// Now returns the current time; nil means time.Now. Tests set it.
	Now func() time.Time
	// fsys is where writes go; nil means the os package. Tests make it
	// fail.
	fsys fileSystem
}

// File is the local file backend (the default). The snapshot lives at its
// path (symbolic links resolved), the previous snapshot at path+".backup",
// the lock at path+".lock" with path+".lock.info", and the apply journal
// at path+".journal".
// A File is safe for concurrent use; separate processes coordinate through
// the lock, and every change of the snapshot or the journal is also made
// under a flock(2) of the journal file with a compare-and-swap (see
// guard), so that a force-unlock cannot let two writers corrupt either.
type File struct {
	path string
	opts FileOptions
	fsys fileSystem

	mu sync.Mutex
	// seen is what the last load or write found on disk; it lets Write
	// tell a content change from a rewrite without decoding the file again.
	seen *seenSnapshot
	// read is what the last LoadWithJournal returned (or the last write
	// stored): the state a caller's Write is based on.
	read *seenSnapshot
	// held is the state lock taken through this File, if any.
	held *fileLock
	// journal is the journal opened through this File, if any.
	journal *Journal
	// wrote is the journal this File last closed, until Compact folds it.
	wrote *wroteJournal
}

// wroteJournal is a journal this File wrote: the snapshot it extends and
// the file as it was closed.
type wroteJournal struct {
	lineage string
	serial  uint64
	info    fs.FileInfo
}

var _ Backend = (*File)(nil)

// seenSnapshot describes the snapshot on disk and the effective state
// (snapshot plus journal) last loaded or written.
type seenSnapshot struct {
	info    fs.FileInfo // nil: no snapshot file
	serial  uint64
	lineage string
	// snapshotRes is the canonical encoding of the snapshot's resources;
	// nil when the file is not in canonical form (hand-edited).
	snapshotRes chunks
	// effectiveRes is the canonical encoding of the resources after the
	// journal's outcomes; the same slice as snapshotRes without a journal.
	effectiveRes chunks
	// outputs is the snapshot's outputs and sync members (encodeTail), nil for
	// none; the journal never changes outputs.
	outputs []byte
	// journalInfo describes the journal file last seen (nil: none).
	journalInfo fs.FileInfo
}

// OpenFile returns the file backend for the state at path. The file need
// not exist: a missing state reads as empty and is created by the first
// write that has content. When path is a symbolic link (or its folder
// is), the state is the file it resolves to, and the lock, journal and
// backup live beside that file: every name of one state shares one lock,
// and a write replaces the file, not the link. OpenFile reads nothing
// else.
func OpenFile(path string, opts FileOptions) (*File, error) {
	if path == "" {
		return nil, errors.New("state path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("state path %s: %w", path, err)
	}
	if abs, err = resolvePath(abs); err != nil {
		return nil, fmt.Errorf("state path %s: %w", path, err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	fsys := opts.fsys
	if fsys == nil {
		fsys = osFS{}
	}
	return &File{path: abs, opts: opts, fsys: fsys}, nil
}

// maxLinks bounds the symbolic links followed, as the kernel does (ELOOP).
const maxLinks = 40

// resolvePath returns the file that the absolute path abs names once every
// symbolic link is followed, including a last link to a file that does
// not exist yet (the state a first write creates).
func resolvePath(abs string) (string, error) {
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return abs, nil // a missing folder fails at the first write, with its name
			}
			return "", err
		}
		abs = filepath.Join(dir, filepath.Base(abs))
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return abs, nil
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		abs = filepath.Clean(target)
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// Path returns the absolute path of the state file, links resolved.
func (f *File) Path() string { return f.path }

func (f *File) now() time.Time { return f.opts.Now().UTC() }

// Read returns the effective state: the snapshot with the apply journal's
// completed operations replayed over it (see LoadWithJournal).
func (f *File) Read(ctx context.Context) (*State, error) {
	l, err := f.LoadWithJournal(ctx)
	if err != nil {
		return nil, err
	}
	return l.State, nil
}

// Write stores s as the next snapshot when its content differs from the
// effective state last read; see Backend.Write. A write replaces the file
// atomically (temp file, fsync, rename, fsync of the folder), keeps the
// previous snapshot as path+".backup", and retires the apply journal.
//
// It is a compare-and-swap: under the guard (see guard) the snapshot on
// disk must still have s's lineage and serial, and the journal must be
// the one this File last loaded, else a *ConflictError
// (ErrSerialConflict) says what changed; when the state lock was taken
// through this File it must still be held (ErrLockLost). Nothing is
// written then.
func (f *File) Write(ctx context.Context, s *State) error {
	unlock, err := f.lockIdle(ctx, "writing state "+f.path)
	if err != nil {
		return err
	}
	defer unlock()
	g, err := f.guard()
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	defer g.release()
	cur, err := f.current()
	if err != nil {
		return err
	}
	if cur.lineage != "" && s.Lineage != cur.lineage {
		return fmt.Errorf("writing state %s: %w: stored %q, writing %q", f.path, ErrLineageMismatch, cur.lineage, s.Lineage)
	}
	if s.Serial != cur.serial {
		return &ConflictError{Path: f.path, ExpectedLineage: cur.lineage, FoundLineage: cur.lineage, ExpectedSerial: s.Serial, FoundSerial: cur.serial}
	}
	if err := f.unchangedSinceRead(cur); err != nil {
		return err
	}
	res, err := encodeResources(s.Resources)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	outs, err := encodeTail(s)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	if res.equal(cur.effectiveRes) && bytes.Equal(outs, cur.outputs) {
		s.Version = FormatVersion
		return nil
	}
	lineage := cmp.Or(cur.lineage, s.Lineage)
	if lineage == "" {
		if lineage, err = newLineage(); err != nil {
			return err
		}
	}
	if err := f.commit(g, cur.serial+1, lineage, res, outs); err != nil {
		return err
	}
	s.Version, s.Serial, s.Lineage = FormatVersion, cur.serial+1, lineage
	return nil
}

// unchangedSinceRead returns a *ConflictError when cur, what is on disk
// now, is not what this File last loaded for its caller: another process
// wrote the snapshot, or recorded operations in the journal. The caller
// holds f.mu.
func (f *File) unchangedSinceRead(cur *seenSnapshot) error {
	read := f.read
	if read == nil {
		return nil
	}
	if cur.lineage == read.lineage && cur.serial == read.serial && sameJournal(cur.journalInfo, read.journalInfo) {
		return nil
	}
	return &ConflictError{Path: f.path, ExpectedLineage: read.lineage, FoundLineage: cur.lineage,
		ExpectedSerial: read.serial, FoundSerial: cur.serial, Journal: cur.serial == read.serial}
}

// Overwrite stores s as it is, serial and lineage included, after checking
// that it encodes to a valid state. It retires the apply journal. When the
// state lock was taken through this File it must still be held
// (ErrLockLost).
func (f *File) Overwrite(ctx context.Context, s *State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := encodeResources(s.Resources)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	outs, err := encodeTail(s)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	if _, err := Decode(assemble(FormatVersion, s.Serial, s.Lineage, res.join(), outs)); err != nil {
		return fmt.Errorf("refusing to write an invalid state: %w", err)
	}
	unlock, err := f.lockIdle(ctx, "writing state "+f.path)
	if err != nil {
		return err
	}
	defer unlock()
	g, err := f.guard()
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	defer g.release()
	if err := f.commit(g, s.Serial, s.Lineage, res, outs); err != nil {
		return err
	}
	s.Version = FormatVersion
	return nil
}

// commit writes a snapshot of res and outs (encodeTail), retires the
// journal and remembers what is on disk. The caller holds f.mu and the
// guard g.
func (f *File) commit(g *commitGuard, serial uint64, lineage string, res chunks, outs []byte) error {
	// The resources are written in place, between header and trailer,
	// without copying them.
	parts := make([][]byte, 0, len(res)+2)
	parts = append(parts, header(FormatVersion, serial, lineage, 0))
	parts = append(parts, res...)
	parts = append(parts, trailer(outs))
	info, err := writeAtomic(f.fsys, f.path, true, parts...)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	// The new serial already makes the journal stale; removing it only
	// tidies up, so its failure is not the write's.
	g.remove()
	f.seen = &seenSnapshot{info: info, serial: serial, lineage: lineage, snapshotRes: res, effectiveRes: res, outputs: outs, journalInfo: journalStat(f.path + JournalSuffix)}
	f.read, f.wrote = f.seen, nil
	return nil
}

// current returns what is on disk now, from the cache when neither the
// snapshot nor the journal changed since they were last seen. The caller
// holds f.mu.
func (f *File) current() (*seenSnapshot, error) {
	if f.seen != nil && unchanged(f.path, f.seen.info) && sameJournal(journalStat(f.path+JournalSuffix), f.seen.journalInfo) {
		return f.seen, nil
	}
	if _, err := f.load(); err != nil {
		return nil, err
	}
	return f.seen, nil
}

// journalStat describes the journal file, nil when there is none: an
// empty file (one the guard created to lock it) counts as none.
func journalStat(path string) fs.FileInfo {
	info, err := os.Stat(path)
	if err != nil || info.Size() == 0 {
		return nil
	}
	return info
}

// sameJournal reports whether two journalStat results describe the same
// journal, unchanged.
func sameJournal(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return sameFile(a, b)
}

// unchanged reports whether the file at path is the one described by
// seen (nil: it did not exist).
func unchanged(path string, seen fs.FileInfo) bool {
	info, err := os.Stat(path)
	if err != nil {
		return seen == nil && errors.Is(err, fs.ErrNotExist)
	}
	return seen != nil && sameFile(info, seen)
}

func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// MaxFileBytes bounds the snapshot and the journal read from disk (and
// what state push accepts): a state is data, not a stream.
const MaxFileBytes = 1 << 30

// readSnapshot reads and decodes the snapshot; a missing file is an empty
// state with a nil FileInfo. Its callers (and those of the journal and
// lock info reads) hold no context here; none is needed: the open cannot
// block (a named pipe or a device is refused by fstat before a byte is
// read) and the size is bounded, so the read is short.
func (f *File) readSnapshot() (*State, []byte, fs.FileInfo, error) {
	fh, info, err := userfile.Open(context.Background(), f.path, userfile.Options{MaxBytes: MaxFileBytes})
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: FormatVersion, Resources: []Resource{}}, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state: %w", err)
	}
	defer fh.Close()
	data, err := userfile.ReadAll(context.Background(), fh, f.path, info.Size(), MaxFileBytes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state %s: %w", f.path, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state %s: %w", f.path, err)
	}
	return s, data, info, nil
}

// canonicalResources returns the resources part of a snapshot file when
// the file is in canonical form, or nil; outs is the snapshot's outputs
// member (encodeTail).
func canonicalResources(s *State, data, outs []byte) chunks {
	head, tail := header(s.Version, s.Serial, s.Lineage, 0), trailer(outs)
	if !bytes.HasPrefix(data, head) || !bytes.HasSuffix(data, tail) || len(data) < len(head)+len(tail) {
		return nil
	}
	return chunks{data[len(head) : len(data)-len(tail)]}
}

// newLineage returns a random RFC 4122 version 4 UUID.
func newLineage() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("making a state lineage: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// randomHex returns n random bytes in hex, for temporary names and IDs.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return fmt.Sprintf("%x", b)
}

// lockIdle takes f.mu for an operation that needs the apply journal
// closed (writing, compacting, opening the journal) and returns the
// unlock; op names the operation in the error.
func (f *File) lockIdle(ctx context.Context, op string) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.journal != nil {
		f.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", op, ErrJournalOpen)
	}
	return f.mu.Unlock, nil
}
