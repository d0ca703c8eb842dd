package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFullDiskFailsWritesAndKeepsFilesWhole runs the state on a real
// tmpfs of 256 KiB, fills it, and checks that taking the lock, writing the
// snapshot and opening the journal all fail with ENOSPC and leave no
// truncated lock info, journal header or snapshot; once space is free
// again everything works and nothing was lost.
func TestFullDiskFailsWritesAndKeepsFilesWhole(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; the injected faults of TestAtomicWritesReportEveryFailure still run")
	}
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	ctx := context.Background()
	path := filepath.Join(dir, DefaultPath)
	f, _ := OpenFile(path, FileOptions{})
	s := mustRead(t, f)
	for i := range 20 {
		s.Resources = append(s.Resources, genResource(i))
	}
	mustWrite(t, f, s)
	snapshot, _ := os.ReadFile(path)

	filler := filepath.Join(dir, "filler")
	fill(t, filler)

	if held, err := f.Lock(ctx, LockInfo{Operation: "apply"}); !errors.Is(err, syscall.ENOSPC) {
		if err == nil {
			_ = held.Unlock()
		}
		info, _ := os.ReadFile(path + LockInfoSuffix)
		t.Fatalf("Lock on a full disk: %v (lock info %q), want ENOSPC", err, info)
	}
	for _, suffix := range []string{LockSuffix, LockInfoSuffix} {
		if _, err := os.Stat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left by a failed Lock: %v", suffix, err)
		}
	}
	s.Resources = append(s.Resources, genResource(99))
	if err := f.Write(ctx, s); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write on a full disk: %v, want ENOSPC", err)
	}
	if j, err := f.OpenJournal(ctx); !errors.Is(err, syscall.ENOSPC) {
		if err == nil {
			_ = j.Close()
		}
		header, _ := os.ReadFile(path + JournalSuffix)
		t.Fatalf("OpenJournal on a full disk: %v (journal %q), want ENOSPC", err, header)
	}
	if _, err := os.Stat(path + JournalSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left by a failed OpenJournal: %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(snapshot) {
		t.Errorf("the snapshot changed on a full disk")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	held, err := f.Lock(ctx, LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatalf("Lock once space is free: %v", err)
	}
	defer held.Unlock()
	if _, err := f.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(ctx)
	if err != nil {
		t.Fatalf("OpenJournal once space is free: %v", err)
	}
	r := genResource(99)
	appendAll(t, j, intent(r.Address, "create"), outcome(r))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := f.Compact(ctx)
	if err != nil || len(l.State.Resources) != 21 {
		t.Fatalf("after freeing space: %v, %d resources", err, len(l.State.Resources))
	}
}

// fill writes path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	block := make([]byte, 4096)
	for range 1 << 16 {
		if _, err := fh.Write(block); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
	t.Fatal(fmt.Errorf("%s never filled the disk", path))
}
