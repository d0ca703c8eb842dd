// Package termsafe keeps user text from driving the terminal: file names,
// addresses, values, driver output and diagnostics come from files the
// user (or a state file, or a driver) wrote, and the human views print
// them. An ESC there could retitle, clear or recolour the terminal, or fake
// output. The JSON views escape such text already and do not use this.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// IsControl reports whether r is a character the views never send to a
// terminal as itself: C0 controls other than tab, DEL and C1 controls.
func IsControl(r rune) bool {
	return (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

// String returns s with every control character (IsControl) shown as a
// symbol: C0 controls as Unicode control pictures (ESC as ␛, LF as ␊), DEL
// as ␡ and C1 controls as U+FFFD. Text without control characters is
// returned unchanged, without allocating.
func String(s string) string {
	if strings.IndexFunc(s, IsControl) < 0 {
		return s
	}
	out, _, _ := Visible([]byte(s), 0, 0)
	return out
}

// Visible returns line shown as String shows it; start and end, byte
// offsets into line (a highlight), are returned as offsets into the
// result, so that a caret still points under the same text.
func Visible(line []byte, start, end int) (string, int, int) {
	if strings.IndexFunc(string(line), IsControl) < 0 {
		return string(line), start, end
	}
	var b strings.Builder
	newStart, newEnd := -1, -1
	for i, r := range string(line) {
		if i == start {
			newStart = b.Len()
		}
		if i == end {
			newEnd = b.Len()
		}
		switch {
		case !IsControl(r):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		default:
			b.WriteRune(utf8.RuneError)
		}
	}
	if newStart < 0 {
		newStart = b.Len()
	}
	if newEnd < 0 {
		newEnd = b.Len()
	}
	return b.String(), newStart, newEnd
}

// Lines returns s with the control characters of each line shown as String
// shows them, keeping the line feeds that separate lines: for multi-line
// text (a description, a script's output) printed as lines.
func Lines(s string) string {
	if strings.IndexFunc(s, isControlInLines) < 0 {
		return s
	}
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = String(p)
	}
	return strings.Join(parts, "\n")
}

// isControlInLines is IsControl for multi-line text: a line feed is kept.
func isControlInLines(r rune) bool { return r != '\n' && IsControl(r) }
