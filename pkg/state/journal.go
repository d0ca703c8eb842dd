package state

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
)

// RecordKind says what a journal record stands for.
type RecordKind string

// Record kinds.
const (
	// RecordIntent is written before a driver call.
	RecordIntent RecordKind = "intent"
	// RecordOutcome is written after it, with the resource as now recorded
	// or its removal.
	RecordOutcome RecordKind = "outcome"
	// recordBase opens every journal: the snapshot it applies to.
	recordBase RecordKind = "base"
)

// Record is one line of the apply journal.
type Record struct {
	// Seq orders the records; Append assigns it.
	Seq     uint64     `json:"seq"`
	Kind    RecordKind `json:"kind"`
	Address string     `json:"address"`
	// Action is what the intent is about to run ("create", "update",
	// "delete", or an operation key such as "Standard.configure").
	Action  string `json:"action,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// Resource is, in an outcome, the resource as recorded after the
	// operation: the spec enacted and the feedback observed.
	Resource *Resource `json:"resource,omitempty"`
	// Removed is set in an outcome when the resource no longer exists.
	Removed bool `json:"removed,omitempty"`
	// Process is, in an intent, the process group the operation started;
	// a later run ends it if no outcome followed.
	Process *Process `json:"process,omitempty"`
	// Time is when the record was made (UTC); Append fills it when zero.
	Time time.Time `json:"time"`
}

// Process names the process group of a running operation: its leader's
// pid (also the group id) and a token that tells that process apart from
// a later one given the same pid.
type Process struct {
	PID  int `json:"pid"`
	PGID int `json:"pgid"`
	// Start is the leader's start time as the system counts it (on Linux
	// the boot id and the start time in clock ticks); empty when unknown.
	Start string `json:"start,omitempty"`
	// Member names the member of a synchronizer cluster that ran the
	// operation for its leader (pkg/sync/pgcluster); empty when the
	// process that wrote the journal ran it itself. Such a group ends
	// with its member, never from another process.
	Member string `json:"member,omitempty"`
}

// journalBase is the first line of a journal: the snapshot it extends.
// A journal whose base is not the current snapshot is stale and ignored.
type journalBase struct {
	Kind    RecordKind `json:"kind"`
	Version int        `json:"version"`
	Lineage string     `json:"lineage"`
	Serial  uint64     `json:"serial"`
	// Holder, PID and Host name the process writing the journal (its
	// state lock's ID), for the message of a writer it blocks. Journals
	// of earlier versions have none.
	Holder string `json:"holder,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Host   string `json:"host,omitempty"`
}

// Errors of the journal; compare with errors.Is.
var (
	// ErrJournalClosed: Append after Close.
	ErrJournalClosed = errors.New("journal is closed")
	// ErrJournalCorrupt: a journal line is damaged and intact lines follow
	// it, a checksummed line does not decode, or a seq appears twice (see
	// JournalDamageError). A torn last line is not corruption.
	ErrJournalCorrupt = errors.New("journal is corrupt")
)

// JournalDamageError names a damaged journal line that is not the torn
// last line a crash leaves: intact records follow it (they were
// acknowledged, so the damaged one was too), or its checksum holds but it
// does not decode. The journal is not replayed; Readable is what can
// still be read.
type JournalDamageError struct {
	// Path names the journal.
	Path string
	// Line is the 1-based line (line 1 is the header, line n+1 record n);
	// Offset is where it starts.
	Line   int
	Offset int64
	// Reason says what is wrong with the line.
	Reason string
	// Readable is the snapshot with every intact record of the journal
	// replayed (set by the file backend's loads; nil otherwise).
	Readable *State
}

// Error names the line and the way to recover.
func (e *JournalDamageError) Error() string {
	what := fmt.Sprintf("record %d (line %d, byte offset %d)", e.Line-1, e.Line, e.Offset)
	if e.Line == 1 {
		what = fmt.Sprintf("the header (line 1, byte offset %d)", e.Offset)
	}
	return fmt.Sprintf("%s: %s of %s %s, so it is not a torn last record left by a crash, and nothing was replayed; "+
		"`xosplan state pull` prints what is readable (the snapshot with every intact record replayed): check it, "+
		"then make it the state with `xosplan state push --force`", ErrJournalCorrupt, what, cmp.Or(e.Path, "the journal"), e.Reason)
}

