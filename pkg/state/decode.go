package state

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/graph"
)

// parser reads the state file format by hand. encoding/json with
// UseNumber, plus the graph.DecodeValue pass, takes about half a second
// for the state of 10,000 resources, which would eat most of a plan's
// budget. The parser gives the same result (FuzzDecode compares the two):
// struct fields matched exactly or case-insensitively, unknown fields
// skipped, null leaving a field zero, the last of duplicate keys winning,
// numbers as graph.DecodeValue makes them, {"$unknown": …} as graph.Unknown.
// Unlike encoding/json it rejects numbers beyond float64's range, which
// would decode to infinities that no state file can hold.
type parser struct {
	data  []byte
	pos   int
	depth int
	// interned shares the strings a state repeats (keys, types, paths)
	// instead of allocating each occurrence.
	interned map[string]string
}

// Interning bounds: long strings are rarely repeated, and a cap keeps a
// hostile file from growing the table without end.
const (
	maxInternLen   = 64
	maxInternCount = 1 << 14
)

// intern returns b as a string, shared with earlier equal strings.
func (p *parser) intern(b []byte) string {
	if len(b) > maxInternLen {
		return string(b)
	}
	if s, ok := p.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.interned == nil {
		p.interned = make(map[string]string, 256)
	}
	if len(p.interned) < maxInternCount {
		p.interned[s] = s
	}
	return s
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// syntaxError is a problem at a byte offset; Decode turns it into a line
// and column.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func (p *parser) fail(format string, args ...any) error {
	return &syntaxError{off: p.pos, msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() error {
	return &syntaxError{off: len(p.data), msg: "the file ends in the middle of the JSON (truncated?)"}
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (p *parser) peek() byte {
	p.ws()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

func (p *parser) unexpected(context string) error {
	if p.pos >= len(p.data) {
		return p.eof()
	}
	return p.fail("invalid character %s %s", quoteChar(p.data[p.pos]), context)
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

// object calls member for each key of an object; the parser sits on the
// key's value when member runs and member must consume it.
func (p *parser) object(member func(key []byte) error) error {
	if empty, err := p.open('{', '}', "where an object was expected"); empty || err != nil {
		return err
	}
	defer func() { p.depth-- }()
	for {
		if p.peek() != '"' {
			return p.unexpected("looking for beginning of object key string")
		}
		key, err := p.rawString()
		if err != nil {
			return err
		}
		if p.peek() != ':' {
			return p.unexpected("after object key")
		}
		p.pos++
		if err := member(key); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.unexpected("after object key:value pair")
		}
	}
}

// open consumes the opening delimiter of an object or array and enters one
// nesting level, failing beyond maxDepth. When the container is empty it
// consumes the closing delimiter too and leaves the level again; otherwise
// the caller leaves it when done.
func (p *parser) open(opening, closing byte, context string) (empty bool, err error) {
	if p.peek() != opening {
		return false, p.unexpected(context)
	}
	p.pos++
	if p.depth++; p.depth > maxDepth {
		return false, p.fail("exceeded max depth")
	}
	if p.peek() == closing {
		p.pos++
		p.depth--
		return true, nil
	}
	return false, nil
}

// array calls item for each element; item must consume it.
func (p *parser) array(item func() error) error {
	if empty, err := p.open('[', ']', "where an array was expected"); empty || err != nil {
		return err
	}
	defer func() { p.depth-- }()
	for {
		if err := item(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.unexpected("after array element")
		}
	}
}

// null consumes a null and reports whether there was one.
func (p *parser) null() (bool, error) {
	if p.peek() != 'n' {
		return false, nil
	}
	return true, p.literal("null")
}

func (p *parser) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) {
			return p.eof()
		}
		if p.data[p.pos] != word[i] {
			return p.fail("invalid character %s in literal %s (expecting '%c')", quoteChar(p.data[p.pos]), word, word[i])
		}
		p.pos++
	}
	return nil
}

// rawString reads a string; the result may alias the input when it holds
// no escapes and is valid UTF-8, so callers copy it (string(b)) to keep it.
func (p *parser) rawString() ([]byte, error) {
	if p.peek() != '"' {
		return nil, p.unexpected("where a string was expected")
	}
	p.pos++
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			s := p.data[start:p.pos]
			p.pos++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < 0x20:
			return nil, p.fail("invalid character %s in string literal", quoteChar(c))
		}
		p.pos++
	}
	return nil, p.eof()
}

