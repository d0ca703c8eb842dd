package state

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func openJournal(t testing.TB, f *File) *Journal {
	t.Helper()
	j, err := f.OpenJournal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func appendAll(t testing.TB, j *Journal, recs ...Record) []uint64 {
	t.Helper()
	var seqs []uint64
	for _, r := range recs {
		seq, err := j.Append(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

func outcome(r Resource) Record {
	return Record{Kind: RecordOutcome, Address: r.Address, Resource: &r}
}

func intent(addr, action string) Record {
	return Record{Kind: RecordIntent, Address: addr, Action: action, Attempt: 1}
}

func removal(addr string) Record {
	return Record{Kind: RecordOutcome, Address: addr, Removed: true}
}

// TestReplay applies journals over a snapshot of app_00000..app_00002 and
// checks the resulting addresses, interrupted intents and replay counts.
func TestReplay(t *testing.T) {
	edited := genResource(1)
	edited.Spec["port"] = int64(1)
	cases := []struct {
		name        string
		records     []Record
		wantAddrs   []string
		interrupted []string
		replayed    int
		check       func(t *testing.T, s *State)
	}{
		{"nothing", nil, []string{"app_00000", "app_00001", "app_00002"}, nil, 0, nil},
		{"create", []Record{intent("app_00009", "create"), outcome(genResource(9))},
			[]string{"app_00000", "app_00001", "app_00002", "app_00009"}, nil, 1, nil},
		{"update", []Record{intent("app_00001", "update"), outcome(edited)},
			[]string{"app_00000", "app_00001", "app_00002"}, nil, 1, func(t *testing.T, s *State) {
				if r, _ := s.Lookup("app_00001"); r.Spec["port"] != int64(1) {
					t.Errorf("update not replayed: port %v", r.Spec["port"])
				}
			}},
		{"delete", []Record{intent("app_00000", "delete"), removal("app_00000")},
			[]string{"app_00001", "app_00002"}, nil, 1, nil},
		{"delete then create again, in order", []Record{removal("app_00000"), outcome(genResource(0))},
			[]string{"app_00000", "app_00001", "app_00002"}, nil, 2, nil},
		{"create then delete, in order", []Record{outcome(genResource(7)), removal("app_00007")},
			[]string{"app_00000", "app_00001", "app_00002"}, nil, 2, nil},
		{"removal of an unknown address", []Record{removal("ghost")},
			[]string{"app_00000", "app_00001", "app_00002"}, nil, 1, nil},
		{"interrupted update", []Record{intent("app_00002", "update"), intent("app_00008", "create"), outcome(genResource(8)), intent("app_00001", "delete")},
			[]string{"app_00000", "app_00001", "app_00002", "app_00008"}, []string{"app_00002", "app_00001"}, 1, func(t *testing.T, s *State) {
				r, _ := s.Lookup("app_00002")
				if r.Feedback.BackendCode != BackendPending || !strings.HasPrefix(r.Feedback.BackendStatus, "interrupted: update (attempt 1)") {
					t.Errorf("interrupted resource not marked: %d %q", r.Feedback.BackendCode, r.Feedback.BackendStatus)
				}
				if r, _ := s.Lookup("app_00008"); r.Feedback.BackendCode != BackendOK {
					t.Errorf("completed resource marked: %d", r.Feedback.BackendCode)
				}
			}},
		{"retried: second intent, then the outcome", []Record{intent("app_00001", "update"), intent("app_00001", "update"), outcome(edited)},
			[]string{"app_00000", "app_00001", "app_00002"}, nil, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _ := openTemp(t)
			s := mustRead(t, f)
			s.Resources = []Resource{genResource(0), genResource(1), genResource(2)}
			mustWrite(t, f, s)
			j := openJournal(t, f)
			appendAll(t, j, c.records...)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			l, err := f.LoadWithJournal(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var addrs, inter []string
			for _, r := range l.State.Resources {
				addrs = append(addrs, r.Address)
			}
			for _, r := range l.Interrupted {
				inter = append(inter, r.Address)
			}
			if !slices.Equal(addrs, c.wantAddrs) {
				t.Errorf("addresses %v, want %v", addrs, c.wantAddrs)
			}
			if !slices.Equal(inter, c.interrupted) {
				t.Errorf("interrupted %v, want %v", inter, c.interrupted)
			}
			if l.Replayed != c.replayed || l.StaleJournal {
				t.Errorf("replayed %d (want %d), stale %v", l.Replayed, c.replayed, l.StaleJournal)
			}
			if c.check != nil {
				c.check(t, l.State)
			}
			// Compacting gives the same state, one serial up when the
			// journal changed anything, and no journal.
			before := l.State
			cl, err := f.Compact(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// The serial moves only when the content did.
			wantSerial := uint64(1)
			orig, _ := Encode(&State{Version: 1, Lineage: "x", Resources: []Resource{genResource(0), genResource(1), genResource(2)}})
			if now, _ := Encode(&State{Version: 1, Lineage: "x", Resources: before.Resources}); string(now) != string(orig) {
				wantSerial = 2
			}
			after := mustRead(t, f)
			if after.Serial != wantSerial || cl.State.Serial != wantSerial {
				t.Errorf("serial after compaction %d/%d, want %d", after.Serial, cl.State.Serial, wantSerial)
			}
			a, _ := Encode(&State{Version: 1, Lineage: "x", Resources: before.Resources})
			b, _ := Encode(&State{Version: 1, Lineage: "x", Resources: after.Resources})
			if string(a) != string(b) {
				t.Errorf("compaction changed the content\n%s", firstDifference(a, b))
			}
			if _, err := os.Stat(f.Path() + JournalSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("journal left after compaction: %v", err)
			}
		})
	}
}

// The process group an operation started is read back with its intent,
// and the latest intent of an address (the one naming the process) is the
// one reported as interrupted, so that the next run can end that group.
func TestInterruptedIntentKeepsItsProcessGroup(t *testing.T) {
	f, _ := openTemp(t)
	mustWrite(t, f, mustRead(t, f))
	j := openJournal(t, f)
	started := intent("app_00003", "create")
	started.Process = &Process{PID: 4242, PGID: 4242, Start: "boot:123", Member: "web-2:811"}
	appendAll(t, j, intent("app_00003", "create"), started)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := f.LoadWithJournal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Interrupted) != 1 || l.Interrupted[0].Process == nil || *l.Interrupted[0].Process != *started.Process {
		t.Fatalf("interrupted %+v, want the intent naming process group 4242 of member web-2:811", l.Interrupted)
	}
}

func TestTornJournalTail(t *testing.T) {
	tails := map[string]string{
		"half a line":       `1234abcd {"seq":3,"kind":"outc`,
		"bad checksum":      "00000000 {\"seq\":3,\"kind\":\"intent\",\"address\":\"x\",\"time\":\"2026-01-01T00:00:00Z\"}\n",
		"zeros":             "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"two damaged lines": "garbage\n1234abcd {\"seq\":3,\"kind\":\"outc",
	}
	for name, tail := range tails {
		t.Run(name, func(t *testing.T) {
			f, path := openTemp(t)
			j := openJournal(t, f)
			r := genResource(1)
			appendAll(t, j, intent(r.Address, "create"), outcome(r))
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			fh, err := os.OpenFile(path+JournalSuffix, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(tail)
			fh.Close()
			l, err := f.LoadWithJournal(context.Background())
			if err != nil {
				t.Fatalf("a torn tail failed the load: %v", err)
			}
			if len(l.State.Resources) != 1 || len(l.Interrupted) != 0 || l.TornBytes == 0 {
				t.Fatalf("resources %d, interrupted %v, torn %d", len(l.State.Resources), l.Interrupted, l.TornBytes)
			}
			// Reopening cuts the tail and continues the sequence.
			j = openJournal(t, f)
			seqs := appendAll(t, j, intent("app_00002", "create"))
			j.Close()
			if seqs[0] != 3 {
				t.Errorf("next seq %d, want 3", seqs[0])
			}
			l, err = f.LoadWithJournal(context.Background())
			if err != nil || l.TornBytes != 0 || len(l.Interrupted) != 1 {
				t.Errorf("after reopen: err %v, torn %d, interrupted %v", err, l.TornBytes, l.Interrupted)
			}
		})
	}
}

func TestCorruptJournal(t *testing.T) {
	f, path := openTemp(t)
	j := openJournal(t, f)
	appendAll(t, j, intent("a", "create"))
	j.Close()
	// A line whose checksum holds but which is not a record cannot come
	// from a crash: it is reported, not skipped.
	fh, _ := os.OpenFile(path+JournalSuffix, os.O_WRONLY|os.O_APPEND, 0)
	fh.Write(frameLine(nil, []byte(`{"seq":2,"kind":"mystery","address":"a"}`)))
	fh.Close()
	if _, err := f.LoadWithJournal(context.Background()); !errors.Is(err, ErrJournalCorrupt) {
		t.Fatalf("load: %v", err)
	}
	if _, err := f.OpenJournal(context.Background()); !errors.Is(err, ErrJournalCorrupt) {
		t.Fatalf("a corrupt journal of the current snapshot was replaced: %v", err)
	}
}

func TestStaleJournalIsIgnored(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	j := openJournal(t, f)
	r := genResource(1)
	appendAll(t, j, outcome(r))
	j.Close()
	data, _ := os.ReadFile(path + JournalSuffix)
	if _, err := f.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	// Put the compacted journal back, as if its removal had been lost.
	os.WriteFile(path+JournalSuffix, data, 0o600)
	s := mustRead(t, f)
	s.Resources = nil
	mustWrite(t, f, s)
	os.WriteFile(path+JournalSuffix, data, 0o600)
	l, err := f.LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !l.StaleJournal || len(l.State.Resources) != 0 {
		t.Errorf("stale journal replayed: stale %v, %d resources", l.StaleJournal, len(l.State.Resources))
	}
	// A new apply replaces it.
	j = openJournal(t, f)
	if seqs := appendAll(t, j, intent("x", "create")); seqs[0] != 1 {
		t.Errorf("new journal starts at seq %d", seqs[0])
	}
	j.Close()
}

func TestJournalGuards(t *testing.T) {
	ctx := context.Background()
	f, _ := openTemp(t)
	j := openJournal(t, f)
	if _, err := f.OpenJournal(ctx); !errors.Is(err, ErrJournalOpen) {
		t.Errorf("second OpenJournal: %v", err)
	}
	if err := f.Write(ctx, &State{Resources: []Resource{genResource(1)}}); !errors.Is(err, ErrJournalOpen) {
		t.Errorf("Write with an open journal: %v", err)
	}
	if _, err := f.Compact(ctx); !errors.Is(err, ErrJournalOpen) {
		t.Errorf("Compact with an open journal: %v", err)
	}
	bad := []Record{
		{Kind: "other", Address: "a"},
		{Kind: RecordIntent},
		{Kind: RecordOutcome, Address: "a"},
	}
	for _, r := range bad {
		if _, err := j.Append(ctx, r); err == nil {
			t.Errorf("Append accepted %+v", r)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(ctx, intent("a", "create")); !errors.Is(err, ErrJournalClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if err := j.Close(); !errors.Is(err, ErrJournalClosed) {
		t.Errorf("second Close: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.OpenJournal(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenJournal with a cancelled context: %v", err)
	}
}

// TestGroupCommit: concurrent appenders share fsyncs, every record is
// durable and in the file once, and no goroutine outlives Close.
func TestGroupCommit(t *testing.T) {
	before := runtime.NumGoroutine()
	f, _ := openTemp(t)
	j := openJournal(t, f)
	const writers, each = 10, 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[uint64]bool{}
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				seq, err := j.Append(context.Background(), intent("r"+strconv.Itoa(w*each+i), "create"))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[seq] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st := j.Stats()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*each || st.Records != writers*each {
		t.Fatalf("%d distinct seqs, %d records", len(seen), st.Records)
	}
	if st.Syncs >= st.Records {
		t.Errorf("%d fsyncs for %d records: no group commit", st.Syncs, st.Records)
	}
	t.Logf("%d records, %d fsyncs", st.Records, st.Syncs)
	l, err := f.LoadWithJournal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Interrupted) != writers*each {
		t.Errorf("%d intents read back", len(l.Interrupted))
	}
	for i := 1; i < len(l.Interrupted); i++ {
		if l.Interrupted[i].Seq <= l.Interrupted[i-1].Seq {
			t.Fatal("intents not in seq order")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// TestJournalCrash kills a process that appends records at random moments
// and checks that every record it saw acknowledged survives, and that the
// state loads and compacts.
func TestJournalCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 30 processes")
	}
	runs := 30
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range runs {
		ctx := context.Background()
		f, path := openTemp(t)
		s := mustRead(t, f)
		s.Resources = []Resource{genResource(999999)}
		mustWrite(t, f, s)
		cmd, _, out := startChild(t, "journal", path)
		waitLine(t, out) // the child is up and appending
		acked := map[uint64]string{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				fields := strings.Fields(sc.Text())
				if len(fields) != 3 {
					continue // the kill cut the line
				}
				seq, _ := strconv.ParseUint(fields[0], 10, 64)
				acked[seq] = fields[1] + " " + fields[2]
			}
		}()
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-done
		_ = cmd.Wait()

		data, err := os.ReadFile(path + JournalSuffix)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scanJournal(data)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		inFile := map[uint64]Record{}
		for _, r := range sc.records {
			inFile[r.Seq] = r
		}
		for seq, what := range acked {
			r, ok := inFile[seq]
			if !ok || string(r.Kind)+" "+r.Address != what {
				t.Fatalf("run %d: acknowledged record %d (%s) lost", run, seq, what)
			}
		}
		l, err := f.LoadWithJournal(ctx)
		if err != nil {
			t.Fatalf("run %d: load after kill: %v", run, err)
		}
		for _, what := range acked {
			if addr, ok := strings.CutPrefix(what, "outcome "); ok {
				if _, ok := l.State.Lookup(addr); !ok {
					t.Fatalf("run %d: acknowledged outcome for %s not in the state", run, addr)
				}
			}
		}
		if _, err := f.Compact(ctx); err != nil {
			t.Fatalf("run %d: compact: %v", run, err)
		}
		after := mustRead(t, f)
		if len(after.Resources) != len(l.State.Resources) {
			t.Fatalf("run %d: compaction lost resources", run)
		}
		if run == 0 || run == runs-1 {
			t.Logf("run %d: %d records acknowledged, %d in the file, %d torn bytes, %d interrupted", run, len(acked), len(sc.records), sc.torn, len(l.Interrupted))
		}
	}
}

// TestSnapshotWriteCrash kills a process rewriting the snapshot in a loop:
// the state always loads, at the serial last acknowledged or the next.
func TestSnapshotWriteCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for run := range 10 {
		f, path := openTemp(t)
		s := mustRead(t, f)
		s.Resources = genState(200).Resources
		mustWrite(t, f, s)
		cmd, _, out := startChild(t, "write", path)
		last, _ := strconv.ParseUint(waitLine(t, out), 10, 64)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if n, err := strconv.ParseUint(sc.Text(), 10, 64); err == nil {
					last = n
				}
			}
		}()
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		_ = cmd.Wait()
		g, _ := OpenFile(path, FileOptions{})
		got, err := g.Read(context.Background())
		if err != nil {
			t.Fatalf("run %d: state unreadable after kill: %v", run, err)
		}
		if got.Serial < last || got.Serial > last+1 {
			t.Fatalf("run %d: serial %d after acknowledging %d", run, got.Serial, last)
		}
	}
}

func TestAppendAllIsOneCommit(t *testing.T) {
	ctx := context.Background()
	f, _ := openTemp(t)
	j := openJournal(t, f)
	r := genResource(1)
	if _, err := j.AppendAll(ctx, outcome(r), Record{Kind: "bogus", Address: "x"}); err == nil {
		t.Fatal("AppendAll accepted an invalid record")
	}
	seqs, err := j.AppendAll(ctx, intent("a", "create"), outcome(r), intent("b", "create"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs, []uint64{1, 2, 3}) {
		t.Errorf("seqs %v", seqs)
	}
	if st := j.Stats(); st.Records != 3 || st.Syncs != 1 {
		t.Errorf("stats %+v, want 3 records in 1 fsync", st)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := f.LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Interrupted) != 2 || l.Replayed != 1 {
		t.Errorf("interrupted %v, replayed %d", l.Interrupted, l.Replayed)
	}
}

// journalOfCreates writes a journal of n completed creates (an intent and
// an outcome each, records 1..2n) over an empty state, and returns the
// journal's bytes and where each of its lines starts.
func journalOfCreates(t *testing.T, f *File, n int) ([]byte, []int) {
	t.Helper()
	j := openJournal(t, f)
	for i := range n {
		r := genResource(i)
		appendAll(t, j, intent(r.Address, "create"), outcome(r))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.Path() + JournalSuffix)
	if err != nil {
		t.Fatal(err)
	}
	starts := []int{0}
	for i, c := range data[:len(data)-1] {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return data, starts
}

// TestDamagedJournalRecordBeforeIntactOnesIsAnError: a flipped byte in
// the middle of a journal is not a torn tail: the load fails naming the
// record and the way to recover instead of dropping the completed creates
// after it (which the next apply would run again); apply refuses to open
// it; pull shows what is readable, and pushing that recovers.
func TestDamagedJournalRecordBeforeIntactOnesIsAnError(t *testing.T) {
	ctx := context.Background()
	f, path := openTemp(t)
	s := mustRead(t, f)
	s.Resources = []Resource{genResource(99)}
	mustWrite(t, f, s)
	data, starts := journalOfCreates(t, f, 10)
	// Line 5 is record 4: the outcome of app_00001.
	data[starts[4]+20] ^= 0x04
	if err := os.WriteFile(path+JournalSuffix, data, 0o600); err != nil {
		t.Fatal(err)
	}

	_, err := f.LoadWithJournal(ctx)
	var dmg *JournalDamageError
	if !errors.As(err, &dmg) || !errors.Is(err, ErrJournalCorrupt) {
		t.Fatalf("load of a journal damaged in the middle: %v, want a *JournalDamageError", err)
	}
	if dmg.Line != 5 || dmg.Offset != int64(starts[4]) {
		t.Errorf("damage reported at line %d offset %d, want line 5 offset %d", dmg.Line, dmg.Offset, starts[4])
	}
	for _, want := range []string{"record 4 (line 5, byte offset", path + JournalSuffix, "xosplan state pull", "push --force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if _, err := f.OpenJournal(ctx); !errors.Is(err, ErrJournalCorrupt) {
		t.Fatalf("OpenJournal of a damaged journal: %v", err)
	}

	pulled, err := Pull(ctx, f)
	if !errors.As(err, &dmg) || pulled == nil {
		t.Fatalf("pull of a damaged journal: %v, %d bytes", err, len(pulled))
	}
	readable, err := Decode(pulled)
	if err != nil {
		t.Fatal(err)
	}
	if got := addresses(readable); len(got) != 10 || slices.Contains(got, "app_00001") {
		t.Errorf("readable state holds %v, want the snapshot's resource and the 9 creates whose outcome is intact", got)
	}
	if _, err := Push(ctx, f, pulled, true); err != nil {
		t.Fatalf("push --force of what pull printed: %v", err)
	}
	l, err := f.LoadWithJournal(ctx)
	if err != nil || len(l.State.Resources) != 10 || l.State.Serial != 2 {
		t.Fatalf("after the push: %v, %d resources at serial %d", err, len(l.State.Resources), l.State.Serial)
	}
}

// TestOnlyTheLastJournalLineMayBeTorn walks a flipped byte over every
// line of a journal: only damage in the last line is a torn tail.
func TestOnlyTheLastJournalLineMayBeTorn(t *testing.T) {
	f, _ := openTemp(t)
	data, starts := journalOfCreates(t, f, 3)
	for line, start := range starts {
		damaged := bytes.Clone(data)
		damaged[start+crcLen+3] ^= 0x01
		sc, err := scanJournal(damaged)
		last := line == len(starts)-1
		var dmg *JournalDamageError
		switch {
		case last && err != nil:
			t.Errorf("line %d (the last): %v, want a torn tail", line+1, err)
		case last && (len(sc.records) != len(starts)-2 || sc.valid != int64(start)):
			t.Errorf("line %d (the last): %d records, valid %d, want %d and %d", line+1, len(sc.records), sc.valid, len(starts)-2, start)
		case !last && (!errors.As(err, &dmg) || dmg.Line != line+1):
			t.Errorf("line %d: %v, want damage at line %d", line+1, err, line+1)
		}
	}
}
