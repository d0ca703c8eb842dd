package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Redaction rules.
const (
	// MinSecretBytes is the length under which a secret is not searched
	// for: replacing every "ab" or "123" would destroy the output and
	// protect little, since so short a secret is guessed anyway.
	MinSecretBytes = 4
	// minShiftedSecretBytes is the length from which the base64 of a
	// secret embedded at any offset in a longer encoded text (HTTP basic
	// auth: base64("user:" + secret)) is searched for: the characters that
	// depend on the secret alone are then at least 7.
	minShiftedSecretBytes = 6
)

// Redactor replaces every secret it knows, and the forms a script is
// likely to print it in, with state.SensitiveMarker in what drivers print:
// live output lines, the output tail kept in state, error messages. The
// forms searched for are the secret itself; its base64 in the standard
// and URL alphabets, with and without padding, and the part of it that
// does not depend on what surrounds the secret when it is encoded inside
// a longer text; its URL query and path escapes; its JSON string escape.
// Secrets shorter than MinSecretBytes are not searched for. Where forms
// overlap the longest wins.
//
// A nil *Redactor redacts nothing. A Redactor is safe for concurrent use;
// secrets added later apply to text redacted after.
type Redactor struct {
	mu   sync.Mutex // serializes Add
	seen map[string]bool
	set  atomic.Pointer[patternSet]
}

// patternSet is an immutable snapshot of the forms to replace.
type patternSet struct {
	list []string // longest first
	// byFirst holds the forms by their first byte, longest first.
	byFirst [256][]string
	longest int
	// newline: some form holds a line break, so a stream cannot be cut
	// at line ends.
	newline bool
}

// New returns a Redactor that knows secrets.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add registers secrets (and their encodings). Empty and short ones
// (under MinSecretBytes) are ignored.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var forms []string
	for _, s := range secrets {
		if len(s) < MinSecretBytes || r.seen[s] {
			continue
		}
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		r.seen[s] = true
		forms = append(forms, Encodings(s)...)
	}
	if len(forms) == 0 {
		return
	}
	old := r.set.Load()
	ps := &patternSet{}
	if old != nil {
		forms = append(forms, old.list...)
	}
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	ps.list = slices.Compact(forms)
	for _, f := range ps.list {
		ps.byFirst[f[0]] = append(ps.byFirst[f[0]], f)
		ps.longest = max(ps.longest, len(f))
		ps.newline = ps.newline || strings.ContainsAny(f, "\n\r")
	}
	r.set.Store(ps)
}

// AddValue registers the secrets v holds: a string or a number as its
// text; a list or a map both leaf by leaf and as the JSON text the exec
// driver passes it in. Booleans, nulls and values still unknown are not
// secrets worth searching for.
func (r *Redactor) AddValue(v graph.Value) {
	if r == nil {
		return
	}
	switch x := v.(type) {
	case string:
		r.Add(x)
	case int64:
		r.Add(strconv.FormatInt(x, 10))
	case float64:
		r.Add(graph.Text(x))
	case []graph.Value:
		for _, e := range x {
			r.AddValue(e)
		}
		r.addJSON(x)
	case map[string]graph.Value:
		for _, e := range x {
			r.AddValue(e)
		}
		r.addJSON(x)
	}
}

func (r *Redactor) addJSON(v graph.Value) {
	if graph.HasUnknown(v) {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		r.Add(string(b))
	}
}

// AddPaths registers the values of spec at paths (dot-joined map keys and
// list indexes; a key may hold dots itself, as Tonomi's
// "configuration.password" does).
func (r *Redactor) AddPaths(spec map[string]graph.Value, paths []string) {
	if r == nil || len(spec) == 0 {
		return
	}
	for _, p := range paths {
		valuesAt(spec, p, r.AddValue)
	}
}

// AddOperations registers the operation inputs of d that its operations
// mark sensitive.
func (r *Redactor) AddOperations(d graph.Driver) {
	for _, op := range d.Operations {
		for _, name := range op.Sensitive {
			r.AddValue(op.Inputs[name])
		}
	}
}

// AddResource registers the secrets of a recorded resource: its sensitive
// spec paths as configured and as resolved, its sensitive attributes and
// those of its relationships as operation outputs set them, and its
// operations' sensitive inputs.
func (r *Redactor) AddResource(rec *state.Resource) {
	r.AddPaths(rec.Spec, rec.Sensitive)
	r.AddPaths(rec.Feedback.Resolved, rec.Sensitive)
	r.AddPaths(rec.Feedback.Attributes, state.AttributePaths(rec.Sensitive))
	for _, rel := range rec.Feedback.Relationships {
		r.AddPaths(rel.Attributes, state.RelationshipAttributePaths(rec.Sensitive, rel.Requirement, rel.Index))
	}
	r.AddOperations(rec.Driver)
}

// AddGraph registers the secrets of a configuration: every resource's
// sensitive spec paths and operation inputs, and the graph's Secrets.
func (r *Redactor) AddGraph(g *graph.Graph) {
	if r == nil || g == nil {
		return
	}
	for _, res := range g.Resources() {
		r.AddPaths(res.Spec, res.Sensitive)
		r.AddOperations(res.Driver)
	}
	for _, v := range g.Secrets {
		r.AddValue(v)
	}
}

