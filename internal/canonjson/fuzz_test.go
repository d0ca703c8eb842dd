package canonjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// validUTF8 is s as a JSON string holds it: each invalid byte replaced by
// U+FFFD, as ranging over s sees it.
func validUTF8(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzRoundTrip: any string, float and integer, alone and nested in maps,
// lists and Unknowns, is written under every Format, with and without
// indentation, as text that encoding/json reads back as the same value:
// the string with invalid UTF-8 replaced, the exact float and integer.
// Under the canonical rules the text is encoding/json's, byte for byte.
// NaN and the infinities are refused.
func FuzzRoundTrip(f *testing.F) {
	for _, c := range characters {
		f.Add(c, 0.5, int64(-1))
	}
	for _, x := range boundaryFloats {
		f.Add("x", x, int64(1)<<53+1)
	}
	f.Add("\xed\xa0\x80<\u2028>", math.Inf(1), int64(math.MinInt64))
	f.Add("", math.NaN(), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		v := map[string]graph.Value{"s": s, "k" + s: []graph.Value{s, x, n, graph.Unknown{Func: s, Args: []graph.Value{x, nil}}}}
		finite := !math.IsNaN(x) && !math.IsInf(x, 0)
		for _, format := range []Format{0, EscapeHTML, HexControl, ListsNeverNull, EscapeHTMLInUnknowns, EscapeHTML | HexControl | ListsNeverNull} {
			for _, indent := range []bool{false, true} {
				got, err := write(v, format, indent)
				if !finite {
					if err == nil {
						t.Fatalf("%v was written: %s", x, got)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				checkRoundTrip(t, got, s, x, n)
				if format == EscapeHTMLInUnknowns {
					if want := stdJSON(t, v, false, indent); got != want {
						t.Fatalf("not encoding/json's text:\n got %s\nwant %s", got, want)
					}
				}
			}
		}
	})
}

// checkRoundTrip reads text back with encoding/json and checks that it
// holds s, x and n where FuzzRoundTrip put them.
func checkRoundTrip(t *testing.T, text, s string, x float64, n int64) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("encoding/json cannot read %s: %v", text, err)
	}
	want := validUTF8(s)
	list, _ := m["k"+want].([]any)
	if len(m) != 2 || m["s"] != want || len(list) != 4 || list[0] != want {
		t.Fatalf("%s does not hold the string %q", text, want)
	}
	xn, _ := list[1].(json.Number)
	if back, err := strconv.ParseFloat(string(xn), 64); err != nil || math.Float64bits(back) != math.Float64bits(x) {
		t.Fatalf("%v was written as %s", x, xn)
	}
	nn, _ := list[2].(json.Number)
	if back, err := strconv.ParseInt(string(nn), 10, 64); err != nil || back != n {
		t.Fatalf("%d was written as %s", n, nn)
	}
}
