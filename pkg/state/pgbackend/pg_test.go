//go:build linux

package pgbackend

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

func res(addr string, port int64) state.Resource {
	return state.Resource{
		Address: addr, Type: "tosca.nodes.WebServer", Management: graph.Managed,
		Driver:   graph.Driver{Name: graph.DriverNoop},
		Spec:     map[string]graph.Value{"port": port, "u": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "ip"}}},
		Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}},
	}
}

// TestSerialRules walks one state through the write rules.
func TestSerialRules(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	b := open(t, db, t.Name(), Options{})
	s, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Serial != 0 || s.Lineage != "" || len(s.Resources) != 0 {
		t.Fatalf("empty state read as %+v", s)
	}
	steps := []struct {
		name       string
		edit       func(s *state.State)
		wantSerial uint64
	}{
		{"nothing to write", func(s *state.State) {}, 0},
		{"first content", func(s *state.State) { s.Resources = []state.Resource{res("b", 1), res("a", 1)} }, 1},
		{"same content", func(s *state.State) {}, 1},
		{"reordered", func(s *state.State) { s.Resources[0], s.Resources[1] = s.Resources[1], s.Resources[0] }, 1},
		{"change", func(s *state.State) { s.Resources[0].Spec["port"] = int64(2) }, 2},
	}
	var lineage string
	for _, st := range steps {
		st.edit(s)
		if err := b.Write(ctx, s); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if s.Serial != st.wantSerial {
			t.Errorf("%s: serial %d, want %d", st.name, s.Serial, st.wantSerial)
		}
		if lineage == "" {
			lineage = s.Lineage
		} else if s.Lineage != lineage {
			t.Errorf("%s: lineage changed", st.name)
		}
	}
	got, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Serial != 2 || len(got.Resources) != 2 || got.Resources[0].Address != "a" {
		t.Fatalf("read back serial %d, %d resources", got.Serial, len(got.Resources))
	}
	if _, ok := got.Resources[0].Spec["u"].(graph.Unknown); !ok {
		t.Errorf("Unknown did not survive the database: %T", got.Resources[0].Spec["u"])
	}

	stale := *got
	stale.Serial = 1
	if err := b.Write(ctx, &stale); !errors.Is(err, state.ErrSerialConflict) {
		t.Errorf("stale write: %v", err)
	}
	other := *got
	other.Lineage = "other"
	if err := b.Write(ctx, &other); !errors.Is(err, state.ErrLineageMismatch) {
		t.Errorf("other lineage: %v", err)
	}
	// A second client that read the same serial loses the race.
	b2 := open(t, db, t.Name(), Options{})
	first, _ := b.Read(ctx)
	second, _ := b2.Read(ctx)
	first.Resources = first.Resources[:1]
	second.Resources = append(second.Resources, res("c", 3))
	if err := b.Write(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := b2.Write(ctx, second); !errors.Is(err, state.ErrSerialConflict) {
		t.Errorf("concurrent writer: %v", err)
	}
}

func TestOperations(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	b := open(t, db, t.Name(), Options{})
	s, _ := b.Read(ctx)
	s.Resources = []state.Resource{res("a", 1), res("b", 2)}
	s.Lineage = "lin"
	if err := b.Write(ctx, s); err != nil {
		t.Fatal(err)
	}
	entries, err := state.List(ctx, b)
	if err != nil || len(entries) != 2 || entries[1].Status != "active" {
		t.Fatalf("List: %v %+v", err, entries)
	}
	if _, err := state.Show(ctx, b, "zz"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Show absent: %v", err)
	}
	if _, err := state.Remove(ctx, b, "a"); err != nil {
		t.Fatal(err)
	}
	pulled, err := state.Pull(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Push(ctx, b, pulled, false); !errors.Is(err, state.ErrStaleSerial) {
		t.Errorf("push of the same serial: %v", err)
	}
	forced, err := state.Push(ctx, b, pulled, true)
	if err != nil || forced.Serial != 3 {
		t.Errorf("forced push: %v, serial %d", err, forced.Serial)
	}
}

var lockedRE = regexp.MustCompile(`^state is locked by alice@ci \(operation apply, since \S+, ID (\S+)\)$`)

func TestLocking(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	holder := open(t, db, t.Name(), Options{})
	other := open(t, db, t.Name(), Options{})
	waiting := open(t, db, t.Name(), Options{LockTimeout: 150 * time.Millisecond})

	held, err := holder.Lock(ctx, state.LockInfo{Operation: "apply", Who: "alice@ci"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*Backend{"no timeout": other, "timeout": waiting} {
		_, err := b.Lock(ctx, state.LockInfo{Operation: "state rm"})
		var le *state.LockedError
		if !errors.As(err, &le) {
			t.Fatalf("%s: second writer got %v", name, err)
		}
		if m := lockedRE.FindStringSubmatch(err.Error()); m == nil || m[1] != held.Info.ID {
			t.Errorf("%s: message %q", name, err)
		}
	}
	// Another state in the same database is not blocked.
	elsewhere := open(t, db, t.Name()+"-other", Options{})
	h2, err := elsewhere.Lock(ctx, state.LockInfo{})
	if err != nil {
		t.Fatalf("an unrelated state is blocked: %v", err)
	}
	_ = h2.Unlock()

	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	h3, err := other.Lock(ctx, state.LockInfo{})
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	_ = h3.Unlock()
}

func TestLockReleasedWithConnection(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	crashing := open(t, db, t.Name(), Options{})
	if _, err := crashing.Lock(ctx, state.LockInfo{Operation: "apply"}); err != nil {
		t.Fatal(err)
	}
	// A holder that dies drops its connection without unlocking.
	crashing.mu.Lock()
	_ = crashing.held.conn.PgConn().Conn().Close()
	crashing.mu.Unlock()
	b := open(t, db, t.Name(), Options{LockTimeout: 10 * time.Second})
	held, err := b.Lock(ctx, state.LockInfo{})
	if err != nil {
		t.Fatalf("the lock of a closed connection was kept: %v", err)
	}
	_ = held.Unlock()
}

func TestForceUnlock(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	stuck := open(t, db, t.Name(), Options{})
	b := open(t, db, t.Name(), Options{})
	if err := b.ForceUnlock(ctx, "x", true); !errors.Is(err, state.ErrNotLocked) {
		t.Errorf("force-unlock of nothing: %v", err)
	}
	held, err := stuck.Lock(ctx, state.LockInfo{Operation: "apply", Who: "alice@ci"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(ctx, "wrong", true); !errors.Is(err, state.ErrLockMismatch) {
		t.Errorf("wrong ID: %v", err)
	}
	if _, err := b.Lock(ctx, state.LockInfo{}); !errors.Is(err, state.ErrLocked) {
		t.Fatalf("a wrong ID released the lock: %v", err)
	}
	// The holder's session is connected: only --force ends it.
	if err := b.ForceUnlock(ctx, held.Info.ID, false); !errors.Is(err, state.ErrLockInUse) {
		t.Fatalf("force-unlock of a connected holder without force: %v", err)
	}
	if err := b.ForceUnlock(ctx, held.Info.ID, true); err != nil {
		t.Fatal(err)
	}
	mine, err := b.Lock(ctx, state.LockInfo{Operation: "repair"})
	if err != nil {
		t.Fatalf("after force-unlock: %v", err)
	}
	// The old holder's unlock fails (its session is gone) but must not
	// release the new holder.
	_ = held.Unlock()
	if _, err := stuck.Lock(ctx, state.LockInfo{}); !errors.Is(err, state.ErrLocked) {
		t.Fatalf("the old holder's unlock released the new lock: %v", err)
	}
	_ = mine.Unlock()
}

// TestHolderWhoseLockWasForcedAwayCannotWrite: the holder writes on its
// lock's session, which a forced force-unlock terminates, so neither its
// journal appends nor its snapshot writes get through: ErrLockLost naming
// the new holder.
func TestHolderWhoseLockWasForcedAwayCannotWrite(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	stuck := open(t, db, "ci", Options{})
	held, err := stuck.Lock(ctx, state.LockInfo{Operation: "apply", Who: "alice@ci"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stuck.LoadWithJournal(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := stuck.OpenJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(ctx, state.Record{Kind: state.RecordIntent, Address: "a", Action: "create"}); err != nil {
		t.Fatal(err)
	}
	rescuer := open(t, db, "ci", Options{})
	if err := rescuer.ForceUnlock(ctx, held.Info.ID, true); err != nil {
		t.Fatal(err)
	}
	mine, err := rescuer.Lock(ctx, state.LockInfo{Operation: "repair", Who: "bob@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Unlock()
	r := res("a", 1)
	_, err = j.Append(ctx, state.Record{Kind: state.RecordOutcome, Address: "a", Resource: &r})
	var lost *state.LockLostError
	if !errors.As(err, &lost) || lost.Now == nil || lost.Now.Who != "bob@laptop" {
		t.Fatalf("an append after the lock was forced away: %v", err)
	}
	_ = j.Close()
	if _, err := stuck.Compact(ctx); !errors.Is(err, state.ErrLockLost) {
		t.Fatalf("a compact after the lock was forced away: %v", err)
	}
	l, err := rescuer.LoadWithJournal(ctx)
	if err != nil || len(l.Interrupted) != 1 || l.Replayed != 0 {
		t.Fatalf("the new holder sees %+v (%v), want the one intent interrupted", l, err)
	}
}

// TestCorruptSnapshotIsReportedAndReplacedByAForcedPush: a snapshot that
// does not decode is an error (never overwritten by a plain write), and
// push --force replaces it, keeping it as the backup.
func TestCorruptSnapshotIsReportedAndReplacedByAForcedPush(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	b := open(t, db, "ci", Options{})
	s, _ := b.Read(ctx)
	s.Resources = []state.Resource{res("a", 1)}
	if err := b.Write(ctx, s); err != nil {
		t.Fatal(err)
	}
	exec(t, db, `UPDATE xosplan_state SET data = '{"version": 1, "serial": 1, broken'::bytea`)
	if _, err := b.Read(ctx); !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("reading a corrupt snapshot: %v", err)
	}
	good, err := state.Encode(&state.State{Version: state.FormatVersion, Serial: 7, Lineage: "l", Resources: []state.Resource{res("b", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Push(ctx, b, good, false); !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("a push without force over a corrupt snapshot: %v", err)
	}
	if _, err := state.Push(ctx, b, good, true); err != nil {
		t.Fatal(err)
	}
	got, err := b.Read(ctx)
	if err != nil || got.Serial != 7 || got.Resources[0].Address != "b" {
		t.Fatalf("after push --force: %+v %v", got, err)
	}
	prev := queryOne(t, db, `SELECT convert_from(previous, 'UTF8') FROM xosplan_state`)
	if !strings.Contains(prev, "broken") {
		t.Errorf("the corrupt snapshot was not kept as the backup: %q", prev)
	}
}

func queryOne(t *testing.T, dsn, sql string) string {
	t.Helper()
	vs, err := pgtest.Query(context.Background(), dsn, sql)
	if err != nil || len(vs) != 1 {
		t.Fatalf("%s: %v %v", sql, vs, err)
	}
	return vs[0]
}
