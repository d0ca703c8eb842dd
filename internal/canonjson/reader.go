package canonjson

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Reader reads a JSON text by hand, for callers that map it onto their
// own types faster than encoding/json's reflection can (the state file).
// It accepts what encoding/json accepts, decodes strings as it does
// (invalid UTF-8 and lone surrogates become U+FFFD), bounds nesting as it
// does, and words its errors as it does, as *SyntaxError at a byte offset.
// The methods that read a value skip the white space before it.
type Reader struct {
	data  []byte
	pos   int
	depth int
	// interned shares the strings a text repeats (keys, types, paths)
	// instead of allocating each occurrence.
	interned map[string]string
}

// NewReader returns a reader at the start of data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// ShareStrings makes r intern its strings in strs, a table that other
// readers may share, one after the other (never at the same time): the
// records of a journal, each read by a reader of its own, then share the
// keys and names they all repeat instead of each holding copies. strs
// must not be nil.
func (r *Reader) ShareStrings(strs map[string]string) { r.interned = strs }

// Inside returns a reader of the same text, at the same position, one
// level deeper: the reader of elements of the array at r's position,
// sharing nothing with r, so that elements can be read in parallel (see
// ArrayBounds).
func (r *Reader) Inside() *Reader { return &Reader{data: r.data, pos: r.pos, depth: r.depth + 1} }

// Offset returns the position of the reader: the byte offset of what it
// reads next (after white space when a method skipped it).
func (r *Reader) Offset() int { return r.pos }

// Seek moves the reader to the byte offset off.
func (r *Reader) Seek(off int) { r.pos = off }

// Remaining returns how many bytes are left after the position.
func (r *Reader) Remaining() int { return len(r.data) - r.pos }

// AtEnd skips white space and reports whether nothing else is left.
func (r *Reader) AtEnd() bool {
	r.SkipSpace()
	return r.pos >= len(r.data)
}

// Interning bounds: long strings are rarely repeated, and a cap keeps a
// hostile file from growing the table without end.
const (
	maxInternLen   = 64
	maxInternCount = 1 << 14
)

// Intern returns b as a string, shared with earlier equal strings.
func (r *Reader) Intern(b []byte) string {
	if len(b) > maxInternLen {
		return string(b)
	}
	if s, ok := r.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if r.interned == nil {
		r.interned = make(map[string]string, 256)
	}
	if len(r.interned) < maxInternCount {
		r.interned[s] = s
	}
	return s
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// SyntaxError is a problem at a byte offset of the text.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Errorf returns a *SyntaxError at the byte offset off.
func (r *Reader) Errorf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) failHere(format string, args ...any) error { return r.Errorf(r.pos, format, args...) }

func (r *Reader) eof() error {
	return &SyntaxError{Offset: len(r.data), Msg: "the file ends in the middle of the JSON (truncated?)"}
}

// SkipSpace moves the reader past white space.
func (r *Reader) SkipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte, 0 at the end.
func (r *Reader) Peek() byte {
	r.SkipSpace()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// Unexpected is the error for the byte at the position, which is not
// what context expected: "invalid character 'x' " and context, as
// encoding/json says it.
func (r *Reader) Unexpected(context string) error {
	if r.pos >= len(r.data) {
		return r.eof()
	}
	return r.failHere("invalid character %s %s", quoteChar(r.data[r.pos]), context)
}

func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return "'" + string(c) + "'"
}

// Object reads an object, calling member for each key; the reader sits on
// the key's value when member runs, and member must read it. The key may
// alias the text (see StringBytes).
func (r *Reader) Object(member func(key []byte) error) error {
	if empty, err := r.open('{', '}', "where an object was expected"); empty || err != nil {
		return err
	}
	defer func() { r.depth-- }()
	for {
		if r.Peek() != '"' {
			return r.Unexpected("looking for beginning of object key string")
		}
		key, err := r.StringBytes()
		if err != nil {
			return err
		}
		if r.Peek() != ':' {
			return r.Unexpected("after object key")
		}
		r.pos++
		if err := member(key); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		default:
			return r.Unexpected("after object key:value pair")
		}
	}
}

// open consumes the opening delimiter of an object or array and enters one
// nesting level, failing beyond maxDepth. When the container is empty it
// consumes the closing delimiter too and leaves the level again; otherwise
// the caller leaves it when done.
func (r *Reader) open(opening, closing byte, context string) (empty bool, err error) {
	if r.Peek() != opening {
		return false, r.Unexpected(context)
	}
	r.pos++
	if r.depth++; r.depth > maxDepth {
		return false, r.failHere("exceeded max depth")
	}
	if r.Peek() == closing {
		r.pos++
		r.depth--
		return true, nil
	}
	return false, nil
}

