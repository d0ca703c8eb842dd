package state

import (
	"context"
	"errors"
	"fmt"
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
	// Write stores s when its resources differ from the current ones, with
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
	ForceUnlock(ctx context.Context, id string) error
}

// Errors of state operations; compare with errors.Is.
var (
	// ErrLineageMismatch: the state being written belongs to another
	// lineage than the stored one.
	ErrLineageMismatch = errors.New("state lineage mismatch")
	// ErrSerialConflict: the stored state changed since the caller read it.
	ErrSerialConflict = errors.New("state changed since it was read")
	// ErrStaleSerial: a pushed state is not newer than the stored one.
	ErrStaleSerial = errors.New("pushed state is not newer than the stored state")
	// ErrNotFound: no resource at the address.
	ErrNotFound = errors.New("no such resource in state")
	// ErrLocked: the state is locked by someone else (see LockedError).
	ErrLocked = errors.New("state is locked")
	// ErrLockMismatch: force-unlock was given another ID than the holder's.
	ErrLockMismatch = errors.New("lock ID does not match the lock holder")
	// ErrNotLocked: force-unlock found no lock.
	ErrNotLocked = errors.New("state is not locked")
)

// LockInfo describes a lock holder. It is written beside the lock so that
// anyone blocked by it can see who holds it.
type LockInfo struct {
	// ID identifies the lock for force-unlock; Lock fills it when empty.
	ID string
	// Operation is the command holding the lock ("apply", "state rm").
	Operation string
	// Who is "user@host"; Lock fills it when empty.
	Who string
	// Version is the xosplan version of the holder.
	Version string
	// Created is when the lock was taken (UTC); Lock fills it.
	Created time.Time
	// Path is the state the lock protects; Lock fills it.
	Path string
}

// WithDefaults returns info with the fields a backend fills when the caller
// left them empty: a random ID, "user@host" as Who, now (UTC) as Created,
// and path as Path.
func (info LockInfo) WithDefaults(path string, now time.Time) LockInfo {
	if info.ID == "" {
		info.ID = newLockID()
	}
	if info.Who == "" {
		info.Who = whoAmI()
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
