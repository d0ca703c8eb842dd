package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// readValue reads one value that must fill data.
func readValue(data []byte) (graph.Value, error) {
	r := NewReader(data)
	v, err := r.Value()
	if err == nil && !r.AtEnd() {
		err = r.Errorf(r.Offset(), "data after the value")
	}
	return v, err
}

// readStd is the reference reader: encoding/json with UseNumber, then
// graph.DecodeValue.
func readStd(data []byte) (graph.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the value")
	}
	return graph.DecodeValue(v), nil
}

// compareReaders fails when the reader and encoding/json disagree on
// data: one accepting what the other refuses, or both accepting with
// different values. The reader refuses numbers beyond float64's range,
// which encoding/json reads as infinities.
func compareReaders(t *testing.T, data []byte) {
	t.Helper()
	ours, err := readValue(data)
	std, stdErr := readStd(data)
	switch {
	case err != nil && stdErr != nil:
	case err != nil:
		if !strings.Contains(err.Error(), "beyond the range of a float64") {
			t.Fatalf("%q: refused what encoding/json reads (%v)", data, err)
		}
	case stdErr != nil:
		t.Fatalf("%q: read what encoding/json refuses (%v)", data, stdErr)
	case !reflect.DeepEqual(ours, std):
		t.Fatalf("%q: read as %#v, encoding/json reads %#v", data, ours, std)
	}
}

