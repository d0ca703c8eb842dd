package state

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Entry is one line of List.
type Entry struct {
	Address    string `json:"address"`
	Type       string `json:"type"`
	Management string `json:"management"`
	// Status is StatusText of the resource.
	Status string `json:"status"`
}

// StatusText summarises a resource's feedback in one word: "error" (the
// last apply failed), "pending" (not applied yet, or interrupted: the
// status flags are then older than the pending operation), "error" again
// for an actuator that reports failure, "converging", "active" or "ok".
func (r *Resource) StatusText() string {
	fb := &r.Feedback
	switch {
	case fb.BackendCode == BackendError:
		return "error"
	case fb.BackendCode == BackendPending:
		return "pending"
	case fb.Status.Failed:
		return "error"
	case fb.Status.Converging:
		return "converging"
	case fb.Status.Active:
		return "active"
	}
	return "ok"
}

// List returns every recorded resource, sorted by address.
func List(ctx context.Context, b Backend) ([]Entry, error) {
	s, err := b.Read(ctx)
	if err != nil {
		return nil, err
	}
	return s.Entries(), nil
}

// Entries lists the resources of s in its order (sorted by address when s
// was read from a backend); never nil.
func (s *State) Entries() []Entry {
	out := make([]Entry, 0, len(s.Resources))
	for i := range s.Resources {
		r := &s.Resources[i]
		out = append(out, Entry{Address: r.Address, Type: r.Type, Management: string(r.Management), Status: r.StatusText()})
	}
	return out
}

// Show returns the recorded resource at addr, or ErrNotFound.
func Show(ctx context.Context, b Backend, addr string) (*Resource, error) {
	s, err := b.Read(ctx)
	if err != nil {
		return nil, err
	}
	r, ok := s.Lookup(addr)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	return r, nil
}

