package state

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
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
}

// File is the local file backend (the default). The snapshot lives at its
// path, the previous snapshot at path+".backup", the lock at path+".lock"
// with path+".lock.info", and the apply journal at path+".journal".
// A File is safe for concurrent use; separate processes coordinate through
// the lock.
type File struct {
	path string
	opts FileOptions

	mu sync.Mutex
	// seen is what the last load or write found on disk; it lets Write
	// tell a content change from a rewrite without decoding the file again.
	seen *seenSnapshot
	// journal is the journal opened through this File, if any.
	journal *Journal
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
	// journalInfo describes the journal file last seen (nil: none).
	journalInfo fs.FileInfo
}

// OpenFile returns the file backend for the state at path. The file need
// not exist: a missing state reads as empty and is created by the first
// write that has content. OpenFile reads nothing yet.
func OpenFile(path string, opts FileOptions) (*File, error) {
	if path == "" {
		return nil, errors.New("state path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("state path %s: %w", path, err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &File{path: abs, opts: opts}, nil
}

// Path returns the absolute path of the state file.
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
func (f *File) Write(ctx context.Context, s *State) error {
	unlock, err := f.lockIdle(ctx, "writing state "+f.path)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := f.current()
	if err != nil {
		return err
	}
	if cur.lineage != "" && s.Lineage != cur.lineage {
		return fmt.Errorf("writing state %s: %w: stored %q, writing %q", f.path, ErrLineageMismatch, cur.lineage, s.Lineage)
	}
	if s.Serial != cur.serial {
		return fmt.Errorf("writing state %s: %w: it was read at serial %d, it is now at serial %d", f.path, ErrSerialConflict, s.Serial, cur.serial)
	}
	res, err := encodeResources(s.Resources)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	if res.equal(cur.effectiveRes) {
		s.Version = FormatVersion
		return nil
	}
	lineage := cmp.Or(cur.lineage, s.Lineage)
	if lineage == "" {
		if lineage, err = newLineage(); err != nil {
			return err
		}
	}
	if err := f.commit(cur.serial+1, lineage, res); err != nil {
		return err
	}
	s.Version, s.Serial, s.Lineage = FormatVersion, cur.serial+1, lineage
	return nil
}

// Overwrite stores s as it is, serial and lineage included, after checking
// that it encodes to a valid state. It retires the apply journal.
func (f *File) Overwrite(ctx context.Context, s *State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := encodeResources(s.Resources)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	if _, err := Decode(assemble(FormatVersion, s.Serial, s.Lineage, res.join())); err != nil {
		return fmt.Errorf("refusing to write an invalid state: %w", err)
	}
	unlock, err := f.lockIdle(ctx, "writing state "+f.path)
	if err != nil {
		return err
	}
	defer unlock()
	if err := f.commit(s.Serial, s.Lineage, res); err != nil {
		return err
	}
	s.Version = FormatVersion
	return nil
}

// commit writes a snapshot, retires the journal and remembers what is on
// disk. The caller holds f.mu.
func (f *File) commit(serial uint64, lineage string, res chunks) error {
	header := assemble(FormatVersion, serial, lineage, nil)
	// assemble put the trailer after the empty resources; split it off so
	// that the resources are written in place without copying them.
	trailer := header[len(header)-3:]
	header = header[:len(header)-3]
	parts := make([][]byte, 0, len(res)+2)
	parts = append(parts, header)
	parts = append(parts, res...)
	parts = append(parts, trailer)
	info, err := writeAtomic(f.path, parts...)
	if err != nil {
		return fmt.Errorf("writing state %s: %w", f.path, err)
	}
	// The new serial already makes the journal stale; removing it only
	// tidies up, so its failure is not the write's.
	_ = os.Remove(f.path + JournalSuffix)
	jinfo, _ := os.Stat(f.path + JournalSuffix) // nil once removed
	f.seen = &seenSnapshot{info: info, serial: serial, lineage: lineage, snapshotRes: res, effectiveRes: res, journalInfo: jinfo}
	return nil
}

// current returns what is on disk now, from the cache when neither the
// snapshot nor the journal changed since they were last seen. The caller
// holds f.mu.
func (f *File) current() (*seenSnapshot, error) {
	if f.seen != nil && unchanged(f.path, f.seen.info) && unchanged(f.path+JournalSuffix, f.seen.journalInfo) {
		return f.seen, nil
	}
	if _, err := f.load(); err != nil {
		return nil, err
	}
	return f.seen, nil
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

// readSnapshot reads and decodes the snapshot; a missing file is an empty
// state with a nil FileInfo.
func (f *File) readSnapshot() (*State, []byte, fs.FileInfo, error) {
	fh, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: FormatVersion, Resources: []Resource{}}, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state: %w", err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state: %w", err)
	}
	data := make([]byte, 0, info.Size()+1)
	data, err = readAll(fh, data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state %s: %w", f.path, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading state %s: %w", f.path, err)
	}
	return s, data, info, nil
}

func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// canonicalResources returns the resources part of a snapshot file when
// the file is in canonical form, or nil.
func canonicalResources(s *State, data []byte) chunks {
	header := assemble(s.Version, s.Serial, s.Lineage, nil)
	head, tail := header[:len(header)-3], header[len(header)-3:]
	if !bytes.HasPrefix(data, head) || !bytes.HasSuffix(data, tail) || len(data) < len(head)+len(tail) {
		return nil
	}
	return chunks{data[len(head) : len(data)-len(tail)]}
}

// writeAtomic replaces path with the concatenation of parts so that a
// crash at any moment leaves either the old or the new file: write a temp
// file in the same folder, fsync it, hard-link the old file to the backup,
// rename the temp file over path, fsync the folder.
func writeAtomic(path string, parts ...[]byte) (fs.FileInfo, error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return nil, err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	for _, p := range parts {
		if _, err := tmp.Write(p); err != nil {
			return nil, err
		}
	}
	if err := tmp.Sync(); err != nil {
		return nil, err
	}
	info, err := tmp.Stat()
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := backup(path); err != nil {
		return nil, fmt.Errorf("keeping a backup of the previous state: %w", err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return nil, err
	}
	ok = true
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	return info, nil
}

// backup makes path+".backup" the current content of path, if any. A hard
// link shares the already durable data instead of copying it; where links
// are not possible the bytes are copied.
func backup(path string) error {
	dst := path + BackupSuffix
	tmp := fmt.Sprintf("%s.tmp-%s", dst, randomHex(6))
	err := os.Link(path, tmp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		data, rerr := os.ReadFile(path)
		if errors.Is(rerr, fs.ErrNotExist) {
			return nil
		}
		if rerr != nil {
			return rerr
		}
		_, err = writeAtomicPlain(dst, data)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeAtomicPlain is writeAtomic without the backup step.
func writeAtomicPlain(path string, data []byte) (fs.FileInfo, error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return nil, err
	}
	if _, err := tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	info, serr := tmp.Stat()
	err = errors.Join(err, serr, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return info, syncDir(dir)
}

// syncDir makes a rename or creation in dir durable.
func syncDir(dir string) error {
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
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