var readerCases = []string{
	`{"a": [1, -0, 2.5, 1E+2, 1e-400, 9223372036854775807, 9223372036854775808, true, false, null], "b": {"c": "d"}}`,
	`{"u": {"$unknown": {"func": "concat", "args": [1, {"$unknown": {"func": "attribute", "args": ["b", "ip"]}}]}}, "v": {"$unknown": {"$unknown": {}}}, "w": {"$unknown": 3}, "x": {"$unknown": {"func": 7}}, "y": {"$unknown": {}, "other": 1}}`,
	"\"\\ud83d\\ude00 \\ud800 \\udc00x \\ud800\\u0041 \\u00e9 \xff\xfe \\/ \\b\\f\\n\\r\\t \\\" \\\\\"",
	`{"k": 1, "k": 2}`, ` [ ] `, `{}`, `"`, `[1,]`, `{"a" 1}`, `{"a": 1,}`, `01`, `1.`, `1e`, `-`, `nul`, `tru`, `[1 2]`, `"\x01"`, `"\u12"`, `"\q"`,
	`1e400`, `-1e400`, `{"a": 1} x`, "\"\xed\xa0\x80\"", strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

func TestReaderAgainstEncodingJSON(t *testing.T) {
	for _, c := range readerCases {
		compareReaders(t, []byte(c))
	}
	// What the writer writes reads back as it was, but for invalid UTF-8.
	for _, v := range testValues() {
		for _, f := range []Format{0, EscapeHTML | HexControl} {
			w := Writer{Format: f, Indent: f != 0}
			w.Value(v)
			compareReaders(t, w.Buf)
		}
	}
}

// TestReaderErrors pins the wording and the offset of the reader's errors,
// which the state file's messages repeat as a line and column.
func TestReaderErrors(t *testing.T) {
	cases := []struct {
		in   string
		off  int
		want string
	}{
		{`x`, 0, "invalid character 'x' looking for beginning of value"},
		{`[1 2]`, 3, "invalid character '2' after array element"},
		{`{"a" 1}`, 5, "invalid character '1' after object key"},
		{`{"a": 1 "b"}`, 8, "invalid character '\"' after object key:value pair"},
		{`{1: 2}`, 1, "invalid character '1' looking for beginning of object key string"},
		{`nul`, 3, "the file ends in the middle of the JSON (truncated?)"},
		{`nulx`, 3, "invalid character 'x' in literal null (expecting 'l')"},
		{`-x`, 1, "invalid character 'x' in numeric literal"},
		{`1.x`, 2, "invalid character 'x' after decimal point in numeric literal"},
		{`1ex`, 2, "invalid character 'x' in exponent of numeric literal"},
		{"\"a\x01\"", 2, "invalid character byte 0x01 in string literal"},
		{`"\q"`, 2, "invalid character 'q' in string escape code"},
		{`"\u12x4"`, 5, "invalid character 'x' in \\u hexadecimal character escape"},
		{`1e400`, 0, "number 1e400 is beyond the range of a float64"},
		{strings.Repeat("[", 10001), 10001, "exceeded max depth"},
	}
	for _, c := range cases {
		_, err := readValue([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != c.off || se.Msg != c.want {
			t.Errorf("%.20s: %#v, want offset %d, %q", c.in, err, c.off, c.want)
		}
	}
}

func TestArrayBounds(t *testing.T) {
	cases := []struct {
		in           string
		starts, ends []int
		ok           bool
	}{
		{`[1, "a,]", {"k": [1, 2]}, [3]]`, []int{1, 4, 11, 26}, []int{2, 9, 24, 29}, true},
		{` [ {} ] `, []int{3}, []int{6}, true},
		{`[]`, nil, nil, false},
		{`[1,]`, nil, nil, false},
		{`[,1]`, nil, nil, false},
		{`[1, "open]`, nil, nil, false},
		{`[{]`, nil, nil, false},
		{`[1, 2`, nil, nil, false},
		{`[{}}]`, nil, nil, false},
		{"[" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "]", nil, nil, false},
	}
	for _, c := range cases {
		r := NewReader([]byte(c.in))
		r.Seek(strings.IndexByte(c.in, '['))
		starts, ends, ok := r.ArrayBounds()
		if ok != c.ok || !slices.Equal(starts, c.starts) || !slices.Equal(ends, c.ends) {
			t.Errorf("%.40s: starts %v ends %v ok %v, want %v %v %v", c.in, starts, ends, ok, c.starts, c.ends, c.ok)
		}
	}
}

// FuzzReader: the reader accepts what encoding/json accepts (but numbers
// beyond float64's range) and reads the same values; what it reads, the
// writer writes as text that reads back the same (graph.Equal: an
// integral float reads back as an integer).
func FuzzReader(f *testing.F) {
	for _, c := range readerCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareReaders(t, data)
		v, err := readValue(data)
		if err != nil {
			return
		}
		w := Writer{Indent: len(data)%2 == 0}
		w.Value(v)
		if w.Err() != nil {
			t.Fatalf("%#v read from %q does not write: %v", v, data, w.Err())
		}
		back, err := readValue(w.Buf)
		if err != nil || !graph.Equal(back, v) {
			t.Fatalf("%#v written as %s reads back as %#v, %v", v, w.Buf, back, err)
		}
	})
}

// TestDecodeValueReadsExactlyOneValue: white space may surround the value;
// anything after it, and a number no float64 holds, are errors.
func TestDecodeValueReadsExactlyOneValue(t *testing.T) {
	for in, want := range map[string]graph.Value{
		" 42\n":               int64(42),
		`[1, 2.5, "x", null]`: []graph.Value{int64(1), 2.5, "x", nil},
		`{"$unknown": {"func": "attribute", "args": ["a"]}}`: graph.Unknown{Func: "attribute", Args: []graph.Value{"a"}},
	} {
		got, err := DecodeValue([]byte(in))
		if err != nil || !graph.Equal(got, want) {
			t.Errorf("DecodeValue(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for in, wantErr := range map[string]string{
		"1 2":     "more follows the first value",
		"[1e400]": "beyond the range of a float64",
		"":        "ends in the middle",
		`{"a": 1`: "ends in the middle",
	} {
		if _, err := DecodeValue([]byte(in)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("DecodeValue(%q): error %v, want one saying %q", in, err, wantErr)
		}
	}
}
