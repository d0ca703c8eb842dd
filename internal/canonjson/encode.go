package canonjson

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Format is the set of rules an output adds to the canonical ones.
type Format uint8

const (
	// EscapeHTML writes <, > and & as \u003c, \u003e and \u0026, as
	// json.Marshal does.
	EscapeHTML Format = 1 << iota
	// HexControl writes backspace and form feed as \u0008 and \u000c
	// rather than \b and \f, as encoding/json did before Go 1.22.
	HexControl
	// ListsNeverNull writes a nil list as [] rather than null.
	ListsNeverNull
	// EscapeHTMLInUnknowns adds EscapeHTML inside Unknowns, as
	// json.Marshal does in graph.Unknown's MarshalJSON.
	EscapeHTMLInUnknowns
)

const hexDigits = "0123456789abcdef"

// plain and plainHTML mark the ASCII bytes a string holds as they are,
// without and with EscapeHTML.
var plain, plainHTML = func() (t, html [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
		html[c] = t[c] && c != '<' && c != '>' && c != '&'
	}
	return t, html
}()

// AppendString appends s as a JSON string: quoted, escaped as the package
// documentation says, under the rules of f that concern strings.
func AppendString(dst []byte, s string, f Format) []byte {
	safe := &plain
	if f&EscapeHTML != 0 {
		safe = &plainHTML
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b' && f&HexControl == 0:
				dst = append(dst, '\\', 'b')
			case c == '\f' && f&HexControl == 0:
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but they end a line of JavaScript.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// text that reads back as f, in exponent form outside [1e-6, 1e21). NaN
// and the infinities have no JSON form: dst comes back unchanged, with an
// error.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("%v cannot be represented in JSON", f)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// strconv writes e-07, encoding/json e-7.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}