// Remove forgets the resources at addrs (without touching what they stand
// for) and writes the state with serial+1. When any address is absent it
// removes nothing and names every absent one (ErrNotFound). The caller
// holds the lock.
func Remove(ctx context.Context, b Backend, addrs ...string) (*State, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no address to remove")
	}
	s, err := b.Read(ctx)
	if err != nil {
		return nil, err
	}
	if err := allRecorded(s, addrs); err != nil {
		return nil, err
	}
	drop := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		drop[a] = true
	}
	s.Resources = slices.DeleteFunc(s.Resources, func(r Resource) bool { return drop[r.Address] })
	if err := b.Write(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// allRecorded returns ErrNotFound naming, sorted, every address of addrs
// that s does not record; nil when it records them all.
func allRecorded(s *State, addrs []string) error {
	var missing []string
	for _, a := range addrs {
		if _, ok := s.Lookup(a); !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("%w: %s", ErrNotFound, strings.Join(slices.Compact(missing), ", "))
}

// ReadWriter is what Touch needs of a Backend: a synchronizer passes its
// store.
type ReadWriter interface {
	Read(ctx context.Context) (*State, error)
	Write(ctx context.Context, s *State) error
}

// Touch is XOS's "save without change" of the resources at addrs: it
// sets their updated version to now, later than the version enacted, so
// that the next plan actuates each again (planner.ReasonTouched) though
// nothing in its spec changed, and writes the state with serial+1. When
// any address is absent it touches nothing and names every absent one
// (ErrNotFound). The caller holds the lock.
func Touch(ctx context.Context, b ReadWriter, now time.Time, addrs ...string) (*State, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no address to touch")
	}
	s, err := b.Read(ctx)
	if err != nil {
		return nil, err
	}
	if err := allRecorded(s, addrs); err != nil {
		return nil, err
	}
	now = now.UTC()
	for _, a := range addrs {
		r, _ := s.Lookup(a)
		r.Versions = r.CurrentVersions()
		v := &r.Versions
		v.Updated = now
		if !now.After(v.Enacted) {
			// Clocks go backwards; the touch must still be later.
			v.Updated = v.Enacted.Add(time.Nanosecond)
		}
	}
	if err := b.Write(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Move renames the recorded resource at src to dst, with the resources
// nested in it (addresses starting with src and a dot, as a component's
// parts are named), and every recorded dependency on them, then writes the
// state with serial+1 (the backend keeps the previous snapshot as its
// backup). It is what `terraform state mv` is: nothing is touched but the
// record, and the next plan finds the resource under its new address.
// Nothing is written when src is absent (ErrNotFound), when dst or an
// address a nested resource would get is already recorded
// (ErrAddressTaken), or when dst is no usable address (empty, src itself
// or inside it, a control character, a leading or trailing dot). It
// returns the state written and the moves made, as "old" → "new" pairs in
// address order. The caller holds the lock.
func Move(ctx context.Context, b Backend, src, dst string) (*State, [][2]string, error) {
	if err := checkMoveTarget(src, dst); err != nil {
		return nil, nil, err
	}
	s, err := b.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	renamed := map[string]string{}
	for _, r := range s.Resources {
		if r.Address == src {
			renamed[r.Address] = dst
		} else if rest, ok := strings.CutPrefix(r.Address, src+"."); ok {
			renamed[r.Address] = dst + "." + rest
		}
	}
	if _, ok := renamed[src]; !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, src)
	}
	var taken []string
	for _, to := range renamed {
		if _, ok := s.Lookup(to); ok {
			taken = append(taken, to)
		}
	}
	if len(taken) > 0 {
		slices.Sort(taken)
		return nil, nil, fmt.Errorf("%w: %s", ErrAddressTaken, strings.Join(taken, ", "))
	}
	moves := make([][2]string, 0, len(renamed))
	for i := range s.Resources {
		r := &s.Resources[i]
		if to, ok := renamed[r.Address]; ok {
			moves = append(moves, [2]string{r.Address, to})
			r.Address = to
		}
		if slices.ContainsFunc(r.Dependencies, func(d string) bool { _, ok := renamed[d]; return ok }) {
			deps := make([]string, len(r.Dependencies))
			for j, d := range r.Dependencies {
				deps[j] = cmp.Or(renamed[d], d)
			}
			slices.Sort(deps)
			r.Dependencies = slices.Compact(deps)
		}
	}
	slices.SortFunc(s.Resources, func(a, b Resource) int { return strings.Compare(a.Address, b.Address) })
	slices.SortFunc(moves, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	if err := b.Write(ctx, s); err != nil {
		return nil, nil, err
	}
	return s, moves, nil
}

// checkMoveTarget refuses a destination Move cannot use.
func checkMoveTarget(src, dst string) error {
	switch {
	case src == "" || dst == "":
		return errors.New("state mv needs a source and a destination address")
	case dst == src:
		return fmt.Errorf("the destination %s is the source", dst)
	case strings.HasPrefix(dst, src+"."):
		return fmt.Errorf("the destination %s lies inside the source %s", dst, src)
	case strings.HasPrefix(dst, ".") || strings.HasSuffix(dst, "."):
		return fmt.Errorf("the destination %q is no address: it starts or ends with a dot", dst)
	case strings.ContainsFunc(dst, unicode.IsControl):
		return fmt.Errorf("the destination %q is no address: it holds a control character", dst)
	}
	return nil
}

// Pull returns the current state as canonical state-file bytes (with the
// apply journal folded in), or nil when no state was ever written. When
// the journal is damaged (*JournalDamageError) it returns what is
// readable, the snapshot with every intact record replayed, together
// with that error: the way to recover is to check that and push it.
//
// A state that so far lives only in the journal of a first apply (no
// snapshot yet) gets a fresh lineage, as its first write would, so that
// what Pull prints is a state file Push accepts.
func Pull(ctx context.Context, b Backend) ([]byte, error) {
	s, err := b.Read(ctx)
	var dmg *JournalDamageError
	if errors.As(err, &dmg) && dmg.Readable != nil {
		s = dmg.Readable
	} else if err != nil {
		return nil, err
	}
	if s.Lineage == "" && s.Serial == 0 && len(s.Resources) == 0 {
		return nil, err
	}
	if s.Lineage == "" {
		lineage, lerr := newLineage()
		if lerr != nil {
			return nil, errors.Join(err, lerr)
		}
		s.Lineage = lineage
	}
	data, eerr := Encode(s)
	if eerr != nil {
		return nil, errors.Join(err, eerr)
	}
	return data, err
}

// Push replaces the stored state with data after validating it (Decode).
// Unless force is set it refuses a state of another lineage
// (ErrLineageMismatch) and one whose serial is not above the stored one
// (ErrStaleSerial). A forced push never lowers the serial: the pushed
// state gets max(its serial, stored serial + 1), so that plans made against
// the replaced state are stale. A forced push may also replace a stored
// state that is corrupt (the file backend keeps it as the backup) or
// whose journal is damaged, never one of an unknown format version. The
// caller holds the lock. Push returns the state as stored.
func Push(ctx context.Context, b Backend, data []byte, force bool) (*State, error) {
	in, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("refusing to push: %w", err)
	}
	cur, err := b.Read(ctx)
	var dmg *JournalDamageError
	switch {
	case err == nil:
	case force && errors.As(err, &dmg) && dmg.Readable != nil:
		// The snapshot is sound: its serial still rises.
		cur = dmg.Readable
	case force && !errors.Is(err, ErrVersion) && (errors.Is(err, ErrCorrupt) || errors.Is(err, ErrJournalCorrupt)):
		cur = &State{}
	default:
		return nil, err
	}
	if cur.Lineage != "" && !force {
		if in.Lineage != cur.Lineage {
			return nil, fmt.Errorf("refusing to push: %w: the stored state has lineage %q, the pushed one %q (use --force to replace it)", ErrLineageMismatch, cur.Lineage, in.Lineage)
		}
		if in.Serial <= cur.Serial {
			return nil, fmt.Errorf("refusing to push: %w: the pushed serial %d is not above the stored serial %d (use --force to replace it)", ErrStaleSerial, in.Serial, cur.Serial)
		}
	}
	if cur.Lineage != "" && force && in.Serial <= cur.Serial {
		in.Serial = cur.Serial + 1
	}
	if err := b.Overwrite(ctx, in); err != nil {
		return nil, err
	}
	return in, nil
}

// ErrDestinationNotEmpty: Migrate found a state at its destination.
var ErrDestinationNotEmpty = errors.New("the destination already holds a state")

// Migrate copies the state of from to to, lineage and serial included:
// `xosplan state migrate` moving a state between a file and a database.
// An apply journal of from is folded into its snapshot first (Compact), so
// that what is copied is a snapshot with nothing pending. to must hold no
// state (serial 0), unless force. The caller holds both locks.
func Migrate(ctx context.Context, from, to Store, force bool) (*State, error) {
	l, err := from.Compact(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", from.Location(), err)
	}
	s := l.State
	if s.Serial == 0 && len(s.Resources) == 0 {
		return nil, fmt.Errorf("%s holds no state to migrate", from.Location())
	}
	cur, err := to.Read(ctx)
	if err != nil {
		return nil, err
	}
	if cur.Serial != 0 && !force {
		return nil, fmt.Errorf("%w: %s is at serial %d (lineage %s); give --force to replace it", ErrDestinationNotEmpty, to.Location(), cur.Serial, cur.Lineage)
	}
	if err := to.Overwrite(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}