// Array reads an array, calling item for each element, which item must
// read.
func (r *Reader) Array(item func() error) error {
	if empty, err := r.open('[', ']', "where an array was expected"); empty || err != nil {
		return err
	}
	defer func() { r.depth-- }()
	for {
		if err := item(); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		default:
			return r.Unexpected("after array element")
		}
	}
}

// Null reads a null if there is one, and reports whether there was.
func (r *Reader) Null() (bool, error) {
	if r.Peek() != 'n' {
		return false, nil
	}
	return true, r.Literal("null")
}

// Literal reads word (true, false or null), failing on any other text.
func (r *Reader) Literal(word string) error {
	for i := 0; i < len(word); i++ {
		if r.pos >= len(r.data) {
			return r.eof()
		}
		if r.data[r.pos] != word[i] {
			return r.failHere("invalid character %s in literal %s (expecting '%c')", quoteChar(r.data[r.pos]), word, word[i])
		}
		r.pos++
	}
	return nil
}

// StringBytes reads a string; the result may alias the text when it holds
// no escapes and is valid UTF-8, so callers copy it (string(b), Intern) to
// keep it.
func (r *Reader) StringBytes() ([]byte, error) {
	if r.Peek() != '"' {
		return nil, r.Unexpected("where a string was expected")
	}
	r.pos++
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			s := r.data[start:r.pos]
			r.pos++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return r.slowString(start)
		case c < 0x20:
			return nil, r.failHere("invalid character %s in string literal", quoteChar(c))
		}
		r.pos++
	}
	return nil, r.eof()
}

// slowString decodes escapes and replaces invalid UTF-8 with U+FFFD, as
// encoding/json does.
func (r *Reader) slowString(start int) ([]byte, error) {
	out := make([]byte, 0, r.pos-start+16)
	out = append(out, r.data[start:r.pos]...)
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return out, nil
		case c < 0x20:
			return nil, r.failHere("invalid character %s in string literal", quoteChar(c))
		case c == '\\':
			var err error
			if out, err = r.escape(out); err != nil {
				return nil, err
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			r.pos++
		default:
			u, size := utf8.DecodeRune(r.data[r.pos:])
			if u == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, r.data[r.pos:r.pos+size]...)
			}
			r.pos += size
		}
	}
	return nil, r.eof()
}

// escape decodes the escape sequence at r.pos (its '\\') onto out; a
// surrogate that does not pair with the next \\u escape becomes U+FFFD.
func (r *Reader) escape(out []byte) ([]byte, error) {
	r.pos++
	if r.pos >= len(r.data) {
		return nil, r.eof()
	}
	e := r.data[r.pos]
	r.pos++
	switch e {
	case '"', '\\', '/':
		return append(out, e), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		return r.unicodeEscape(out)
	}
	r.pos--
	return nil, r.failHere("invalid character %s in string escape code", quoteChar(e))
}

// unicodeEscape decodes the four hex digits of a \\u escape at r.pos onto
// out, with the low surrogate that follows a high one.
func (r *Reader) unicodeEscape(out []byte) ([]byte, error) {
	u, err := r.hex4()
	if err != nil {
		return nil, err
	}
	if utf16.IsSurrogate(u) {
		r2 := rune(-1)
		if r.pos+1 < len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
			save := r.pos
			r.pos += 2
			if r2, err = r.hex4(); err != nil {
				return nil, err
			}
			if dec := utf16.DecodeRune(u, r2); dec != utf8.RuneError {
				return utf8.AppendRune(out, dec), nil
			}
			r.pos = save
		}
		u = utf8.RuneError
	}
	return utf8.AppendRune(out, u), nil
}

func (r *Reader) hex4() (rune, error) {
	if r.pos+4 > len(r.data) {
		return 0, r.eof()
	}
	var u rune
	for i := 0; i < 4; i++ {
		c := r.data[r.pos]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, r.failHere("invalid character %s in \\u hexadecimal character escape", quoteChar(r.data[r.pos]))
		}
		u = u*16 + rune(c)
		r.pos++
	}
	return u, nil
}

// Number reads a number and returns its text.
func (r *Reader) Number() ([]byte, error) {
	start := r.pos
	if r.pos < len(r.data) && r.data[r.pos] == '-' {
		r.pos++
	}
	digits := func() int {
		n := 0
		for r.pos < len(r.data) && '0' <= r.data[r.pos] && r.data[r.pos] <= '9' {
			r.pos++
			n++
		}
		return n
	}
	switch {
	case r.pos >= len(r.data):
		return nil, r.eof()
	case r.data[r.pos] == '0':
		r.pos++
	case '1' <= r.data[r.pos] && r.data[r.pos] <= '9':
		digits()
	default:
		return nil, r.Unexpected("in numeric literal")
	}
	if r.pos < len(r.data) && r.data[r.pos] == '.' {
		r.pos++
		if digits() == 0 {
			return nil, r.Unexpected("after decimal point in numeric literal")
		}
	}
	if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
		r.pos++
		if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
			r.pos++
		}
		if digits() == 0 {
			return nil, r.Unexpected("in exponent of numeric literal")
		}
	}
	return r.data[start:r.pos], nil
}

