package lsp

import (
	"testing"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/diag"
)

// FuzzTextPositions feeds arbitrary text, positions and edits to what
// reads an editor's buffer — position conversions, incremental edits and
// the completion cursor — which must never panic and must keep positions
// inside the text.
func FuzzTextPositions(f *testing.F) {
	f.Add("a: 1\n", uint16(0), uint16(3), uint16(1), uint16(0), "b")
	f.Add("topology_template:\n  node_templates:\n    - x: é😀\r\n", uint16(2), uint16(9), uint16(0), uint16(40), "\n  - ")
	f.Add("", uint16(5), uint16(5), uint16(0), uint16(0), "")
	f.Fuzz(func(t *testing.T, src string, line, char, endLine, endChar uint16, insert string) {
		tx := newText(src)
		p := protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)}
		if off := tx.offset(p); off < 0 || off > len(src) {
			t.Fatalf("offset %d outside the text", off)
		}
		col := tx.column(p)
		tx.rangeOf(diag.Range{File: "f", Start: diag.Pos{Line: int(line) + 1, Column: col}})
		cursorAt(tx, p)
		next := tx.apply(protocol.Range{Start: p, End: protocol.Position{Line: protocol.UInteger(endLine), Character: protocol.UInteger(endChar)}}, insert)
		if utf8.ValidString(src) && utf8.ValidString(insert) && !utf8.ValidString(next.src) {
			t.Fatalf("an edit at a UTF-16 position split a character")
		}
	})
}
