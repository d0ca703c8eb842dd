package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
)

// Loaded is the state as LoadWithJournal found it.
type Loaded struct {
	// State is the snapshot with the journal's outcomes applied.
	State *State
	// Interrupted lists, by seq, the intents that no outcome followed: the
	// operations a crash cut short. Their resources, when recorded, are
	// marked BackendPending so that the next plan acts on them again.
	Interrupted []Record
	// Replayed counts the outcome records applied over the snapshot.
	Replayed int
	// TornBytes is the size of a torn journal tail that was ignored.
	TornBytes int64
	// StaleJournal is set when a journal was found that belongs to an
	// older snapshot (it had been compacted); it was ignored.
	StaleJournal bool
	// Busy is set (an error wrapping ErrJournalBusy that names the
	// process) when a live process still writes the journal: one that lost
	// its lock to a force-unlock. Its unfinished operations are then
	// listed in Running, not Interrupted: they are still under way, not
	// left by a crash, and no writer may proceed until it ends.
	Busy error
	// Running lists, by seq, the intents without an outcome of a journal
	// that is Busy; their resources are marked BackendPending.
	Running []Record
}

// LoadWithJournal reads the snapshot and replays the apply journal over it:
// outcome records in seq order replace or remove their resource; intents
// without a later outcome for the same address are reported as
// interrupted. A torn last journal line is ignored (TornBytes), never an
// error; a journal of another snapshot is ignored as stale. A corrupt or
// unknown-version snapshot is an error, and so is a damaged journal that
// a crash cannot explain: a *JournalDamageError (ErrJournalCorrupt) whose
// Readable holds what could still be read. What it returns is what a
// later Write of this File compares with (see Write). When a live process
// still writes the journal, its unfinished operations are Running, not
// Interrupted, and Busy says who writes it.
func (f *File) LoadWithJournal(ctx context.Context) (*Loaded, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	busy := journalBusy(f.path + JournalSuffix)
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	f.read = f.seen
	if busy != nil && len(l.Interrupted) > 0 {
		l.Busy, l.Running, l.Interrupted = busy, l.Interrupted, nil
		for _, rec := range l.Running {
			if r, ok := l.State.Lookup(rec.Address); ok {
				r.Feedback.BackendStatus = fmt.Sprintf("running: %s (attempt %d) started at %s has not finished",
					cmpAction(rec.Action), rec.Attempt, rec.Time.UTC().Format(time.RFC3339))
			}
		}
	}
	return l, nil
}

// load reads snapshot and journal and refreshes f.seen. The caller holds
// f.mu.
func (f *File) load() (*Loaded, error) {
	s, data, info, err := f.readSnapshot()
	if err != nil {
		return nil, err
	}
	outs, err := encodeTail(s)
	if err != nil {
		return nil, fmt.Errorf("reading state %s: %w", f.path, err)
	}
	snapRes := canonicalResources(s, data, outs)
	if snapRes == nil {
		if snapRes, err = encodeResources(s.Resources); err != nil {
			return nil, fmt.Errorf("reading state %s: %w", f.path, err)
		}
	}
	l := &Loaded{State: s}
	seen := &seenSnapshot{info: info, serial: s.Serial, lineage: s.Lineage, snapshotRes: snapRes, effectiveRes: snapRes, outputs: outs}

	jpath := f.path + JournalSuffix
	jfile, jinfo, err := userfile.Open(context.Background(), jpath, userfile.Options{MaxBytes: MaxFileBytes})
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading journal: %w", err)
	default:
		jdata, err := readOpen(jfile, jinfo)
		if err != nil {
			return nil, fmt.Errorf("reading journal %s: %w", jpath, err)
		}
		if len(jdata) == 0 {
			break // created empty to be locked (see guard): no journal
		}
		seen.journalInfo = jinfo
		sc, err := scanJournal(jdata)
		current := sc.base != nil && sc.base.Lineage == s.Lineage && sc.base.Serial == s.Serial
		var dmg *JournalDamageError
		switch {
		case errors.As(err, &dmg) && (current || sc.base == nil):
			// Whether a journal with a damaged header is stale cannot be
			// told; it is most likely current, since commits remove
			// journals.
			dmg.Path = jpath
			readable := &Loaded{State: s}
			replay(readable, scanReadable(jdata).records)
			dmg.Readable = readable.State
			return nil, fmt.Errorf("reading journal: %w", dmg)
		case sc.base == nil && err == nil:
			l.TornBytes = sc.torn // the header itself was torn: nothing was acknowledged
		case !current:
			l.StaleJournal = true
		case err != nil:
			return nil, fmt.Errorf("reading journal %s: %w", jpath, err)
		default:
			l.TornBytes = sc.torn
			replay(l, sc.records)
			if len(sc.records) > 0 {
				if seen.effectiveRes, err = encodeResources(s.Resources); err != nil {
					return nil, fmt.Errorf("replaying journal %s: %w", jpath, err)
				}
			}
		}
	}
	f.seen = seen
	return l, nil
}

