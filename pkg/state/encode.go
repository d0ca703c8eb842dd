package state

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/graph"
)

// encoder writes the state file format by hand. encoding/json spends most
// of its time in reflection and a second indentation pass; writing the
// state of 10,000 resources must stay well under 0.2 s, which it cannot do.
// The output is byte-for-byte what encoding/json produces with
// SetEscapeHTML(false) and SetIndent("  ", "  ") (and, inside Unknowns,
// whose MarshalJSON uses json.Marshal, HTML escaping); TestEncoderMatchesJSON
// holds it to that for every field of the model.
type encoder struct {
	b     []byte
	depth int
	err   error
	// compact leaves out the indentation, for journal lines.
	compact bool
	// keys is scratch space for sorting map keys, used as a stack by
	// nested maps: a state has tens of thousands of maps, and a slice per
	// map was a tenth of the encoding time.
	keys []string
}

// pushKeys appends m's keys, sorted, to e.keys and returns their range;
// popKeys(start) drops them once the map is written. Nested maps push
// above and pop back, so e.keys[start:end] stays valid throughout.
func pushKeys[V any](e *encoder, m map[string]V) (start, end int) {
	start = len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end = len(e.keys)
	slices.Sort(e.keys[start:end])
	return start, end
}

func (e *encoder) popKeys(start int) { e.keys = e.keys[:start] }

func (e *encoder) newline() {
	if e.compact {
		return
	}
	if n := 1 + 2*e.depth; n <= len(indentation) {
		e.b = append(e.b, indentation[:n]...)
		return
	}
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, ' ', ' ')
	}
}

// indentation covers the nesting of the state file's own structure; deeper
// user values fall back to the loop.
const indentation = "\n                                                                "

// object writes the members of one JSON object; members are emitted in the
// order they are added.
type object struct {
	e     *encoder
	empty bool
}

func (e *encoder) beginObject() object {
	e.b = append(e.b, '{')
	e.depth++
	return object{e: e, empty: true}
}

// key starts a member whose name is a Go constant free of characters
// JSON escapes, so it is copied without the escaping scan.
func (o *object) key(k string) *encoder {
	e := o.e
	if !o.empty {
		e.b = append(e.b, ',')
	}
	o.empty = false
	e.newline()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
	if !e.compact {
		e.b = append(e.b, ' ')
	}
	return e
}

// keyHTML starts a member whose name comes from data.

func (o *object) keyHTML(k string, html bool) *encoder {
	e := o.e
	if !o.empty {
		e.b = append(e.b, ',')
	}
	o.empty = false
	e.newline()
	e.b = appendString(e.b, k, html)
	e.b = append(e.b, ':')
	if !e.compact {
		e.b = append(e.b, ' ')
	}
	return e
}

func (o *object) end() {
	e := o.e
	e.depth--
	if !o.empty {
		e.newline()
	}
	e.b = append(e.b, '}')
}

func (e *encoder) str(s string)  { e.b = appendString(e.b, s, false) }
func (e *encoder) int(n int64)   { e.b = strconv.AppendInt(e.b, n, 10) }
func (e *encoder) uint(n uint64) { e.b = strconv.AppendUint(e.b, n, 10) }
func (e *encoder) bool(v bool)   { e.b = strconv.AppendBool(e.b, v) }
func (e *encoder) raw(s string)  { e.b = append(e.b, s...) }

// fail records the first error; encoding carries on so that the code
// stays linear, and the caller discards the output.
func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) time(t time.Time) {
	if y := t.Year(); y < 0 || y > 9999 {
		e.fail(fmt.Errorf("time %v: year outside of range [0,9999]", t))
		return
	}
	e.b = append(e.b, '"')
	e.b = t.AppendFormat(e.b, time.RFC3339Nano)
	e.b = append(e.b, '"')
}

func (e *encoder) strings(list []string) {
	if list == nil {
		e.raw("null")
		return
	}
	if len(list) == 0 {
		e.raw("[]")
		return
	}
	e.b = append(e.b, '[')
	e.depth++
	for i, s := range list {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline()
		e.str(s)
	}
	e.depth--
	e.newline()
	e.b = append(e.b, ']')
}

func (e *encoder) resources(rs []Resource) {
	if len(rs) == 0 {
		e.raw("[]")
		return
	}
	e.b = append(e.b, '[')
	e.depth++
	for i := range rs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline()
		e.resource(&rs[i])
	}
	e.depth--
	e.newline()
	e.b = append(e.b, ']')
}

func (e *encoder) resource(r *Resource) {
	o := e.beginObject()
	o.key("address").str(r.Address)
	o.key("type").str(r.Type)
	if len(r.TypeChain) > 0 {
		o.key("type_chain").strings(r.TypeChain)
	}
	o.key("management").str(string(r.Management))
	o.key("driver").driver(&r.Driver)
	if len(r.Dependencies) > 0 {
		o.key("dependencies").strings(r.Dependencies)
	}
	o.key("spec").valueMap(r.Spec, false)
	if len(r.Sensitive) > 0 {
		o.key("sensitive").strings(r.Sensitive)
	}
	o.key("feedback").feedback(&r.Feedback)
	o.end()
}

func (e *encoder) driver(d *graph.Driver) {
	o := e.beginObject()
	o.key("name").str(d.Name)
	if len(d.Operations) > 0 {
		e := o.key("operations")
		ops := e.beginObject()
		start, end := pushKeys(e, d.Operations)
		for i := start; i < end; i++ {
			k := e.keys[i]
			ops.keyHTML(k, false).operation(d.Operations[k])
		}
		e.popKeys(start)
		ops.end()
	}
	if len(d.Options) > 0 {
		o.key("options").valueMap(d.Options, false)
	}
	o.end()
}

