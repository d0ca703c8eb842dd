package pgbackend

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/xosplan/xosplan/pkg/state"
)

// commitTimeout bounds one group commit of the journal: a database that
// stops answering fails the apply rather than hanging it.
const commitTimeout = time.Minute

// OpenJournal opens (or continues) the workspace's apply journal: journal
// rows always extend the current snapshot (a new snapshot removes them in
// its transaction), so an interrupted apply's rows are continued after
// their last seq. The snapshot and journal must be those this Backend last
// loaded (else a *state.ConflictError). While the journal is open this
// Backend refuses Write, Overwrite and Compact. Records are committed on
// the lock's session when the lock was taken through this Backend, so that
// a holder whose lock was forced away cannot append (state.ErrLockLost).
func (b *Backend) OpenJournal(ctx context.Context) (*state.Journal, error) {
	read, _, err := b.idle()
	if err != nil {
		return nil, err
	}
	var base *mark
	err = b.inTx(ctx, "opening the journal of", func(tx pgx.Tx) error {
		cur, err := b.load(ctx, tx)
		if err != nil {
			return err
		}
		if err := b.unchangedSince(read, cur); err != nil {
			return err
		}
		base = cur.mark()
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.journal != nil {
		return nil, fmt.Errorf("opening the journal of %s: %w", b.Location(), state.ErrJournalOpen)
	}
	sink := &rowSink{b: b, base: *base, last: base.lastSeq}
	b.journal = state.NewJournal(sink, state.JournalOptions{Next: base.lastSeq + 1})
	return b.journal, nil
}

// rowSink commits a journal's records as rows.
type rowSink struct {
	b    *Backend
	base mark
	// last is the seq of the last record committed.
	last uint64
}

// Commit inserts entries in one statement, conditional on the snapshot
// still being the journal's base (and the workspace row held FOR SHARE,
// so that no snapshot write runs beside it): either every record is a
// committed row when it returns, or none is.
func (s *rowSink) Commit(entries []state.JournalEntry) error {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	seqs := make([]int64, len(entries))
	kinds := make([]string, len(entries))
	addrs := make([]string, len(entries))
	recs := make([][]byte, len(entries))
	for i, e := range entries {
		seqs[i], kinds[i], addrs[i], recs[i] = int64(e.Seq), string(e.Kind), e.Address, e.Payload
	}
	q, held, release := s.b.db()
	tag, err := q.Exec(ctx, `WITH base AS (
			SELECT 1 FROM xosplan_workspace w LEFT JOIN xosplan_state st ON st.workspace = w.name
			WHERE w.name = $1 AND coalesce(st.serial, 0) = $2 AND coalesce(st.lineage, '') = $3
			FOR SHARE OF w)
		INSERT INTO xosplan_journal (workspace, seq, kind, address, record)
		SELECT $1, u.seq, u.kind, u.address, u.record
		FROM unnest($4::bigint[], $5::text[], $6::text[], $7::bytea[]) AS u(seq, kind, address, record)
		WHERE EXISTS (SELECT 1 FROM base)`,
		s.b.name, int64(s.base.serial), s.base.lineage, seqs, kinds, addrs, recs)
	closed := held != nil && held.conn.IsClosed()
	release()
	switch {
	case err != nil && closed:
		return s.b.lost(ctx, err)
	case err != nil:
		return s.b.fail("appending to the journal of", err)
	case tag.RowsAffected() != int64(len(entries)):
		// Another process wrote a snapshot since the journal was opened
		// (it could only do so without the lock, or after a force-unlock).
		conflict := &state.ConflictError{Path: s.b.Location(), ExpectedLineage: s.base.lineage, ExpectedSerial: s.base.serial}
		var serial int64
		if err := s.b.pool.QueryRow(ctx, `SELECT lineage, serial FROM xosplan_state WHERE workspace = $1`, s.b.name).Scan(&conflict.FoundLineage, &serial); err != nil {
			return s.b.fail("appending to the journal of", fmt.Errorf("the workspace changed since the journal was opened, and reading it failed: %w", err))
		}
		conflict.FoundSerial = uint64(serial)
		return conflict
	}
	s.last = entries[len(entries)-1].Seq
	return nil
}

// Close ends the journal: the Backend remembers its base and last record
// for Compact.
func (s *rowSink) Close() error {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.journal = nil
	b.wrote = &mark{lineage: s.base.lineage, serial: s.base.serial, lastSeq: s.last}
	return nil
}