// Value reads any value as a canonical graph value, as graph.DecodeValue
// makes of encoding/json's: integers that fit as int64, other numbers as
// float64, {"$unknown": {…}} as an Unknown. Unlike encoding/json it refuses
// numbers beyond float64's range, which would decode to infinities that no
// file of ours can hold.
func (r *Reader) Value() (graph.Value, error) {
	switch c := r.Peek(); {
	case c == '{':
		m := map[string]graph.Value{}
		err := r.Object(func(key []byte) error {
			v, err := r.Value()
			m[r.Intern(key)] = v
			return err
		})
		if err != nil {
			return nil, err
		}
		return unknownOrMap(m), nil
	case c == '[':
		list := []graph.Value{}
		err := r.Array(func() error {
			v, err := r.Value()
			list = append(list, v)
			return err
		})
		return list, err
	case c == '"':
		b, err := r.StringBytes()
		return r.Intern(b), err
	case c == 't':
		return true, r.Literal("true")
	case c == 'f':
		return false, r.Literal("false")
	case c == 'n':
		return nil, r.Literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		at := r.pos
		text, err := r.Number()
		if err != nil {
			return nil, err
		}
		if i, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, r.Errorf(at, "number %s is beyond the range of a float64", text)
		}
		return f, nil
	}
	return nil, r.Unexpected("looking for beginning of value")
}

// DecodeValue reads data that holds exactly one JSON value (white space
// around it allowed) as a canonical graph value, as Reader.Value does:
// numbers beyond float64's range are refused, and so is anything after
// the value.
func DecodeValue(data []byte) (graph.Value, error) {
	r := NewReader(data)
	v, err := r.Value()
	if err != nil {
		return nil, err
	}
	if !r.AtEnd() {
		return nil, r.Errorf(r.Offset(), "more follows the first value")
	}
	return v, nil
}

// unknownOrMap applies graph.DecodeValue's rule: an object whose only key
// is "$unknown" holding an object is an Unknown.
func unknownOrMap(m map[string]graph.Value) graph.Value {
	if len(m) != 1 {
		return m
	}
	var u map[string]graph.Value
	switch inner := m["$unknown"].(type) {
	case map[string]graph.Value:
		u = inner
	case graph.Unknown:
		// The inner object was itself {"$unknown": {…}}: as raw JSON it
		// has neither "func" nor "args".
		return graph.Unknown{Func: "", Args: []graph.Value{}}
	default:
		return m
	}
	f, _ := u["func"].(string)
	args, _ := u["args"].([]graph.Value)
	if args == nil {
		args = []graph.Value{}
	}
	return graph.Unknown{Func: f, Args: args}
}

// Skip reads a value and drops it: the value of a field the caller does
// not know.
func (r *Reader) Skip() error {
	_, err := r.Value()
	return err
}

// ArrayBounds finds the elements of the array at the position without
// reading them, for reading them in parallel with readers from Inside: for
// each, where it starts and where its separator (the ',' after it, or the
// closing ']') is. It follows only strings and nesting; ok is false when
// they are broken or nested too deep, or when the array is empty or has an
// empty element, and the caller then reads the array as usual, which
// reports the problem. The reader does not move.
func (r *Reader) ArrayBounds() (starts, ends []int, ok bool) {
	return elementBounds(r.data, r.pos, r.depth+1)
}

// elementBounds scans the array that starts at data[pos] ('[') and returns
// where each element starts and where its separator (the ',' after it, or
// the closing ']') is. It follows only strings and nesting; ok is false
// when they are broken or nested beyond maxDepth (base is the array's own
// depth), or when the array is empty or has an empty element.
func elementBounds(data []byte, pos, base int) (starts, ends []int, ok bool) {
	depth := 0
	expect := false // an element must start before the next separator
	for i := pos; i < len(data); i++ {
		c := data[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if depth == 1 && expect {
			if c == ',' || c == ']' {
				return nil, nil, false
			}
			starts = append(starts, i)
			expect = false
		}
		switch c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return nil, nil, false
			}
		case '[', '{':
			depth++
			if base+depth-1 > maxDepth {
				return nil, nil, false
			}
			if depth == 1 {
				expect = true
			}
		case ']', '}':
			depth--
			if depth < 0 {
				return nil, nil, false
			}
			if depth == 0 {
				if c != ']' || len(starts) == 0 || len(ends) != len(starts)-1 {
					return nil, nil, false
				}
				return starts, append(ends, i), true
			}
		case ',':
			if depth == 1 {
				if len(ends) != len(starts)-1 {
					return nil, nil, false
				}
				ends = append(ends, i)
				expect = true
			}
		}
	}
	return nil, nil, false
}
