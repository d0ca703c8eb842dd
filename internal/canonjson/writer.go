package canonjson

import (
	"slices"
	"strconv"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Writer appends one JSON text to Buf. Objects and arrays are written
// through the Object and Array they begin, which place the commas and,
// with Indent, the line breaks. Errors do not stop it, so that the code
// that drives it stays linear: the first one is kept (Err) and the output
// is to be discarded.
type Writer struct {
	// Buf is the output so far.
	Buf []byte
	// Format adds its rules to the canonical ones; a caller may change it
	// for part of the output.
	Format Format
	// Indent puts each member and element on its own line, indented by two
	// spaces per level, as json.MarshalIndent(v, "", "  ") does.
	Indent bool
	// Marshal, when set, writes the values Value meets outside graph.Value's
	// set; otherwise they are converted by graph.Canonicalize first.
	Marshal func(v any) ([]byte, error)

	depth int
	err   error
	keys  []string // see PushKeys
}

// Err returns the first error met, nil when the output is whole.
func (w *Writer) Err() error { return w.err }

// Fail records err unless an error was recorded already.
func (w *Writer) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// String writes a string under the writer's Format.
func (w *Writer) String(s string) { w.Buf = AppendString(w.Buf, s, w.Format) }

// Int writes an integer.
func (w *Writer) Int(n int64) { w.Buf = strconv.AppendInt(w.Buf, n, 10) }

// Uint writes a non-negative integer.
func (w *Writer) Uint(n uint64) { w.Buf = strconv.AppendUint(w.Buf, n, 10) }

// Bool writes true or false.
func (w *Writer) Bool(b bool) { w.Buf = strconv.AppendBool(w.Buf, b) }

// Null writes null.
func (w *Writer) Null() { w.Buf = append(w.Buf, "null"...) }

// Raw writes b, which must be a JSON value, as it is.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// Float writes a float64; NaN and the infinities are an error and write
// null.
func (w *Writer) Float(f float64) {
	b, err := AppendFloat(w.Buf, f)
	if err != nil {
		w.Fail(err)
		w.Null()
		return
	}
	w.Buf = b
}

// Strings writes a list of strings; nil is null unless the Format has
// ListsNeverNull.
func (w *Writer) Strings(list []string) {
	if list == nil && w.Format&ListsNeverNull == 0 {
		w.Null()
		return
	}
	a := w.BeginArray()
	for _, s := range list {
		a.Next().String(s)
	}
	a.End()
}

// Value writes a canonical value (graph.Value), map keys sorted. A nil map
// is null, and so is a nil list unless the Format has ListsNeverNull. An
// Unknown is {"$unknown": {"func": …, "args": […]}}, the form every file
// gives it.
func (w *Writer) Value(v graph.Value) {
	switch x := v.(type) {
	case nil:
		w.Null()
	case bool:
		w.Bool(x)
	case int64:
		w.Int(x)
	case float64:
		w.Float(x)
	case string:
		w.String(x)
	case []graph.Value:
		if x == nil && w.Format&ListsNeverNull == 0 {
			w.Null()
			return
		}
		a := w.BeginArray()
		for _, e := range x {
			a.Next().Value(e)
		}
		a.End()
	case map[string]graph.Value:
		Map(w, x)
	case graph.Unknown:
		w.unknown(x)
	default:
		if w.Marshal != nil {
			b, err := w.Marshal(v)
			if err != nil {
				w.Fail(err)
			}
			w.Raw(b)
			return
		}
		c, err := graph.Canonicalize(v)
		if err != nil {
			w.Fail(err)
			w.Null()
			return
		}
		w.Value(c)
	}
}

// unknown writes an Unknown; its content is HTML-escaped under
// EscapeHTMLInUnknowns.
func (w *Writer) unknown(u graph.Unknown) {
	format := w.Format
	if format&EscapeHTMLInUnknowns != 0 {
		w.Format |= EscapeHTML
	}
	o := w.BeginObject()
	inner := o.Field("$unknown").BeginObject()
	inner.Field("func").String(u.Func)
	inner.Field("args").Value(u.Args)
	inner.End()
	o.End()
	w.Format = format
}

// Map writes m as an object with its keys sorted; nil is null. Values
// are written by String, Int, or, of any other type, by Value.
func Map[V any](w *Writer, m map[string]V) {
	if m == nil {
		w.Null()
		return
	}
	keys := PushKeys(w, m)
	o := w.BeginObject()
	for _, k := range keys {
		e, v := o.Key(k), m[k]
		// A switch on the pointer: converting v itself to an interface
		// would allocate each string and integer.
		switch p := any(&v).(type) {
		case *string:
			e.String(*p)
		case *int64:
			e.Int(*p)
		case *graph.Value:
			e.Value(*p)
		default:
			e.Value(v)
		}
	}
	o.End()
	w.PopKeys(keys)
}

// PushKeys returns m's keys, sorted, for writing m as an object where Map
// does not fit; PopKeys must be given them once it is written. The keys
// live in scratch space that nested maps use as a stack: a state has tens
// of thousands of maps, and a slice per map was a tenth of the encoding
// time.
func PushKeys[V any](w *Writer, m map[string]V) []string {
	start := len(w.keys)
	for k := range m {
		w.keys = append(w.keys, k)
	}
	keys := w.keys[start:]
	slices.Sort(keys)
	// Maps written inside this one push above these keys, or into a new
	// array when they outgrow this one, and pop before PopKeys(keys):
	// keys stays valid throughout.
	return keys
}

// PopKeys releases the keys PushKeys returned last.
func (w *Writer) PopKeys(keys []string) { w.keys = w.keys[:len(w.keys)-len(keys)] }

// indentation covers the nesting of the state file's own structure; deeper
// values fall back to the loop.
const indentation = "\n                                                                "

func (w *Writer) newline() {
	if !w.Indent {
		return
	}
	if n := 1 + 2*w.depth; n <= len(indentation) {
		w.Buf = append(w.Buf, indentation[:n]...)
		return
	}
	w.Buf = append(w.Buf, '\n')
	for range w.depth {
		w.Buf = append(w.Buf, ' ', ' ')
	}
}

// members is an object or array being written: whether it has a member
// yet decides the commas and, with Indent, the line breaks.
type members struct {
	w     *Writer
	empty bool
}

func (w *Writer) open(opening byte) members {
	w.Buf = append(w.Buf, opening)
	w.depth++
	return members{w: w, empty: true}
}

func (m *members) next() *Writer {
	w := m.w
	if !m.empty {
		w.Buf = append(w.Buf, ',')
	}
	m.empty = false
	w.newline()
	return w
}

func (m *members) close(closing byte) {
	w := m.w
	w.depth--
	if !m.empty {
		w.newline()
	}
	w.Buf = append(w.Buf, closing)
}

// Object is an object being written.
type Object struct{ members }

// BeginObject writes the opening brace of an object.
func (w *Writer) BeginObject() Object { return Object{w.open('{')} }

// Key starts a member named k, which is escaped under the writer's Format,
// and returns the writer for its value.
func (o *Object) Key(k string) *Writer {
	w := o.next()
	w.String(k)
	return w.colon()
}

// Field starts a member named name, which must hold no character that
// JSON escapes (a Go constant such as a struct field's name), so that it
// is copied without looking at it.
func (o *Object) Field(name string) *Writer {
	w := o.next()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, name...)
	w.Buf = append(w.Buf, '"')
	return w.colon()
}

func (w *Writer) colon() *Writer {
	w.Buf = append(w.Buf, ':')
	if w.Indent {
		w.Buf = append(w.Buf, ' ')
	}
	return w
}

// End writes the closing brace.
func (o *Object) End() { o.close('}') }

// Array is an array being written.
type Array struct{ members }

// BeginArray writes the opening bracket of an array.
func (w *Writer) BeginArray() Array { return Array{w.open('[')} }

// ResumeArray continues, in a writer of its own, an array whose opening
// bracket, and earlier elements when started, another writer wrote: the
// pieces, appended in order, make one array (pieces of a long array
// encoded in parallel). depth is the nesting level of its elements, 1 for
// those of a top-level array.
func (w *Writer) ResumeArray(depth int, started bool) Array {
	w.depth = depth
	return Array{members{w: w, empty: !started}}
}

// Next starts an element and returns the writer for it.
func (a *Array) Next() *Writer { return a.next() }

// End writes the closing bracket.
func (a *Array) End() { a.close(']') }
