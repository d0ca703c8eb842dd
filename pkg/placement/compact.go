package placement

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// compactMagic starts the compact form; its last byte is the format
// version, so a reader of another format refuses it.
const compactMagic = "XOSPLC\x00\x01"

// ErrBadCompact is wrapped by UnmarshalCompact's errors: the data is not a
// compact inventory of this format, or it describes an invalid model.
var ErrBadCompact = errors.New("not a valid compact provider inventory")

// MarshalCompact encodes the model's custom traits and resource classes
// and its providers (name, UUID, parent, inventories, traits, aggregates
// and usage) in a compact binary form that
// UnmarshalCompact reads back into an equal model, parents before children,
// maps in sorted order so that the same model gives the same bytes. It is
// meant for a model just read from an inventory file: consumers and their
// allocations are not encoded (their usage is, as usage outside the model).
func (m *Model) MarshalCompact() []byte {
	ps := m.Providers()
	m.mu.Lock()
	traits, classes := slices.Sorted(maps.Keys(m.customTraits)), slices.Sorted(maps.Keys(m.customClasses))
	m.mu.Unlock()
	b := append(make([]byte, 0, 64*len(ps)+len(compactMagic)), compactMagic...)
	b = appendStrings(b, traits)
	b = appendStrings(b, classes)
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = appendString(b, p.Name)
		b = appendString(b, p.UUID)
		b = appendString(b, p.Parent)
		b = binary.AppendUvarint(b, uint64(len(p.Inventories)))
		for _, rc := range slices.Sorted(maps.Keys(p.Inventories)) {
			inv := p.Inventories[rc]
			b = appendString(b, rc)
			for _, x := range [...]int64{inv.Total, inv.Reserved, inv.MinUnit, inv.MaxUnit, inv.StepSize} {
				b = binary.AppendVarint(b, x)
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(inv.AllocationRatio))
		}
		b = appendStrings(b, p.Traits)
		b = appendStrings(b, p.Aggregates)
		b = binary.AppendUvarint(b, uint64(len(p.Usages)))
		for _, rc := range slices.Sorted(maps.Keys(p.Usages)) {
			b = appendString(b, rc)
			b = binary.AppendVarint(b, p.Usages[rc])
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// UnmarshalCompact reads what MarshalCompact wrote. Nothing in data is
// trusted: every length is checked against what is left, and every
// provider goes through AddProvider's checks, so a corrupt or foreign
// input gives an error wrapping ErrBadCompact, never a panic or an
// allocation larger than data.
func UnmarshalCompact(data []byte) (*Model, error) {
	if len(data) < len(compactMagic) || string(data[:len(compactMagic)]) != compactMagic {
		return nil, fmt.Errorf("%w: wrong header", ErrBadCompact)
	}
	// One string for the whole input: names are substrings of it, not one
	// allocation each.
	r := compactReader{s: string(data[len(compactMagic):])}
	m := NewModel()
	for _, t := range r.strs() {
		if _, err := m.CreateTrait(t); err != nil {
			return nil, fmt.Errorf("%w: trait %q: %v", ErrBadCompact, t, err)
		}
	}
	for _, rc := range r.strs() {
		if err := m.EnsureCustomResourceClass(rc); err != nil {
			return nil, fmt.Errorf("%w: resource class %q: %v", ErrBadCompact, rc, err)
		}
	}
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		spec := ProviderSpec{Name: r.str(), UUID: r.str(), Parent: r.str()}
		if k := r.count(); k > 0 {
			spec.Inventories = make(map[string]Inventory, k)
			for range k {
				rc := r.str()
				spec.Inventories[rc] = Inventory{Total: r.int(), Reserved: r.int(), MinUnit: r.int(), MaxUnit: r.int(),
					StepSize: r.int(), AllocationRatio: r.float()}
			}
		}
		spec.Traits = r.strs()
		spec.Aggregates = r.strs()
		if k := r.count(); k > 0 {
			spec.Usages = make(map[string]int64, k)
			for range k {
				rc := r.str()
				spec.Usages[rc] = r.int()
			}
		}
		if r.err != nil {
			break
		}
		if err := validCompactSpec(spec); err != nil {
			return nil, fmt.Errorf("%w: provider %d: %v", ErrBadCompact, i, err)
		}
		if err := m.AddProvider(spec); err != nil {
			return nil, fmt.Errorf("%w: provider %d: %v", ErrBadCompact, i, err)
		}
	}
	if r.err == nil && r.s != "" {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCompact, r.err)
	}
	return m, nil
}

// validCompactSpec applies the checks LoadProviders makes before
// AddProvider (names, usage range) that AddProvider itself does not.
func validCompactSpec(s ProviderSpec) error {
	for _, name := range append([]string{s.Name, s.UUID, s.Parent}, s.Aggregates...) {
		if len(name) > MaxNameLength || (name != "" && yamlsrc.NameProblem("", name) != "") {
			return fmt.Errorf("bad name %q", name)
		}
	}
	for rc, u := range s.Usages {
		if u < 0 || u > MaxInt {
			return fmt.Errorf("usage of %s out of range", rc)
		}
	}
	return nil
}

// compactReader reads the compact form; the first problem sticks in err
// and every later read returns a zero value.
type compactReader struct {
	s   string
	err error
}

func (r *compactReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or bad %s", what)
	}
	r.s = ""
}

// uvarint reads a number; the conversion of r.s copies nothing (the
// compiler sees the bytes neither escape nor change: measured, same
// allocations as a hand-written reader over the string).
func (r *compactReader) uvarint() uint64 {
	x, k := binary.Uvarint([]byte(r.s))
	if k <= 0 {
		r.fail("number")
		return 0
	}
	r.s = r.s[k:]
	return x
}

// count reads a number of items: each takes at least one byte, so a count
// beyond what is left is corrupt (and cannot make a large allocation).
func (r *compactReader) count() int {
	x := r.uvarint()
	if x > uint64(len(r.s)) {
		r.fail("count")
		return 0
	}
	return int(x)
}

func (r *compactReader) int() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *compactReader) float() float64 {
	if len(r.s) < 8 {
		r.fail("number")
		return 0
	}
	x := binary.LittleEndian.Uint64([]byte(r.s[:8]))
	r.s = r.s[8:]
	return math.Float64frombits(x)
}

func (r *compactReader) str() string {
	k := r.count()
	s := r.s[:k]
	r.s = r.s[k:]
	return s
}

func (r *compactReader) strs() []string {
	k := r.count()
	if k == 0 {
		return nil
	}
	out := make([]string, k)
	for i := range out {
		out[i] = r.str()
	}
	return out
}
