package yamlsrc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"go.yaml.in/yaml/v3"
)

// TestSyntaxErrorPositions: a YAML syntax error is reported where the
// scanner or parser found the problem, as PyYAML's problem_mark says
// (the expectations were computed once with PyYAML 6.0.3, whose message
// each comment quotes), not at the line of the library's message, which
// is its context's (and off by one for a parser error: "line 3" for the
// first case). One case per class of error the library produces.
func TestSyntaxErrorPositions(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
	}{
		{"bad_indent_key", "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a:\n      type: foo\n     properties: {}\n", 6, 6}, // PyYAML: expected <block end>, but found '<block mapping start>'
		{"mapping_values", "a: b: c\n", 1, 5},                         // PyYAML: mapping values are not allowed here
		{"mapping_values_deep", "a:\n  b:\n    c: d: e\n", 3, 9},      // PyYAML: mapping values are not allowed here
		{"cannot_start_token", "a:\n  b: @x\n", 2, 6},                 // PyYAML: found character '@' that cannot start any token
		{"tab_indent", "a:\n  b: 1\n\tc: 2\n", 3, 1},                  // PyYAML: found character '\t' that cannot start any token
		{"expected_colon", "a: 1\nb\nc: 2\n", 3, 1},                   // PyYAML: could not find expected ':'
		{"expected_colon_flow", "a: {b\n  c: d}\n", 2, 4},             // PyYAML: expected ',' or '}', but got ':'
		{"eos_quoted", "a: 1\nb: \"abc\n  def\n", 4, 1},               // PyYAML: found unexpected end of stream
		{"eos_single", "a: 'x\n", 2, 1},                               // PyYAML: found unexpected end of stream
		{"node_content", "a:\n  - b\n  - ]\n", 3, 5},                  // PyYAML: expected the node content, but found ']'
		{"node_content_flow", "a: [b, :]\n", 1, 8},                    // PyYAML: expected the node content, but found ':'
		{"undefined_tag", "a:\n  b: !x!y z\n", 2, 6},                  // PyYAML: found undefined tag handle '!x!'
		{"block_seq_not_allowed", "a:\n  b: - c\n", 2, 6},             // PyYAML: sequence entries are not allowed here
		{"expected_dash", "- a\n- b\n c: d\n", 3, 3},                  // PyYAML: mapping values are not allowed here
		{"flow_seq", "a:\n  b: [c, \"d\" e]\n", 2, 14},                // PyYAML: expected ',' or ']', but got '<scalar>'
		{"flow_seq_eof", "a: [b,\n  c\n", 3, 1},                       // PyYAML: expected ',' or ']', but got '<stream end>'
		{"flow_map", "a:\n  b: {c: d, \"e\" f}\n", 2, 17},             // PyYAML: expected ',' or '}', but got '<scalar>'
		{"flow_map_eof", "a: {b: c\n", 2, 1},                          // PyYAML: expected ',' or '}', but got '<stream end>'
		{"unknown_escape", "a:\n  b: \"x\\qy\"\n", 2, 9},              // PyYAML: found unknown escape character 'q'
		{"hex_escape", "a: \"\\x4g\"\n", 1, 7},                        // PyYAML: expected escape sequence of 2 hexadecimal numbers, but found 'g'
		{"document_start", "%YAML 1.1\na: 1\n", 2, 2},                 // PyYAML: expected '<document start>', but found '<scalar>' at 2:1; the library finds the ':' first
		{"duplicate_yaml", "%YAML 1.1\n%YAML 1.1\n---\na: 1\n", 2, 1}, // PyYAML: found duplicate YAML directive
		{"anchor_alnum", "a:\n  b: &\n", 2, 7},                        // PyYAML: expected alphabetic or numeric character, but found '\n'
		{"alias_alnum", "a:\n  b: * x\n", 2, 7},                       // PyYAML: expected alphabetic or numeric character, but found ' '
		{"document_indicator_in_quote", "a: \"b\n---\nc\"\n", 2, 1},   // PyYAML: found unexpected document separator
		{"block_scalar_header", "a: |x\n  y\n", 1, 5},                 // PyYAML: expected chomping or indentation indicators, but found 'x'
		{"block_scalar_indent", "a: |0\n  y\n", 1, 5},                 // PyYAML: expected indentation indicator in the range 1-9, but found 0
		{"key_first_line", "a: b\n c\nd: [\n", 4, 1},                  // PyYAML: expected the node content, but found '<stream end>'
		{"bad_indent_seq", "a:\n  - b\n - c\n", 3, 2},                 // PyYAML: expected <block end>, but found '<block sequence start>'
		{"deep_key_after_seq", "a:\n  - b\n  c: d\n", 3, 3},           // PyYAML: expected <block end>, but found '?'
		{"second_line_problem", "a\nb: c\n", 2, 2},                    // PyYAML: mapping values are not allowed here
		{"multibyte_columns", "é: [a, \"b\" c]\n", 1, 12},             // PyYAML: expected ',' or ']', but got '<scalar>'
		{"crlf", "a: 1\r\nb: c: d\r\n", 2, 5},                         // PyYAML: mapping values are not allowed here
		{"multibyte_key", "ünï:\n  - x\n  y: ]\n", 3, 3},              // PyYAML: expected <block end>, but found '?'
		{"eof_without_newline", "a: [b", 1, 6},                        // PyYAML: expected ',' or ']', but got '<stream end>'
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := ParseAll("f.yaml", []byte(c.src), Limits{})
			if len(ds) != 1 || ds[0].Code != CodeSyntax {
				t.Fatalf("want one %s error, got %v", CodeSyntax, ds)
			}
			d := ds[0]
			if d.Range.Start.Line != c.line || d.Range.Start.Column != c.col {
				t.Errorf("at %d:%d, want %d:%d (%s)", d.Range.Start.Line, d.Range.Start.Column, c.line, c.col, d.Summary)
			}
			checkWithin(t, []byte(c.src), d)
		})
	}
}