// slowString decodes escapes and replaces invalid UTF-8 with U+FFFD, as
// encoding/json does.
func (p *parser) slowString(start int) ([]byte, error) {
	out := make([]byte, 0, p.pos-start+16)
	out = append(out, p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out, nil
		case c < 0x20:
			return nil, p.fail("invalid character %s in string literal", quoteChar(c))
		case c == '\\':
			p.pos++
			if p.pos >= len(p.data) {
				return nil, p.eof()
			}
			e := p.data[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return nil, err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						if r2, err = p.hex4(); err != nil {
							return nil, err
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							continue
						}
						p.pos = save
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				p.pos--
				return nil, p.fail("invalid character %s in string escape code", quoteChar(e))
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, p.data[p.pos:p.pos+size]...)
			}
			p.pos += size
		}
	}
	return nil, p.eof()
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.eof()
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := p.data[p.pos]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, p.fail("invalid character %s in \\u hexadecimal character escape", quoteChar(p.data[p.pos]))
		}
		r = r*16 + rune(c)
		p.pos++
	}
	return r, nil
}

// The typed readers below decode into a destination the way encoding/json
// does: null leaves a string, number, boolean, time or struct as it was and
// sets a map or slice to nil; a map is merged into; a slice is refilled
// from index 0, reusing its elements.

func (p *parser) str(dst *string) error {
	if isNull, err := p.null(); isNull || err != nil {
		return err
	}
	b, err := p.rawString()
	if err == nil {
		*dst = p.intern(b)
	}
	return err
}

func (p *parser) boolean(dst *bool) error {
	switch p.peek() {
	case 't':
		*dst = true
		return p.literal("true")
	case 'f':
		*dst = false
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	return p.unexpected("where a boolean was expected")
}

// number scans a JSON number and returns its text.
func (p *parser) number() ([]byte, error) {
	start := p.pos
	if p.pos < len(p.data) && p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	switch {
	case p.pos >= len(p.data):
		return nil, p.eof()
	case p.data[p.pos] == '0':
		p.pos++
	case '1' <= p.data[p.pos] && p.data[p.pos] <= '9':
		digits()
	default:
		return nil, p.unexpected("in numeric literal")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.unexpected("in exponent of numeric literal")
		}
	}
	return p.data[start:p.pos], nil
}

// integer reads a number that must be an integer within [lo, hi]; null
// returns ok false.
func (p *parser) integer(field string, lo, hi int64) (n int64, ok bool, err error) {
	if isNull, err := p.null(); isNull || err != nil {
		return 0, false, err
	}
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, p.unexpected("where a number was expected for " + field)
	}
	at := p.pos
	text, err := p.number()
	if err != nil {
		return 0, false, err
	}
	n, err = strconv.ParseInt(string(text), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, false, &syntaxError{off: at, msg: fmt.Sprintf("cannot unmarshal number %s into %s (an integer from %d to %d)", text, field, lo, hi)}
	}
	return n, true, nil
}

// intInto reads a Go int field.
func (p *parser) intInto(dst *int, field string) error {
	n, ok, err := p.integer(field, math.MinInt, math.MaxInt)
	if ok {
		*dst = int(n)
	}
	return err
}

func (p *parser) uinteger(dst *uint64, field string) error {
	if isNull, err := p.null(); isNull || err != nil {
		return err
	}
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return p.unexpected("where a number was expected for " + field)
	}
	at := p.pos
	text, err := p.number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(string(text), 10, 64)
	if err != nil {
		return &syntaxError{off: at, msg: fmt.Sprintf("cannot unmarshal number %s into %s (a non-negative integer)", text, field)}
	}
	*dst = n
	return nil
}