func readOpen(fh *os.File, info fs.FileInfo) ([]byte, error) {
	defer fh.Close()
	return userfile.ReadAll(context.Background(), fh, fh.Name(), info.Size(), MaxFileBytes)
}

// replay applies records (sorted by seq) to l.State.
func replay(l *Loaded, records []Record) {
	s := l.State
	byAddr := make(map[string]int, len(s.Resources))
	for i, r := range s.Resources {
		byAddr[r.Address] = i
	}
	pending := map[string]Record{}
	removed := map[string]bool{}
	for _, rec := range records {
		switch rec.Kind {
		case RecordIntent:
			pending[rec.Address] = rec
		case RecordOutcome:
			delete(pending, rec.Address)
			l.Replayed++
			i, ok := byAddr[rec.Address]
			if rec.Removed {
				if ok {
					removed[rec.Address] = true
				}
				continue
			}
			res := *rec.Resource
			res.Address = rec.Address
			if ok {
				s.Resources[i] = res
				delete(removed, rec.Address)
			} else {
				byAddr[rec.Address] = len(s.Resources)
				s.Resources = append(s.Resources, res)
			}
		}
	}
	if len(removed) > 0 {
		s.Resources = slices.DeleteFunc(s.Resources, func(r Resource) bool { return removed[r.Address] })
	}
	slices.SortFunc(s.Resources, func(a, b Resource) int { return strings.Compare(a.Address, b.Address) })
	for _, rec := range pending {
		l.Interrupted = append(l.Interrupted, rec)
		if r, ok := s.Lookup(rec.Address); ok {
			r.Feedback.BackendCode = BackendPending
			r.Feedback.BackendStatus = fmt.Sprintf("interrupted: %s (attempt %d) started at %s did not finish",
				cmpAction(rec.Action), rec.Attempt, rec.Time.UTC().Format(time.RFC3339))
		}
	}
	slices.SortFunc(l.Interrupted, func(a, b Record) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
}

func cmpAction(a string) string {
	if a == "" {
		return "an operation"
	}
	return a
}

// Compact folds the apply journal into the snapshot: when the replayed
// state differs from the snapshot it is written atomically with serial+1;
// then the journal is removed. It returns what was loaded. The caller
// holds the lock; a journal open through this File must be closed first.
//
// When this File wrote the journal, Compact checks that the snapshot is
// still the one that journal extends and the journal still the one it
// closed: otherwise another process changed the state meanwhile, and
// Compact returns a *ConflictError and leaves the journal alone. Like
// Write, it returns ErrLockLost when the lock taken through this File was
// forced away; the journal then stays, and the next load replays it.
func (f *File) Compact(ctx context.Context) (*Loaded, error) {
	unlock, err := f.lockIdle(ctx, "compacting state")
	if err != nil {
		return nil, err
	}
	defer unlock()
	g, err := f.guard()
	if err != nil {
		return nil, err
	}
	defer g.release()
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	if w := f.wrote; w != nil {
		moved := l.State.Lineage != w.lineage || l.State.Serial != w.serial
		if moved || w.info == nil || !sameJournal(f.seen.journalInfo, w.info) {
			return nil, &ConflictError{Path: f.path, ExpectedLineage: w.lineage, FoundLineage: l.State.Lineage,
				ExpectedSerial: w.serial, FoundSerial: l.State.Serial, Journal: !moved}
		}
	}
	f.read = f.seen
	if f.seen.journalInfo == nil {
		f.wrote = nil
		return l, nil
	}
	if !f.seen.snapshotRes.equal(f.seen.effectiveRes) {
		lineage := l.State.Lineage
		if lineage == "" {
			if lineage, err = newLineage(); err != nil {
				return nil, err
			}
		}
		if err := f.commit(g, l.State.Serial+1, lineage, f.seen.effectiveRes, f.seen.outputs); err != nil {
			return nil, err
		}
		l.State.Serial, l.State.Lineage = l.State.Serial+1, lineage
		return l, nil
	}
	g.remove()
	f.seen.journalInfo = nil
	f.wrote = nil
	return l, nil
}
