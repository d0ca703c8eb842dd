package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/xosplan/xosplan/internal/userfile"
)

// commitGuard is held while a process changes the snapshot or the
// journal: an exclusive flock(2) on the journal file, created empty when
// there is none. A process writing its journal holds that flock from
// OpenJournal to Close.
//
// The state lock alone cannot keep writers apart once a force-unlock has
// handed it to a second process while the first still runs. The guard
// can: it is only ever held by a live process, so that while the first
// one writes its journal, nobody else can fold, replace, append to or
// remove that journal, nor write a snapshot beside it (ErrJournalBusy).
type commitGuard struct {
	fh   *os.File
	path string
}

// guard takes the commit guard, then, when this File took the state lock,
// checks that it still holds it (ErrLockLost). In that order, a process
// that takes the lock after a force-unlock either finds the guard held or
// makes this check fail, however their steps interleave. The caller holds
// f.mu.
func (f *File) guard() (*commitGuard, error) {
	path := f.path + JournalSuffix
	fh, err := flockPath(path, true)
	if errors.Is(err, errWouldBlock) {
		return nil, busyError(path)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the journal %s: %w", path, err)
	}
	g := &commitGuard{fh: fh, path: path}
	if err := f.lockLost(); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

// remove deletes the journal while the guard still keeps others out.
func (g *commitGuard) remove() {
	_ = os.Remove(g.path) // a journal left behind is stale: its base is an older snapshot
}

// release drops the guard. The empty file guard created to lock is
// removed first, unless it became a journal (or was replaced by one).
func (g *commitGuard) release() {
	if held, err := g.fh.Stat(); err == nil && held.Size() == 0 {
		if named, err := os.Stat(g.path); err == nil && os.SameFile(held, named) {
			_ = os.Remove(g.path) // an empty journal counts as none
		}
	}
	_ = g.fh.Close()
}

// journalBusy returns a busyError when a live process holds the flock of
// the journal at path, nil when none does (or there is no journal).
func journalBusy(path string) error {
	// Not os.Open: a named pipe there would block the open for ever; it is
	// refused (as no journal here) and reported by the read that follows.
	fh, _, err := userfile.Open(context.Background(), path, userfile.Options{MaxBytes: MaxFileBytes})
	if err != nil {
		return nil
	}
	defer fh.Close()
	if errors.Is(flockNB(fh.Fd()), errWouldBlock) {
		return busyError(path)
	}
	return nil
}

// busyError names the process that writes the journal at path, from the
// journal's header.
func busyError(path string) error {
	holder := "another process"
	if fh, _, err := userfile.Open(context.Background(), path, userfile.Options{MaxBytes: MaxFileBytes}); err == nil {
		head := make([]byte, 4096)
		n, _ := io.ReadFull(fh, head)
		fh.Close()
		if nl := bytes.IndexByte(head[:n], '\n'); nl > crcLen {
			var b journalBase
			if json.Unmarshal(head[crcLen+1:nl], &b) == nil && b.PID > 0 {
				holder = "process " + strconv.Itoa(b.PID)
				if b.Host != "" {
					holder += " on " + b.Host
				}
				if b.Holder != "" {
					holder += " (lock ID " + b.Holder + ")"
				}
			}
		}
	}
	return fmt.Errorf("%w: %s is being written by %s, which still runs: it lost the state lock to a force-unlock, "+
		"or never took it; wait for it to end (or stop it), then run this command again", ErrJournalBusy, path, holder)
}
