package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Errors describing a state file that cannot be used; compare with
// errors.Is. A file that fails to decode is never overwritten silently.
var (
	// ErrCorrupt marks a state file that is not valid JSON of the expected
	// shape, or that breaks an invariant (duplicate addresses, no lineage).
	ErrCorrupt = errors.New("state file is corrupt")
	// ErrVersion marks a state file written in a format version this
	// build does not know.
	ErrVersion = errors.New("unsupported state format version")
)

// Encode renders s as the canonical state file: 2-space indented JSON,
// struct fields in declaration order, map keys sorted, resources sorted by
// address, times in UTC, absent maps as {} and absent lists as []. The same
// content always encodes to the same bytes, so comparing encodings compares
// content. Encode does not modify s.
func Encode(s *State) ([]byte, error) {
	res, err := encodeResources(s.Resources)
	if err != nil {
		return nil, err
	}
	outs, err := encodeTail(s)
	if err != nil {
		return nil, err
	}
	return assemble(s.Version, s.Serial, s.Lineage, res.join(), outs), nil
}

// encodeResources renders the resources list as it appears inside the
// state file (indented one level), so that the header can be rebuilt
// around it without encoding the resources again. Large lists are encoded
// in chunks on up to GOMAXPROCS goroutines (all joined before it returns):
// writing the state of 10,000 resources must take well under 0.2 s.
func encodeResources(rs []Resource) (chunks, error) {
	norm := make([]Resource, len(rs))
	for i := range rs {
		norm[i] = normalizeForEncode(rs[i])
	}
	slices.SortStableFunc(norm, func(a, b Resource) int { return strings.Compare(a.Address, b.Address) })
	if len(norm) == 0 {
		return chunks{[]byte("[]")}, nil
	}
	workers := min(runtime.GOMAXPROCS(0), 8, (len(norm)+chunkMin-1)/chunkMin)
	parts := make([]chunks, workers)
	errs := make([]error, workers)
	per := (len(norm) + workers - 1) / workers
	var wg sync.WaitGroup
	for c := range workers {
		wg.Go(func() {
			lo, hi := c*per, min((c+1)*per, len(norm))
			// Each worker writes pieces of pieceResources resources, each
			// sized after the one before: a piece grows a few times at
			// most and is never copied into one buffer for the whole state.
			size := 64 << 10
			for start := lo; start < hi; start += pieceResources {
				w := newWriter(make([]byte, 0, size), true)
				// The elements of the resources array, inside the state object.
				list := w.ResumeArray(2, start > 0)
				for i := start; i < min(hi, start+pieceResources); i++ {
					writeResource(list.Next(), &norm[i])
				}
				if errs[c] = w.Err(); errs[c] != nil {
					return
				}
				parts[c] = append(parts[c], w.Buf)
				size = len(w.Buf) + len(w.Buf)/8
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("encoding state resources: %w", err)
	}
	out := chunks{[]byte("[")}
	for _, p := range parts {
		out = append(out, p...)
	}
	return append(out, []byte("\n  ]")), nil
}

// pieceResources is how many resources one piece of an encoding holds:
// about a quarter of a megabyte of state.
const pieceResources = 256

// chunks is an encoding kept in pieces, so that the pieces encoded in
// parallel need not be copied into one buffer before being written.
type chunks [][]byte

func (c chunks) size() int {
	n := 0
	for _, p := range c {
		n += len(p)
	}
	return n
}

func (c chunks) join() []byte { return bytes.Join(c, nil) }

// equal compares the byte streams, however they are cut into pieces.
func (c chunks) equal(d chunks) bool {
	if c.size() != d.size() {
		return false
	}
	var a, b []byte
	for {
		for len(a) == 0 && len(c) > 0 {
			a, c = c[0], c[1:]
		}
		for len(b) == 0 && len(d) > 0 {
			b, d = d[0], d[1:]
		}
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		n := min(len(a), len(b))
		if !bytes.Equal(a[:n], b[:n]) {
			return false
		}
		a, b = a[n:], b[n:]
	}
}

// chunkMin is the least number of resources worth a goroutine.
const chunkMin = 512

// assemble builds the file bytes from a header, pre-encoded resources and
// the pre-encoded outputs and sync members (encodeTail; nil for none). Its output
// equals json.MarshalIndent(State{…}, "", "  ") plus a newline; a test
// holds it to that.
func assemble(version int, serial uint64, lineage string, resources, outputs []byte) []byte {
	out := header(version, serial, lineage, len(resources)+len(outputs)+8)
	out = append(out, resources...)
	return append(out, trailer(outputs)...)
}

// header is the file up to the resources array, with room for more bytes.
func header(version int, serial uint64, lineage string, more int) []byte {
	out := make([]byte, 0, 128+more)
	out = fmt.Appendf(out, "{\n  \"version\": %d,\n  \"serial\": %d,\n  \"lineage\": ", version, serial)
	out = canonjson.AppendString(out, lineage, 0)
	return append(out, ",\n  \"resources\": "...)
}

// trailer is the file after the resources array: the outputs and sync members, if
// any, and the closing brace.
func trailer(outputs []byte) []byte {
	if outputs == nil {
		return []byte("\n}\n")
	}
	out := make([]byte, 0, len(outputs)+4)
	out = append(out, ',')
	out = append(out, outputs...)
	return append(out, "\n}\n"...)
}

// normalizeForEncode returns a shallow copy of r whose absent collections
// encode as empty ones and whose times are UTC, so that a value read back
// from a file encodes to the same bytes as the value written.
func normalizeForEncode(r Resource) Resource {
	if r.Spec == nil {
		r.Spec = map[string]graph.Value{}
	}
	if r.Management == "" {
		r.Management = graph.Managed
	}
	fb := &r.Feedback
	fb.Created = utc(fb.Created)
	fb.Enacted = utc(fb.Enacted)
	fb.LastAttempt = utc(fb.LastAttempt)
	v := &r.Versions
	v.Updated, v.Enacted, v.Policed = utc(v.Updated), utc(v.Enacted), utc(v.Policed)
	v.ChangedByStep, v.ChangedByPolicy = utc(v.ChangedByStep), utc(v.ChangedByPolicy)
	return r
}

// Decode parses and validates a state file. Numbers come back as int64 or
// float64 and {"$unknown": …} as graph.Unknown (graph.DecodeValue), absent
// maps as empty ones, resources sorted by address. An empty input, broken
// JSON, a missing lineage or duplicate addresses give ErrCorrupt; a version
// other than FormatVersion gives ErrVersion.
func Decode(data []byte) (*State, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrCorrupt)
	}
	s, err := parseState(data)
	if err != nil {
		// A file of another version may have another shape: say so rather
		// than report the shape mismatch.
		var probe struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Version != FormatVersion {
			return nil, versionError(probe.Version)
		}
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, describeParseError(data, err))
	}
	return checkDecoded(s)
}

