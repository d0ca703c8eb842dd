package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// fullResource sets every field of the model, so that the hand-written
// encoder is checked against encoding/json on all of them
// (TestFullResourceIsFull keeps it so when fields are added).
func fullResource() Resource {
	t := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	return Resource{
		Address:      "web.server",
		Type:         "tosca.nodes.WebServer",
		TypeChain:    []string{"tosca.nodes.WebServer", "tosca.nodes.Root"},
		Management:   graph.Unmanaged,
		Dependencies: []string{"host"},
		Driver: graph.Driver{
			Name: graph.DriverScripted,
			Operations: map[string]graph.Operation{"launch": {
				Implementation: "/vm/launch.py",
				Dependencies:   []string{"/vm/lib.py"},
				Digest:         "sha256:0123456789abcdef",
				Inputs:         map[string]graph.Value{"n": int64(3), "key": "k3y"},
				Sensitive:      []string{"key"},
				Outputs:        map[string]string{"ip": "address", "b": ""},
				Timeout:        90 * time.Second,
			}},
			Options: map[string]graph.Value{"factory": "f1"},
		},
		Spec: map[string]graph.Value{
			"s": "line1\nline2\t\"quoted\" \\ <html> & \u2028 \x01 \b\f é 日本 \xff",
			"i": int64(-1 << 62), "f": 1e-7, "g": 1e21, "h": 123.456, "z": 0.0, "neg": -2.5e-8,
			"b": true, "n": nil, "l": []graph.Value{}, "m": map[string]graph.Value{},
			"nested": map[string]graph.Value{"<k>": []graph.Value{int64(1), "two", map[string]graph.Value{"x": nil}}},
			"u":      graph.Unknown{Func: "concat", Args: []graph.Value{"http://", graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "ip<&>"}}, map[string]graph.Value{"k&": "v>"}}},
		},
		Sensitive:   []string{"spec.password"},
		DerivedBy:   "interfaces",
		SetByPolicy: map[string]string{"properties.mtu": "defaults", "properties.<x>": "p&q"},
		Versions: Versions{Updated: t.Add(3 * time.Second), Enacted: t.Add(4 * time.Second), Policed: t.Add(5 * time.Second),
			ChangedByStep: t.Add(6 * time.Second), ChangedByPolicy: t.Add(7 * time.Second)},
		Feedback: Feedback{
			Resolved:      map[string]graph.Value{"s": "x"},
			Attributes:    map[string]graph.Value{"ip": "10.0.0.1"},
			Signals:       map[string]graph.Value{"app.url": "http://x"},
			Relationships: []Relationship{{Requirement: "db", Index: 1, Target: "db<1>", Attributes: map[string]graph.Value{"link": "l-1"}}},
			InstanceID:    "i-1",
			Status:        Status{Active: true, Converging: true, Failed: true, Message: "m"},
			BackendCode:   BackendError,
			BackendStatus: "boom",
			Attempts:      3,
			Output:        "out\n",
			Allocations:   []Allocation{{Provider: "rp1", Resources: map[string]int64{"VCPU": 2, "DISK_GB": 10}}},
			Extra:         map[string]graph.Value{"e": int64(1)},
			Created:       t,
			Enacted:       t.Add(time.Second),
			LastAttempt:   t.Add(2 * time.Second),
		},
	}
}

// TestFullResourceIsFull fails when a field of the model is left zero in
// fullResource, which would leave it out of the encoder check.
func TestFullResourceIsFull(t *testing.T) {
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(time.Time{}) {
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Tag.Get("json") == "-" {
					continue
				}
				walk(path+"."+f.Name, v.Field(i))
			}
			return
		}
		if v.IsZero() {
			t.Errorf("%s is zero in fullResource: set it so that the encoder is checked on it", path)
		}
		if v.Kind() == reflect.Map && v.Type().Elem().Kind() == reflect.Struct {
			for _, k := range v.MapKeys() {
				walk(path+"["+k.String()+"]", v.MapIndex(k))
			}
		}
	}
	walk("Resource", reflect.ValueOf(fullResource()))
}

