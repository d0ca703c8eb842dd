package values

import (
	"math"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		typ  string
		a, b graph.Value
		want int
		err  string
	}{
		{"integer", int64(1), int64(2), -1, ""},
		{"integer", int64(9223372036854775807), int64(9223372036854775806), 1, ""}, // exact beyond 2^53
		{"float", 1.5, int64(1), 1, ""},
		{"float", int64(2), 2.0, 0, ""},
		{"string", "a", "b", -1, ""},
		{"string", "b", "B", 1, ""},
		{"scalar-unit.size", "1 GB", "1000 MB", 0, ""},
		{"scalar-unit.size", "1 GiB", "1 GB", 1, ""},
		{"scalar-unit.size", "1023 B", "1 KiB", -1, ""},
		{"scalar-unit.time", "1 d", "24 h", 0, ""},
		{"scalar-unit.time", "10.5 m", "1 h", -1, ""},
		{"scalar-unit.time", "1 ms", "1000 us", 0, ""},
		{"scalar-unit.frequency", "1 GHz", "999 MHz", 1, ""},
		{"scalar-unit.bitrate", "1 KBps", "8 Kbps", 0, ""},
		{"scalar-unit.bitrate", "1 Kibps", "1 Kbps", 1, ""},
		{"version", "1.2.3.beta-4", "1.2.3.beta-5", -1, ""},
		{"version", "1.2.3.beta", "1.2.3", -1, ""},
		{"version", "1.2.3", "1.2.3.alpha", 1, ""},
		{"version", "1.2.3.alpha-9", "1.2.3.beta-1", -1, ""},
		{"version", "1.10", "1.9", 1, ""},
		{"version", "14.04", "14.4", 0, ""},
		{"version", "2.0", "2.0.0", 0, ""},
		{"version", "2", "1.99", 1, ""},
		{"version", "100000000000000000000000.1", "99999999999999999999999.1", 1, ""},
		{"timestamp", "2001-12-14T21:59:43.1-05:00", "2001-12-15T02:59:43.1Z", 0, ""},
		{"timestamp", "2001-12-14T21:59:43.1-05:00", "2001-12-15T02:59:43Z", 1, ""},
		{"timestamp", "2001-12-14", "2001-12-14 00:00:01", -1, ""},
		{"tosca:integer", int64(3), int64(3), 0, ""},
		{"boolean", true, false, 0, "cannot be ordered"},
		{"null", nil, nil, 0, "cannot be ordered"},
		{"range", []graph.Value{int64(1), int64(2)}, []graph.Value{int64(1), int64(2)}, 0, "cannot be ordered"},
		{"list", nil, nil, 0, "cannot be ordered"},
		{"integer", "1", int64(1), 0, "is not an integer"},
		{"string", int64(1), "1", 0, "is not a string"},
		{"scalar-unit.size", "1 GB", "1", 0, "the unit is missing"},
		{"version", "1.0", "x", 0, "not a valid version"},
		{"timestamp", "2001-12-14", "never", 0, "not a valid timestamp"},
		{"float", 1.0, math.NaN(), 0, "NaN"},
	}
	for _, tt := range tests {
		got, err := Compare(tt.typ, tt.a, tt.b)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Compare(%s, %v, %v) = %d, %v; want error %q", tt.typ, tt.a, tt.b, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Compare(%s, %v, %v) = %d, %v; want %d", tt.typ, tt.a, tt.b, got, err, tt.want)
		}
		if back, err := Compare(tt.typ, tt.b, tt.a); err != nil || back != -tt.want {
			t.Errorf("Compare(%s, %v, %v) = %d, %v; want %d (antisymmetry)", tt.typ, tt.b, tt.a, back, err, -tt.want)
		}
	}
}

func TestScalarUnit(t *testing.T) {
	tests := []struct {
		typ, s string
		want   float64
		err    string
	}{
		{"scalar-unit.size", "1 GiB", 1 << 30, ""},
		{"scalar-unit.size", "1.5 kB", 1500, ""},
		{"scalar-unit.size", "2TB", 2e12, ""},
		{"scalar-unit.time", "1 d", 86400, ""},
		{"scalar-unit.time", "1 ns", 1e-9, ""},
		{"scalar-unit.time", "2 h", 7200, ""},
		{"scalar-unit.frequency", "2.4 GHz", 2.4e9, ""},
		{"scalar-unit.bitrate", "1 MiBps", 8 << 20, ""},
		{"scalar-unit.bitrate", "1 Mibps", 1 << 20, ""},
		{"tosca:scalar-unit.bitrate", "1 Tbps", 1e12, ""},
		{"scalar-unit.size", "1", 0, "unit is missing"},
		{"integer", "1 GB", 0, "not a scalar-unit type"},
	}
	for _, tt := range tests {
		got, err := ScalarUnit(tt.typ, tt.s)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ScalarUnit(%s, %q) = %v, %v; want error %q", tt.typ, tt.s, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ScalarUnit(%s, %q) = %v, %v; want %v", tt.typ, tt.s, got, err, tt.want)
		}
	}
}

// Every unit of every table parses in its canonical spelling, in lower and
// upper case (except bitrate's b/B), and canonicalises back.
func TestEveryUnit(t *testing.T) {
	for _, k := range []*scalarKind{sizeKind, timeKind, frequencyKind, bitrateKind} {
		for _, u := range k.units {
			spellings := []string{u.name}
			if k != bitrateKind {
				spellings = append(spellings, strings.ToLower(u.name), strings.ToUpper(u.name))
			}
			for _, s := range spellings {
				v, err := k.parse("3 " + s)
				if err != nil {
					t.Errorf("%s: 3 %s: %v", k.typ, s, err)
					continue
				}
				if v.magnitude != 3*u.factor {
					t.Errorf("%s: 3 %s = %v; want %v", k.typ, s, v.magnitude, 3*u.factor)
				}
				// kB and KB are the same unit: either spelling is canonical.
				if c := v.canonical(); c != "3 "+u.name && !(strings.EqualFold(c, "3 "+u.name) && v.unit.factor == u.factor) {
					t.Errorf("%s: 3 %s canonical %q", k.typ, s, c)
				}
			}
		}
	}
}
