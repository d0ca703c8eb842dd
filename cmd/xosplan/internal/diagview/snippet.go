package diagview

import (
	"bytes"
	"unicode/utf8"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/diag"
)

// maxSnippetBytes bounds the source line shown under a diagnostic: a
// minified or generated file can put megabytes on one line.
const maxSnippetBytes = 240

// snippet is the source line a diagnostic points at, with the highlighted
// span as byte offsets into Code.
type snippet struct {
	Line           int
	Code           string
	HighlightStart int
	HighlightEnd   int
}

// lineCache finds lines of source files, indexing each file once per
// rendering so that many diagnostics in one large file stay linear.
type lineCache struct {
	src    SourceFunc
	starts map[string][]int
	data   map[string][]byte
}

func newLineCache(src SourceFunc) *lineCache {
	return &lineCache{src: src, starts: map[string][]int{}, data: map[string][]byte{}}
}

func (c *lineCache) line(file string, n int) ([]byte, bool) {
	if c == nil || c.src == nil || file == "" || n < 1 {
		return nil, false
	}
	starts, ok := c.starts[file]
	if !ok {
		data, found := c.src(file)
		if found {
			starts = []int{0}
			for i, b := range data {
				if b == '\n' {
					starts = append(starts, i+1)
				}
			}
			c.data[file] = data
		}
		c.starts[file] = starts
	}
	if n > len(starts) {
		return nil, false
	}
	data := c.data[file]
	start := starts[n-1]
	end := len(data)
	if n < len(starts) {
		end = starts[n] - 1
	}
	return bytes.TrimSuffix(data[start:end], []byte{'\r'}), true
}

// snippetOf returns the line a diagnostic starts on and its highlight. The
// highlight runs to the range's end on the same line, or covers one
// character when the range ends elsewhere or is a point. A sensitive
// diagnostic has none: its line may hold the secret it is about.
func (c *lineCache) snippetOf(d diag.Diagnostic) (snippet, bool) {
	if d.Sensitive {
		return snippet{}, false
	}
	r := d.Range
	text, ok := c.line(r.File, r.Start.Line)
	if !ok || !utf8.Valid(text) {
		return snippet{}, false
	}
	start := runeOffset(text, r.Start.Column)
	end := start
	if r.End.Line == r.Start.Line && r.End.Column > r.Start.Column {
		end = runeOffset(text, r.End.Column)
	} else if start < len(text) {
		_, size := utf8.DecodeRune(text[start:])
		end = start + size
	}
	if len(text) > maxSnippetBytes {
		// Keep the highlight visible: cut around it at rune boundaries.
		from := max(0, start-maxSnippetBytes/2)
		for from > 0 && !utf8.RuneStart(text[from]) {
			from--
		}
		to := min(len(text), from+maxSnippetBytes)
		for to < len(text) && !utf8.RuneStart(text[to]) {
			to++
		}
		text = text[from:to]
		start, end = start-from, min(end, to)-from
	}
	code, start, end := termsafe.Visible(text, start, max(end, start))
	return snippet{Line: r.Start.Line, Code: code, HighlightStart: start, HighlightEnd: end}, true
}

// runeOffset converts a 1-based column counted in code points to a byte
// offset into line, clamped to the line's length.
func runeOffset(line []byte, col int) int {
	off := 0
	for i := 1; i < col && off < len(line); i++ {
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}
