package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
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

// A plan file holds null for every sensitive operation input, keeps the
// others and the list of names, and the in-memory plan keeps the values.
func TestPlanFileNullsSensitiveOperationInputs(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join("testdata", "cases", "sensitive_operation_inputs"))
	p, diags := Diff(context.Background(), g, st, opts)
	if p == nil || diags.HasErrors() {
		t.Fatalf("plan failed: %v", diags)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("s3cret")) {
		t.Fatalf("a sensitive operation input reached the plan file:\n%s", buf.Bytes())
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]graph.Value{
		"db":  {"db_password": nil, "db_url": nil, "db_user": "app"},
		"old": {"name": "old", "token": nil},
	}
	for _, c := range back.Changes {
		for key, op := range c.Driver.Operations {
			if !reflect.DeepEqual(op.Inputs, want[c.Address]) {
				t.Errorf("%s %s inputs read back = %v, want %v", c.Address, key, op.Inputs, want[c.Address])
			}
			if len(op.Sensitive) == 0 {
				t.Errorf("%s %s: the sensitive input names were lost", c.Address, key)
			}
		}
	}
	if got := p.Changes[1].Driver.Operations["Standard.create"].Inputs["db_password"]; got != "s3cret" {
		t.Errorf("encoding changed the plan in memory: db_password = %v", got)
	}
}
