package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

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
}

// journalBase is the first line of a journal: the snapshot it extends.
// A journal whose base is not the current snapshot is stale and ignored.
type journalBase struct {
	Kind    RecordKind `json:"kind"`
	Version int        `json:"version"`
	Lineage string     `json:"lineage"`
	Serial  uint64     `json:"serial"`
}

// Errors of the journal; compare with errors.Is.
var (
	// ErrJournalClosed: Append after Close.
	ErrJournalClosed = errors.New("journal is closed")
	// ErrJournalCorrupt: a checksummed journal line does not decode, or
	// records are out of order. A torn last line is not corruption.
	ErrJournalCorrupt = errors.New("journal is corrupt")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A journal line is "<crc32c of payload, 8 hex digits> <payload JSON>\n".
// The payload never holds a newline (JSON escapes it), so a line that lacks
// its newline or whose checksum fails was torn by a crash.
const crcLen = 8

func frameLine(dst, payload []byte) []byte {
	dst = fmt.Appendf(dst, "%08x ", crc32.Checksum(payload, castagnoli))
	dst = append(dst, payload...)
	return append(dst, '\n')
}

// encodeRecordLine renders a record as one framed journal line.
func encodeRecordLine(dst []byte, r *Record) ([]byte, error) {
	e := encoder{b: make([]byte, 0, 256), compact: true}
	o := e.beginObject()
	o.key("seq").uint(r.Seq)
	o.key("kind").str(string(r.Kind))
	o.key("address").str(r.Address)
	if r.Action != "" {
		o.key("action").str(r.Action)
	}
	if r.Attempt != 0 {
		o.key("attempt").int(int64(r.Attempt))
	}
	if r.Resource != nil {
		res := normalizeForEncode(*r.Resource)
		o.key("resource").resource(&res)
	}
	if r.Removed {
		o.key("removed").bool(true)
	}
	if pr := r.Process; pr != nil {
		po := o.key("process").beginObject()
		po.key("pid").int(int64(pr.PID))
		po.key("pgid").int(int64(pr.PGID))
		if pr.Start != "" {
			po.key("start").str(pr.Start)
		}
		po.end()
	}
	o.key("time").time(r.Time)
	o.end()
	if e.err != nil {
		return dst, fmt.Errorf("encoding journal record for %s: %w", r.Address, e.err)
	}
	return frameLine(dst, e.b), nil
}

// journalScan is what a journal file holds.
type journalScan struct {
	base    *journalBase // nil: no valid first line
	records []Record     // sorted by Seq
	// valid is the length of the intact prefix; torn counts the bytes
	// after it, left by a crash in the middle of a write.
	valid, torn int64
}

// scanJournal parses a journal. It stops at the first line that lacks its
// newline or fails its checksum: the writer only starts a batch after the
// previous one is on disk, so nothing after a torn line was acknowledged.
// A line whose checksum holds yet does not decode is ErrJournalCorrupt.
func scanJournal(data []byte) (journalScan, error) {
	var sc journalScan
	off := 0
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		line := data[off : off+nl]
		if len(line) < crcLen+2 || line[crcLen] != ' ' {
			break
		}
		want, err := strconv.ParseUint(string(line[:crcLen]), 16, 32)
		payload := line[crcLen+1:]
		if err != nil || crc32.Checksum(payload, castagnoli) != uint32(want) {
			break
		}
		lineNo := len(sc.records) + 1
		if sc.base == nil {
			var b journalBase
			if err := json.Unmarshal(payload, &b); err != nil || b.Kind != recordBase {
				return sc, fmt.Errorf("%w: line 1 is not a journal header", ErrJournalCorrupt)
			}
			sc.base = &b
		} else {
			rec, err := decodeRecord(payload)
			if err != nil {
				return sc, fmt.Errorf("%w: line %d: %w", ErrJournalCorrupt, lineNo+1, err)
			}
			sc.records = append(sc.records, rec)
		}
		off += nl + 1
	}
	sc.valid = int64(off)
	sc.torn = int64(len(data) - off)
	// Appenders encode outside the writer's lock, so lines may be slightly
	// out of seq order; the order that matters is seq.
	slices.SortStableFunc(sc.records, func(a, b Record) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	for i := 1; i < len(sc.records); i++ {
		if sc.records[i].Seq == sc.records[i-1].Seq {
			return sc, fmt.Errorf("%w: seq %d appears twice", ErrJournalCorrupt, sc.records[i].Seq)
		}
	}
	return sc, nil
}

func decodeRecord(payload []byte) (Record, error) {
	r, err := parseRecord(payload)
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

// Journal is the apply journal: an append-only file of intent and outcome
// records. Append returns only once its record is on disk. Appends from
// concurrent goroutines are group-committed: while one write+fsync runs,
// new records gather, and the next write+fsync covers them all. A
// dedicated goroutine does the writing; Close stops it.
type Journal struct {
	file    *os.File
	path    string
	now     func() time.Time
	onClose func()

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
	buf  []byte
	n    int
	done chan struct{}
	err  error
}

// OpenJournal opens the apply journal beside the state. A journal left by
// an interrupted apply of the current snapshot is continued (its torn tail,
// if any, cut off); a stale one is replaced. While the journal is open
// this File refuses Write and Compact. The caller should hold the lock.
func (f *File) OpenJournal(ctx context.Context) (*Journal, error) {
	unlock, err := f.lockIdle(ctx, "opening journal")
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := f.current()
	if err != nil {
		return nil, err
	}
	path := f.path + JournalSuffix
	next := uint64(1)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	sc, scanErr := scanJournal(data)
	continuing := err == nil && scanErr == nil && sc.base != nil &&
		sc.base.Lineage == cur.lineage && sc.base.Serial == cur.serial
	if continuing {
		if n := len(sc.records); n > 0 {
			next = sc.records[n-1].Seq + 1
		}
		if sc.torn > 0 {
			if err := truncateSync(path, sc.valid); err != nil {
				return nil, fmt.Errorf("opening journal: cutting its torn tail: %w", err)
			}
		}
	} else {
		if scanErr != nil && sc.base != nil && sc.base.Lineage == cur.lineage && sc.base.Serial == cur.serial {
			// A corrupt journal of the current snapshot holds records
			// the state has not absorbed: refuse rather than discard them.
			return nil, fmt.Errorf("opening journal %s: %w", path, scanErr)
		}
		head, err := json.Marshal(journalBase{Kind: recordBase, Version: FormatVersion, Lineage: cur.lineage, Serial: cur.serial})
		if err != nil {
			return nil, err
		}
		if _, err := writeAtomicPlain(path, frameLine(nil, head)); err != nil {
			return nil, fmt.Errorf("creating journal: %w", err)
		}
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("opening journal: %w", err)
	}
	j := &Journal{
		file:    fh,
		path:    path,
		now:     f.now,
		nextSeq: next,
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	j.onClose = func() {
		f.mu.Lock()
		f.journal = nil
		f.mu.Unlock()
	}
	f.journal = j
	go j.writer()
	return j, nil
}

func truncateSync(path string, size int64) error {
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = fh.Truncate(size)
	if err == nil {
		err = fh.Sync()
	}
	return errors.Join(err, fh.Close())
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
	j.mu.Lock()
	if err := j.usable(); err != nil {
		j.mu.Unlock()
		return nil, err
	}
	first := j.nextSeq
	j.nextSeq += uint64(len(recs))
	j.mu.Unlock()

	seqs := make([]uint64, len(recs))
	var lines []byte
	for i, rec := range recs {
		rec.Seq = first + uint64(i)
		seqs[i] = rec.Seq
		if rec.Time.IsZero() {
			rec.Time = j.now()
		}
		rec.Time = rec.Time.UTC()
		var err error
		if lines, err = encodeRecordLine(lines, &rec); err != nil {
			return nil, err
		}
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
	b.buf = append(b.buf, lines...)
	b.n += len(recs)
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
		err, synced := failed, false
		if err == nil {
			_, err = j.file.Write(b.buf)
			if err == nil {
				err, synced = j.file.Sync(), true
			}
			if err != nil {
				err = fmt.Errorf("writing journal %s: %w", j.path, err)
			}
		}
		j.mu.Lock()
		if synced {
			j.stats.Syncs++
		}
		if err == nil {
			j.stats.Records += uint64(b.n)
			j.stats.Bytes += int64(len(b.buf))
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
// writer goroutine and closes the file. It reports the first write error.
// Calling Close again returns ErrJournalClosed.
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
	err := errors.Join(j.err, j.file.Close())
	j.onClose()
	return err
}