// value reads any JSON value as a canonical graph value.
func (p *parser) value() (graph.Value, error) {
	switch c := p.peek(); {
	case c == '{':
		m := map[string]graph.Value{}
		err := p.object(func(key []byte) error {
			v, err := p.value()
			m[p.intern(key)] = v
			return err
		})
		if err != nil {
			return nil, err
		}
		return unknownOrMap(m), nil
	case c == '[':
		list := []graph.Value{}
		err := p.array(func() error {
			v, err := p.value()
			list = append(list, v)
			return err
		})
		return list, err
	case c == '"':
		b, err := p.rawString()
		return p.intern(b), err
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		at := p.pos
		text, err := p.number()
		if err != nil {
			return nil, err
		}
		if i, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &syntaxError{off: at, msg: fmt.Sprintf("number %s is beyond the range of a float64", text)}
		}
		return f, nil
	}
	return nil, p.unexpected("looking for beginning of value")
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

// valueMap reads an object of values into *dst.
func (p *parser) valueMap(dst *map[string]graph.Value) error {
	if isNull, err := p.null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	if *dst == nil {
		*dst = map[string]graph.Value{}
	}
	m := *dst
	return p.object(func(key []byte) error {
		v, err := p.value()
		m[p.intern(key)] = v
		return err
	})
}

func (p *parser) stringList(dst *[]string) error {
	if isNull, err := p.null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	list := (*dst)[:0]
	err := p.array(func() error {
		list = grow(list)
		return p.str(&list[len(list)-1])
	})
	if len(list) == 0 {
		list = []string{}
	}
	*dst = list
	return err
}

// grow extends list by one element, reusing the backing array's element
// where there is one (as encoding/json does).
func grow[T any](list []T) []T {
	if len(list) < cap(list) {
		return list[:len(list)+1]
	}
	var zero T
	return append(list, zero)
}

func (p *parser) timestamp(dst *time.Time) error {
	if isNull, err := p.null(); isNull || err != nil {
		return err
	}
	at := p.pos
	b, err := p.rawString()
	if err != nil {
		return err
	}
	if err := dst.UnmarshalText(b); err != nil {
		return &syntaxError{off: at, msg: fmt.Sprintf("time %q: %v", b, err)}
	}
	return nil
}

// fieldName matches encoding/json: an exact match first, then a
// case-insensitive one.
func fieldName(key []byte, known ...string) string {
	for _, k := range known {
		if string(key) == k {
			return k
		}
	}
	for _, k := range known {
		if strings.EqualFold(string(key), k) {
			return k
		}
	}
	return ""
}

// skip consumes a value of a field this build does not know.
func (p *parser) skip() error {
	_, err := p.value()
	return err
}

func (p *parser) state(s *State) error {
	return p.object(func(key []byte) error {
		switch fieldName(key, "version", "serial", "lineage", "resources") {
		case "version":
			return p.intInto(&s.Version, "version")
		case "serial":
			return p.uinteger(&s.Serial, "serial")
		case "lineage":
			return p.str(&s.Lineage)
		case "resources":
			if s.Resources == nil {
				if done, err := p.parallelResources(s); done {
					return err
				}
			}
			return sliceInto(p, &s.Resources, p.resource)
		}
		return p.skip()
	})
}

// parallelMin is the least array size, in bytes, worth splitting.
const parallelMin = 1 << 20

