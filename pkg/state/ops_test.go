package state

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"testing"
)

// seeded returns a backend holding app_00000..app_00002 at serial 1, with
// app_00001 failed and app_00002 interrupted by a crash.
func seeded(t *testing.T) (*File, string) {
	t.Helper()
	f, path := openTemp(t)
	s := mustRead(t, f)
	s.Resources = []Resource{genResource(0), genResource(1), genResource(2)}
	s.Resources[1].Feedback.BackendCode = BackendError
	s.Lineage = "lineage-1" // a new state takes the caller's lineage
	mustWrite(t, f, s)
	j := openJournal(t, f)
	appendAll(t, j, intent("app_00002", "update"))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return f, path
}

func TestList(t *testing.T) {
	f, _ := seeded(t)
	got, err := List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Address: "app_00000", Type: "tosca.nodes.WebServer", Management: "managed", Status: "active"},
		{Address: "app_00001", Type: "tosca.nodes.WebServer", Management: "managed", Status: "error"},
		{Address: "app_00002", Type: "tosca.nodes.WebServer", Management: "managed", Status: "pending"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("List = %+v\nwant %+v", got, want)
	}
}

func TestShow(t *testing.T) {
	f, _ := seeded(t)
	cases := []struct {
		addr string
		err  error
	}{
		{"app_00001", nil},
		{"nope", ErrNotFound},
	}
	for _, c := range cases {
		r, err := Show(context.Background(), f, c.addr)
		if !errors.Is(err, c.err) {
			t.Errorf("Show(%s): %v, want %v", c.addr, err, c.err)
		}
		if err == nil && r.Address != c.addr {
			t.Errorf("Show(%s) returned %s", c.addr, r.Address)
		}
	}
}

func TestRemove(t *testing.T) {
	cases := []struct {
		name       string
		addrs      []string
		err        error
		wantAddrs  []string
		wantSerial uint64
	}{
		{"one", []string{"app_00001"}, nil, []string{"app_00000", "app_00002"}, 2},
		{"two", []string{"app_00002", "app_00000"}, nil, []string{"app_00001"}, 2},
		{"absent removes nothing", []string{"app_00000", "ghost", "other"}, ErrNotFound, []string{"app_00000", "app_00001", "app_00002"}, 1},
		{"none", nil, nil, []string{"app_00000", "app_00001", "app_00002"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, path := seeded(t)
			_, err := Remove(context.Background(), f, c.addrs...)
			switch {
			case c.err != nil && !errors.Is(err, c.err):
				t.Fatalf("error %v, want %v", err, c.err)
			case c.err == nil && len(c.addrs) > 0 && err != nil:
				t.Fatal(err)
			case len(c.addrs) == 0 && err == nil:
				t.Fatal("Remove of nothing succeeded")
			}
			if c.err != nil && err.Error() != "no such resource in state: ghost, other" {
				t.Errorf("message %q does not list every absent address", err)
			}
			g, _ := OpenFile(path, FileOptions{})
			l, err := g.LoadWithJournal(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, r := range l.State.Resources {
				addrs = append(addrs, r.Address)
			}
			if !slices.Equal(addrs, c.wantAddrs) || l.State.Serial != c.wantSerial {
				t.Errorf("after: %v at serial %d, want %v at %d", addrs, l.State.Serial, c.wantAddrs, c.wantSerial)
			}
		})
	}
}

func TestPullPush(t *testing.T) {
	ctx := context.Background()
	f, path := seeded(t)
	pulled, err := Pull(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(pulled); err != nil {
		t.Fatalf("pulled bytes do not decode: %v", err)
	}
	cur := mustRead(t, f)
	newer := *cur
	newer.Serial = cur.Serial + 5
	newer.Resources = cur.Resources[:1]
	newerBytes, _ := Encode(&newer)
	other := newer
	other.Lineage = "another-lineage"
	otherBytes, _ := Encode(&other)
	older := newer
	older.Serial = cur.Serial
	olderBytes, _ := Encode(&older)

	cases := []struct {
		name       string
		data       []byte
		force      bool
		err        error
		wantSerial uint64
		lineage    string
	}{
		{"corrupt", []byte("{"), true, ErrCorrupt, 1, cur.Lineage},
		{"wrong version", []byte(`{"version": 3}`), true, ErrVersion, 1, cur.Lineage},
		{"another lineage", otherBytes, false, ErrLineageMismatch, 1, cur.Lineage},
		{"equal serial", olderBytes, false, ErrStaleSerial, 1, cur.Lineage},
		{"newer", newerBytes, false, nil, 6, cur.Lineage},
		{"another lineage, forced", otherBytes, true, nil, 6, "another-lineage"},
		{"equal serial, forced, never lowers", olderBytes, true, nil, 2, cur.Lineage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, path := seeded(t)
			before, _ := os.ReadFile(path)
			got, err := Push(ctx, f, c.data, c.force)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			after := mustRead(t, f)
			if after.Serial != c.wantSerial || after.Lineage != c.lineage {
				t.Errorf("stored serial %d lineage %s, want %d %s", after.Serial, after.Lineage, c.wantSerial, c.lineage)
			}
			if err != nil {
				if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
					t.Errorf("a refused push changed the file")
				}
				return
			}
			if got.Serial != after.Serial || len(after.Resources) != 1 {
				t.Errorf("pushed state: serial %d, %d resources", got.Serial, len(after.Resources))
			}
			if _, err := os.Stat(path + JournalSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("push left the journal: %v", err)
			}
		})
	}
	// Pushing to an empty backend takes the file as it is.
	empty, _ := openTemp(t)
	if _, err := Push(ctx, empty, otherBytes, false); err != nil {
		t.Fatal(err)
	}
	if s := mustRead(t, empty); s.Lineage != "another-lineage" || s.Serial != newer.Serial {
		t.Errorf("push to an empty backend: %d %s", s.Serial, s.Lineage)
	}
	if b, err := Pull(ctx, mustOpen(t, path+".none")); b != nil || err != nil {
		t.Errorf("pull of nothing: %q %v", b, err)
	}
}