// TestSyntaxErrorContext: the context the library names is the detail,
// with its own place.
func TestSyntaxErrorContext(t *testing.T) {
	src := "a:\n  b:\n    c: 1\n    d:\n      e: 2\n     f: 3\n"
	_, ds := ParseAll("f.yaml", []byte(src), Limits{})
	if len(ds) != 1 {
		t.Fatalf("got %v", ds)
	}
	if got, want := ds[0].Error(), "f.yaml:6:6: error: invalid YAML: did not find expected key"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if want := "The problem was found while parsing a block mapping that starts at line 3, column 5."; ds[0].Detail != want {
		t.Errorf("detail %q, want %q", ds[0].Detail, want)
	}
}

// checkWithin fails unless d's range lies inside data: a line of the file
// (or the empty line after its last newline), a byte offset at most its
// length, and the line and column that offset has.
func checkWithin(t *testing.T, data []byte, d diag.Diagnostic) {
	t.Helper()
	for _, p := range []diag.Pos{d.Range.Start, d.Range.End} {
		if p.Line < 1 || p.Line > bytes.Count(data, []byte("\n"))+1 || p.Byte < 0 || p.Byte > len(data) {
			t.Fatalf("%v: position %+v outside the file of %d bytes", d, p, len(data))
		}
		if d.Code == CodeSyntax {
			if got := newLineIndex(data).posOfByte(p.Byte); got != p {
				t.Fatalf("%v: position %+v, but its byte offset is at %+v", d, p, got)
			}
		}
	}
	if d.Code == CodeSyntax && !strings.HasPrefix(d.Summary, "invalid YAML: ") {
		t.Errorf("summary %q", d.Summary)
	}
}

// TestSyntaxErrorWithoutMarks: when the library's marks cannot be read
// (a decoder that has not failed stands for a release that renamed its
// fields), the error is placed at the line its message names, inside the
// file.
func TestSyntaxErrorWithoutMarks(t *testing.T) {
	data := []byte("a: 1\nb: 2\nc: 3\n")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for _, tc := range []struct {
		msg       string
		line, col int
	}{
		{"yaml: line 2: did not find expected key", 2, 1},
		{"yaml: line 9: found unexpected end of stream", 4, 1},
		{"yaml: something else", 1, 1},
	} {
		d := syntaxDiag("f.yaml", newLineIndex(data), dec, errors.New(tc.msg))
		if d.Range.Start.Line != tc.line || d.Range.Start.Column != tc.col || d.Detail != "" {
			t.Errorf("%q: at %d:%d (%q), want %d:%d", tc.msg, d.Range.Start.Line, d.Range.Start.Column, d.Detail, tc.line, tc.col)
		}
		checkWithin(t, data, d)
	}
}
