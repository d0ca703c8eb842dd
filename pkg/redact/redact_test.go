package redact

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

const testSecret = "hunter2/s3cr3t+key"

func TestRedactorReplacesSecretsAndTheirEncodings(t *testing.T) {
	r := New(testSecret)
	for name, text := range testutil.SecretForms(testSecret) {
		line := "before " + text + " after"
		got := r.String(line)
		if !strings.Contains(got, state.SensitiveMarker) {
			t.Errorf("%s: %q not redacted: %q", name, line, got)
		}
		for _, f := range Encodings(testSecret) {
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
	r := New("", "abc", "on")
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
	r := New()
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
	r := New(testSecret)
	var text strings.Builder
	for _, f := range testutil.SecretForms(testSecret) {
		text.WriteString("line " + f + " end\n")
	}
	text.WriteString("no newline at the end " + testSecret)
	want := r.String(text.String())
	in := []byte(text.String())
	for size := 1; size <= len(testSecret)+3; size++ {
		s := r.Stream()
		var got []byte
		for i := 0; i < len(in); i += size {
			got = append(got, s.Write(in[i:min(i+size, len(in))])...)
		}
		got = append(got, s.Flush()...)
		if string(got) != want {
			t.Fatalf("written in pieces of %d bytes:\n%s\nwant\n%s", size, got, want)
		}
	}
}

func TestRedactStreamPassesWholeLinesAtOnce(t *testing.T) {
	s := New(strings.Repeat("x", 64)).Stream()
	if got := string(s.Write([]byte("progress: 10%\nprogr"))); got != "progress: 10%\n" {
		t.Errorf("write = %q; a finished line must not wait for more output", got)
	}
	if got := string(s.Flush()); got != "progr" {
		t.Errorf("flush = %q", got)
	}
}

func TestRedactorErrorKeepsTheChain(t *testing.T) {
	r := New(testSecret)
	err := errors.Join(context.DeadlineExceeded, errors.New("stderr: "+testSecret))
	red := r.Error(err)
	if strings.Contains(red.Error(), testSecret) || !errors.Is(red, context.DeadlineExceeded) {
		t.Errorf("Error = %q (Is DeadlineExceeded: %v)", red, errors.Is(red, context.DeadlineExceeded))
	}
	plain := errors.New("nothing secret")
	if r.Error(plain) != plain || r.Error(nil) != nil {
		t.Error("an error without a secret must be returned as it is")
	}
}

// FuzzRedactStream checks that redacting a stream written in pieces of
// any size gives what redacting it whole gives, for any secret and text.
func FuzzRedactStream(f *testing.F) {
	f.Add(testSecret, "a "+testSecret+"\nb "+base64.StdEncoding.EncodeToString([]byte(testSecret)), uint8(3))
	f.Add("multi\nline secret", "x multi\nline secret y", uint8(1))
	f.Add("aaaa", "aaaaaaaaa\n", uint8(2))
	f.Fuzz(func(t *testing.T, secret, text string, size uint8) {
		r := New(secret)
		want := r.String(text)
		s := r.Stream()
		step := int(size%32) + 1
		var got []byte
		for i := 0; i < len(text); i += step {
			got = append(got, s.Write([]byte(text[i:min(i+step, len(text))]))...)
		}
		got = append(got, s.Flush()...)
		if string(got) != want {
			t.Errorf("in pieces of %d: %q, whole: %q", step, got, want)
		}
	})
}

// BenchmarkRedactStream redacts 1 MiB of script output holding a secret
// every 100 lines, knowing 10 secrets, in 4 KiB reads.
func BenchmarkRedactStream(b *testing.B) {
	r := New()
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
		s := r.Stream()
		for i := 0; i < len(in); i += 4096 {
			s.Write(in[i:min(i+4096, len(in))])
		}
		s.Flush()
	}
}
