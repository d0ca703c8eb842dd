package values

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// unit is one unit of a scalar-unit type: its canonical spelling and its
// size in the kind's base unit.
type unit struct {
	name   string
	factor float64
}

// scalarKind describes one scalar-unit type. Tables are read-only.
type scalarKind struct {
	typ   string
	base  string // the base unit magnitudes are expressed in
	units []unit // in the order of the specification's table
}

// The unit tables of TOSCA Simple Profile 1.3 §3.3.6 (size, time, frequency
// since 1.0; bitrate since 1.3).
var (
	sizeKind = &scalarKind{typ: ScalarSize, base: "B", units: []unit{
		{"B", 1}, {"kB", 1e3}, {"KB", 1e3}, {"KiB", 1 << 10}, {"MB", 1e6}, {"MiB", 1 << 20},
		{"GB", 1e9}, {"GiB", 1 << 30}, {"TB", 1e12}, {"TiB", 1 << 40},
	}}
	timeKind = &scalarKind{typ: ScalarTime, base: "s", units: []unit{
		{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},
	}}
	frequencyKind = &scalarKind{typ: ScalarFrequency, base: "Hz", units: []unit{
		{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9},
	}}
	bitrateKind = &scalarKind{typ: ScalarBitrate, base: "bps", units: []unit{
		{"bps", 1}, {"Kbps", 1e3}, {"Kibps", 1 << 10}, {"Mbps", 1e6}, {"Mibps", 1 << 20},
		{"Gbps", 1e9}, {"Gibps", 1 << 30}, {"Tbps", 1e12}, {"Tibps", 1 << 40},
		{"Bps", 8}, {"KBps", 8e3}, {"KiBps", 8 << 10}, {"MBps", 8e6}, {"MiBps", 8 << 20},
		{"GBps", 8e9}, {"GiBps", 8 << 30}, {"TBps", 8e12}, {"TiBps", 8 << 40},
	}}
	scalarKinds = map[string]*scalarKind{
		ScalarSize: sizeKind, ScalarTime: timeKind, ScalarFrequency: frequencyKind, ScalarBitrate: bitrateKind,
	}
)

// lookup finds a unit as written. An exact match wins; otherwise the match
// is case-insensitive, except that for bitrate the letter before "ps" must
// keep its case (b = bits, B = bytes).
func (k *scalarKind) lookup(written string) (unit, bool) {
	for _, u := range k.units {
		if u.name == written {
			return u, true
		}
	}
	for _, u := range k.units {
		if !strings.EqualFold(u.name, written) {
			continue
		}
		if k == bitrateKind && len(written) >= 3 && written[len(written)-3] != u.name[len(u.name)-3] {
			continue
		}
		return u, true
	}
	return unit{}, false
}

// unitList names the valid units for an error message.
func (k *scalarKind) unitList() string {
	names := make([]string, len(k.units))
	for i, u := range k.units {
		names[i] = u.name
	}
	return strings.Join(names, ", ")
}

// scalarValue is a parsed scalar-unit value.
type scalarValue struct {
	number    string  // canonical text of the number
	unit      unit    // canonical unit
	magnitude float64 // in the kind's base unit
}

// canonical renders "<number> <unit>".
func (s scalarValue) canonical() string { return s.number + " " + s.unit.name }

// parse reads "<number> <unit>" (space optional, surrounding space
// ignored). Errors name the value and the type.
func (k *scalarKind) parse(text string) (scalarValue, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '+' || s[i] == '-' ||
		((s[i] == 'e' || s[i] == 'E') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '+' || s[i+1] == '-'))) {
		i++
	}
	num, rest := s[:i], strings.TrimLeft(s[i:], " \t")
	if num == "" {
		return scalarValue{}, fmt.Errorf("%s is not %s: it must start with a number", quote(text), article(k.typ))
	}
	if rest == "" {
		return scalarValue{}, fmt.Errorf("%s is not %s: the unit is missing (valid units: %s)", quote(text), article(k.typ), k.unitList())
	}
	if strings.HasPrefix(num, "-") {
		return scalarValue{}, fmt.Errorf("%s is not %s: the number must not be negative", quote(text), article(k.typ))
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(num, "+"), 64)
	if err != nil || strings.HasPrefix(num, "+-") || strings.Contains(num, "_") {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return scalarValue{}, fmt.Errorf("%s is not %s: the number is out of range", quote(text), article(k.typ))
		}
		return scalarValue{}, fmt.Errorf("%s is not %s: %q is not a number", quote(text), article(k.typ), num)
	}
	u, ok := k.lookup(rest)
	if !ok {
		return scalarValue{}, fmt.Errorf("%s is not %s: the unit %q is not valid (valid units: %s)", quote(text), article(k.typ), rest, k.unitList())
	}
	mag := f * u.factor
	if math.IsInf(mag, 0) {
		return scalarValue{}, fmt.Errorf("%s is not %s: the magnitude is out of range", quote(text), article(k.typ))
	}
	return scalarValue{number: formatNumber(num, f), unit: u, magnitude: mag}, nil
}

// formatNumber renders a scalar's number canonically: plain digits lose
// their leading zeros and keep every digit; other numbers take Go's
// shortest float form, without an exponent in the usual range.
func formatNumber(written string, f float64) string {
	digits := strings.TrimPrefix(written, "+")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		if t := strings.TrimLeft(digits, "0"); t != "" {
			return t
		}
		return "0"
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// ScalarUnit parses a canonical or written scalar-unit value of the given
// kind (any spelling Canonical accepts) and returns its magnitude in the
// kind's base unit: bytes, seconds, Hz or bit/s.
func ScalarUnit(typ string, s string) (float64, error) {
	k, ok := scalarKinds[Canonical(typ)]
	if !ok {
		return 0, fmt.Errorf("%q is not a scalar-unit type", typ)
	}
	v, err := k.parse(s)
	if err != nil {
		return 0, err
	}
	return v.magnitude, nil
}
