package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var lockedRE = regexp.MustCompile(`^state is locked by (\S+) \(operation (\S+), since (\S+), ID (\S+)\)$`)

func TestLockContention(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	holder, _ := OpenFile(path, FileOptions{})
	held, err := holder.Lock(ctx, LockInfo{Operation: "apply", Who: "alice@ci", Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		opts     FileOptions
		ctx      func() (context.Context, context.CancelFunc)
		minWait  time.Duration
		maxWait  time.Duration
		wantInfo bool
	}{
		{"no timeout tries once", FileOptions{}, func() (context.Context, context.CancelFunc) { return ctx, func() {} }, 0, 5 * time.Second, true},
		{"lock timeout waits", FileOptions{LockTimeout: 150 * time.Millisecond}, func() (context.Context, context.CancelFunc) { return ctx, func() {} }, 150 * time.Millisecond, 10 * time.Second, true},
		{"context deadline waits", FileOptions{}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}, 100 * time.Millisecond, 10 * time.Second, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			other, _ := OpenFile(path, c.opts)
			cctx, cancel := c.ctx()
			defer cancel()
			start := time.Now()
			_, err := other.Lock(cctx, LockInfo{Operation: "state rm"})
			waited := time.Since(start)
			var le *LockedError
			if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
				t.Fatalf("second writer got %v, want a *LockedError", err)
			}
			m := lockedRE.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("message %q does not have the documented shape", err)
			}
			if m[1] != "alice@ci" || m[2] != "apply" || m[4] != held.Info.ID {
				t.Errorf("message %q does not name the holder", err)
			}
			if waited < c.minWait || waited > c.maxWait {
				t.Errorf("waited %v, want between %v and %v", waited, c.minWait, c.maxWait)
			}
		})
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{LockSuffix, LockInfoSuffix} {
		if _, err := os.Stat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after unlock: %v", suffix, err)
		}
	}
	again, err := holder.Lock(ctx, LockInfo{})
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	if !strings.Contains(again.Info.Who, "@") || again.Info.ID == "" || again.Info.Created.IsZero() || again.Info.Path != path {
		t.Errorf("defaults not filled: %+v", again.Info)
	}
	if err := errors.Join(again.Unlock(), again.Unlock()); err != nil {
		t.Errorf("double unlock: %v", err)
	}
}

func TestLockWaitsForRelease(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	a, _ := OpenFile(path, FileOptions{})
	b, _ := OpenFile(path, FileOptions{LockTimeout: 10 * time.Second})
	held, err := a.Lock(ctx, LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = held.Unlock()
	}()
	got, err := b.Lock(ctx, LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatalf("waiting writer: %v", err)
	}
	_ = got.Unlock()
}

