//go:build !unix

package state

import (
	"errors"
	"io/fs"
	"os"
)

// fileLock is a lock file created exclusively. Without flock(2) a crashed
// holder's lock stays until force-unlock removes it.
type fileLock struct {
	fh   *os.File
	path string
	// id is the holder's lock ID, recorded in the journal it writes.
	id string
}

// tryLock takes the lock without waiting; errWouldBlock means someone
// holds it.
func tryLock(path string) (*fileLock, error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, errWouldBlock
	}
	if err != nil {
		return nil, err
	}
	return &fileLock{fh: fh, path: path}, nil
}

// flockPath opens path (creating it when create is set). Without flock(2)
// it excludes nobody: the state lock alone keeps writers apart here.
func flockPath(path string, create bool) (*os.File, error) {
	return os.OpenFile(path, lockFlags(create), 0o600)
}

// flockNB cannot lock without flock(2).
func flockNB(uintptr) error { return nil }

// canTellLiveness: without flock(2) nothing tells whether a holder runs.
const canTellLiveness = false

// release removes the holder's info and the lock file.
func (l *fileLock) release(infoPath, id string) error {
	mine := l.stillHeld()
	// An open file cannot be removed everywhere: close it first.
	err := errors.Join(removeOwnInfo(infoPath, id), l.fh.Close())
	if mine {
		if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
