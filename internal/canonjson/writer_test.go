package canonjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// characters holds one of every class of character a string can hold:
// plain ASCII, what JSON escapes, what the formats escape on top, DEL,
// multi-byte UTF-8, U+FFFD itself, and invalid UTF-8 (a stray byte, a
// truncated sequence, an overlong form, an encoded surrogate).
var characters = []string{"a", "Z", "0", " ", "/", "\"", "\\", "\x00", "\x01", "\b", "\t", "\n", "\f", "\r", "\x1f",
	"<", ">", "&", "\x7f", "é", "日", "🎉", "\u2028", "\u2029", "\ufffd", "\xff", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80"}

// boundaryFloats are the numbers where the float format changes or runs
// out.
var boundaryFloats = []float64{0, math.Copysign(0, -1), 1e-6, math.Nextafter(1e-6, 0), -1e-6, 1e21, math.Nextafter(1e21, 0), -1e21,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-7, 1.5e-300, 1 << 53, 1<<53 + 2, 0.1, 1 / 3.0, 123456789.125, 1e20, 1e100}

// testValues returns fixed values at every boundary and generated nested
// ones, all canonical.
func testValues() []graph.Value {
	var vals []graph.Value
	for _, c := range characters {
		vals = append(vals, c, "x"+c+"y")
	}
	for _, f := range boundaryFloats {
		vals = append(vals, f, -f)
	}
	vals = append(vals, int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1), nil, true, false,
		[]graph.Value(nil), []graph.Value{}, map[string]graph.Value(nil), map[string]graph.Value{},
		graph.Unknown{Func: "f<&>\b"},
		graph.Unknown{Func: "g", Args: []graph.Value{"<", graph.Unknown{Func: "h\f", Args: []graph.Value{}}, map[string]graph.Value{"k&\b": []graph.Value(nil)}}})
	// Deeper than the indentation the writer keeps ready.
	var deep graph.Value = "leaf"
	for i := range 45 {
		if i%2 == 0 {
			deep = []graph.Value{deep, int64(i)}
		} else {
			deep = map[string]graph.Value{fmt.Sprint("d", i): deep, "e": nil}
		}
	}
	vals = append(vals, deep)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		vals = append(vals, randomValue(rng, 0))
	}
	return vals
}

func randomString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(8) {
		b.WriteString(characters[rng.IntN(len(characters))])
	}
	return b.String()
}

func randomValue(rng *rand.Rand, depth int) graph.Value {
	switch k := rng.IntN(10); {
	case k == 0 || depth > 4 && k < 5:
		return randomString(rng)
	case k == 1:
		return rng.Int64() >> rng.IntN(64)
	case k == 2:
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return boundaryFloats[rng.IntN(len(boundaryFloats))]
		}
		return f
	case k == 3:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
	case k == 4:
		return nil
	case k == 5:
		l := make([]graph.Value, rng.IntN(4))
		for i := range l {
			l[i] = randomValue(rng, depth+1)
		}
		return l
	case k == 6:
		m := map[string]graph.Value{}
		for range rng.IntN(4) {
			m[randomString(rng)] = randomValue(rng, depth+1)
		}
		return m
	case k == 7:
		return graph.Unknown{Func: randomString(rng), Args: []graph.Value{randomValue(rng, depth+1)}}
	}
	return rng.IntN(2) == 0
}

// stdJSON is encoding/json's text of v (graph.Unknown through its
// MarshalJSON), without the trailing newline.
func stdJSON(t testing.TB, v any, escapeHTML, indent bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// hexControl rewrites the escapes \b and \f of a JSON text as \u0008 and
// \u000c.
func hexControl(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteString(`\u0008`)
		case 'f':
			b.WriteString(`\u000c`)
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// nilListsEmpty returns v with every nil list, Unknown arguments included,
// made empty.
func nilListsEmpty(v graph.Value) graph.Value {
	switch x := v.(type) {
	case []graph.Value:
		out := make([]graph.Value, len(x))
		for i, e := range x {
			out[i] = nilListsEmpty(e)
		}
		return out
	case map[string]graph.Value:
		if x == nil {
			return x
		}
		out := make(map[string]graph.Value, len(x))
		for k, e := range x {
			out[k] = nilListsEmpty(e)
		}
		return out
	case graph.Unknown:
		return graph.Unknown{Func: x.Func, Args: nilListsEmpty(x.Args).([]graph.Value)}
	}
	return v
}

func write(v graph.Value, f Format, indent bool) (string, error) {
	w := Writer{Format: f, Indent: indent}
	w.Value(v)
	return string(w.Buf), w.Err()
}

// decodeStd is what encoding/json reads from a JSON text.
func decodeStd(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("encoding/json cannot read %s: %v", s, err)
	}
	return v
}

// TestAgainstEncodingJSON: under each Format, what the writer makes of a
// value is byte for byte what encoding/json makes of it where their rules
// coincide, what it makes of it with the Format's rule applied where they
// do not, and always reads back with encoding/json as the same value.
func TestAgainstEncodingJSON(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		indent bool
		// want is the text expected of v, from encoding/json's.
		want func(t testing.TB, v graph.Value) string
	}{
		{"canonical", EscapeHTMLInUnknowns, false, func(t testing.TB, v graph.Value) string { return stdJSON(t, v, false, false) }},
		{"indented", EscapeHTMLInUnknowns, true, func(t testing.TB, v graph.Value) string { return stdJSON(t, v, false, true) }},
		{"html", EscapeHTML, false, func(t testing.TB, v graph.Value) string { return stdJSON(t, v, true, false) }},
		{"hex control", HexControl | EscapeHTMLInUnknowns, false, func(t testing.TB, v graph.Value) string { return hexControl(stdJSON(t, v, false, false)) }},
		{"lists never null", ListsNeverNull | EscapeHTMLInUnknowns, false, func(t testing.TB, v graph.Value) string {
			return stdJSON(t, nilListsEmpty(v), false, false)
		}},
		{"plan files", HexControl | ListsNeverNull, true, nil},
		{"unknowns unescaped", 0, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range testValues() {
				got, err := write(v, c.format, c.indent)
				if err != nil {
					t.Fatalf("%#v: %v", v, err)
				}
				std := v
				if c.format&ListsNeverNull != 0 {
					std = nilListsEmpty(v)
				}
				if back, want := decodeStd(t, got), decodeStd(t, stdJSON(t, std, false, false)); !reflect.DeepEqual(back, want) {
					t.Fatalf("%#v: %s reads back as %#v, want %#v", v, got, back, want)
				}
				if c.want == nil {
					continue
				}
				if want := c.want(t, v); got != want {
					t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
				}
			}
		})
	}
}

