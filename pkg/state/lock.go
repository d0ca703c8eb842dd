package state

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
)

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
	var fl *fileLock
	got, err := PollLock(ctx, f.opts.LockTimeout, func(context.Context) (bool, error) {
		l, err := tryLock(lockPath)
		if errors.Is(err, errWouldBlock) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("locking state %s: %w", f.path, err)
		}
		fl = l
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !got {
		return nil, f.lockedError()
	}
	info.Created = f.now()
	if err := f.writeLockInfo(info); err != nil {
		return nil, errors.Join(fmt.Errorf("writing lock info: %w", err), fl.release(f.path+LockInfoSuffix, info.ID))
	}
	fl.id = info.ID
	f.mu.Lock()
	f.held = fl
	f.mu.Unlock()
	return NewHeldLock(info, func() error {
		f.mu.Lock()
		if f.held == fl {
			f.held = nil
		}
		f.mu.Unlock()
		return fl.release(f.path+LockInfoSuffix, info.ID)
	}), nil
}

// PollLock calls try until it takes a lock (true), fails, or the wait
// ends with the lock still held (false, nil): try once when timeout is
// zero and ctx has no deadline, else until timeout or ctx's end, with
// backoff from 10 ms to 250 ms between tries. try gets the context of the
// wait; a try cut short by its end counts as not taken. Every backend's
// Lock waits this way, so that --lock-timeout means the same for all.
func PollLock(ctx context.Context, timeout time.Duration, try func(ctx context.Context) (bool, error)) (bool, error) {
	_, hasDeadline := ctx.Deadline()
	once := timeout <= 0 && !hasDeadline
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	delay := 10 * time.Millisecond
	for {
		got, err := try(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return false, nil
		case err != nil || got:
			return got, err
		case once:
			return false, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, nil
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

// ForceUnlock releases the lock when id names its holder; see
// Backend.ForceUnlock. A lock that no process of this host holds any more
// (flock(2) is free) is released at once. A holder that flock(2) shows is
// still running on this host, and a holder on another host, whose
// liveness cannot be checked from here, give a *HolderRunningError
// unless force is set. A holder whose lock is forced away keeps running
// without it, but cannot corrupt anything: its next snapshot write or
// journal intent fails with ErrLockLost, and while it writes its journal
// every other writer gets ErrJournalBusy.
func (f *File) ForceUnlock(ctx context.Context, id string, force bool) error {
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
	local := info.host() == hostName()
	free, err := flockPath(f.path+LockSuffix, false)
	switch {
	case err == nil:
		defer free.Close()
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errWouldBlock):
		if !force {
			return fmt.Errorf("force-unlock %s: %w", f.path, &HolderRunningError{Info: info, Local: local, Checked: true})
		}
	default:
		return fmt.Errorf("force-unlock %s: %w", f.path, err)
	}
	if !force && (!local || !canTellLiveness) {
		return fmt.Errorf("force-unlock %s: %w", f.path, &HolderRunningError{Info: info, Local: local})
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

// HolderRunningError is why force-unlock refused without --force: the
// holder is still running on this host (Checked), or it is on another
// host or platform where its liveness cannot be checked.
type HolderRunningError struct {
	Info LockInfo
	// Local: the holder is on this host.
	Local bool
	// Checked: flock(2) showed that a process holds the lock now.
	Checked bool
}

// Error names the holder and what --force would do.
func (e *HolderRunningError) Error() string {
	op := cmp.Or(e.Info.Operation, "unknown")
	holder := "an unknown process"
	if e.Info.PID > 0 {
		holder = "process " + strconv.Itoa(e.Info.PID)
	}
	where := "on this host"
	if !e.Local {
		where = "on " + cmp.Or(e.Info.host(), "an unknown host")
	}
	switch {
	case e.Checked:
		return fmt.Sprintf("%s: the lock is held by %s %s (operation %s, ID %s), which is still running; "+
			"let it finish or stop it; --force releases the lock anyway, and that process then fails at its next state write",
			ErrLockInUse, holder, where, op, e.Info.ID)
	case e.Local:
		return fmt.Sprintf("%s: the lock was taken by %s on this host (operation %s, ID %s), and this platform cannot tell whether it still runs; "+
			"if it has ended, --force releases the lock", ErrLockInUse, holder, op, e.Info.ID)
	}
	return fmt.Sprintf("%s: the lock was taken by %s %s (operation %s, ID %s); whether it still runs cannot be checked from this host; "+
		"if it has ended, --force releases the lock", ErrLockInUse, holder, where, op, e.Info.ID)
}

// Unwrap makes errors.Is(err, ErrLockInUse) hold.
func (e *HolderRunningError) Unwrap() error { return ErrLockInUse }

// host is the holder's host: Host, else what follows the @ of Who.
func (info LockInfo) host() string {
	if info.Host != "" {
		return info.Host
	}
	if i := strings.LastIndexByte(info.Who, '@'); i >= 0 {
		return info.Who[i+1:]
	}
	return ""
}

// writeLockInfo records the holder beside the lock.
func (f *File) writeLockInfo(info LockInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeAtomic(f.fsys, f.path+LockInfoSuffix, false, append(data, '\n'))
	return err
}

// lockLost returns a *LockLostError when this File took the state lock
// and no longer holds it (a force-unlock removed it), nil otherwise. The
// caller holds f.mu.
func (f *File) lockLost() error {
	if f.held == nil || f.held.stillHeld() {
		return nil
	}
	return f.lostError()
}

// lostError describes the lost lock and who, if anyone, holds the lock now.
func (f *File) lostError() error {
	e := &LockLostError{Path: f.path}
	if info, err := readLockInfo(f.path + LockInfoSuffix); err == nil {
		e.Now = &info
	}
	return e
}

// stillHeld reports whether the lock file path names is still the one
// this holder locked: force-unlock removes it, and the next holder
// creates another.
func (l *fileLock) stillHeld() bool {
	named, err := os.Stat(l.path)
	if err != nil {
		return false
	}
	held, err := l.fh.Stat()
	return err == nil && os.SameFile(named, held)
}

// maxLockInfoBytes bounds the lock info file: a few lines of JSON.
const maxLockInfoBytes = 64 << 10

func readLockInfo(path string) (LockInfo, error) {
	data, err := userfile.Read(context.Background(), path, userfile.Options{MaxBytes: maxLockInfoBytes})
	if err != nil {
		return LockInfo{}, err
	}
	var li LockInfo
	if err := json.Unmarshal(data, &li); err != nil {
		return LockInfo{}, fmt.Errorf("lock info %s is not valid JSON: %w", path, err)
	}
	return li, nil
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
	return name + "@" + cmp.Or(hostName(), "unknown")
}

// hostName is this host's name, "" when unknown.
func hostName() string {
	host, err := os.Hostname()
	if err != nil {
		return ""
	}
	return host
}

// lockFlags are the flags flockPath opens a file with.
func lockFlags(create bool) int {
	if create {
		return os.O_RDWR | os.O_CREATE
	}
	return os.O_RDWR
}

// errWouldBlock reports that another holder has the lock.
var errWouldBlock = errors.New("lock is held")
