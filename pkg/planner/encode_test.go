package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Plan JSON agrees with encoding/json on strings and numbers, so that any
// JSON tool reads plan files as we mean them, except that backspace and
// form feed stay \u0008 and \u000c as encoding/json wrote them before Go
// 1.22: plan IDs and input digests are hashes of these bytes.
func TestPlanJSONMatchesEncodingJSONButKeepsHexControlEscapes(t *testing.T) {
	hexControl := strings.NewReplacer(`\b`, `\u0008`, `\f`, `\u000c`)
	for _, v := range []graph.Value{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\n\r", "bs\b ff\f", "<html>&amp;", "é ü 日本",
		"bad\xffutf8", "\u2028\u2029", "emoji 🎉",
		0.0, 1.0, -2.5, 1e-7, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e20} {
		got, err := appendJSON(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		if want := hexControl.Replace(strings.TrimSuffix(buf.String(), "\n")); string(got) != want {
			t.Errorf("%#v: %s want %s", v, got, want)
		}
	}
	if _, err := appendJSON(nil, math.NaN()); err == nil {
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
