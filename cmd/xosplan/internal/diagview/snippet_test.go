package diagview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/diag"
)

// TestSnippetShowsControlCharacters checks that a source line's control
// characters reach the terminal as visible symbols, never as themselves
// (an ESC in a file must not drive the terminal), with the caret still
// under the highlighted text.
func TestSnippetShowsControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		name, line    string
		col, endCol   int
		wantCode      string
		wantHighlight string
	}{
		{"escape sequence", "description: \"a\x1b]0;title\x07b\" x", 29, 30, "description: \"a␛]0;title␇b\" x", "x"},
		{"highlight after a control", "k: \x1b[31mred", 5, 10, "k: ␛[31mred", "[31mr"},
		{"highlight on the control", "k: \x1bz", 4, 5, "k: ␛z", "␛"},
		{"DEL and C1", "k: \x7f\u0085 v", 7, 8, "k: ␡\uFFFD v", "v"},
		{"tab kept", "k:\tv", 4, 5, "k:\tv", "v"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := func(string) ([]byte, bool) { return []byte("first\n" + tc.line + "\nlast\n"), true }
			d := diag.Diagnostic{Severity: diag.Error, Summary: "s", Range: diag.Range{File: "f.yaml",
				Start: diag.Pos{Line: 2, Column: tc.col}, End: diag.Pos{Line: 2, Column: tc.endCol}}}
			sn, ok := newLineCache(src).snippetOf(d)
			if !ok {
				t.Fatal("no snippet")
			}
			if sn.Code != tc.wantCode {
				t.Errorf("code %q, want %q", sn.Code, tc.wantCode)
			}
			if got := sn.Code[sn.HighlightStart:sn.HighlightEnd]; got != tc.wantHighlight {
				t.Errorf("highlight %q, want %q", got, tc.wantHighlight)
			}
			var out bytes.Buffer
			if err := Render(&out, Text, diag.Diagnostics{d}, Options{Sources: src}); err != nil {
				t.Fatal(err)
			}
			if i := strings.IndexFunc(out.String(), func(r rune) bool { return r != '\n' && termsafe.IsControl(r) }); i >= 0 {
				t.Errorf("output holds control character %q:\n%s", out.String()[i], out.String())
			}
		})
	}
}

// TestTextShowsControlCharacters checks the other user text the text format
// prints: the file name, the summary and each line of the detail.
func TestTextShowsControlCharacters(t *testing.T) {
	d := diag.Diagnostic{Severity: diag.Warning, Code: "x.y", Summary: "node template \"a\x1b[31m\" is odd\r",
		Detail: "line one\x07\nline\ttwo\x1b]0;t\x07", Range: diag.Range{File: "dir\x1b[2J/f.yaml", Start: diag.Pos{Line: 3, Column: 1}}}
	var out bytes.Buffer
	if err := Render(&out, Text, diag.Diagnostics{d}, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "dir␛[2J/f.yaml:3:1: warning: node template \"a␛[31m\" is odd␍ [x.y]\n  line one␇\n  line\ttwo␛]0;t␇\n\n"
	if got := out.String(); !strings.HasPrefix(got, want) {
		t.Errorf("got\n%q\nwant it to start with\n%q", got, want)
	}
}