func TestEncoderMatchesJSON(t *testing.T) {
	cases := map[string][]Resource{
		"empty":     nil,
		"full":      {fullResource()},
		"generated": {genResource(1), genResource(2), genResource(3)},
		"minimal":   {{Address: "a", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{}}},
		"many":      genState(2*chunkMin + 7).Resources,
		"outputs":   {genResource(1)},
	}
	for name, rs := range cases {
		t.Run(name, func(t *testing.T) {
			s := &State{Version: FormatVersion, Serial: 7, Lineage: "lin<&>", Resources: rs}
			if name == "outputs" {
				s.Outputs = fullOutputs()
			}
			got, err := Encode(s)
			if err != nil {
				t.Fatal(err)
			}
			norm := make([]Resource, len(rs))
			for i := range rs {
				norm[i] = normalizeForEncode(rs[i])
			}
			if len(norm) == 0 {
				norm = []Resource{}
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(State{Version: s.Version, Serial: s.Serial, Lineage: s.Lineage, Resources: norm, Outputs: s.Outputs}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("encoder and encoding/json differ\n%s", firstDifference(got, want.Bytes()))
			}
		})
	}
}

// fullOutputs are outputs of every kind of value, sensitive and not.
func fullOutputs() map[string]Output {
	return map[string]Output{
		"url":    {Value: "http://x/<a>&b"},
		"n":      {Value: int64(3)},
		"f":      {Value: 1.5},
		"b":      {Value: true},
		"null":   {Value: nil},
		"list":   {Value: []graph.Value{int64(1), "two"}},
		"map":    {Value: map[string]graph.Value{"k": []graph.Value{}}},
		"secret": {Value: "s3cret", Sensitive: true},
		"é<&>":   {Value: "key escaped"},
	}
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return "ours:   …" + string(a[lo:min(len(a), i+40)]) + "\ntheirs: …" + string(b[lo:min(len(b), i+40)])
}

func TestEncodeRejectsNonJSONValues(t *testing.T) {
	for name, v := range map[string]graph.Value{
		"nan":     math.NaN(),
		"inf":     math.Inf(1),
		"channel": make(chan int),
		"time":    time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(name, func(t *testing.T) {
			r := genResource(1)
			if tm, ok := v.(time.Time); ok {
				r.Feedback.Created = tm
			} else {
				r.Spec["bad"] = v
			}
			if _, err := Encode(&State{Version: 1, Lineage: "l", Resources: []Resource{r}}); err == nil {
				t.Fatal("Encode accepted a value JSON cannot hold")
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	in := &State{Version: FormatVersion, Serial: 4, Lineage: "l", Resources: []Resource{genResource(2), fullResource(), genResource(1)}, Outputs: fullOutputs()}
	in.Resources[1].Spec["s"] = "valid UTF-8 only here: é"
	data, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{out.Resources[0].Address, out.Resources[1].Address, out.Resources[2].Address}; !reflect.DeepEqual(got, []string{"app_00001", "app_00002", "web.server"}) {
		t.Errorf("resources not sorted by address: %v", got)
	}
	full, _ := out.Lookup("web.server")
	want := fullResource()
	want.Spec["s"] = "valid UTF-8 only here: é"
	for k, v := range want.Spec {
		if !graph.Equal(full.Spec[k], v) {
			t.Errorf("spec %s: got %#v, want %#v", k, full.Spec[k], v)
		}
	}
	if _, ok := full.Spec["u"].(graph.Unknown); !ok {
		t.Errorf("an Unknown did not come back as graph.Unknown: %T", full.Spec["u"])
	}
	if _, ok := full.Spec["i"].(int64); !ok {
		t.Errorf("an integer did not come back as int64: %T", full.Spec["i"])
	}
	if got := full.Driver.Operations["launch"].Inputs["n"]; got != int64(3) {
		t.Errorf("operation input: %#v", got)
	}
	for k, v := range fullOutputs() {
		if got := out.Outputs[k]; got.Sensitive != v.Sensitive || !graph.Equal(got.Value, v.Value) {
			t.Errorf("output %s: got %#v, want %#v", k, got, v)
		}
	}
	again, err := Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("decode+encode changed the bytes\n%s", firstDifference(again, data))
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		file string
		is   error
		want string
	}{
		{"empty.json", ErrCorrupt, "the file is empty"},
		{"garbage.json", ErrCorrupt, "line 1, column 1: invalid character 'n' where an object was expected"},
		{"binary.json", ErrCorrupt, "invalid character"},
		{"truncated.json", ErrCorrupt, "ends in the middle of the JSON"},
		{"no_version.json", ErrCorrupt, "not an xosplan state file"},
		{"version_2.json", ErrVersion, "the file has version 2, this xosplan reads version 1"},
		{"version_99_other_shape.json", ErrVersion, "version 99"},
		{"no_lineage.json", ErrCorrupt, "no lineage"},
		{"duplicate_address.json", ErrCorrupt, `resource "a" appears twice`},
		{"empty_address.json", ErrCorrupt, "resource #1 has no address"},
		{"bad_management.json", ErrCorrupt, `management "owned"`},
		{"negative_serial.json", ErrCorrupt, "cannot unmarshal number -1"},
		{"trailing_data.json", ErrCorrupt, "data after the end"},
		{"wrong_type.json", ErrCorrupt, "line 2"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.file] = true
		t.Run(strings.TrimSuffix(c.file, ".json"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "decode", c.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Decode(data)
			if !errors.Is(err, c.is) {
				t.Fatalf("error %v, want %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "decode", "*.json"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s has no case", f)
		}
	}
}

func TestChunksEqual(t *testing.T) {
	b := func(parts ...string) chunks {
		var c chunks
		for _, p := range parts {
			c = append(c, []byte(p))
		}
		return c
	}
	cases := []struct {
		a, b chunks
		want bool
	}{
		{b("abc"), b("a", "bc"), true},
		{b("", "ab", "", "c"), b("abc"), true},
		{b("abc"), b("abd"), false},
		{b("ab"), b("abc"), false},
		{nil, b(""), true},
	}
	for _, c := range cases {
		if got := c.a.equal(c.b); got != c.want {
			t.Errorf("%q equal %q = %v", c.a, c.b, got)
		}
	}
}

// decodeStd is the reference decoder: encoding/json with UseNumber, then
// graph.DecodeValue on every value, then the same checks as Decode.
func decodeStd(data []byte) (*State, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	for i := range s.Resources {
		r := &s.Resources[i]
		decodeMap(r.Spec)
		decodeMap(r.Driver.Options)
		for k, op := range r.Driver.Operations {
			decodeMap(op.Inputs)
			r.Driver.Operations[k] = op
		}
		fb := &r.Feedback
		decodeMap(fb.Resolved)
		decodeMap(fb.Attributes)
		decodeMap(fb.Signals)
		for _, rel := range fb.Relationships {
			decodeMap(rel.Attributes)
		}
		decodeMap(fb.Extra)
	}
	for k, o := range s.Outputs {
		o.Value = graph.DecodeValue(o.Value)
		s.Outputs[k] = o
	}
	return checkDecoded(&s)
}

func decodeMap(m map[string]graph.Value) {
	for k, v := range m {
		m[k] = graph.DecodeValue(v)
	}
}

// compareDecoders fails when Decode and decodeStd disagree on data: one
// accepting what the other refuses, or both accepting with different
// content. Decode refuses numbers beyond float64's range, which decodeStd
// turns into infinities that no state file can hold.
func compareDecoders(t *testing.T, data []byte) {
	t.Helper()
	fast, ferr := Decode(data)
	std, serr := decodeStd(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return // Decode reports emptiness itself
	}
	switch {
	case ferr != nil && serr != nil:
		return
	case ferr != nil:
		if _, err := Encode(std); err != nil {
			return
		}
		t.Fatalf("Decode refused what encoding/json accepts: %v", ferr)
	case serr != nil:
		t.Fatalf("Decode accepted what encoding/json refuses (%v)", serr)
	}
	a, aerr := Encode(fast)
	b, berr := Encode(std)
	if aerr != nil || berr != nil {
		t.Fatalf("decoded states do not encode: %v / %v", aerr, berr)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("Decode and encoding/json disagree\n%s", firstDifference(a, b))
	}
}

func TestDecodersAgree(t *testing.T) {
	full, _ := Encode(&State{Version: 1, Serial: 1, Lineage: "l", Resources: []Resource{fullResource(), genResource(3)}, Outputs: fullOutputs()})
	cases := map[string]string{
		"full":                string(full),
		"case-insensitive":    `{"VERSION": 1, "Serial": 2, "lineage": "l", "Resources": [{"ADDRESS": "a", "management": "managed", "Spec": {"K": 1}}]}`,
		"duplicate keys":      `{"version": 1, "serial": 1, "lineage": "a", "lineage": "b", "resources": [{"address": "x", "management": "managed", "spec": {"a": 1}, "spec": {"b": 2}, "type_chain": ["p", "q"], "type_chain": [null]}]}`,
		"duplicate resources": `{"version": 1, "serial": 1, "lineage": "a", "resources": [{"address": "x", "type": "t", "management": "managed"}, {"address": "y", "management": "managed"}], "resources": [{"management": "unmanaged"}]}`,
		"nulls":               `{"version": 1, "serial": null, "lineage": "l", "resources": [{"address": "a", "type": null, "management": "managed", "driver": null, "spec": null, "feedback": {"status": null, "created": null, "allocations": [{"provider": "p", "resources": {"VCPU": null}}]}}]}`,
		"unknown fields":      `{"version": 1, "serial": 1, "lineage": "l", "future": {"x": [1, 2, {"y": null}]}, "resources": [{"address": "a", "management": "managed", "extra_field": true, "feedback": {"new": "x"}}]}`,
		"unknowns":            `{"version": 1, "serial": 1, "lineage": "l", "resources": [{"address": "a", "management": "managed", "spec": {"u": {"$unknown": {"func": "concat", "args": [1, {"$unknown": {"func": "attribute", "args": ["b", "ip"]}}]}}, "v": {"$unknown": {"$unknown": {}}}, "w": {"$unknown": 3}, "x": {"$unknown": {"func": 7}}, "y": {"$unknown": {}, "other": 1}}}]}`,
		"numbers":             `{"version": 1, "serial": 18446744073709551615, "lineage": "l", "resources": [{"address": "a", "management": "managed", "spec": {"big": 92233720368547758070, "neg": -0, "e": 1E+2, "f": 1.5e-300, "i": -9223372036854775808}}]}`,
		"strings":             "{\"version\": 1, \"serial\": 1, \"lineage\": \"\\ud83d\\ude00 \\ud800 \\udc00x \\u00e9 \xff\xfe \\/\", \"resources\": []}",
		"escaped keys":        `{"vers\u0069on": 1, "serial": 1, "lineage": "l", "resources": []}`,
		"outputs":             `{"version": 1, "serial": 1, "lineage": "l", "resources": [], "OUTPUTS": {"a": {"Value": [1, {"x": null}], "sensitive": true, "type": "string"}, "b": null, "c": {"value": {"$unknown": {"func": "attribute", "args": ["a", "ip"]}}}}, "outputs": {"d": {}}}`,
	}
	large, _ := Encode(genState(1200))
	if len(large) < 2*parallelMin {
		t.Fatalf("the large case (%d bytes) no longer takes the parallel path", len(large))
	}
	cases["large, parsed in parallel"] = string(large)
	for name, data := range cases {
		t.Run(name, func(t *testing.T) { compareDecoders(t, []byte(data)) })
	}
}

// TestLargeStateErrors: a fault in a large resources array (which the
// parallel path declines) is reported at its line, as for a small one.
func TestLargeStateErrors(t *testing.T) {
	good, err := Encode(genState(1200))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	mid := len(lines) / 2
	for mid < len(lines) && lines[mid] != "    }," {
		mid++
	}
	cases := map[string]struct {
		replace string
		want    string
	}{
		"garbage between elements": {"    } x,", fmt.Sprintf("line %d, column 7: invalid character 'x' after array element", mid+1)},
		"missing comma":            {"    }", fmt.Sprintf("line %d, column 5: invalid character '{' after array element", mid+2)},
		"trailing comma":           {"", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			edited := slices.Clone(lines)
			if name == "trailing comma" {
				edited[len(edited)-4] += ","
				c.want = fmt.Sprintf("line %d, column 3: invalid character ']' where an object was expected", len(edited)-2)
			} else {
				edited[mid] = c.replace
			}
			_, err := Decode([]byte(strings.Join(edited, "\n")))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestDecodeDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	data := `{"version": 1, "serial": 1, "lineage": "l", "resources": [{"address": "a", "management": "managed", "spec": {"x": ` + deep + `}}]}`
	_, err := Decode([]byte(data))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Fatalf("deep nesting: %v", err)
	}
}

// TestLargeStateTakesTheParallelPath: a large canonical state is read in
// parallel.
func TestLargeStateTakesTheParallelPath(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: the parallel path is off")
	}
	large, _ := Encode(genState(1200))
	p := &parser{*canonjson.NewReader(large)}
	var s State
	took := false
	err := p.Object(func(key []byte) error {
		if string(key) == "resources" {
			done, err := p.parallelResources(&s)
			took = done
			return err
		}
		return p.Skip()
	})
	if err != nil || !took || len(s.Resources) != 1200 {
		t.Errorf("parallel path: err %v, taken %v, %d resources", err, took, len(s.Resources))
	}
}
