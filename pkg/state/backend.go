package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Backend stores recorded state. Every implementation keeps lineage fixed
// once created, bumps serial only when content changes, and never leaves a
// half-written state behind. Commands that write hold the lock from before
// Read until after Write.
type Backend interface {
	// Read returns the current state. A backend that has never been
	// written returns an empty state: serial 0, no lineage, no resources.
	Read(ctx context.Context) (*State, error)
	// Write stores s when its resources or outputs differ from the current ones, with
	// serial one higher; otherwise it stores nothing. s must come from this
	// backend's Read: its lineage must match (or both be empty) and its
	// serial must be the current one, else ErrLineageMismatch or
	// ErrSerialConflict. On success s carries the stored serial and
	// lineage.
	Write(ctx context.Context, s *State) error
	// Overwrite stores s exactly as given (serial and lineage included),
	// after validating it. Push uses it; the checks belong to the caller.
	Overwrite(ctx context.Context, s *State) error
	// Lock takes the exclusive write lock, waiting as the backend's lock
	// timeout and ctx allow; a held lock gives a *LockedError.
	Lock(ctx context.Context, info LockInfo) (*HeldLock, error)
	// ForceUnlock releases a lock held by someone else, if id names it.
	// Unless force is set it refuses (a *HolderRunningError, ErrLockInUse)
	// while the holder may still be running: when it is known to run, or
	// when its liveness cannot be checked.
	ForceUnlock(ctx context.Context, id string, force bool) error
}

// Errors of state operations; compare with errors.Is.
var (
	// ErrLineageMismatch: the state being written belongs to another
	// lineage than the stored one.
	ErrLineageMismatch = errors.New("state lineage mismatch")
	// ErrSerialConflict: the stored state changed since the caller read it
	// (see ConflictError).
	ErrSerialConflict = errors.New("state changed since it was read")
	// ErrLockLost: the writer's lock was taken away (force-unlock) while it
	// ran; see LockLostError.
	ErrLockLost = errors.New("the state lock was lost")
	// ErrLockInUse: force-unlock without force found a holder that may
	// still be running; see HolderRunningError.
	ErrLockInUse = errors.New("the lock holder may still be running")
	// ErrJournalBusy: another live process is writing the apply journal
	// (it lost the state lock to a force-unlock, or never took it).
	ErrJournalBusy = errors.New("the apply journal is in use by another process")
	// ErrStaleSerial: a pushed state is not newer than the stored one.
	ErrStaleSerial = errors.New("pushed state is not newer than the stored state")
	// ErrNotFound: no resource at the address.
	ErrNotFound = errors.New("no such resource in state")
	// ErrAddressTaken: a move to an address the state already records.
	ErrAddressTaken = errors.New("the state already records a resource at the destination")
	// ErrLocked: the state is locked by someone else (see LockedError).
	ErrLocked = errors.New("state is locked")
	// ErrLockMismatch: force-unlock was given another ID than the holder's.
	ErrLockMismatch = errors.New("lock ID does not match the lock holder")
	// ErrNotLocked: force-unlock found no lock.
	ErrNotLocked = errors.New("state is not locked")
)

// LockInfo describes a lock holder. It is written beside the lock so that
// anyone blocked by it can see who holds it, as JSON with the field names
// Terraform users know (the file backend's path+".lock.info", the
// PostgreSQL backend's lock row).
type LockInfo struct {
	// ID identifies the lock for force-unlock; Lock fills it when empty.
	ID string `json:"ID"`
	// Operation is the command holding the lock ("apply", "state rm").
	Operation string `json:"Operation"`
	// Who is "user@host"; Lock fills it when empty.
	Who string `json:"Who"`
	// Version is the xosplan version of the holder.
	Version string `json:"Version"`
	// Created is when the lock was taken (UTC); Lock fills it.
	Created time.Time `json:"Created"`
	// Path is the state the lock protects; Lock fills it.
	Path string `json:"Path"`
	// PID and Host are the holder's process ID and host name; Lock fills
	// them. force-unlock checks on this host whether that holder runs.
	PID  int    `json:"PID,omitempty"`
	Host string `json:"Host,omitempty"`
}

