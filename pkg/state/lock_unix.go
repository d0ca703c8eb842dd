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
	// id is the holder's lock ID, recorded in the journal it writes.
	id string
}

// tryLock takes the lock without waiting; errWouldBlock means someone
// holds it.
func tryLock(path string) (*fileLock, error) {
	fh, err := flockPath(path, true)
	if err != nil {
		return nil, err
	}
	return &fileLock{fh: fh, path: path}, nil
}

// flockPath opens path (creating it when create is set) and takes an
// exclusive flock(2) on it without waiting: errWouldBlock means another
// open file holds it, fs.ErrNotExist that there is no such file. The
// returned file is the one path names once the flock is held.
func flockPath(path string, create bool) (*os.File, error) {
	// Holders unlink the file they locked (an unlock, a force-unlock, a
	// commit removing the journal), so the file opened here may be gone
	// by the time flock succeeds: such a lock excludes nobody, and the
	// loop starts over on the file that path names now.
	for range 16 {
		fh, err := os.OpenFile(path, lockFlags(create), 0o600)
		if err != nil {
			return nil, err
		}
		if err := flockNB(fh.Fd()); err != nil {
			fh.Close()
			return nil, err
		}
		held, err1 := fh.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return fh, nil
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

// flockNB takes an exclusive flock(2) on fd without waiting.
func flockNB(fd uintptr) error {
	err := syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN):
		return errWouldBlock
	}
	return fmt.Errorf("flock: %w", err)
}

// canTellLiveness: flock(2) tells whether a process of this host holds a
// lock.
const canTellLiveness = true

// release removes the holder's info and the lock file, then drops the
// lock. Both removals check that the files are still this holder's, since
// a force-unlock may have handed the lock to someone else meanwhile.
func (l *fileLock) release(infoPath, id string) error {
	err := removeOwnInfo(infoPath, id)
	if l.stillHeld() {
		if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return errors.Join(err, l.fh.Close())
}
