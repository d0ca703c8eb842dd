package state

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

func openTemp(t testing.TB) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), DefaultPath)
	f, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func mustRead(t testing.TB, f *File) *State {
	t.Helper()
	s, err := f.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustWrite(t testing.TB, f *File, s *State) {
	t.Helper()
	if err := f.Write(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

var lineageRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestMissingStateIsEmpty(t *testing.T) {
	f, path := openTemp(t)
	s := mustRead(t, f)
	if s.Serial != 0 || s.Lineage != "" || len(s.Resources) != 0 || s.Version != FormatVersion {
		t.Fatalf("missing state read as %+v", s)
	}
	// Writing nothing creates nothing: the lineage is born with content.
	mustWrite(t, f, s)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an empty write created the file: %v", err)
	}
}

// TestSerialRules walks one state through the write rules; each step
// states the serial it expects afterwards and whether the file changed.
func TestSerialRules(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	s := mustRead(t, f)
	steps := []struct {
		name       string
		edit       func(s *State)
		wantSerial uint64
		wantWrite  bool
	}{
		{"first content", func(s *State) { s.Resources = append(s.Resources, genResource(1)) }, 1, true},
		{"same content", func(s *State) {}, 1, false},
		{"same content, other order and nil maps as empty", func(s *State) {
			s.Resources = append([]Resource{genResource(0)}, s.Resources...)
		}, 2, true},
		{"reordered only", func(s *State) { s.Resources[0], s.Resources[1] = s.Resources[1], s.Resources[0] }, 2, false},
		{"float that is an integer", func(s *State) {
			s.Resources[0].Spec["replicas"] = float64(s.Resources[0].Spec["replicas"].(int64))
		}, 2, false},
		{"feedback change", func(s *State) { s.Resources[0].Feedback.BackendStatus = "changed" }, 3, true},
		{"spec change", func(s *State) { s.Resources[1].Spec["port"] = int64(1) }, 4, true},
		{"removal", func(s *State) { s.Resources = s.Resources[:1] }, 5, true},
		// Outputs are content: recorded, changed and removed with a serial.
		{"outputs recorded", func(s *State) {
			s.Outputs = map[string]Output{"url": {Value: "http://x"}, "token": {Value: "s3cret", Sensitive: true}}
		}, 6, true},
		{"same outputs", func(s *State) {
			s.Outputs = map[string]Output{"token": {Value: "s3cret", Sensitive: true}, "url": {Value: "http://x"}}
		}, 6, false},
		{"output changed", func(s *State) { s.Outputs["url"] = Output{Value: "http://y"} }, 7, true},
		{"outputs removed", func(s *State) { s.Outputs = nil }, 8, true},
	}
	var lineage string
	for _, st := range steps {
		before, _ := os.ReadFile(path)
		st.edit(s)
		if err := f.Write(ctx, s); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		after, _ := os.ReadFile(path)
		if s.Serial != st.wantSerial {
			t.Errorf("%s: serial %d, want %d", st.name, s.Serial, st.wantSerial)
		}
		if wrote := !bytes.Equal(before, after); wrote != st.wantWrite {
			t.Errorf("%s: file rewritten = %v, want %v", st.name, wrote, st.wantWrite)
		}
		if lineage == "" {
			lineage = s.Lineage
			if !lineageRE.MatchString(lineage) {
				t.Errorf("lineage %q is not a version 4 UUID", lineage)
			}
		} else if s.Lineage != lineage {
			t.Errorf("%s: lineage changed from %s to %s", st.name, lineage, s.Lineage)
		}
		// Another reader sees exactly what was written.
		g, _ := OpenFile(path, FileOptions{})
		if r := mustRead(t, g); r.Serial != s.Serial || r.Lineage != s.Lineage || len(r.Resources) != len(s.Resources) {
			t.Errorf("%s: reread serial %d lineage %s with %d resources", st.name, r.Serial, r.Lineage, len(r.Resources))
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestBackupHoldsPreviousSnapshot(t *testing.T) {
	f, path := openTemp(t)
	s := mustRead(t, f)
	s.Resources = []Resource{genResource(1)}
	mustWrite(t, f, s)
	if _, err := os.Stat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup exists after the first write: %v", err)
	}
	first, _ := os.ReadFile(path)
	s.Resources = append(s.Resources, genResource(2))
	mustWrite(t, f, s)
	if backup, _ := os.ReadFile(path + BackupSuffix); !bytes.Equal(backup, first) {
		t.Errorf("backup is not the previous snapshot")
	}
	second, _ := os.ReadFile(path)
	s.Resources = s.Resources[1:]
	mustWrite(t, f, s)
	if backup, _ := os.ReadFile(path + BackupSuffix); !bytes.Equal(backup, second) {
		t.Errorf("backup is not the previous snapshot after a second write")
	}
	// Writing the same content keeps the backup as it was.
	mustWrite(t, f, s)
	if backup, _ := os.ReadFile(path + BackupSuffix); !bytes.Equal(backup, second) {
		t.Errorf("an unchanged write replaced the backup")
	}
}

func TestWriteConflicts(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		edit func(t *testing.T, path string, s *State)
		is   error
	}{
		{"another lineage", func(t *testing.T, path string, s *State) { s.Lineage = "someone-else" }, ErrLineageMismatch},
		{"older serial", func(t *testing.T, path string, s *State) { s.Serial-- }, ErrSerialConflict},
		{"written by another process meanwhile", func(t *testing.T, path string, s *State) {
			g, _ := OpenFile(path, FileOptions{})
			other := mustRead(t, g)
			other.Resources = append(other.Resources, genResource(9))
			mustWrite(t, g, other)
		}, ErrSerialConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, path := openTemp(t)
			s := mustRead(t, f)
			s.Resources = []Resource{genResource(1)}
			mustWrite(t, f, s)
			s.Resources = append(s.Resources, genResource(2))
			c.edit(t, path, s)
			before, _ := os.ReadFile(path)
			err := f.Write(ctx, s)
			if !errors.Is(err, c.is) {
				t.Fatalf("error %v, want %v", err, c.is)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("a refused write changed the file")
			}
		})
	}
}

func TestCorruptStateIsNeverOverwritten(t *testing.T) {
	ctx := context.Background()
	cases := map[string]string{
		"garbage":       "{{{",
		"wrong version": `{"version": 2, "serial": 1, "lineage": "x", "resources": []}`,
		"empty file":    "",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			f, path := openTemp(t)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := f.Read(ctx)
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("read error %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			s := &State{Resources: []Resource{genResource(1)}}
			if err := f.Write(ctx, s); err == nil {
				t.Fatal("Write replaced a corrupt state")
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("corrupt state was modified")
			}
		})
	}
}

// TestHandEditedStateReadsAndWrites: a file formatted by hand (not
// canonical) reads fine, and rewriting the same content does not bump
// the serial.
func TestHandEditedStateReadsAndWrites(t *testing.T) {
	f, path := openTemp(t)
	content := `{"version":1,"serial":7,"lineage":"hand","resources":[{"address":"a","type":"t","management":"managed","driver":{"name":"noop"},"spec":{"x":1.0},"feedback":{"status":{"active":false,"converging":false,"failed":false},"backend_code":1}}]}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustRead(t, f)
	if got := s.Resources[0].Spec["x"]; got != float64(1) {
		t.Errorf("1.0 read as %#v, want float64 1 (graph.DecodeValue)", got)
	}
	mustWrite(t, f, s)
	if s.Serial != 7 {
		t.Errorf("unchanged content bumped the serial to %d", s.Serial)
	}
	s.Resources[0].Spec["x"] = "changed"
	mustWrite(t, f, s)
	if s.Serial != 8 || s.Lineage != "hand" {
		t.Errorf("after a change: serial %d lineage %q", s.Serial, s.Lineage)
	}
}

func TestOverwriteValidates(t *testing.T) {
	f, path := openTemp(t)
	bad := &State{Serial: 3, Lineage: "", Resources: []Resource{{Address: "a", Management: graph.Managed}}}
	if err := f.Overwrite(context.Background(), bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Overwrite of a state without lineage: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an invalid overwrite created the file")
	}
}

// TestSymlinkedStateSharesOneLock: a state named through a symbolic link
// is the file the link resolves to: both names take the same lock (two
// applies through them would each run every create), the journal and
// backup live beside the real file, and a write keeps the link a link.
func TestSymlinkedStateSharesOneLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	real := filepath.Join(dir, "real", DefaultPath)
	if err := os.Mkdir(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	// A link to a state that does not exist yet: the first write creates
	// the file it names.
	if err := os.Symlink(filepath.Join("real", DefaultPath), link); err != nil {
		t.Fatal(err)
	}
	viaLink, _ := OpenFile(link, FileOptions{})
	viaReal, _ := OpenFile(real, FileOptions{})
	held, err := viaLink.Lock(ctx, LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viaReal.Lock(ctx, LockInfo{Operation: "apply"}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second writer through the real name took the lock: %v", err)
	}
	if viaLink.Path() != viaReal.Path() {
		t.Errorf("the link resolves to %s, the file is %s", viaLink.Path(), viaReal.Path())
	}
	s := mustRead(t, viaLink)
	s.Resources = []Resource{genResource(1)}
	mustWrite(t, viaLink, s)
	s.Resources = append(s.Resources, genResource(2))
	mustWrite(t, viaLink, s)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the write replaced the link: %v", err)
	}
	for _, name := range []string{real, real + BackupSuffix} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Lstat(link + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup beside the link: %v", err)
	}
	if got := addresses(mustRead(t, viaReal)); len(got) != 2 {
		t.Errorf("read through the real name: %v", got)
	}
	_ = held.Unlock()
}

// compactOneMore journals the create of one more resource and folds the
// journal into the snapshot.
func compactOneMore(ctx context.Context, t *testing.T, f *File) {
	t.Helper()
	j, err := f.OpenJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := genResource(2)
	if _, err := j.Append(ctx, Record{Kind: RecordOutcome, Address: r.Address, Action: "create", Resource: &r}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Compact(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsSurviveJournalCompaction: the outputs of the snapshot are
// kept when an apply's journal is folded into it, and read back as
// written, sensitive ones in clear.
func TestOutputsSurviveJournalCompaction(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	s := mustRead(t, f)
	s.Resources = []Resource{genResource(1)}
	s.Outputs = map[string]Output{"url": {Value: "http://x"}, "list": {Value: []graph.Value{int64(1), "b"}}, "key": {Value: "k3y", Sensitive: true}}
	mustWrite(t, f, s)
	compactOneMore(ctx, t, f)
	g, _ := OpenFile(path, FileOptions{})
	got := mustRead(t, g)
	if len(got.Resources) != 2 || got.Serial != s.Serial+1 {
		t.Fatalf("compacted state: serial %d, %d resources", got.Serial, len(got.Resources))
	}
	if len(got.Outputs) != 3 || got.Outputs["url"].Value != "http://x" || got.Outputs["key"] != (Output{Value: "k3y", Sensitive: true}) ||
		!graph.Equal(got.Outputs["list"].Value, []graph.Value{int64(1), "b"}) {
		t.Errorf("outputs after compaction: %#v", got.Outputs)
	}
}

// TestStateWithoutOutputsIsWrittenAsBefore: a state written before
// outputs were recorded reads without them and writes back byte for byte,
// with no "outputs" key and no new serial.
func TestStateWithoutOutputsIsWrittenAsBefore(t *testing.T) {
	old := []byte("{\n  \"version\": 1,\n  \"serial\": 3,\n  \"lineage\": \"l\",\n  \"resources\": []\n}\n")
	s, err := Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	if s.Outputs != nil {
		t.Errorf("outputs = %#v, want none", s.Outputs)
	}
	again, err := Encode(s)
	if err != nil || !bytes.Equal(again, old) {
		t.Errorf("re-encoded as %q (%v)", again, err)
	}
}

// TestSyncRecordSurvivesCompactionAndRoundTrips: the synchronizer's last
// resync time is written after the outputs, read back as written, kept
// when an apply's journal is folded into the snapshot, and a state
// without it still has no "sync" key.
func TestSyncRecordSurvivesCompactionAndRoundTrips(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	s := mustRead(t, f)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	s.Resources = []Resource{genResource(1)}
	s.Outputs = map[string]Output{"url": {Value: "http://x"}}
	s.Sync = &SyncInfo{LastResync: at}
	mustWrite(t, f, s)
	compactOneMore(ctx, t, f)
	g, _ := OpenFile(path, FileOptions{})
	got := mustRead(t, g)
	if got.Sync == nil || !got.Sync.LastResync.Equal(at) || len(got.Outputs) != 1 {
		t.Fatalf("after compaction: sync %#v, outputs %#v", got.Sync, got.Outputs)
	}
	data, err := Encode(got)
	if err != nil || !bytes.Contains(data, []byte("\"sync\": {\n    \"last_resync\": \"2026-11-25T10:00:00Z\"\n  }\n}\n")) {
		t.Errorf("encoded as %s (%v)", data, err)
	}
	if again, err := Decode(data); err != nil || again.Sync == nil || !again.Sync.LastResync.Equal(at) {
		t.Errorf("decoded again: %#v (%v)", again, err)
	}
	got.Sync, got.Outputs = nil, nil
	if data, _ := Encode(got); bytes.Contains(data, []byte("sync")) {
		t.Errorf("a state without a sync record names one: %s", data)
	}
}
