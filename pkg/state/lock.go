package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"time"
)

// lockInfoFile is the JSON form of LockInfo in path+".lock.info", with the
// field names Terraform users know.
type lockInfoFile struct {
	ID        string    `json:"ID"`
	Operation string    `json:"Operation"`
	Who       string    `json:"Who"`
	Version   string    `json:"Version"`
	Created   time.Time `json:"Created"`
	Path      string    `json:"Path"`
}

// Lock takes the exclusive write lock on the state. The lock is an
// advisory lock on path+".lock" (flock(2) where available, so that the
// kernel releases the lock of a crashed holder); the holder's info goes to
// path+".lock.info". When the lock is held Lock polls with backoff for
// FileOptions.LockTimeout (or until ctx's deadline when that is zero), then
// returns a *LockedError naming the holder.
func (f *File) Lock(ctx context.Context, info LockInfo) (*HeldLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info = info.WithDefaults(f.path, f.now())
	lockPath := f.path + LockSuffix

	_, hasDeadline := ctx.Deadline()
	once := f.opts.LockTimeout <= 0 && !hasDeadline
	if f.opts.LockTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.opts.LockTimeout)
		defer cancel()
	}

	delay := 10 * time.Millisecond
	for {
		fl, err := tryLock(lockPath)
		if err == nil {
			info.Created = f.now()
			if err := writeLockInfo(f.path+LockInfoSuffix, info); err != nil {
				return nil, errors.Join(fmt.Errorf("writing lock info: %w", err), fl.release(f.path+LockInfoSuffix, info.ID))
			}
			return NewHeldLock(info, func() error { return fl.release(f.path+LockInfoSuffix, info.ID) }), nil
		}
		if !errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("locking state %s: %w", f.path, err)
		}
		if once {
			return nil, f.lockedError()
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, f.lockedError()
		case <-t.C:
		}
		delay = min(delay*2, 250*time.Millisecond)
	}
}

// lockedError reads the holder's info for the message.
func (f *File) lockedError() error {
	info, _ := readLockInfo(f.path + LockInfoSuffix)
	return &LockedError{Info: info}
}

// ForceUnlock removes the lock when id names its holder. A holder that is
// still running keeps its (now detached) lock but no longer blocks anyone:
// use it only when that holder is known to be gone or stuck.
func (f *File) ForceUnlock(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := readLockInfo(f.path + LockInfoSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("force-unlock %s: %w", f.path, ErrNotLocked)
	}
	if err != nil {
		return fmt.Errorf("force-unlock %s: reading lock info: %w", f.path, err)
	}
	if info.ID != id {
		return fmt.Errorf("force-unlock %s: %w: given %q, held as %q by %s", f.path, ErrLockMismatch, id, info.ID, info.Who)
	}
	// Unlinking the lock file lets the next writer lock a fresh one; the
	// info goes first so that nobody reads a holder that no longer counts.
	err = os.Remove(f.path + LockInfoSuffix)
	if rerr := os.Remove(f.path + LockSuffix); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", f.path, err)
	}
	return nil
}

func writeLockInfo(path string, info LockInfo) error {
	data, err := json.MarshalIndent(lockInfoFile(info), "", "  ")
	if err != nil {
		return err
	}
	_, err = writeAtomicPlain(path, append(data, '\n'))
	return err
}

func readLockInfo(path string) (LockInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return LockInfo{}, err
	}
	var li lockInfoFile
	if err := json.Unmarshal(data, &li); err != nil {
		return LockInfo{}, fmt.Errorf("lock info %s is not valid JSON: %w", path, err)
	}
	return LockInfo(li), nil
}

// removeOwnInfo removes the info file if it still names id: after a
// force-unlock another holder's info may be there.
func removeOwnInfo(path, id string) error {
	info, err := readLockInfo(path)
	if err != nil || info.ID != id {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// newLockID returns a random UUID-shaped lock ID.
func newLockID() string {
	id, err := newLineage()
	if err != nil {
		return randomHex(16)
	}
	return id
}

// whoAmI returns "user@host", with placeholders for what is unknown.
func whoAmI() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	} else if v := os.Getenv("USER"); v != "" {
		name = v
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return name + "@" + host
}

// errWouldBlock reports that another holder has the lock.
var errWouldBlock = errors.New("lock is held")