func mustOpen(t *testing.T, path string) *File {
	t.Helper()
	f, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestWithLock(t *testing.T) {
	f, path := seeded(t)
	ran := false
	err := WithLock(context.Background(), f, LockInfo{Operation: "state rm"}, func() error {
		ran = true
		_, err := mustOpen(t, path).Lock(context.Background(), LockInfo{})
		if !errors.Is(err, ErrLocked) {
			t.Errorf("inside WithLock another writer got %v", err)
		}
		return errors.New("inner")
	})
	if !ran || err == nil || err.Error() != "inner" {
		t.Errorf("WithLock: ran %v, err %v", ran, err)
	}
	if _, err := os.Stat(path + LockSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock kept after WithLock")
	}
}

func TestForcedPushReplacesCorruptState(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		content string
		replace bool
	}{
		"corrupt":         {"{not json", true},
		"unknown version": {`{"version": 7, "serial": 1, "lineage": "x", "resources": []}`, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, path := openTemp(t)
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			good, _ := Encode(&State{Version: 1, Serial: 1, Lineage: "fresh", Resources: []Resource{genResource(1)}})
			if _, err := Push(ctx, f, good, false); err == nil {
				t.Fatal("an unforced push replaced a corrupt state")
			}
			_, err := Push(ctx, f, good, true)
			if c.replace != (err == nil) {
				t.Fatalf("forced push: %v", err)
			}
			if !c.replace {
				return
			}
			if s := mustRead(t, f); s.Lineage != "fresh" {
				t.Errorf("lineage %q after the push", s.Lineage)
			}
			if b, _ := os.ReadFile(path + BackupSuffix); string(b) != c.content {
				t.Errorf("the corrupt state was not kept as the backup: %q", b)
			}
		})
	}
}

// Move renames a resource, the resources nested in it and the recorded
// dependencies on them, in one write (serial+1, the old snapshot kept as
// the backup); it writes nothing when the source is absent, the
// destination (or a nested resource's new address) is taken, or the
// destination is no address.
func TestMove(t *testing.T) {
	seed := func(t *testing.T) (*File, string) {
		t.Helper()
		f, path := openTemp(t)
		s := mustRead(t, f)
		s.Lineage = "lineage-1"
		s.Resources = []Resource{genResource(0), genResource(1), genResource(2), genResource(3)}
		s.Resources[0].Address, s.Resources[1].Address, s.Resources[2].Address, s.Resources[3].Address = "app", "app.db", "web", "worker"
		s.Resources[2].Dependencies = []string{"app", "app.db"}
		s.Resources[3].Dependencies = []string{"web"}
		mustWrite(t, f, s)
		return f, path
	}
	cases := []struct {
		name, src, dst string
		err            error
		wantAddrs      []string
		wantDeps       map[string][]string
	}{
		{"with its parts and dependents", "app", "svc", nil, []string{"svc", "svc.db", "web", "worker"},
			map[string][]string{"web": {"svc", "svc.db"}, "worker": {"web"}}},
		{"a leaf", "worker", "batch", nil, []string{"app", "app.db", "batch", "web"},
			map[string][]string{"web": {"app", "app.db"}, "batch": {"web"}}},
		{"a part out of its component", "app.db", "db", nil, []string{"app", "db", "web", "worker"},
			map[string][]string{"web": {"app", "db"}}},
		{"absent source", "ghost", "x", ErrNotFound, nil, nil},
		{"taken destination", "web", "worker", ErrAddressTaken, nil, nil},
		{"a part's new address taken", "app", "web", ErrAddressTaken, nil, nil},
		{"into itself", "app", "app.x", nil, nil, nil},
		{"onto itself", "app", "app", nil, nil, nil},
		{"empty", "app", "", nil, nil, nil},
		{"trailing dot", "app", "svc.", nil, nil, nil},
		{"control character", "app", "s\x1b[2Jvc", nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, path := seed(t)
			_, moves, err := Move(context.Background(), f, c.src, c.dst)
			after := mustRead(t, f)
			if c.wantAddrs == nil {
				if err == nil || (c.err != nil && !errors.Is(err, c.err)) {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				if after.Serial != 1 {
					t.Errorf("a refused move wrote the state (serial %d)", after.Serial)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, r := range after.Resources {
				addrs = append(addrs, r.Address)
				if want, ok := c.wantDeps[r.Address]; ok && !slices.Equal(r.Dependencies, want) {
					t.Errorf("%s depends on %v, want %v", r.Address, r.Dependencies, want)
				}
			}
			if !slices.Equal(addrs, c.wantAddrs) || after.Serial != 2 || after.Lineage != "lineage-1" {
				t.Errorf("after: %v at serial %d lineage %s, want %v at 2", addrs, after.Serial, after.Lineage, c.wantAddrs)
			}
			if len(moves) == 0 || moves[0][0] != c.src || moves[0][1] != c.dst {
				t.Errorf("moves %v do not start with %s → %s", moves, c.src, c.dst)
			}
			if backup, err := os.ReadFile(path + BackupSuffix); err != nil || !bytes.Contains(backup, []byte(`"address": "`+c.src+`"`)) {
				t.Errorf("no backup of the state before the move (%v)", err)
			}
		})
	}
}
