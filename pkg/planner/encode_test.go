package planner

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// The hand-written encoder must agree with encoding/json on strings and
// numbers, so that any JSON tool reads plan files as we mean them.
func TestEncoderMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\n\r", "<html>&amp;", "é ü 日本",
		"bad\xffutf8", "\u2028\u2029", "emoji 🎉"} {
		var e encoder
		e.str(s)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := string(e.b), string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); got != want {
			t.Errorf("string %q: %s want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, 1, -2.5, 1e-7, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e20} {
		var e encoder
		e.float(f)
		want, _ := json.Marshal(f)
		if string(e.b) != string(want) {
			t.Errorf("float %v: %s want %s", f, e.b, want)
		}
	}
	var e encoder
	e.float(math.NaN())
	if e.err == nil {
		t.Error("NaN accepted")
	}
}
