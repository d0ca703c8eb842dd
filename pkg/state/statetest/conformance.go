// Package statetest is the conformance suite of state backends: one
// contract (lineage, serial, compare-and-swap writes, journal with intent
// before outcome, replay after a crash, backup, declarative and feedback
// state apart, deterministic reads, outputs, locks) that the file backend
// and the PostgreSQL backend both run. Only tests import it.
package statetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Subject is one fresh, empty state of the backend under test.
type Subject struct {
	// Open returns a new handle on the state, as another process would
	// open it; the suite closes the handles it opens.
	Open func(t *testing.T) state.Store
	// Backup returns the backup of the previous snapshot, nil when there
	// is none.
	Backup func(t *testing.T) *state.State
}

// Run runs the suite; fresh returns a new Subject for each case.
func Run(t *testing.T, fresh func(t *testing.T) Subject) {
	cases := []struct {
		name string
		run  func(t *testing.T, s Subject)
	}{
		{"EmptyStateReadsAsSerialZero", emptyState},
		{"SerialGrowsOnlyWithContentAndLineageNeverChanges", serialRules},
		{"LostRaceIsAConflictNeverALostUpdate", lostRace},
		{"StaleSerialAndOtherLineageAreRefused", staleWrites},
		{"JournalReplaysOutcomesAndListsInterruptedIntents", journalReplay},
		{"CompactFoldsTheJournalAndKeepsTheBackup", compactAndBackup},
		{"JournalOpenRefusesSnapshotWrites", journalOpenRefusesWrites},
		{"OpenJournalAfterAnotherWriterIsAConflict", openJournalConflict},
		{"SpecAndFeedbackStayApartAndReadsAreDeterministic", specAndFeedback},
		{"OutputsAreContent", outputs},
		{"LockNamesItsHolderAndForceUnlockChecksTheID", locks},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, fresh(t)) })
	}
}

func open(t *testing.T, s Subject) state.Store {
	t.Helper()
	st := s.Open(t)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// Res returns a managed noop resource at addr whose spec holds port and an
// unknown value, with feedback: what the suite stores.
func Res(addr string, port int64) state.Resource {
	return state.Resource{
		Address: addr, Type: "tosca.nodes.WebServer", Management: graph.Managed,
		Driver: graph.Driver{Name: graph.DriverNoop},
		Spec:   map[string]graph.Value{"port": port, "u": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "ip"}}},
		Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true},
			Attributes: map[string]graph.Value{"ip": "10.0.0.1"}},
	}
}

// seed opens a handle on the state, writes rs as its content, and returns
// the handle and the state written.
func seed(t *testing.T, sub Subject, rs ...state.Resource) (state.Store, *state.State) {
	t.Helper()
	st := open(t, sub)
	s := read(t, st)
	s.Resources = rs
	write(t, st, s)
	return st, s
}

