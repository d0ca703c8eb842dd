package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// addresses lists the resources of s.
func addresses(s *State) []string {
	var out []string
	for _, r := range s.Resources {
		out = append(out, r.Address)
	}
	return out
}

// lockedApply returns the path of a state holding genResource(0), and a File
// on it that has locked it as an apply would and read it.
func lockedApply(t *testing.T) (string, *File, *HeldLock) {
	t.Helper()
	f, path := openTemp(t)
	s := mustRead(t, f)
	s.Resources = []Resource{genResource(0)}
	mustWrite(t, f, s)
	apply, _ := OpenFile(path, FileOptions{})
	held, err := apply.Lock(context.Background(), LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = held.Unlock() })
	if _, err := apply.LoadWithJournal(context.Background()); err != nil {
		t.Fatal(err)
	}
	return path, apply, held
}

// takeOver force-unlocks held and locks the state for operation, as
// someone who believes the holder is stuck would.
func takeOver(t *testing.T, path string, held *HeldLock, operation string) (*File, *HeldLock) {
	t.Helper()
	ctx := context.Background()
	other, _ := OpenFile(path, FileOptions{})
	if err := other.ForceUnlock(ctx, held.Info.ID, true); err != nil {
		t.Fatal(err)
	}
	mine, err := other.Lock(ctx, LockInfo{Operation: operation})
	if err != nil {
		t.Fatalf("lock after force-unlock: %v", err)
	}
	t.Cleanup(func() { _ = mine.Unlock() })
	return other, mine
}