func (e *encoder) operation(op graph.Operation) {
	o := e.beginObject()
	if op.Implementation != "" {
		o.key("implementation").str(op.Implementation)
	}
	if len(op.Dependencies) > 0 {
		o.key("dependencies").strings(op.Dependencies)
	}
	if len(op.Inputs) > 0 {
		o.key("inputs").valueMap(op.Inputs, false)
	}
	if len(op.Sensitive) > 0 {
		o.key("sensitive").strings(op.Sensitive)
	}
	if len(op.Outputs) > 0 {
		e := o.key("outputs")
		m := e.beginObject()
		start, end := pushKeys(e, op.Outputs)
		for i := start; i < end; i++ {
			k := e.keys[i]
			m.keyHTML(k, false).str(op.Outputs[k])
		}
		e.popKeys(start)
		m.end()
	}
	if op.Timeout != 0 {
		o.key("timeout").int(int64(op.Timeout))
	}
	o.end()
}

func (e *encoder) feedback(f *Feedback) {
	o := e.beginObject()
	if len(f.Resolved) > 0 {
		o.key("resolved").valueMap(f.Resolved, false)
	}
	if len(f.Attributes) > 0 {
		o.key("attributes").valueMap(f.Attributes, false)
	}
	if len(f.Signals) > 0 {
		o.key("signals").valueMap(f.Signals, false)
	}
	if f.InstanceID != "" {
		o.key("instance_id").str(f.InstanceID)
	}
	st := o.key("status").beginObject()
	st.key("active").bool(f.Status.Active)
	st.key("converging").bool(f.Status.Converging)
	st.key("failed").bool(f.Status.Failed)
	if f.Status.Message != "" {
		st.key("message").str(f.Status.Message)
	}
	st.end()
	o.key("backend_code").int(int64(f.BackendCode))
	if f.BackendStatus != "" {
		o.key("backend_status").str(f.BackendStatus)
	}
	if f.Attempts != 0 {
		o.key("attempts").int(int64(f.Attempts))
	}
	if f.Output != "" {
		o.key("output").str(f.Output)
	}
	if len(f.Allocations) > 0 {
		e := o.key("allocations")
		e.b = append(e.b, '[')
		e.depth++
		for i, a := range f.Allocations {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline()
			ao := e.beginObject()
			ao.key("provider").str(a.Provider)
			e := ao.key("resources")
			if a.Resources == nil {
				e.raw("null")
			} else {
				m := e.beginObject()
				start, end := pushKeys(e, a.Resources)
				for i := start; i < end; i++ {
					k := e.keys[i]
					m.keyHTML(k, false).int(a.Resources[k])
				}
				e.popKeys(start)
				m.end()
			}
			ao.end()
		}
		e.depth--
		e.newline()
		e.b = append(e.b, ']')
	}
	if len(f.Extra) > 0 {
		o.key("extra").valueMap(f.Extra, false)
	}
	if !f.Created.IsZero() {
		o.key("created").time(f.Created)
	}
	if !f.Enacted.IsZero() {
		o.key("enacted").time(f.Enacted)
	}
	if !f.LastAttempt.IsZero() {
		o.key("last_attempt").time(f.LastAttempt)
	}
	o.end()
}

func (e *encoder) valueMap(m map[string]graph.Value, html bool) {
	if m == nil {
		e.raw("null")
		return
	}
	o := e.beginObject()
	start, end := pushKeys(e, m)
	for i := start; i < end; i++ {
		k := e.keys[i]
		o.keyHTML(k, html).value(m[k], html)
	}
	e.popKeys(start)
	o.end()
}

// value writes a canonical value. html is set inside Unknowns, whose own
// MarshalJSON escapes HTML characters.
func (e *encoder) value(v graph.Value, html bool) {
	switch x := v.(type) {
	case nil:
		e.raw("null")
	case bool:
		e.bool(x)
	case int64:
		e.int(x)
	case float64:
		e.float(x)
	case string:
		e.b = appendString(e.b, x, html)
	case []graph.Value:
		if x == nil {
			e.raw("null")
			return
		}
		if len(x) == 0 {
			e.raw("[]")
			return
		}
		e.b = append(e.b, '[')
		e.depth++
		for i, el := range x {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline()
			e.value(el, html)
		}
		e.depth--
		e.newline()
		e.b = append(e.b, ']')
	case map[string]graph.Value:
		e.valueMap(x, html)
	case graph.Unknown:
		o := e.beginObject()
		inner := o.key("$unknown").beginObject()
		inner.keyHTML("func", true)
		e.b = appendString(e.b, x.Func, true)
		inner.keyHTML("args", true).value(x.Args, true)
		inner.end()
		o.end()
	default:
		c, err := graph.Canonicalize(v)
		if err != nil {
			e.fail(err)
			e.raw("null")
			return
		}
		e.value(c, html)
	}
}

// float follows encoding/json: shortest representation, exponent form
// outside [1e-6, 1e21).
func (e *encoder) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.fail(fmt.Errorf("%v cannot be represented in JSON", f))
		e.raw("null")
		return
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		n := len(e.b)
		if n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

const hexDigits = "0123456789abcdef"

// plainASCII marks the ASCII bytes a JSON string holds as they are.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString quotes s as encoding/json does: invalid UTF-8 becomes
// U+FFFD, U+2028 and U+2029 are escaped, and with html so are <, > and &.
func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainASCII[c] && (!html || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