func read(t *testing.T, st state.Store) *state.State {
	t.Helper()
	s, err := st.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, st state.Store, s *state.State) {
	t.Helper()
	if err := st.Write(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

func addresses(s *state.State) []string {
	var out []string
	for _, r := range s.Resources {
		out = append(out, r.Address)
	}
	return out
}

func emptyState(t *testing.T, sub Subject) {
	s := read(t, open(t, sub))
	if s.Serial != 0 || s.Lineage != "" || len(s.Resources) != 0 {
		t.Fatalf("empty state read as serial %d, lineage %q, %d resources", s.Serial, s.Lineage, len(s.Resources))
	}
}

func serialRules(t *testing.T, sub Subject) {
	st := open(t, sub)
	s := read(t, st)
	steps := []struct {
		name       string
		edit       func(s *state.State)
		wantSerial uint64
	}{
		{"nothing to write", func(s *state.State) {}, 0},
		{"first content", func(s *state.State) { s.Resources = []state.Resource{Res("b", 1), Res("a", 1)} }, 1},
		{"same content", func(s *state.State) {}, 1},
		{"reordered", func(s *state.State) { s.Resources[0], s.Resources[1] = s.Resources[1], s.Resources[0] }, 1},
		{"change", func(s *state.State) { s.Resources[0].Spec["port"] = int64(2) }, 2},
		{"feedback change", func(s *state.State) { s.Resources[0].Feedback.BackendStatus = "ok" }, 3},
	}
	var lineage string
	for _, step := range steps {
		step.edit(s)
		write(t, st, s)
		if s.Serial != step.wantSerial {
			t.Errorf("%s: serial %d, want %d", step.name, s.Serial, step.wantSerial)
		}
		if lineage == "" {
			lineage = s.Lineage
		} else if s.Lineage != lineage {
			t.Errorf("%s: lineage changed from %q to %q", step.name, lineage, s.Lineage)
		}
	}
	got := read(t, open(t, sub))
	if got.Serial != 3 || got.Lineage != lineage || !slices.Equal(addresses(got), []string{"a", "b"}) {
		t.Fatalf("another handle reads serial %d, lineage %q, %v", got.Serial, got.Lineage, addresses(got))
	}
}

func lostRace(t *testing.T, sub Subject) {
	ctx := context.Background()
	seed(t, sub, Res("a", 1))
	first, second := open(t, sub), open(t, sub)
	a, b := read(t, first), read(t, second)
	a.Resources = append(a.Resources, Res("from-first", 1))
	b.Resources = append(b.Resources, Res("from-second", 2))
	write(t, first, a)
	err := second.Write(ctx, b)
	var ce *state.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, state.ErrSerialConflict) {
		t.Fatalf("the second writer of serial 1 got %v, want a *state.ConflictError", err)
	}
	got := read(t, open(t, sub))
	if !slices.Equal(addresses(got), []string{"a", "from-first"}) || got.Serial != 2 {
		t.Fatalf("after the race: serial %d, %v; want the first writer's update kept", got.Serial, addresses(got))
	}
}

func staleWrites(t *testing.T, sub Subject) {
	ctx := context.Background()
	st, s := seed(t, sub, Res("a", 1))
	s.Resources[0].Spec["port"] = int64(2)
	write(t, st, s)
	stale := *read(t, open(t, sub))
	stale.Serial = 1
	if err := open(t, sub).Write(ctx, &stale); !errors.Is(err, state.ErrSerialConflict) {
		t.Errorf("stale write: %v", err)
	}
	other := *read(t, open(t, sub))
	other.Lineage = "another-lineage"
	if err := open(t, sub).Write(ctx, &other); !errors.Is(err, state.ErrLineageMismatch) {
		t.Errorf("other lineage: %v", err)
	}
}

// applyPart records, as an apply does, a completed create of done and an
// intent for running that no outcome follows: a crash in the middle.
func applyPart(t *testing.T, st state.Store, done, running string) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := st.OpenJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := Res(done, 7)
	seqs, err := j.AppendAll(ctx,
		state.Record{Kind: state.RecordIntent, Address: done, Action: "create", Attempt: 1},
		state.Record{Kind: state.RecordOutcome, Address: done, Resource: &r})
	if err != nil {
		t.Fatal(err)
	}
	if seqs[0] >= seqs[1] {
		t.Errorf("intent seq %d is not before outcome seq %d", seqs[0], seqs[1])
	}
	if _, err := j.Append(ctx, state.Record{Kind: state.RecordIntent, Address: running, Action: "update", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

func journalReplay(t *testing.T, sub Subject) {
	ctx := context.Background()
	st, _ := seed(t, sub, Res("old", 1))
	applyPart(t, st, "new", "old")

	l, err := open(t, sub).LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Replayed != 1 || len(l.Interrupted) != 1 || l.Interrupted[0].Address != "old" || l.Interrupted[0].Action != "update" {
		t.Fatalf("replayed %d, interrupted %+v; want 1 outcome and the update of old", l.Replayed, l.Interrupted)
	}
	if !slices.Equal(addresses(l.State), []string{"new", "old"}) || l.State.Serial != 1 {
		t.Fatalf("replayed state: serial %d, %v", l.State.Serial, addresses(l.State))
	}
	old, _ := l.State.Lookup("old")
	if old.Feedback.BackendCode != state.BackendPending {
		t.Errorf("the interrupted resource has backend_code %d, want pending", old.Feedback.BackendCode)
	}
	// A second apply continues the journal after its last record.
	st2 := open(t, sub)
	applyPart(t, st2, "newer", "new")
	l, err = open(t, sub).LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Replayed != 2 || len(l.Interrupted) != 2 || !slices.Equal(addresses(l.State), []string{"new", "newer", "old"}) {
		t.Fatalf("after a second interrupted apply: replayed %d, interrupted %d, %v", l.Replayed, len(l.Interrupted), addresses(l.State))
	}
}

func compactAndBackup(t *testing.T, sub Subject) {
	ctx := context.Background()
	st, _ := seed(t, sub, Res("old", 1))
	if b := sub.Backup(t); b != nil && len(b.Resources) != 0 {
		t.Errorf("backup after the first write holds %v", addresses(b))
	}
	applyPart(t, st, "new", "old")
	l, err := st.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.State.Serial != 2 {
		t.Errorf("compacted to serial %d, want 2", l.State.Serial)
	}
	fresh, err := open(t, sub).LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Replayed != 0 || len(fresh.Interrupted) != 0 || fresh.State.Serial != 2 || !slices.Equal(addresses(fresh.State), []string{"new", "old"}) {
		t.Fatalf("after compact: replayed %d, interrupted %d, serial %d, %v", fresh.Replayed, len(fresh.Interrupted), fresh.State.Serial, addresses(fresh.State))
	}
	backup := sub.Backup(t)
	if backup == nil || backup.Serial != 1 || !slices.Equal(addresses(backup), []string{"old"}) {
		t.Fatalf("backup: %+v, want serial 1 with old", backup)
	}
	// Nothing left to fold: Compact changes nothing.
	again, err := open(t, sub).Compact(ctx)
	if err != nil || again.State.Serial != 2 {
		t.Fatalf("second compact: %v, serial %d", err, again.State.Serial)
	}
}

func journalOpenRefusesWrites(t *testing.T, sub Subject) {
	ctx := context.Background()
	st := open(t, sub)
	s := read(t, st)
	j, err := st.OpenJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Resources = []state.Resource{Res("a", 1)}
	if err := st.Write(ctx, s); !errors.Is(err, state.ErrJournalOpen) {
		t.Errorf("write with the journal open: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s = read(t, st)
	s.Resources = []state.Resource{Res("a", 1)}
	if err := st.Write(ctx, s); err != nil {
		t.Errorf("write after the journal was closed and compacted: %v", err)
	}
}

func openJournalConflict(t *testing.T, sub Subject) {
	ctx := context.Background()
	st := open(t, sub)
	if _, err := st.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	other := open(t, sub)
	s := read(t, other)
	s.Resources = []state.Resource{Res("sneaked-in", 1)}
	write(t, other, s)
	if _, err := st.OpenJournal(ctx); !errors.Is(err, state.ErrSerialConflict) {
		t.Fatalf("opening the journal over a state changed since it was read: %v", err)
	}
}

func specAndFeedback(t *testing.T, sub Subject) {
	seed(t, sub, Res("z", 3), Res("m", 2), Res("a", 1))
	first, second := read(t, open(t, sub)), read(t, open(t, sub))
	if !slices.Equal(addresses(first), []string{"a", "m", "z"}) {
		t.Errorf("resources read as %v, want sorted by address", addresses(first))
	}
	e1, err := state.Encode(first)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := state.Encode(second)
	if string(e1) != string(e2) {
		t.Errorf("two reads differ")
	}
	r, _ := first.Lookup("m")
	if r.Spec["port"] != int64(2) || r.Feedback.Attributes["ip"] != "10.0.0.1" || r.Spec["ip"] != nil || r.Feedback.Attributes["port"] != nil {
		t.Errorf("spec %v and feedback %v mixed", r.Spec, r.Feedback.Attributes)
	}
	if _, ok := r.Spec["u"].(graph.Unknown); !ok {
		t.Errorf("an unknown value read back as %T", r.Spec["u"])
	}
}

func outputs(t *testing.T, sub Subject) {
	st, s := seed(t, sub, Res("a", 1))
	s.Outputs = map[string]state.Output{"url": {Value: "http://a"}, "token": {Value: "t0ps3cret", Sensitive: true}}
	write(t, st, s)
	if s.Serial != 2 {
		t.Errorf("an outputs change wrote serial %d, want 2", s.Serial)
	}
	got := read(t, open(t, sub))
	if got.Outputs["url"].Value != "http://a" || !got.Outputs["token"].Sensitive {
		t.Errorf("outputs read back as %+v", got.Outputs)
	}
}

func locks(t *testing.T, sub Subject) {
	ctx := context.Background()
	holder, other := open(t, sub), open(t, sub)
	held, err := holder.Lock(ctx, state.LockInfo{Operation: "apply", Who: "alice@ci"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Lock(ctx, state.LockInfo{Operation: "state rm"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Info.ID != held.Info.ID || le.Info.Who != "alice@ci" || le.Info.Operation != "apply" {
		t.Fatalf("a second locker got %v, want a *state.LockedError naming alice@ci", err)
	}
	if err := other.ForceUnlock(ctx, "not-the-id", true); !errors.Is(err, state.ErrLockMismatch) {
		t.Errorf("force-unlock with another ID: %v", err)
	}
	// The holder can write under its lock.
	s := read(t, holder)
	s.Resources = []state.Resource{Res("a", 1)}
	write(t, holder, s)
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := other.Lock(ctx, state.LockInfo{})
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	if err := again.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := other.ForceUnlock(ctx, again.Info.ID, false); !errors.Is(err, state.ErrNotLocked) {
		t.Errorf("force-unlock of a free lock: %v", err)
	}
}