// TestLockMutualExclusion has goroutines, each with its own File, take the
// lock and check that nobody else is inside.
func TestLockMutualExclusion(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	var inside, entered atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			f, _ := OpenFile(path, FileOptions{LockTimeout: 30 * time.Second})
			for range 5 {
				held, err := f.Lock(ctx, LockInfo{Operation: "test"})
				if err != nil {
					t.Error(err)
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d holders at once", n)
				}
				entered.Add(1)
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				if err := held.Unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if entered.Load() != 40 {
		t.Errorf("%d entries, want 40", entered.Load())
	}
}

func TestForceUnlock(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	a, _ := OpenFile(path, FileOptions{})
	b, _ := OpenFile(path, FileOptions{})
	if err := b.ForceUnlock(ctx, "nothing", true); !errors.Is(err, ErrNotLocked) {
		t.Errorf("force-unlock without a lock: %v", err)
	}
	held, err := a.Lock(ctx, LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(ctx, "wrong-id", true); !errors.Is(err, ErrLockMismatch) {
		t.Fatalf("force-unlock with a wrong ID: %v", err)
	}
	if _, err := b.Lock(ctx, LockInfo{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a wrong ID released the lock: %v", err)
	}
	if err := b.ForceUnlock(ctx, held.Info.ID, true); err != nil {
		t.Fatal(err)
	}
	mine, err := b.Lock(ctx, LockInfo{Operation: "repair"})
	if err != nil {
		t.Fatalf("lock after force-unlock: %v", err)
	}
	// The old holder's late unlock must not release the new holder.
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	c, _ := OpenFile(path, FileOptions{})
	_, err = c.Lock(ctx, LockInfo{})
	var le *LockedError
	if !errors.As(err, &le) || le.Info.Operation != "repair" {
		t.Fatalf("after the old holder's unlock: %v, want locked by the repair", err)
	}
	_ = mine.Unlock()
}

// TestLockAcrossProcesses: a lock held by another process blocks us and
// names it; when that process is killed the kernel releases the lock.
func TestLockAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	cmd, stdin, out := startChild(t, "lock", path)
	line := waitLine(t, out)
	id, ok := strings.CutPrefix(line, "locked ")
	if !ok {
		t.Fatalf("child said %q", line)
	}
	f, _ := OpenFile(path, FileOptions{})
	_, err := f.Lock(ctx, LockInfo{})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("lock held by a child: %v", err)
	}
	if le.Info.ID != id || le.Info.Who != "child@test" || le.Info.Operation != "child-apply" {
		t.Errorf("holder info %+v", le.Info)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	_ = stdin.Close()
	// The info file of the dead holder is still there, but the lock is free.
	waiting, _ := OpenFile(path, FileOptions{LockTimeout: 10 * time.Second})
	held, err := waiting.Lock(ctx, LockInfo{Operation: "after-crash"})
	if err != nil {
		t.Fatalf("lock of a killed holder was not released: %v", err)
	}
	_ = held.Unlock()

	// A child that unlocks cleanly leaves nothing behind.
	_, stdin2, out2 := startChild(t, "lock", path)
	waitLine(t, out2)
	_ = stdin2.Close()
	held, err = waiting.Lock(ctx, LockInfo{})
	if err != nil {
		t.Fatalf("after the child unlocked: %v", err)
	}
	_ = held.Unlock()
}

// TestForceUnlockRefusesAHolderStillRunningOnThisHost: flock(2) shows the
// holder (another process here) is alive, so force-unlock names it and
// refuses; --force releases it anyway.
func TestForceUnlockRefusesAHolderStillRunningOnThisHost(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	cmd, _, out := startChild(t, "lock", path)
	id, _ := strings.CutPrefix(waitLine(t, out), "locked ")
	f, _ := OpenFile(path, FileOptions{})
	err := f.ForceUnlock(ctx, id, false)
	var running *HolderRunningError
	if !errors.As(err, &running) || !errors.Is(err, ErrLockInUse) || !running.Checked || !running.Local {
		t.Fatalf("force-unlock of a running holder: %v, want a *HolderRunningError", err)
	}
	if want := fmt.Sprintf("held by process %d on this host (operation child-apply, ID %s), which is still running", cmd.Process.Pid, id); !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not say %q", err, want)
	}
	if _, err := f.Lock(ctx, LockInfo{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a refused force-unlock released the lock: %v", err)
	}
	if err := f.ForceUnlock(ctx, id, true); err != nil {
		t.Fatalf("force-unlock --force: %v", err)
	}
	held, err := f.Lock(ctx, LockInfo{})
	if err != nil {
		t.Fatalf("lock after force-unlock --force: %v", err)
	}
	_ = held.Unlock()
}

// TestForceUnlockOfAHolderOnAnotherHostNeedsForce: whether a process of
// another host still runs cannot be checked, free flock or not.
func TestForceUnlockOfAHolderOnAnotherHostNeedsForce(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	info := LockInfo{ID: "remote-1", Operation: "apply", Who: "ci@build-7", PID: 4242, Host: "build-7"}
	if err := os.WriteFile(path+LockInfoSuffix, mustJSON(t, info), 0o600); err != nil {
		t.Fatal(err)
	}
	err := f.ForceUnlock(ctx, "remote-1", false)
	var running *HolderRunningError
	if !errors.As(err, &running) || running.Local || running.Checked {
		t.Fatalf("force-unlock of another host's lock: %v, want a *HolderRunningError", err)
	}
	if want := "taken by process 4242 on build-7 (operation apply, ID remote-1); whether it still runs cannot be checked from this host"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not say %q", err, want)
	}
	if err := f.ForceUnlock(ctx, "remote-1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + LockInfoSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock info left after force-unlock --force: %v", err)
	}
}

// TestForceUnlockReleasesADeadHolderWithoutForce: the kernel released the
// flock of a holder killed on this host; its info is just litter.
func TestForceUnlockReleasesADeadHolderWithoutForce(t *testing.T) {
	ctx := context.Background()
	_, path := openTemp(t)
	cmd, _, out := startChild(t, "lock", path)
	id, _ := strings.CutPrefix(waitLine(t, out), "locked ")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	f, _ := OpenFile(path, FileOptions{})
	if err := f.ForceUnlock(ctx, id, false); err != nil {
		t.Fatalf("force-unlock of a dead holder: %v", err)
	}
	if _, err := os.Stat(path + LockInfoSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock info left: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
