package values

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// timestampRE is the YAML 1.1 timestamp grammar (yaml.org/type/timestamp):
// a date alone, or a date and time with an optional fraction and zone.
var timestampRE = regexp.MustCompile(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})` +
	`(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?` +
	`(?:[ \t]*(Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?$`)

// parseTimestamp reads a YAML 1.1 timestamp; a missing zone means UTC.
func parseTimestamp(s string) (time.Time, error) {
	m := timestampRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%s is not a valid timestamp", quote(s))
	}
	num := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	year, month, day := num(1), num(2), num(3)
	var hour, minute, sec, nsec int
	if m[4] != "" {
		hour, minute, sec = num(4), num(5), num(6)
		if frac := m[7]; frac != "" {
			if len(frac) > 9 {
				frac = frac[:9] // beyond nanoseconds: truncated, as time.Parse does
			}
			n, _ := strconv.Atoi(frac)
			for i := len(frac); i < 9; i++ {
				n *= 10
			}
			nsec = n
		}
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		z = z[1:]
		h, mm := z, ""
		switch {
		case len(z) > 2 && z[len(z)-3] == ':':
			h, mm = z[:len(z)-3], z[len(z)-2:]
		case len(z) > 2:
			h, mm = z[:len(z)-2], z[len(z)-2:]
		}
		oh, _ := strconv.Atoi(h)
		om := 0
		if mm != "" {
			om, _ = strconv.Atoi(mm)
		}
		if oh > 23 || om > 59 {
			return time.Time{}, fmt.Errorf("%s is not a valid timestamp: the zone offset is out of range", quote(s))
		}
		loc = time.FixedZone("", sign*(oh*3600+om*60))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	if t.Year() != year || int(t.Month()) != month || t.Day() != day || t.Hour() != hour || t.Minute() != minute || t.Second() != sec {
		return time.Time{}, fmt.Errorf("%s is not a valid timestamp: no such date or time", quote(s))
	}
	return t, nil
}

// formatTimestamp renders the canonical RFC 3339 form, keeping the offset.
func formatTimestamp(t time.Time) string { return t.Format(time.RFC3339Nano) }

// parseTimestampAny reads a canonical RFC 3339 or a written YAML timestamp.
func parseTimestampAny(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return parseTimestamp(s)
}
