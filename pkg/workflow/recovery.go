package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
)

// StateRecovery adds to an apply's error what became of its operations
// when its state lock was forced away, another process changed the state,
// the database connection was lost or the journal was in use, and what to
// run next; other errors are returned as they are. ran says whether the
// walk started.
func StateRecovery(err error, backend state.Store, ran bool) error {
	var conflict *state.ConflictError
	journal := backend.JournalLocation()
	_, isFile := backend.(*state.File)
	if lost := firstMatching(err, pgbackend.ErrConnectionLost); lost != nil {
		// The journal, closing it and saving the state all fail alike:
		// the first says it.
		return fmt.Errorf("%w; every operation recorded before is kept in %s: once the database answers again, "+
			"check with `xosplan state list`, then run apply again, which re-plans what was interrupted", lost, journal)
	}
	switch {
	case !errors.Is(err, state.ErrLockLost) && !errors.Is(err, state.ErrSerialConflict) && !errors.Is(err, state.ErrJournalBusy):
		return err
	case !ran:
		return fmt.Errorf("%w; nothing was run: check with `xosplan state list`, then plan again", err)
	case !isFile && errors.Is(err, state.ErrLockLost):
		return fmt.Errorf("%w; every operation this run recorded before is kept in %s, which the next command replays: "+
			"check with `xosplan state list`, then run `xosplan plan`", err, journal)
	case !isFile:
		// A database journal's rows extend the current snapshot only:
		// the writer that changed it has absorbed what it read of them.
		return fmt.Errorf("%w; check what the state records now with `xosplan state list`, then run `xosplan plan`", err)
	case errors.As(err, &conflict) && !conflict.Journal:
		return fmt.Errorf("%w; the operations this run completed are kept in the journal %s, recorded against serial %d, "+
			"so no command replays them over serial %d: copy that file (one record per line) before the next apply replaces it, "+
			"and check the state with `xosplan state list`", err, journal, conflict.ExpectedSerial, conflict.FoundSerial)
	}
	return fmt.Errorf("%w; every operation this run completed is kept in the journal %s, which the next command replays "+
		"(or in the state itself, when the process that took the lock has written it since): "+
		"check with `xosplan state list`, then run `xosplan plan`", err, journal)
}

// firstMatching returns the first error of err's tree (errors.Join lists
// included, depth first) that is target, or nil.
func firstMatching(err, target error) error {
	if !errors.Is(err, target) {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if m := firstMatching(e, target); m != nil {
				return m
			}
		}
	}
	return err
}

// LoadLocked loads the state with the journal an interrupted apply left,
// the caller holding the lock, and refuses a journal that a process still
// running writes (one whose lock was forced away): its unfinished
// operations still run, so they are not leftovers to end, and nothing may
// run beside them.
func LoadLocked(ctx context.Context, backend state.Store) (*state.Loaded, error) {
	loaded, err := backend.LoadWithJournal(ctx)
	if err == nil && loaded.Busy != nil {
		err = StateRecovery(loaded.Busy, backend, false)
	}
	if err != nil {
		return nil, err
	}
	return loaded, nil
}
