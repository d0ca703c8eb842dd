package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// fileSystem is what the file backend's writes do to the disk: the os
// package, or in tests a wrapper that makes a write, an fsync or a rename
// fail. Reads and removals go straight to the os package.
type fileSystem interface {
	// CreateTemp creates a new file in dir, as os.CreateTemp does.
	CreateTemp(dir, pattern string) (diskFile, error)
	Rename(oldpath, newpath string) error
	// SyncDir makes the renames and creations in dir durable.
	SyncDir(dir string) error
}

// diskFile is a file being written: an *os.File, or a test's wrapper.
type diskFile interface {
	io.Writer
	Name() string
	Sync() error
	Stat() (fs.FileInfo, error)
	Close() error
	// Fd is for flock(2).
	Fd() uintptr
}

// osFS is the real file system.
type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (diskFile, error) {
	fh, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return fh, nil
}

func (osFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// writeAtomic replaces path with the concatenation of parts so that a
// crash at any moment leaves either the old or the new file: a temp file
// in the same folder is written, fsynced and closed, (with backup) the
// old file becomes path+".backup", the temp file is renamed over path and
// the folder fsynced. Every failure is returned, and the temp file is
// removed unless the rename happened; a failure after the rename (the
// folder's fsync) means the new file is in place but maybe not durable.
// It is the one way the file backend writes the snapshot, its backup, the
// journal header and the lock info.
func writeAtomic(fsys fileSystem, path string, backup bool, parts ...[]byte) (fs.FileInfo, error) {
	tmp, info, err := stage(fsys, path, parts)
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if backup {
		if err := keepBackup(fsys, path); err != nil {
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("keeping a backup of the previous state: %w", err)
		}
	}
	if err := publish(fsys, tmp.Name(), path); err != nil {
		return nil, err
	}
	return info, nil
}

// stage writes parts to a new temp file beside path and fsyncs it; the
// file is returned open. On failure nothing is left behind.
func stage(fsys fileSystem, path string, parts [][]byte) (diskFile, fs.FileInfo, error) {
	dir, base := filepath.Split(path)
	tmp, err := fsys.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return nil, nil, err
	}
	err = writeParts(tmp, parts)
	if err == nil {
		err = tmp.Sync()
	}
	var info fs.FileInfo
	if err == nil {
		info, err = tmp.Stat()
	}
	if err != nil {
		err = errors.Join(err, tmp.Close())
		os.Remove(tmp.Name())
		return nil, nil, err
	}
	return tmp, info, nil
}

func writeParts(w io.Writer, parts [][]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// publish renames a staged (closed or still open) temp file over path and
// makes the rename durable; when the rename fails the temp file is
// removed.
func publish(fsys fileSystem, tmp, path string) error {
	if err := fsys.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return fsys.SyncDir(filepath.Dir(path))
}

// keepBackup makes path+".backup" the current content of path, if any. A
// hard link shares the already durable data instead of copying it; where
// links are not possible the bytes are copied.
func keepBackup(fsys fileSystem, path string) error {
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
		_, err = writeAtomic(fsys, dst, false, data)
		return err
	}
	if err := fsys.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