// Unwrap makes errors.Is(err, ErrJournalCorrupt) hold.
func (e *JournalDamageError) Unwrap() error { return ErrJournalCorrupt }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcLen is the length of a journal line's checksum: a line is
// "<crc32c of payload, 8 hex digits> <payload JSON>\n". The payload never
// holds a newline (JSON escapes it), so a line that lacks its newline or
// whose checksum fails was torn by a crash.
const crcLen = 8

func frameLine(dst, payload []byte) []byte {
	dst = fmt.Appendf(dst, "%08x ", crc32.Checksum(payload, castagnoli))
	dst = append(dst, payload...)
	return append(dst, '\n')
}

// encodeRecordLine renders a record as one framed journal line.
func encodeRecordLine(dst []byte, r *Record) ([]byte, error) {
	payload, err := encodeRecord(r)
	if err != nil {
		return dst, err
	}
	return frameLine(dst, payload), nil
}

// encodeRecord renders a record as its canonical JSON, on one line.
func encodeRecord(r *Record) ([]byte, error) {
	w := newWriter(make([]byte, 0, 256), false)
	o := w.BeginObject()
	o.Field("seq").Uint(r.Seq)
	o.Field("kind").String(string(r.Kind))
	o.Field("address").String(r.Address)
	if r.Action != "" {
		o.Field("action").String(r.Action)
	}
	if r.Attempt != 0 {
		o.Field("attempt").Int(int64(r.Attempt))
	}
	if r.Resource != nil {
		res := normalizeForEncode(*r.Resource)
		writeResource(o.Field("resource"), &res)
	}
	if r.Removed {
		o.Field("removed").Bool(true)
	}
	if pr := r.Process; pr != nil {
		po := o.Field("process").BeginObject()
		po.Field("pid").Int(int64(pr.PID))
		po.Field("pgid").Int(int64(pr.PGID))
		if pr.Start != "" {
			po.Field("start").String(pr.Start)
		}
		if pr.Member != "" {
			po.Field("member").String(pr.Member)
		}
		po.End()
	}
	writeTime(o.Field("time"), r.Time)
	o.End()
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding journal record for %s: %w", r.Address, err)
	}
	return w.Buf, nil
}

// journalScan is what a journal file holds.
type journalScan struct {
	base *journalBase // nil: no valid first line
	// headerEnd is where the first record line starts.
	headerEnd int64
	records   []Record // sorted by Seq
	// valid is the length of the intact prefix; torn counts the bytes
	// after it, left by a crash in the middle of a write.
	valid, torn int64
}

// scanJournal parses a journal. A damaged line (no newline, or a checksum
// that fails) ends it when no intact line follows: that is the torn tail
// of a write a crash cut short, never acknowledged. A damaged line that
// intact ones follow cannot come from a crash (the writer only writes
// after the previous write is on disk), and neither can a checksummed
// line that does not decode: both are a *JournalDamageError.
func scanJournal(data []byte) (journalScan, error) { return scanLines(data, false) }

// scanReadable collects every intact record, skipping damaged lines: what
// `state pull` shows of a damaged journal.
func scanReadable(data []byte) journalScan {
	sc, _ := scanLines(data, true)
	return sc
}