// checkDecoded applies the checks that follow parsing.
func checkDecoded(s *State) (*State, error) {
	if s.Version != FormatVersion {
		return nil, versionError(s.Version)
	}
	if err := validate(s); err != nil {
		return nil, err
	}
	return s, nil
}

func versionError(v int) error {
	if v == 0 {
		return fmt.Errorf("%w: no \"version\" field; this is not an xosplan state file", ErrCorrupt)
	}
	return fmt.Errorf("%w: the file has version %d, this xosplan reads version %d", ErrVersion, v, FormatVersion)
}

// validate checks the invariants a decoded state must hold and normalizes
// its values in place.
func validate(s *State) error {
	var problems []error
	if s.Lineage == "" {
		problems = append(problems, errors.New("no lineage"))
	}
	if s.Resources == nil {
		s.Resources = []Resource{}
	}
	for i := range s.Resources {
		r := &s.Resources[i]
		if r.Address == "" {
			problems = append(problems, fmt.Errorf("resource #%d has no address", i+1))
		}
		if r.Management != graph.Managed && r.Management != graph.Unmanaged {
			problems = append(problems, fmt.Errorf("resource %q: management %q is neither %q nor %q", r.Address, r.Management, graph.Managed, graph.Unmanaged))
		}
		if r.Spec == nil {
			r.Spec = map[string]graph.Value{}
		}
	}
	slices.SortStableFunc(s.Resources, func(a, b Resource) int { return strings.Compare(a.Address, b.Address) })
	for i := 1; i < len(s.Resources); i++ {
		if a := s.Resources[i].Address; a != "" && a == s.Resources[i-1].Address {
			problems = append(problems, fmt.Errorf("resource %q appears twice", a))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(problems...))
	}
	return nil
}

// describeParseError adds the line and column of the offending byte.
func describeParseError(data []byte, err error) string {
	var se *canonjson.SyntaxError
	if !errors.As(err, &se) || se.Offset >= len(data) {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
	col := se.Offset - bytes.LastIndexByte(data[:se.Offset], '\n')
	return fmt.Sprintf("line %d, column %d: %s", line, col, se.Msg)
}

// EncodeResource renders one resource the way the state file holds it,
// indented from column 0 and ending in a newline.
func EncodeResource(r *Resource) ([]byte, error) {
	n := normalizeForEncode(*r)
	w := newWriter(make([]byte, 0, 2048), true)
	writeResource(&w, &n)
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding resource %s: %w", r.Address, err)
	}
	return append(w.Buf, '\n'), nil
}
