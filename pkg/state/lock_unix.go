//go:build unix

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// fileLock is a held flock(2) on the lock file. The kernel drops it when
// the holder exits, however it exits.
type fileLock struct {
	fh   *os.File
	path string
}

// tryLock takes the lock without waiting; errWouldBlock means someone
// holds it.
func tryLock(path string) (*fileLock, error) {
	// A holder unlinks the lock file when it unlocks (and force-unlock
	// does too), so the file opened here may be gone by the time flock
	// succeeds: such a lock excludes nobody, and the loop starts over on
	// the file that path names now.
	for range 16 {
		fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			fh.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
				return nil, errWouldBlock
			}
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		held, err1 := fh.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return &fileLock{fh: fh, path: path}, nil
		}
		fh.Close()
		if err1 != nil {
			return nil, err1
		}
		if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
			return nil, err2
		}
	}
	return nil, errWouldBlock
}

// release removes the holder's info and the lock file, then drops the
// lock. Both removals check that the files are still this holder's, since
// a force-unlock may have handed the lock to someone else meanwhile.
func (l *fileLock) release(infoPath, id string) error {
	err := removeOwnInfo(infoPath, id)
	if named, serr := os.Stat(l.path); serr == nil {
		if held, herr := l.fh.Stat(); herr == nil && os.SameFile(held, named) {
			if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}
	return errors.Join(err, l.fh.Close())
}
