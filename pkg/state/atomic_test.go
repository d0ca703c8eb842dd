package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// faultFS is the real file system except for one operation, which fails
// with err: "write" (after writing half), "sync", "rename" or "syncdir".
type faultFS struct {
	op  string
	err error
}

func (f faultFS) CreateTemp(dir, pattern string) (diskFile, error) {
	fh, err := osFS{}.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return faultFile{fh.(*os.File), f}, nil
}

func (f faultFS) Rename(oldpath, newpath string) error {
	if f.op == "rename" {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: f.err}
	}
	return os.Rename(oldpath, newpath)
}

func (f faultFS) SyncDir(dir string) error {
	if f.op == "syncdir" {
		return &os.PathError{Op: "sync", Path: dir, Err: f.err}
	}
	return osFS{}.SyncDir(dir)
}

type faultFile struct {
	*os.File
	fs faultFS
}

func (f faultFile) Write(p []byte) (int, error) {
	if f.fs.op == "write" {
		n, _ := f.File.Write(p[:len(p)/2])
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: f.fs.err}
	}
	return f.File.Write(p)
}

func (f faultFile) Sync() error {
	if f.fs.op == "sync" {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: f.fs.err}
	}
	return f.File.Sync()
}

// tempFiles lists the temporary files left in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestAtomicWritesReportEveryFailure makes each step of the one atomic
// write fail, for each file written through it: the failure is returned
// (wrapping the system's error), the file keeps its previous content, and
// no temporary file is left. A failed fsync of the folder comes after the
// rename: the new file is in place, but the write still reports that it
// may not be durable.
func TestAtomicWritesReportEveryFailure(t *testing.T) {
	ctx := context.Background()
	writes := []struct {
		name string
		// file is the file the operation writes, relative to the state.
		file string
		run  func(f *File) error
	}{
		{"snapshot", "", func(f *File) error {
			s, err := f.Read(ctx)
			if err != nil {
				return err
			}
			s.Resources = append(s.Resources, genResource(7))
			return f.Write(ctx, s)
		}},
		{"lock info", LockInfoSuffix, func(f *File) error {
			held, err := f.Lock(ctx, LockInfo{Operation: "apply"})
			if err == nil {
				_ = held.Unlock()
			}
			return err
		}},
		{"journal header", JournalSuffix, func(f *File) error {
			j, err := f.OpenJournal(ctx)
			if err == nil {
				_ = j.Close()
			}
			return err
		}},
	}
	faults := []struct {
		op       string
		err      error
		replaced bool // the new file is in place when the fault strikes
	}{
		{"write", syscall.ENOSPC, false},
		{"sync", syscall.EIO, false},
		{"rename", syscall.EXDEV, false},
		{"syncdir", syscall.EIO, true},
	}
	for _, w := range writes {
		for _, fault := range faults {
			t.Run(w.name+"/"+fault.op, func(t *testing.T) {
				good, path := openTemp(t)
				s := mustRead(t, good)
				s.Resources = []Resource{genResource(1)}
				mustWrite(t, good, s)
				target := path + w.file
				before, _ := os.ReadFile(target)

				f, _ := OpenFile(path, FileOptions{fsys: faultFS{op: fault.op, err: fault.err}})
				err := w.run(f)
				if !errors.Is(err, fault.err) {
					t.Fatalf("error %v, want one wrapping %v", err, fault.err)
				}
				after, _ := os.ReadFile(target)
				if !fault.replaced && string(after) != string(before) {
					t.Errorf("%s changed although its write failed:\n%q\nwas\n%q", target, after, before)
				}
				if left := tempFiles(t, filepath.Dir(path)); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
				if got := addresses(mustRead(t, good)); len(got) != 1 && !fault.replaced {
					t.Errorf("the state reads as %v after a failed write", got)
				}
			})
		}
	}
}