// TestForceUnlockDuringApplyLosesNoCreate: while an apply writes its
// journal, its lock is forced away and `state rm` runs. The rm is refused
// while the apply runs (it would fold and delete a journal still being
// written); the apply records the outcome of what it had started, starts
// nothing new, and fails to save; afterwards the rm runs and every create
// of the apply is in the state.
func TestForceUnlockDuringApplyLosesNoCreate(t *testing.T) {
	ctx := context.Background()
	path, apply, held := lockedApply(t)
	j := openJournal(t, apply)
	first, second := genResource(1), genResource(2)
	appendAll(t, j, intent(first.Address, "create"), outcome(first), intent(second.Address, "create"))

	rm, _ := takeOver(t, path, held, "state rm")
	if _, err := Remove(ctx, rm, genResource(0).Address); !errors.Is(err, ErrJournalBusy) {
		t.Fatalf("state rm while the apply writes its journal: %v, want ErrJournalBusy", err)
	}

	// The create that was running finishes and is recorded; nothing new
	// may start without the lock.
	appendAll(t, j, outcome(second))
	if _, err := j.Append(ctx, intent("app_00003", "create")); !errors.Is(err, ErrLockLost) {
		t.Fatalf("an intent after the lock was lost: %v, want ErrLockLost", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := apply.Compact(ctx)
	var lost *LockLostError
	if !errors.As(err, &lost) || lost.Now == nil || lost.Now.Operation != "state rm" {
		t.Fatalf("saving after the lock was lost: %v, want a *LockLostError naming the new holder", err)
	}
	_ = held.Unlock()

	s, err := Remove(ctx, rm, genResource(0).Address)
	if err != nil {
		t.Fatalf("state rm once the apply ended: %v", err)
	}
	want := []string{first.Address, second.Address}
	if got := addresses(s); !slices.Equal(got, want) {
		t.Fatalf("state after rm holds %v, want %v", got, want)
	}
	fresh, _ := OpenFile(path, FileOptions{})
	if got := addresses(mustRead(t, fresh)); !slices.Equal(got, want) {
		t.Fatalf("state read back holds %v, want %v", got, want)
	}
}

// TestForcedUnlockNeverLetsTwoWritersShareAJournal: a second apply that
// took the lock by force cannot open the journal the first one still
// writes (it would continue its seqs: "seq 4 appears twice"); once the
// first has ended it continues that journal, and nothing is lost.
func TestForcedUnlockNeverLetsTwoWritersShareAJournal(t *testing.T) {
	ctx := context.Background()
	path, first, held := lockedApply(t)
	j1 := openJournal(t, first)
	a, b, c := genResource(1), genResource(2), genResource(3)
	appendAll(t, j1, intent(a.Address, "create"), outcome(a), intent(b.Address, "create"))

	second, _ := takeOver(t, path, held, "apply")
	if _, err := second.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := second.OpenJournal(ctx)
	if !errors.Is(err, ErrJournalBusy) {
		if err == nil {
			appendAll(t, j, intent(c.Address, "create"))
			j.Close()
		}
		appendAll(t, j1, outcome(b))
		_, lerr := first.LoadWithJournal(ctx)
		t.Fatalf("second OpenJournal while the first writes it: %v, want ErrJournalBusy (load: %v)", err, lerr)
	}
	if writer := fmt.Sprintf("process %d on %s (lock ID %s)", os.Getpid(), hostName(), held.Info.ID); !strings.Contains(err.Error(), writer) {
		t.Errorf("message %q does not name the journal's writer, %s", err, writer)
	}
	appendAll(t, j1, outcome(b))
	j1.Close()
	if _, err := first.Compact(ctx); !errors.Is(err, ErrLockLost) {
		t.Fatalf("first apply's save: %v, want ErrLockLost", err)
	}
	_ = held.Unlock()

	if _, err := second.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	j2, err := second.OpenJournal(ctx)
	if err != nil {
		t.Fatalf("OpenJournal once the first apply ended: %v", err)
	}
	appendAll(t, j2, intent(c.Address, "create"), outcome(c))
	if err := j2.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := second.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{genResource(0).Address, a.Address, b.Address, c.Address}
	if got := addresses(l.State); !slices.Equal(got, want) {
		t.Fatalf("state holds %v, want %v", got, want)
	}
}

// TestWriteAfterTheLockWasForcedAwayIsRefused: a writer whose lock was
// removed writes nothing, even when nobody wrote meanwhile.
func TestWriteAfterTheLockWasForcedAwayIsRefused(t *testing.T) {
	ctx := context.Background()
	path, rm, held := lockedApply(t)
	s := mustRead(t, rm)
	s.Resources = nil
	before, _ := os.ReadFile(path)
	if err := rm.ForceUnlock(ctx, held.Info.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := rm.Write(ctx, s); !errors.Is(err, ErrLockLost) {
		t.Fatalf("Write without the lock: %v, want ErrLockLost", err)
	}
	if err := rm.Overwrite(ctx, &State{Serial: 9, Lineage: s.Lineage}); !errors.Is(err, ErrLockLost) {
		t.Fatalf("Overwrite without the lock: %v, want ErrLockLost", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a writer without the lock changed the state")
	}
}

// TestWriteRefusesAJournalThatGrewSinceItWasRead: operations another
// process recorded after this writer read the state are not overwritten:
// the write is a compare-and-swap on the journal too.
func TestWriteRefusesAJournalThatGrewSinceItWasRead(t *testing.T) {
	ctx := context.Background()
	path, rm, _ := lockedApply(t)
	s := mustRead(t, rm)
	s.Resources = nil

	other, _ := OpenFile(path, FileOptions{})
	j := openJournal(t, other)
	late := genResource(9)
	appendAll(t, j, intent(late.Address, "create"), outcome(late))
	j.Close()

	err := rm.Write(ctx, s)
	var conflict *ConflictError
	if !errors.As(err, &conflict) || !conflict.Journal || !errors.Is(err, ErrSerialConflict) {
		t.Fatalf("Write over a journal that grew: %v, want a *ConflictError on the journal", err)
	}
	if _, ok := mustRead(t, rm).Lookup(late.Address); !ok {
		t.Fatalf("the refused write lost the operation recorded meanwhile")
	}
	if !strings.Contains(err.Error(), "changed by another process") {
		t.Errorf("message %q does not say another process changed the state", err)
	}
}

// TestCompactRefusesWhenTheSnapshotMovedUnderItsJournal: when the
// snapshot an apply's journal extends was replaced while the apply ran,
// Compact says so (serial found and expected) and leaves the journal
// alone instead of ignoring it as stale.
func TestCompactRefusesWhenTheSnapshotMovedUnderItsJournal(t *testing.T) {
	ctx := context.Background()
	path, apply, _ := lockedApply(t)
	j := openJournal(t, apply)
	created := genResource(5)
	appendAll(t, j, intent(created.Address, "create"), outcome(created))
	j.Close()
	journal, _ := os.ReadFile(path + JournalSuffix)

	// Someone who ignores the lock (a hand edit) writes serial 7.
	edited, err := Encode(&State{Version: FormatVersion, Serial: 7, Lineage: mustRead(t, apply).Lineage, Resources: []Resource{genResource(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = apply.Compact(ctx)
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.Journal || conflict.FoundSerial != 7 || conflict.ExpectedSerial != 1 {
		t.Fatalf("Compact after the snapshot moved: %v, want a *ConflictError (serial 7, expected 1)", err)
	}
	if !strings.Contains(err.Error(), "serial 7, expected 1") {
		t.Errorf("message %q does not give the serials", err)
	}
	if kept, _ := os.ReadFile(path + JournalSuffix); string(kept) != string(journal) {
		t.Errorf("the journal holding the apply's operations was changed")
	}
}

// TestJournalStillBeingWrittenListsRunningOperations: the unfinished
// operations of a journal a live process still writes (one that lost its
// lock) are running, not interrupted: the next apply must neither end
// their processes as leftovers of a crash nor run beside them.
func TestJournalStillBeingWrittenListsRunningOperations(t *testing.T) {
	ctx := context.Background()
	path, apply, _ := lockedApply(t)
	j := openJournal(t, apply)
	appendAll(t, j, intent("app_00001", "create"))

	reader, _ := OpenFile(path, FileOptions{})
	l, err := reader.LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(l.Busy, ErrJournalBusy) || len(l.Interrupted) != 0 || len(l.Running) != 1 || l.Running[0].Address != "app_00001" {
		t.Fatalf("load while the journal is written: busy %v, interrupted %v, running %v", l.Busy, l.Interrupted, l.Running)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = reader.LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Busy != nil || len(l.Running) != 0 || len(l.Interrupted) != 1 {
		t.Fatalf("load once its writer ended: busy %v, interrupted %v, running %v", l.Busy, l.Interrupted, l.Running)
	}
}
