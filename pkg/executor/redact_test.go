package executor

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

const testSecret = "hunter2/s3cr3t+key"

// leakedForms are the forms of testSecret a script may print.
func leakedForms() map[string]string {
	b := []byte(testSecret)
	return map[string]string{
		"plain":         testSecret,
		"base64":        base64.StdEncoding.EncodeToString(b),
		"base64 raw":    base64.RawStdEncoding.EncodeToString(b),
		"base64url":     base64.URLEncoding.EncodeToString(b),
		"base64url raw": base64.RawURLEncoding.EncodeToString(b),
		"query escaped": url.QueryEscape(testSecret),
		"path escaped":  url.PathEscape(testSecret),
		"basic auth":    "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+testSecret)),
		"basic auth, 1": base64.StdEncoding.EncodeToString([]byte("x" + testSecret + "tail")),
		"basic auth, 2": base64.StdEncoding.EncodeToString([]byte("xy" + testSecret + "tail")),
		"in a URL":      "https://admin:" + url.QueryEscape(testSecret) + "@db:5432/shop",
	}
}

func TestRedactorReplacesSecretsAndTheirEncodings(t *testing.T) {
	r := NewRedactor(testSecret)
	for name, text := range leakedForms() {
		line := "before " + text + " after"
		got := r.String(line)
		if !strings.Contains(got, state.SensitiveMarker) {
			t.Errorf("%s: %q not redacted: %q", name, line, got)
		}
		for _, f := range encodings(testSecret) {
			if strings.Contains(got, f) {
				t.Errorf("%s: %q still holds %q", name, got, f)
			}
		}
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: the text around the secret changed: %q", name, got)
		}
	}
}

func TestRedactorKeepsShortAndEmptyValuesAndUnrelatedText(t *testing.T) {
	r := NewRedactor("", "abc", "on")
	r.AddValue(true)
	r.AddValue(int64(42))
	r.AddValue(nil)
	text := "abc on true 42 ok\n"
	if got := r.String(text); got != text {
		t.Errorf("String(%q) = %q; values under %d bytes, booleans and nulls are not searched", text, got, MinSecretBytes)
	}
	var none *Redactor
	none.Add("whatever")
	if got := none.String("whatever"); got != "whatever" {
		t.Errorf("a nil Redactor changed the text: %q", got)
	}
}

func TestRedactorAddsValuesAtSensitivePaths(t *testing.T) {
	spec := map[string]graph.Value{
		"properties": map[string]graph.Value{
			"password": "pw-from-spec",
			"list":     []graph.Value{"plain", map[string]graph.Value{"k": "nested-secret"}},
			"name":     "not-secret",
		},
		"configuration.dbPassword": "dotted-key-secret",
	}
	r := NewRedactor()
	r.AddPaths(spec, []string{"properties.password", "properties.list.1", "configuration.dbPassword"})
	r.AddOperations(graph.Driver{Operations: map[string]graph.Operation{"Standard.create": {
		Inputs: map[string]graph.Value{"PW": "op-input-secret", "PORT": int64(5432)}, Sensitive: []string{"PW"}}}})
	r.Add(`quote"and<angle`)
	for _, s := range []string{`{"pw":"quote\"and\u003cangle"}`, "pw-from-spec", "nested-secret", `{"k":"nested-secret"}`, "dotted-key-secret", "op-input-secret"} {
		if got := r.String(s); !strings.Contains(got, state.SensitiveMarker) || strings.Contains(got, "secret") || strings.Contains(got, "angle") {
			t.Errorf("String(%q) = %q, want it masked", s, got)
		}
	}
	for _, s := range []string{"not-secret", "plain", "5432"} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q, but it is not sensitive", s, got)
		}
	}
}

func TestRedactStreamFindsSecretsSplitAcrossWrites(t *testing.T) {
	r := NewRedactor(testSecret)
	var text strings.Builder
	for _, f := range leakedForms() {
		text.WriteString("line " + f + " end\n")
	}
	text.WriteString("no newline at the end " + testSecret)
	want := r.String(text.String())
	in := []byte(text.String())
	for size := 1; size <= len(testSecret)+3; size++ {
		s := &redactStream{r: r}
		var got []byte
		for i := 0; i < len(in); i += size {
			got = append(got, s.write(in[i:min(i+size, len(in))])...)
		}
		got = append(got, s.flush()...)
		if string(got) != want {
			t.Fatalf("written in pieces of %d bytes:\n%s\nwant\n%s", size, got, want)
		}
	}
}

func TestRedactStreamPassesWholeLinesAtOnce(t *testing.T) {
	s := &redactStream{r: NewRedactor(strings.Repeat("x", 64))}
	if got := string(s.write([]byte("progress: 10%\nprogr"))); got != "progress: 10%\n" {
		t.Errorf("write = %q; a finished line must not wait for more output", got)
	}
	if got := string(s.flush()); got != "progr" {
		t.Errorf("flush = %q", got)
	}
}