// parallelResources parses a large resources array on up to GOMAXPROCS
// goroutines (all joined before it returns): it finds the elements'
// boundaries with a scan that only follows strings and nesting, then
// parses runs of elements with parsers of their own, each positioned in
// the whole input. It reports done false, having consumed nothing, when
// the array is small, or when anything is wrong with it: the sequential
// parser then reads it and reports the problem exactly as it would have.
func (p *parser) parallelResources(s *State) (done bool, err error) {
	workers := runtime.GOMAXPROCS(0)
	if p.peek() != '[' || workers < 2 || len(p.data)-p.pos < parallelMin {
		return false, nil
	}
	starts, ends, ok := elementBounds(p.data, p.pos, p.depth+1)
	if !ok || len(starts) < 2*workers {
		return false, nil
	}
	res := make([]Resource, len(starts))
	failed := make([]bool, workers)
	per := (len(starts) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(starts))
		if lo >= hi {
			break
		}
		wg.Go(func() {
			q := &parser{data: p.data, depth: p.depth + 1}
			for i := lo; i < hi; i++ {
				q.pos = starts[i]
				if err := q.resource(&res[i]); err != nil {
					failed[w] = true
					return
				}
				// Only white space may follow an element before its
				// separator.
				if q.ws(); q.pos != ends[i] {
					failed[w] = true
					return
				}
			}
		})
	}
	wg.Wait()
	if slices.Contains(failed, true) {
		return false, nil
	}
	s.Resources = res
	p.pos = ends[len(ends)-1] + 1
	return true, nil
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

// sliceInto reads an array into *dst with elem decoding each element.
func sliceInto[T any](p *parser, dst *[]T, elem func(*T) error) error {
	if isNull, err := p.null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	list := (*dst)[:0]
	err := p.array(func() error {
		list = grow(list)
		return elem(&list[len(list)-1])
	})
	if len(list) == 0 {
		list = []T{}
	}
	*dst = list
	return err
}

// mapInto reads an object into *dst, each value decoded by elem into a
// fresh zero value.
func mapInto[T any](p *parser, dst *map[string]T, elem func(*T) error) error {
	if isNull, err := p.null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	if *dst == nil {
		*dst = map[string]T{}
	}
	m := *dst
	return p.object(func(key []byte) error {
		var v T
		err := elem(&v)
		m[p.intern(key)] = v
		return err
	})
}

// structInto reads an object into a struct through member; null leaves
// the struct as it is.
func (p *parser) structInto(member func(key []byte) error) error {
	if isNull, err := p.null(); isNull || err != nil {
		return err
	}
	return p.object(member)
}

func (p *parser) resource(r *Resource) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "address", "type", "type_chain", "management", "driver", "dependencies", "spec", "sensitive", "feedback") {
		case "address":
			return p.str(&r.Address)
		case "type":
			return p.str(&r.Type)
		case "type_chain":
			return p.stringList(&r.TypeChain)
		case "management":
			m := string(r.Management)
			err := p.str(&m)
			r.Management = graph.Management(m)
			return err
		case "driver":
			return p.driver(&r.Driver)
		case "dependencies":
			return p.stringList(&r.Dependencies)
		case "spec":
			return p.valueMap(&r.Spec)
		case "sensitive":
			return p.stringList(&r.Sensitive)
		case "feedback":
			return p.feedback(&r.Feedback)
		}
		return p.skip()
	})
}

func (p *parser) driver(d *graph.Driver) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "name", "operations", "options") {
		case "name":
			return p.str(&d.Name)
		case "operations":
			return mapInto(p, &d.Operations, p.operation)
		case "options":
			return p.valueMap(&d.Options)
		}
		return p.skip()
	})
}

func (p *parser) operation(op *graph.Operation) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "implementation", "dependencies", "inputs", "sensitive", "outputs", "timeout") {
		case "implementation":
			return p.str(&op.Implementation)
		case "dependencies":
			return p.stringList(&op.Dependencies)
		case "inputs":
			return p.valueMap(&op.Inputs)
		case "sensitive":
			return p.stringList(&op.Sensitive)
		case "outputs":
			return mapInto(p, &op.Outputs, p.str)
		case "timeout":
			n, ok, err := p.integer("timeout", math.MinInt64, math.MaxInt64)
			if ok {
				op.Timeout = time.Duration(n)
			}
			return err
		}
		return p.skip()
	})
}