func scanLines(data []byte, skipDamage bool) (journalScan, error) {
	var sc journalScan
	// The records of one apply repeat the same keys, types and driver
	// names; one table shares them across every record held.
	strs := make(map[string]string, 256)
	off, line := 0, 0
	for off < len(data) {
		line++
		payload, next, ok := frameAt(data, off)
		switch {
		case ok:
		case skipDamage:
			off = next
			continue
		case intactAfter(data, next):
			return sc, &JournalDamageError{Line: line, Offset: int64(off), Reason: "is damaged (its checksum does not match) and intact records follow it"}
		}
		if !ok {
			break
		}
		if line == 1 {
			var b journalBase
			if err := json.Unmarshal(payload, &b); err != nil || b.Kind != recordBase {
				if !skipDamage {
					return sc, &JournalDamageError{Line: 1, Reason: "is not a journal header, yet its checksum holds"}
				}
			} else {
				sc.base = &b
			}
			sc.headerEnd = int64(next)
		} else {
			rec, err := decodeRecord(payload, strs)
			switch {
			case err == nil:
				sc.records = append(sc.records, rec)
			case !skipDamage:
				return sc, &JournalDamageError{Line: line, Offset: int64(off), Reason: "does not decode (" + err.Error() + "), yet its checksum holds"}
			}
		}
		off = next
	}
	sc.valid = int64(off)
	sc.torn = int64(len(data) - off)
	// Appenders encode outside the writer's lock, so lines may be slightly
	// out of seq order; the order that matters is seq.
	slices.SortStableFunc(sc.records, func(a, b Record) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := 1; i < len(sc.records); i++ {
		if sc.records[i].Seq != sc.records[i-1].Seq {
			continue
		}
		if !skipDamage {
			return sc, fmt.Errorf("%w: seq %d appears twice", ErrJournalCorrupt, sc.records[i].Seq)
		}
		sc.records = slices.Delete(sc.records, i, i+1)
		i--
	}
	return sc, nil
}

// frameAt returns the payload of the line that starts at off when the line
// is intact: it ends with a newline, and its checksum (8 lowercase hex
// digits and a space before the payload) matches. next is where the
// following line starts (len(data) when there is no newline).
func frameAt(data []byte, off int) (payload []byte, next int, ok bool) {
	nl := bytes.IndexByte(data[off:], '\n')
	if nl < 0 {
		return nil, len(data), false
	}
	line := data[off : off+nl]
	next = off + nl + 1
	if len(line) < crcLen+2 || line[crcLen] != ' ' {
		return nil, next, false
	}
	var want uint32
	for _, c := range line[:crcLen] {
		switch {
		case '0' <= c && c <= '9':
			want = want<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			want = want<<4 | uint32(c-'a'+10)
		default:
			return nil, next, false
		}
	}
	payload = line[crcLen+1:]
	return payload, next, crc32.Checksum(payload, castagnoli) == want
}

// intactAfter reports whether an intact line starts at or after off.
func intactAfter(data []byte, off int) bool {
	for off < len(data) {
		_, next, ok := frameAt(data, off)
		if ok {
			return true
		}
		off = next
	}
	return false
}

// DecodeRecord parses a record that encodeRecord wrote (a journal line's
// payload, a journal row of a database backend) and checks it as a
// journal load does.
func DecodeRecord(payload []byte) (Record, error) { return decodeRecord(payload, nil) }

// decodeRecord is DecodeRecord interning the record's strings in strs
// when it is not nil.
func decodeRecord(payload []byte, strs map[string]string) (Record, error) {
	r, err := parseRecord(payload, strs)
	if err != nil {
		return r, err
	}
	switch r.Kind {
	case RecordIntent:
	case RecordOutcome:
		if r.Resource == nil && !r.Removed {
			return r, fmt.Errorf("outcome %d for %s has neither a resource nor a removal", r.Seq, r.Address)
		}
	default:
		return r, fmt.Errorf("record %d has unknown kind %q", r.Seq, r.Kind)
	}
	if r.Address == "" || r.Seq == 0 {
		return r, fmt.Errorf("record without address or seq")
	}
	if r.Resource != nil {
		if r.Resource.Address == "" {
			r.Resource.Address = r.Address
		}
		if r.Resource.Spec == nil {
			r.Resource.Spec = map[string]graph.Value{}
		}
	}
	return r, nil
}

// JournalStats counts what a journal wrote since it was opened.
type JournalStats struct {
	Records uint64 // records made durable
	Syncs   uint64 // fsync calls
	Bytes   int64  // bytes written
}

// Journal is the apply journal: an append-only sequence of intent and
// outcome records. Append returns only once its record is durable.
// Appends from concurrent goroutines are group-committed: while one
// commit runs, new records gather, and the next commit covers them all. A
// dedicated goroutine does the committing; Close stops it. The records go
// to a JournalSink: the file backend's is a file beside the state, flocked
// while it is open so that no other process folds, replaces or appends to
// it; a database backend's is rows.
type Journal struct {
	sink JournalSink
	now  func() time.Time
	// lockLost reports, before an intent is written, that the state lock
	// was taken away (nil: no lock to check).
	lockLost func() error

	mu      sync.Mutex
	nextSeq uint64
	cur     *batch // records waiting for the next write, nil when none
	closed  bool
	err     error // a failed write or fsync leaves the file unusable
	stats   JournalStats

	kick   chan struct{} // capacity 1: "a batch is waiting"
	stop   chan struct{}
	exited chan struct{}
}

// batch is one group commit: every appender in it waits on done.
type batch struct {
	entries []JournalEntry
	done    chan struct{}
	err     error
}

// JournalEntry is one record as a JournalSink stores it.
type JournalEntry struct {
	Seq     uint64
	Kind    RecordKind
	Address string
	// Payload is the record's canonical JSON, on one line; DecodeRecord
	// reads it back.
	Payload []byte
}

// JournalSink is where a Journal's group commits go.
type JournalSink interface {
	// Commit makes entries (in seq order) durable before it returns.
	// After a failure the Journal commits nothing more: what was stored
	// is unknown.
	Commit(entries []JournalEntry) error
	// Close ends the sink's hold on the journal; the Journal calls it once,
	// after its last Commit.
	Close() error
}

// JournalOptions tune NewJournal.
type JournalOptions struct {
	// Next is the first seq Append assigns (1 when zero): one more than
	// the last record of a journal being continued.
	Next uint64
	// Now returns the time records are stamped with; nil means time.Now.
	Now func() time.Time
	// LockLost, when set, is called before records holding an intent are
	// written; an error from it refuses them (nothing new may start once
	// another process may hold the lock).
	LockLost func() error
}

// NewJournal starts a journal committing to sink; Close stops it. Backends
// outside this package build their journals with it.
func NewJournal(sink JournalSink, opts JournalOptions) *Journal {
	if opts.Next == 0 {
		opts.Next = 1
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	j := &Journal{
		sink:     sink,
		now:      opts.Now,
		lockLost: opts.LockLost,
		nextSeq:  opts.Next,
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
	go j.writer()
	return j
}

// fileSink writes a journal's records as checksummed lines of a file.
type fileSink struct {
	fh      diskFile
	path    string
	buf     []byte
	onClose func(fs.FileInfo)
}

func (s *fileSink) Commit(entries []JournalEntry) error {
	buf := s.buf[:0]
	for _, e := range entries {
		buf = frameLine(buf, e.Payload)
	}
	s.buf = buf
	if _, err := s.fh.Write(buf); err != nil {
		return fmt.Errorf("writing journal %s: %w", s.path, err)
	}
	if err := s.fh.Sync(); err != nil {
		return fmt.Errorf("writing journal %s: %w", s.path, err)
	}
	return nil
}

// Close closes the file, which ends its flock.
func (s *fileSink) Close() error {
	info, _ := s.fh.Stat() // nil: Compact then cannot tell the journal is still this one
	err := s.fh.Close()
	s.onClose(info)
	return err
}

// OpenJournal opens the apply journal beside the state. A journal left by
// an interrupted apply of the current snapshot is continued (its intact
// records copied under a new header naming this process, a torn tail
// dropped); a stale one is replaced; a damaged one is refused
// (*JournalDamageError). While the journal is open this File refuses
// Write and Compact. The caller should hold the lock: when it took it
// through this File, OpenJournal fails with ErrLockLost if a force-unlock
// took it away, with a *ConflictError if the state changed since this File
// last loaded it, and with ErrJournalBusy while another live process
// writes the journal.
func (f *File) OpenJournal(ctx context.Context) (*Journal, error) {
	unlock, err := f.lockIdle(ctx, "opening journal")
	if err != nil {
		return nil, err
	}
	defer unlock()
	g, err := f.guard()
	if err != nil {
		return nil, err
	}
	defer g.release()
	cur, err := f.current()
	if err != nil {
		return nil, err
	}
	if err := f.unchangedSinceRead(cur); err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	data, sc, current, err := readOldJournal(ctx, g, cur)
	if err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	base := journalBase{Kind: recordBase, Version: FormatVersion, Lineage: cur.lineage, Serial: cur.serial, PID: os.Getpid(), Host: hostName()}
	if f.held != nil {
		base.Holder = f.held.id
	}
	head, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	parts := [][]byte{frameLine(nil, head)}
	next := uint64(1)
	if current {
		parts = append(parts, data[sc.headerEnd:sc.valid])
		if n := len(sc.records); n > 0 {
			next = sc.records[n-1].Seq + 1
		}
	}
	fh, err := replaceJournal(f.fsys, g.path, parts)
	if err != nil {
		return nil, fmt.Errorf("creating journal: %w", err)
	}
	opts := JournalOptions{Next: next, Now: f.now}
	if held := f.held; held != nil {
		opts.LockLost = func() error {
			if held.stillHeld() {
				return nil
			}
			return f.lostError()
		}
	}
	sink := &fileSink{fh: fh, path: g.path, onClose: func(info fs.FileInfo) {
		f.mu.Lock()
		f.journal = nil
		f.wrote = &wroteJournal{lineage: cur.lineage, serial: cur.serial, info: info}
		f.mu.Unlock()
	}}
	f.journal = NewJournal(sink, opts)
	return f.journal, nil
}

// readOldJournal reads and scans the journal the guard holds open;
// current reports whether it continues the snapshot cur. A damaged journal
// of the current snapshot (or one without a header) is an error: it holds
// records the state has not absorbed, refused rather than discarded.
func readOldJournal(ctx context.Context, g *commitGuard, cur *seenSnapshot) (data []byte, sc journalScan, current bool, err error) {
	// The guard opened the journal read-write to flock it: a named pipe
	// or a device there is refused by its type, and the read is bounded.
	jinfo, err := userfile.Check(g.fh, g.path, userfile.Options{MaxBytes: MaxFileBytes})
	if err != nil {
		return nil, sc, false, err
	}
	data, err = userfile.ReadAll(ctx, g.fh, g.path, jinfo.Size(), MaxFileBytes)
	if err != nil {
		return nil, sc, false, err
	}
	sc, scanErr := scanJournal(data)
	current = sc.base != nil && sc.base.Lineage == cur.lineage && sc.base.Serial == cur.serial
	if scanErr != nil && (current || sc.base == nil) {
		var dmg *JournalDamageError
		if errors.As(scanErr, &dmg) {
			dmg.Path = g.path
		}
		return nil, sc, false, scanErr
	}
	return data, sc, current, nil
}

// replaceJournal writes parts as the new journal at path. It is flocked
// before it takes the old one's place, so that it is never there
// unguarded.
func replaceJournal(fsys fileSystem, path string, parts [][]byte) (diskFile, error) {
	fh, _, err := stage(fsys, path, parts)
	if err != nil {
		return nil, err
	}
	if err := flockNB(fh.Fd()); err != nil {
		fh.Close()
		os.Remove(fh.Name())
		return nil, err
	}
	if err := publish(fsys, fh.Name(), path); err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// Append assigns rec the next seq, writes it and returns the seq once the
// record is durable. rec.Resource is read before Append returns and not
// kept. If ctx ends first Append returns ctx's error; the record may still
// reach the disk (callers recording outcomes during a shutdown pass a
// context that is not cancelled). After a failed write or fsync every later
// Append fails too: what reached the disk is unknown.
func (j *Journal) Append(ctx context.Context, rec Record) (uint64, error) {
	seqs, err := j.AppendAll(ctx, rec)
	if len(seqs) == 0 {
		return 0, err
	}
	return seqs[0], err
}

// AppendAll is Append for several records that go into the same group
// commit and are acknowledged together, in order: an executor can record
// one action's outcome and its dependents' intents with a single wait.
// Nothing is written when a record is invalid.
func (j *Journal) AppendAll(ctx context.Context, recs ...Record) ([]uint64, error) {
	for _, rec := range recs {
		if err := checkRecord(rec); err != nil {
			return nil, err
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if j.lockLost != nil && slices.ContainsFunc(recs, func(r Record) bool { return r.Kind == RecordIntent }) {
		// Nothing new may start once another process may hold the lock;
		// outcomes of what already ran are still recorded.
		if err := j.lockLost(); err != nil {
			return nil, err
		}
	}
	j.mu.Lock()
	if err := j.usable(); err != nil {
		j.mu.Unlock()
		return nil, err
	}
	first := j.nextSeq
	j.nextSeq += uint64(len(recs))
	j.mu.Unlock()

	seqs := make([]uint64, len(recs))
	entries := make([]JournalEntry, len(recs))
	for i, rec := range recs {
		rec.Seq = first + uint64(i)
		seqs[i] = rec.Seq
		if rec.Time.IsZero() {
			rec.Time = j.now()
		}
		rec.Time = rec.Time.UTC()
		payload, err := encodeRecord(&rec)
		if err != nil {
			return nil, err
		}
		entries[i] = JournalEntry{Seq: rec.Seq, Kind: rec.Kind, Address: rec.Address, Payload: payload}
	}

	j.mu.Lock()
	if err := j.usable(); err != nil {
		j.mu.Unlock()
		return nil, err
	}
	b := j.cur
	if b == nil {
		b = &batch{done: make(chan struct{})}
		j.cur = b
	}
	b.entries = append(b.entries, entries...)
	j.mu.Unlock()
	select {
	case j.kick <- struct{}{}:
	default: // the writer already knows a batch is waiting
	}
	select {
	case <-b.done:
		return seqs, b.err
	case <-ctx.Done():
		return seqs, ctx.Err()
	}
}

func checkRecord(rec Record) error {
	if rec.Kind != RecordIntent && rec.Kind != RecordOutcome {
		return fmt.Errorf("journal record kind %q is neither %q nor %q", rec.Kind, RecordIntent, RecordOutcome)
	}
	if rec.Address == "" {
		return errors.New("journal record without an address")
	}
	if rec.Kind == RecordOutcome && rec.Resource == nil && !rec.Removed {
		return fmt.Errorf("outcome for %s has neither a resource nor a removal", rec.Address)
	}
	return nil
}

func (j *Journal) usable() error {
	if j.closed {
		return ErrJournalClosed
	}
	return j.err
}

// writer turns waiting records into group commits until Close.
func (j *Journal) writer() {
	defer close(j.exited)
	for {
		select {
		case <-j.kick:
			j.flush()
		case <-j.stop:
			j.flush()
			return
		}
	}
}

// flush writes and syncs batches until none is waiting.
func (j *Journal) flush() {
	for {
		j.mu.Lock()
		b := j.cur
		j.cur = nil
		failed := j.err
		j.mu.Unlock()
		if b == nil {
			return
		}
		err := failed
		if err == nil {
			// Appenders encode outside the lock, so a batch may hold
			// their records slightly out of seq order.
			slices.SortFunc(b.entries, func(x, y JournalEntry) int { return cmp.Compare(x.Seq, y.Seq) })
			err = j.sink.Commit(b.entries)
		}
		j.mu.Lock()
		if failed == nil {
			j.stats.Syncs++
		}
		if err == nil {
			j.stats.Records += uint64(len(b.entries))
			for _, e := range b.entries {
				j.stats.Bytes += int64(len(e.Payload) + crcLen + 2)
			}
		} else if j.err == nil {
			j.err = err
		}
		j.mu.Unlock()
		b.err = err
		close(b.done)
	}
}

// Stats returns the counts so far.
func (j *Journal) Stats() JournalStats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats
}

// Close waits for records already appended to be written, stops the
// writer goroutine and closes the sink (the file backend's file, which
// ends its flock). It reports the first write error. Calling Close again
// returns ErrJournalClosed.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return ErrJournalClosed
	}
	j.closed = true
	j.mu.Unlock()
	close(j.stop)
	<-j.exited
	return errors.Join(j.err, j.sink.Close())
}