func TestRedactorErrorKeepsTheChain(t *testing.T) {
	r := NewRedactor(testSecret)
	err := errors.Join(ErrTimeout, errors.New("stderr: "+testSecret))
	red := r.Error(err)
	if strings.Contains(red.Error(), testSecret) || !errors.Is(red, ErrTimeout) {
		t.Errorf("Error = %q (Is ErrTimeout: %v)", red, errors.Is(red, ErrTimeout))
	}
	plain := errors.New("nothing secret")
	if r.Error(plain) != plain || r.Error(nil) != nil {
		t.Error("an error without a secret must be returned as it is")
	}
}

// leakyDriver prints and fails with every value of its request, ignoring
// Request.Redactor, as a careless driver would.
type leakyDriver struct{}

func (leakyDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	text := graph.Render(req.Resolved) + " " + graph.Render(req.Inputs)
	req.Output("printing " + text)
	return Outcome{Feedback: state.Feedback{Output: text, BackendStatus: text, Status: state.Status{Message: text}}}, errors.New("failed with " + text)
}

// TestWalkRedactsWhatAnyDriverReports checks the walk's own redaction,
// whatever the driver does: of a secret known before the apply (an
// operation input) and of one that becomes whole only when resolved
// (a sensitive property joined with another resource's attribute).
func TestWalkRedactsWhatAnyDriverReports(t *testing.T) {
	ref := graph.Unknown{Func: "attribute", Args: []graph.Value{"a", "ip"}}
	dsn := graph.Unknown{Func: "concat", Args: []graph.Value{"pg://", ref, "/db"}}
	g := buildGraph(t, res{addr: "a"},
		res{addr: "b", deps: []string{"a"}, drv: "leaky", spec: map[string]graph.Value{"dsn": dsn},
			inputs: map[string]graph.Value{"PW": "op-input-secret"}})
	b, _ := g.Resource("b")
	b.Sensitive = []string{"dsn"}
	op := b.Driver.Operations["Standard.create"]
	op.Sensitive = []string{"PW"}
	b.Driver.Operations["Standard.create"] = op
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{"ip": "10.9.8.7"}
	j := &memJournal{}
	var text strings.Builder
	opts := fastOpts()
	opts.Events = func(e Event) { text.WriteString(e.Line + e.Error + "\n") }
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: f, "leaky": leakyDriver{}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		text.WriteString(s.Error + "\n")
	}
	rec, _ := j.state(nil).Lookup("b")
	text.WriteString(rec.Feedback.Output + rec.Feedback.BackendStatus + rec.Feedback.Status.Message)
	for _, secret := range []string{"op-input-secret", "pg://10.9.8.7/db"} {
		if strings.Contains(text.String(), secret) {
			t.Errorf("%q leaked:\n%s", secret, text.String())
		}
	}
	if !strings.Contains(text.String(), "printing") || rep.Failed != 1 {
		t.Errorf("the driver's report is lost: %+v\n%s", rep, text.String())
	}
}

// FuzzRedactStream checks that redacting a stream written in pieces of
// any size gives what redacting it whole gives, for any secret and text.
func FuzzRedactStream(f *testing.F) {
	f.Add(testSecret, "a "+testSecret+"\nb "+base64.StdEncoding.EncodeToString([]byte(testSecret)), uint8(3))
	f.Add("multi\nline secret", "x multi\nline secret y", uint8(1))
	f.Add("aaaa", "aaaaaaaaa\n", uint8(2))
	f.Fuzz(func(t *testing.T, secret, text string, size uint8) {
		r := NewRedactor(secret)
		want := r.String(text)
		s := &redactStream{r: r}
		step := int(size%32) + 1
		var got []byte
		for i := 0; i < len(text); i += step {
			got = append(got, s.write([]byte(text[i:min(i+step, len(text))]))...)
		}
		got = append(got, s.flush()...)
		if string(got) != want {
			t.Errorf("in pieces of %d: %q, whole: %q", step, got, want)
		}
	})
}

// BenchmarkRedactStream redacts 1 MiB of script output holding a secret
// every 100 lines, knowing 10 secrets, in 4 KiB reads.
func BenchmarkRedactStream(b *testing.B) {
	r := NewRedactor()
	for i := range 10 {
		r.Add(fmt.Sprintf("secret-number-%d-%s", i, testSecret))
	}
	var text bytes.Buffer
	for i := 0; text.Len() < 1<<20; i++ {
		if i%100 == 0 {
			text.WriteString("password=secret-number-3-" + testSecret + "\n")
		}
		text.WriteString("a line of ordinary build output, 1234 files compiled\n")
	}
	in := text.Bytes()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		s := &redactStream{r: r}
		for i := 0; i < len(in); i += 4096 {
			s.write(in[i:min(i+4096, len(in))])
		}
		s.flush()
	}
}