func (p *parser) feedback(f *Feedback) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "resolved", "attributes", "signals", "instance_id", "status", "backend_code",
			"backend_status", "attempts", "output", "allocations", "extra", "created", "enacted", "last_attempt") {
		case "resolved":
			return p.valueMap(&f.Resolved)
		case "attributes":
			return p.valueMap(&f.Attributes)
		case "signals":
			return p.valueMap(&f.Signals)
		case "instance_id":
			return p.str(&f.InstanceID)
		case "status":
			return p.status(&f.Status)
		case "backend_code":
			return p.intInto(&f.BackendCode, "backend_code")
		case "backend_status":
			return p.str(&f.BackendStatus)
		case "attempts":
			return p.intInto(&f.Attempts, "attempts")
		case "output":
			return p.str(&f.Output)
		case "allocations":
			return sliceInto(p, &f.Allocations, p.allocation)
		case "extra":
			return p.valueMap(&f.Extra)
		case "created":
			return p.timestamp(&f.Created)
		case "enacted":
			return p.timestamp(&f.Enacted)
		case "last_attempt":
			return p.timestamp(&f.LastAttempt)
		}
		return p.skip()
	})
}

func (p *parser) status(s *Status) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "active", "converging", "failed", "message") {
		case "active":
			return p.boolean(&s.Active)
		case "converging":
			return p.boolean(&s.Converging)
		case "failed":
			return p.boolean(&s.Failed)
		case "message":
			return p.str(&s.Message)
		}
		return p.skip()
	})
}

func (p *parser) process(pr *Process) error {
	return p.object(func(key []byte) error {
		switch fieldName(key, "pid", "pgid", "start") {
		case "pid":
			return p.intInto(&pr.PID, "pid")
		case "pgid":
			return p.intInto(&pr.PGID, "pgid")
		case "start":
			return p.str(&pr.Start)
		}
		return p.skip()
	})
}

func (p *parser) allocation(a *Allocation) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "provider", "resources") {
		case "provider":
			return p.str(&a.Provider)
		case "resources":
			return mapInto(p, &a.Resources, func(n *int64) error {
				v, _, err := p.integer("an allocation amount", math.MinInt64, math.MaxInt64)
				*n = v
				return err
			})
		}
		return p.skip()
	})
}

// parseState parses a whole state file; the error carries a byte offset.
func parseState(data []byte) (*State, error) {
	p := &parser{data: data}
	var s State
	if err := p.state(&s); err != nil {
		return nil, err
	}
	if p.ws(); p.pos < len(p.data) {
		return nil, p.fail("data after the end of the state object")
	}
	return &s, nil
}

// record parses one journal record payload.
func parseRecord(data []byte) (Record, error) {
	p := &parser{data: data}
	var r Record
	err := p.object(func(key []byte) error {
		switch fieldName(key, "seq", "kind", "address", "action", "attempt", "resource", "removed", "process", "time") {
		case "seq":
			return p.uinteger(&r.Seq, "seq")
		case "kind":
			k := string(r.Kind)
			err := p.str(&k)
			r.Kind = RecordKind(k)
			return err
		case "address":
			return p.str(&r.Address)
		case "action":
			return p.str(&r.Action)
		case "attempt":
			return p.intInto(&r.Attempt, "attempt")
		case "resource":
			if isNull, err := p.null(); isNull || err != nil {
				if isNull {
					r.Resource = nil
				}
				return err
			}
			if r.Resource == nil {
				r.Resource = &Resource{}
			}
			return p.resource(r.Resource)
		case "removed":
			return p.boolean(&r.Removed)
		case "process":
			if isNull, err := p.null(); isNull || err != nil {
				return err
			}
			r.Process = &Process{}
			return p.process(r.Process)
		case "time":
			return p.timestamp(&r.Time)
		}
		return p.skip()
	})
	if err != nil {
		return r, err
	}
	if p.ws(); p.pos < len(p.data) {
		return r, p.fail("data after the end of the record")
	}
	return r, nil
}