func TestValuesOutsideTheJSONTypes(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), []graph.Value{int64(1), math.NaN()}, make(chan int), struct{}{}} {
		if _, err := write(v, 0, false); err == nil {
			t.Errorf("%#v was written", v)
		}
	}
	// Other Go values are canonicalized, or written by Marshal.
	for _, c := range []struct {
		v                  any
		canonical, marshal string
	}{
		{int(5), `5`, `5`},
		{[]string{"<"}, `["<"]`, `["\u003c"]`},
		{map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`, `{"a":1,"b":2}`},
		{float32(0.1), `0.10000000149011612`, `0.1`},
	} {
		if got, err := write(c.v, 0, false); err != nil || got != c.canonical {
			t.Errorf("%#v: %s, %v; want %s", c.v, got, err, c.canonical)
		}
		w := Writer{Marshal: json.Marshal}
		w.Value(c.v)
		if got := string(w.Buf); w.Err() != nil || got != c.marshal {
			t.Errorf("%#v with Marshal: %s, %v; want %s", c.v, got, w.Err(), c.marshal)
		}
	}
}

// TestObjectsAndArrays: a document written member by member is what
// json.MarshalIndent makes of the same structure, in one piece or as
// pieces of an array resumed where the previous piece stopped.
func TestObjectsAndArrays(t *testing.T) {
	type item struct {
		Name   string            `json:"name"`
		Tags   []string          `json:"tags"`
		Env    map[string]string `json:"env"`
		Counts map[string]int64  `json:"counts"`
		Empty  []string          `json:"empty"`
		Serial uint64            `json:"serial"`
		On     bool              `json:"on"`
	}
	items := []item{
		{Name: "a<\b", Tags: []string{"x", "\u2028"}, Env: map[string]string{"B": "2", "A\f": "1"}, Counts: map[string]int64{"n": -3}, Empty: []string{}, Serial: math.MaxUint64, On: true},
		{Name: "b", Env: map[string]string{}, Counts: nil},
		{Name: "c", Tags: []string{}},
	}
	writeItem := func(w *Writer, it item) {
		o := w.BeginObject()
		o.Field("name").String(it.Name)
		o.Field("tags").Strings(it.Tags)
		Map(o.Key("env"), it.Env)
		Map(o.Key("counts"), it.Counts)
		o.Field("empty").Strings(it.Empty)
		o.Field("serial").Uint(it.Serial)
		o.Field("on").Bool(it.On)
		o.End()
	}
	for _, indent := range []bool{false, true} {
		want := stdJSON(t, map[string][]item{"items": items}, false, indent)
		w := Writer{Indent: indent}
		o := w.BeginObject()
		list := o.Field("items").BeginArray()
		for _, it := range items {
			writeItem(list.Next(), it)
		}
		list.End()
		o.End()
		if got := string(w.Buf); got != want {
			t.Errorf("indent %v:\n got %s\nwant %s", indent, got, want)
		}
		want = stdJSON(t, items, false, indent)
		for cut := range len(items) + 1 {
			first := Writer{Indent: indent}
			head := first.BeginArray()
			for _, it := range items[:cut] {
				writeItem(head.Next(), it)
			}
			rest := Writer{Indent: indent}
			tail := rest.ResumeArray(1, cut > 0)
			for _, it := range items[cut:] {
				writeItem(tail.Next(), it)
			}
			tail.End()
			if got := string(first.Buf) + string(rest.Buf); got != want {
				t.Errorf("indent %v, resumed after %d:\n got %s\nwant %s", indent, cut, got, want)
			}
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("Application server number 42 serving <static> & dynamic content, é. ", 4)
	var buf []byte
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s, 0)
	}
}
