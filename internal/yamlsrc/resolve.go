package yamlsrc

import (
	"strconv"
	"strings"
	"time"
)

// resolvePlain returns the tag the YAML library gives a plain (unquoted,
// untagged) scalar: its resolve.go, step for step, without building the
// value. The fast reader (fast.go) needs it; the differential fuzz test
// holds the two to the same answer.
func resolvePlain(in string) string {
	if in == "" {
		return TagNull
	}
	switch in {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return TagBool
	case "~", "null", "Null", "NULL":
		return TagNull
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return TagFloat
	case "<<":
		return "!!merge"
	}
	switch c := in[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(in, 64); err == nil {
			return TagFloat
		}
	case c >= '0' && c <= '9', c == '+', c == '-':
		return resolveNumber(in)
	}
	return TagStr
}

// resolveNumber is resolve's branch for a scalar that starts with a digit
// or a sign: a timestamp, an int (decimal, 0x, 0o, 0b, old-style octal,
// underscores ignored), or a float of YAML's style.
func resolveNumber(in string) string {
	if isTimestamp(in) {
		return TagTimestamp
	}
	// None of the parsers below accepts a byte outside this set, and each
	// failure allocates an error: skip them for text such as "4 GB".
	for i := 0; i < len(in); i++ {
		c := in[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' ||
			c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == '_' || c == '+' || c == '-' || c == '.') {
			return TagStr
		}
	}
	plain := in
	if strings.IndexByte(in, '_') >= 0 {
		plain = strings.ReplaceAll(in, "_", "")
	}
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return TagInt
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return TagInt
	}
	if yamlStyleFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return TagFloat
		}
	}
	if radixInt(plain) {
		return TagInt
	}
	return TagStr
}

// radixInt is the library's last try at an int: "0b" (binary) or "0o"
// (octal) digits, with an optional leading '-'; the digits may be signed
// themselves, as strconv reads them.
func radixInt(plain string) bool {
	digits, neg := strings.CutPrefix(plain, "-")
	base := 0
	switch {
	case strings.HasPrefix(digits, "0b"):
		base = 2
	case strings.HasPrefix(digits, "0o"):
		base = 8
	default:
		return false
	}
	digits = digits[2:]
	if neg {
		_, err := strconv.ParseInt("-"+digits, base, 64)
		return err == nil
	}
	if _, err := strconv.ParseInt(digits, base, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(digits, base, 64)
	return err == nil
}

// yamlStyleFloat matches the library's
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yamlStyleFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestampFormats are the library's allowedTimestampFormats.
var timestampFormats = [...]string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp is the library's parseTimestamp.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