// WithDefaults returns info with the fields a backend fills when the caller
// left them empty: a random ID, "user@host" as Who, this process and host
// as PID and Host, now (UTC) as Created, and path as Path.
func (info LockInfo) WithDefaults(path string, now time.Time) LockInfo {
	if info.ID == "" {
		info.ID = newLockID()
	}
	if info.Who == "" {
		info.Who = whoAmI()
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Host == "" {
		info.Host = hostName()
	}
	info.Created = now.UTC()
	info.Path = path
	return info
}

// NewLineage returns a fresh lineage: a random RFC 4122 version 4 UUID.
func NewLineage() (string, error) { return newLineage() }

// LockedError says who holds the lock that blocked a writer.
type LockedError struct {
	// Info is what the holder wrote; fields may be empty when the holder
	// had not written its info yet.
	Info LockInfo
}

// Error names the holder: "state is locked by <who> (operation <op>, since
// <time>, ID <id>)".
func (e *LockedError) Error() string {
	who, op, id := e.Info.Who, e.Info.Operation, e.Info.ID
	if who == "" {
		who = "an unknown holder"
	}
	if op == "" {
		op = "unknown"
	}
	if id == "" {
		id = "unknown"
	}
	since := "an unknown time"
	if !e.Info.Created.IsZero() {
		since = e.Info.Created.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("state is locked by %s (operation %s, since %s, ID %s)", who, op, since, id)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// HeldLock is a lock the caller holds. Unlock releases it; calling Unlock
// more than once, from any goroutine, is harmless.
type HeldLock struct {
	// Info is what was recorded for the holder.
	Info    LockInfo
	release func() error
	once    sync.Once
	err     error
}

// NewHeldLock wraps a release function for backends outside this package.
func NewHeldLock(info LockInfo, release func() error) *HeldLock {
	return &HeldLock{Info: info, release: release}
}

// Unlock releases the lock; later calls return the first call's result.
func (h *HeldLock) Unlock() error {
	if h == nil {
		return nil
	}
	h.once.Do(func() { h.err = h.release() })
	return h.err
}

// WithLock runs fn while holding b's lock and releases it afterwards,
// joining a release error to fn's.
func WithLock(ctx context.Context, b Backend, info LockInfo, fn func() error) error {
	held, err := b.Lock(ctx, info)
	if err != nil {
		return err
	}
	err = fn()
	return errors.Join(err, held.Unlock())
}

// ConflictError is a failed compare-and-swap: the state on disk is not the
// one the writer read, so its write was refused and nothing was written.
type ConflictError struct {
	// Path names the state.
	Path string
	// ExpectedLineage and ExpectedSerial are what the writer read;
	// FoundLineage and FoundSerial are on disk now.
	ExpectedLineage, FoundLineage string
	ExpectedSerial, FoundSerial   uint64
	// Journal: the snapshot is the one read, but the apply journal beside
	// it changed since (another process recorded operations).
	Journal bool
}

// Error says what changed: "the state was changed by another process
// (serial 7, expected 5)".
func (e *ConflictError) Error() string {
	var what string
	switch {
	case e.FoundLineage != e.ExpectedLineage:
		what = fmt.Sprintf("lineage %q, expected %q", e.FoundLineage, e.ExpectedLineage)
	case e.Journal:
		what = fmt.Sprintf("serial %d, but its apply journal changed since it was read", e.FoundSerial)
	default:
		what = fmt.Sprintf("serial %d, expected %d", e.FoundSerial, e.ExpectedSerial)
	}
	return fmt.Sprintf("%s: the state %s was changed by another process (%s)", ErrSerialConflict, e.Path, what)
}

// Unwrap makes errors.Is(err, ErrSerialConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrSerialConflict }

// LockLostError: the lock this process took on the state was removed
// (force-unlock) while it ran, so it refused to write.
type LockLostError struct {
	// Path names the state.
	Path string
	// Now is the current holder, when there is one.
	Now *LockInfo
}

// Error names the state and who holds its lock now.
func (e *LockLostError) Error() string {
	msg := fmt.Sprintf("%s: the lock this process held on %s was released by force-unlock", ErrLockLost, e.Path)
	if e.Now != nil {
		msg += fmt.Sprintf(" and is now held by %s (operation %s, ID %s)", e.Now.Who, e.Now.Operation, e.Now.ID)
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrLockLost) hold.
func (e *LockLostError) Unwrap() error { return ErrLockLost }

// Store is a Backend that keeps an apply journal: what apply, destroy and
// the state commands work on. *File and the PostgreSQL backend implement
// it.
type Store interface {
	Backend
	// LoadWithJournal returns the snapshot with the journal's completed
	// operations replayed over it, and the interrupted ones.
	LoadWithJournal(ctx context.Context) (*Loaded, error)
	// OpenJournal opens (or continues) the apply journal.
	OpenJournal(ctx context.Context) (*Journal, error)
	// Compact folds the journal into the snapshot.
	Compact(ctx context.Context) (*Loaded, error)
	// Location names the state in messages: a file's path, or a
	// database and workspace, never with a password.
	Location() string
	// JournalLocation names where the apply journal is kept.
	JournalLocation() string
	// Identity names the state for a plan file to be bound to.
	Identity() Identity
	// Close releases what the store holds open (connections); a lock
	// still held is released with them.
	Close() error
}

var _ Store = (*File)(nil)

// Location is the state file's path.
func (f *File) Location() string { return f.path }

// JournalLocation is the journal file's path.
func (f *File) JournalLocation() string { return f.path + JournalSuffix }

// Close does nothing: a File holds nothing open between calls.
func (f *File) Close() error { return nil }

// ReplayJournal applies journal records (in seq order) over s, as
// LoadWithJournal does for a file's journal: outcomes replace or remove
// their resource, intents without a later outcome are Interrupted. A
// backend keeping its journal elsewhere (database rows) loads with it.
func ReplayJournal(s *State, records []Record) *Loaded {
	l := &Loaded{State: s}
	replay(l, records)
	return l
}
