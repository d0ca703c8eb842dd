package lsp

import (
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/diag"
)

// LSP positions are 0-based lines and UTF-16 code units within the line;
// diag positions are 1-based lines and code points. text converts
// between them for one version of a document.
type text struct {
	src string
	// lines holds the byte offset where each line starts.
	lines []int
}

func newText(src string) *text {
	t := &text{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// line returns line n (0-based) without its line ending; "" past the end.
func (t *text) line(n int) string {
	if n < 0 || n >= len(t.lines) {
		return ""
	}
	end := len(t.src)
	if n+1 < len(t.lines) {
		end = t.lines[n+1] - 1
	}
	return strings.TrimSuffix(t.src[t.lines[n]:end], "\r")
}

// offset is the byte offset of an LSP position, clamped to the text.
func (t *text) offset(p protocol.Position) int {
	if int(p.Line) >= len(t.lines) {
		return len(t.src)
	}
	start := t.lines[p.Line]
	l := t.line(int(p.Line))
	units := int(p.Character)
	i := 0
	for i < len(l) && units > 0 {
		r, size := utf8.DecodeRuneInString(l[i:])
		units -= utf16.RuneLen(r)
		if units < 0 {
			break
		}
		i += size
	}
	return start + i
}

// column converts an LSP position's character to a 1-based code point
// column.
func (t *text) column(p protocol.Position) int {
	l := t.line(int(p.Line))
	units, col := int(p.Character), 1
	for _, r := range l {
		if units <= 0 {
			break
		}
		units -= utf16.RuneLen(r)
		col++
	}
	return col
}

// position converts a diag position (1-based line, code point column) to
// an LSP one; t may be nil when the text is unknown (a file not open),
// and then code points are taken for UTF-16 units.
func (t *text) position(p diag.Pos) protocol.Position {
	line, col := max(p.Line-1, 0), max(p.Column-1, 0)
	if t == nil {
		return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}
	}
	units := 0
	for _, r := range t.line(line) {
		if col == 0 {
			break
		}
		units += utf16.RuneLen(r)
		col--
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(units + col)}
}

// rangeOf converts a diag range. A range that is a point (a mapping node,
// a file) is widened to the word that starts there so that an editor has
// something to underline.
func (t *text) rangeOf(r diag.Range) protocol.Range {
	if r.Start.IsZero() {
		return protocol.Range{}
	}
	start := t.position(r.Start)
	end := start
	if r.End.Line > r.Start.Line || (r.End.Line == r.Start.Line && r.End.Column > r.Start.Column) {
		end = t.position(r.End)
	} else if t != nil {
		l := t.line(int(start.Line))
		width := 0
		for _, c := range l[min(byteIndex(l, int(start.Character)), len(l)):] {
			if c == ' ' || c == '\t' || c == ':' || c == ',' || c == ']' || c == '}' {
				break
			}
			width += utf16.RuneLen(c)
		}
		end.Character += protocol.UInteger(width)
	}
	return protocol.Range{Start: start, End: end}
}

// byteIndex is the byte offset in l of a UTF-16 unit offset.
func byteIndex(l string, units int) int {
	for i, r := range l {
		if units <= 0 {
			return i
		}
		units -= utf16.RuneLen(r)
	}
	return len(l)
}

// apply applies an incremental change to the text.
func (t *text) apply(r protocol.Range, s string) *text {
	a, b := t.offset(r.Start), t.offset(r.End)
	if b < a {
		a, b = b, a
	}
	return newText(t.src[:a] + s + t.src[b:])
}

// pathOf turns a file: URI into a cleaned absolute path; ok is false for
// any other scheme (an editor's untitled buffers).
func pathOf(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), true
}

// uriOf turns an absolute path into a file: URI.
func uriOf(path string) protocol.DocumentUri {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}