// NewFor returns a Redactor that knows the secrets of the
// resources recorded in st and of the configuration g (either may be nil).
func NewFor(st *state.State, g *graph.Graph) *Redactor {
	r := New()
	if st != nil {
		for i := range st.Resources {
			r.AddResource(&st.Resources[i])
		}
	}
	r.AddGraph(g)
	return r
}

// valuesAt calls fn with the value at path in v, following every map key
// that path starts with.
func valuesAt(v graph.Value, path string, fn func(graph.Value)) {
	switch x := v.(type) {
	case map[string]graph.Value:
		for k, e := range x {
			switch {
			case path == k:
				fn(e)
			case strings.HasPrefix(path, k+"."):
				valuesAt(e, path[len(k)+1:], fn)
			}
		}
	case []graph.Value:
		head, rest, nested := strings.Cut(path, ".")
		i, err := strconv.Atoi(head)
		if err != nil || i < 0 || i >= len(x) {
			return
		}
		if nested {
			valuesAt(x[i], rest, fn)
		} else {
			fn(x[i])
		}
	}
}

// Encodings returns s and the forms of it that a Redactor searches for
// (see Redactor).
func Encodings(s string) []string {
	b := []byte(s)
	forms := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	if j, err := json.Marshal(s); err == nil {
		forms = append(forms, string(j[1:len(j)-1]))
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, enc.EncodeToString(b), enc.WithPadding(base64.NoPadding).EncodeToString(b))
		if len(b) < minShiftedSecretBytes {
			continue
		}
		raw := enc.WithPadding(base64.NoPadding)
		for shift := range 3 {
			// Encoded after shift other bytes, the secret's bits fill
			// characters from ceil(8*shift/6) to floor(8*(shift+n)/6):
			// those are the same whatever the other bytes are.
			e := raw.EncodeToString(append(make([]byte, shift), b...))
			from, to := (8*shift+5)/6, 8*(shift+len(b))/6
			forms = append(forms, e[from:to])
		}
	}
	return slices.DeleteFunc(forms, func(f string) bool { return len(f) < MinSecretBytes })
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	ps := r.patterns()
	if ps == nil || s == "" {
		return s
	}
	out, _, changed := ps.redact([]byte(s), true)
	if !changed {
		return s
	}
	return string(out)
}

// Error returns err with its message redacted; errors.Is and errors.As
// still see the original through Unwrap. nil stays nil, and an error
// holding no secret is returned as it is.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// Feedback returns fb with the text a driver reported redacted: the
// output tail, the backend status and the status message. Attributes and
// signals are data that dependents read, and stay as they are.
func (r *Redactor) Feedback(fb state.Feedback) state.Feedback {
	fb.Output = r.String(fb.Output)
	fb.BackendStatus = r.String(fb.BackendStatus)
	fb.Status.Message = r.String(fb.Status.Message)
	return fb
}

func (r *Redactor) patterns() *patternSet {
	if r == nil {
		return nil
	}
	ps := r.set.Load()
	if ps == nil || len(ps.list) == 0 {
		return nil
	}
	return ps
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces the forms in b. Unless final, it stops where a form
// could still be completed by bytes not yet seen, and returns how much of
// b it consumed; the rest must be given again with what follows.
func (ps *patternSet) redact(b []byte, final bool) (out []byte, consumed int, changed bool) {
	cut := len(b)
	if !final {
		// A form starting before cut ends within b.
		cut = len(b) - (ps.longest - 1)
		if !ps.newline {
			// No form crosses a line end: the lines before the last one
			// can go whole.
			cut = max(cut, bytes.LastIndexByte(b, '\n')+1)
		}
		cut = max(cut, 0)
	}
	last, i := 0, 0
	for i < cut {
		n := ps.match(b[i:])
		if n == 0 {
			i++
			continue
		}
		out = append(out, b[last:i]...)
		out = append(out, state.SensitiveMarker...)
		i += n
		last = i
		changed = true
	}
	if !changed {
		return b[:i], i, false
	}
	return append(out, b[last:i]...), i, true
}

// match returns the length of the longest form b starts with, 0 for none.
func (ps *patternSet) match(b []byte) int {
	for _, f := range ps.byFirst[b[0]] {
		if len(f) <= len(b) && string(b[:len(f)]) == f {
			return len(f)
		}
	}
	return 0
}

// Stream redacts a stream written in arbitrary pieces: it holds back
// the end of what it was given for as long as a secret could be split
// there, so that a secret cut between two reads is still found. One
// stream serves one writer at a time.
type Stream struct {
	r       *Redactor
	pending []byte
}

// Stream returns a new stream redacted by r (nil redacts nothing).
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Write returns the redacted text of b that can be passed on now.
func (s *Stream) Write(b []byte) []byte {
	ps := s.r.patterns()
	if ps == nil && len(s.pending) == 0 {
		return b
	}
	buf := append(s.pending, b...)
	if ps == nil {
		s.pending = nil
		return buf
	}
	out, n, _ := ps.redact(buf, false)
	out = slices.Clone(out)
	s.pending = append(s.pending[:0:0], buf[n:]...)
	return out
}

// Flush returns the redacted text held back; the stream is then empty.
func (s *Stream) Flush() []byte {
	buf := s.pending
	s.pending = nil
	if ps := s.r.patterns(); ps != nil && len(buf) > 0 {
		out, _, _ := ps.redact(buf, true)
		return out
	}
	return buf
}
