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

// release removes the holder's info and the lock file.
func (l *fileLock) release(infoPath, id string) error {
	err := errors.Join(removeOwnInfo(infoPath, id), l.fh.Close())
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}
