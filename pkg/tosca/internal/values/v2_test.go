package values

import (
	"math"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestCoerceV2 covers the strict primitives of TOSCA 2.0 (§9.1).
func TestCoerceV2(t *testing.T) {
	tests := []struct {
		typ, yaml string
		want      graph.Value
		err       string
	}{
		{"string", "hello", "hello", ""},
		{"string", "'0.1'", "0.1", ""},
		{"string", "0.1", nil, "is not a string"},
		{"string", "null", nil, "null is not a string"},
		{"integer", "0x1F", int64(31), ""},
		{"integer", "1.0", nil, "is not an integer"},
		{"float", "1", float64(1), ""},
		{"float", "2.5", 2.5, ""},
		// §9.1.1.3: the infinities and not-a-number, in YAML 1.2's spellings,
		// and the float64 extremes are floats; beyond them is an error.
		{"float", ".inf", math.Inf(1), ""},
		{"float", "+.inf", math.Inf(1), ""},
		{"float", ".Inf", math.Inf(1), ""},
		{"float", ".INF", math.Inf(1), ""},
		{"float", "-.inf", math.Inf(-1), ""},
		{"float", "-.Inf", math.Inf(-1), ""},
		{"float", "-.INF", math.Inf(-1), ""},
		{"float", "1.7976931348623157e+308", math.MaxFloat64, ""},
		{"float", "-1.7976931348623157e+308", -math.MaxFloat64, ""},
		{"float", "4.9e-324", math.SmallestNonzeroFloat64, ""},
		{"float", "1.8e308", nil, "out of the float range"},
		{"float", "-1e999", nil, "out of the float range"},
		{"float", "'.inf'", nil, "is not a float"},
		{"float", ".infinity", nil, "is not a float"},
		{"boolean", "true", true, ""},
		{"boolean", "False", nil, "lowercase words true and false"},
		{"boolean", "no", nil, "is not a boolean"},
		{"bytes", "'R0lGODlh'", "R0lGODlh", ""},
		{"bytes", `""`, "", ""},
		{"bytes", "'not base64!'", nil, "not Base64"},
		{"bytes", "!!binary R0lGODlh", nil, "!!binary type is not accepted"},
		{"bytes", "null", nil, "null is not a valid bytes"},
		{"nil", "null", nil, ""},
		{"nil", "0", nil, "is not null"},
		{"timestamp", "2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.1-05:00", ""},
		{"timestamp", "2001-12-15T02:59:43.1z", "2001-12-15T02:59:43.1Z", ""},
		{"timestamp", "2001-12-14T21:59:43-00:00", "2001-12-14T21:59:43Z", ""},
		{"timestamp", "'2001-12-14 21:59:43.10'", nil, "RFC 3339"},
		{"timestamp", "2001-02-30T00:00:00Z", nil, "no such date"},
		// RFC 3339 (§9.1.2.1): "t" and "z" in either case, any fraction, an
		// offset of hours 00-23 and minutes 00-59, second 60 only for a leap
		// second (23:59:60 UTC at the end of a month), no space separator.
		{"timestamp", "2001-12-14t21:59:43.123456789+05:30", "2001-12-14T21:59:43.123456789+05:30", ""},
		{"timestamp", "2001-12-14T21:59:43.000Z", "2001-12-14T21:59:43Z", ""},
		{"timestamp", "2001-12-14T21:59:43+23:59", "2001-12-14T21:59:43+23:59", ""},
		{"timestamp", "2001-12-14T21:59:43+24:00", nil, "zone offset is out of range"},
		{"timestamp", "2001-12-14T21:59:43-05:60", nil, "zone offset is out of range"},
		{"timestamp", "2001-12-14T21:59:43+5:30", nil, "RFC 3339"},
		{"timestamp", "2001-12-14T21:59:43.Z", nil, "RFC 3339"},
		{"timestamp", "2001-12-14T21:59:43", nil, "RFC 3339"},
		{"timestamp", "2001-12-14", nil, "RFC 3339"},
		{"timestamp", "'2001-12-14 21:59:43Z'", nil, "RFC 3339"},
		{"timestamp", "2001-12-14T24:00:00Z", nil, "no such date"},
		{"timestamp", "2016-12-31T23:59:60Z", "2016-12-31T23:59:60Z", ""},
		{"timestamp", "2016-12-31t23:59:60.5z", "2016-12-31T23:59:60.5Z", ""},
		{"timestamp", "1990-12-31T15:59:60-08:00", "1990-12-31T15:59:60-08:00", ""},
		{"timestamp", "2015-06-30T23:59:60-00:00", "2015-06-30T23:59:60Z", ""},
		{"timestamp", "2016-12-30T23:59:60Z", nil, "leap second"},
		{"timestamp", "2016-12-31T22:59:60Z", nil, "leap second"},
		{"timestamp", "2016-12-31T23:59:61Z", nil, "no such date"},
		{"version", "2.0.1.alpha-3", "2.0.1.alpha-3", ""},
		{"list", "[1]", nil, "not a primitive type"},
	}
	for _, tt := range tests {
		got, err := CoerceV2(tt.typ, node(t, tt.yaml))
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("CoerceV2(%s, %s) error = %v, want %q", tt.typ, tt.yaml, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("CoerceV2(%s, %s) error = %v", tt.typ, tt.yaml, err)
		case tt.err == "" && !graph.Equal(got, tt.want):
			t.Errorf("CoerceV2(%s, %s) = %#v, want %#v", tt.typ, tt.yaml, got, tt.want)
		}
	}
}

// TestCoerceV2NaN: .nan, .NaN and .NAN are the float not-a-number
// (§9.1.1.3), which no table row can compare equal.
func TestCoerceV2NaN(t *testing.T) {
	for _, y := range []string{".nan", ".NaN", ".NAN"} {
		got, err := CoerceV2("float", node(t, y))
		if f, ok := got.(float64); err != nil || !ok || !math.IsNaN(f) {
			t.Errorf("CoerceV2(float, %s) = %#v, %v; want NaN", y, got, err)
		}
	}
}

// TestV2Helpers covers the comparisons the 2.0 functions use.
func TestV2Helpers(t *testing.T) {
	if r, err := CompareVersions("2.0.1", "2.0.10"); err != nil || r >= 0 {
		t.Errorf("CompareVersions = %d, %v", r, err)
	}
	if r, err := CompareTimestamps("2001-12-14T21:59:43Z", "2001-12-14T21:59:43-05:00"); err != nil || r >= 0 {
		t.Errorf("CompareTimestamps = %d, %v", r, err)
	}
	// A leap second comes after the whole of second 59 and before the
	// next minute (§9.1.2.1 compares the universal instant).
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2016-12-31T23:59:60Z", "2016-12-31T23:59:59.999999999Z", 1},
		{"2016-12-31T23:59:60.999Z", "2017-01-01T00:00:00Z", -1},
		{"2016-12-31T15:59:60-08:00", "2016-12-31T23:59:60Z", 0},
		{"2016-12-31T23:59:60Z", "2016-12-31T23:59:60.1Z", -1},
	} {
		if r, err := CompareTimestamps(c.a, c.b); err != nil || r != c.want {
			t.Errorf("CompareTimestamps(%s, %s) = %d, %v; want %d", c.a, c.b, r, err, c.want)
		}
	}
	if !IsPrimitiveV2("bytes") || IsPrimitiveV2("map") {
		t.Error("IsPrimitiveV2")
	}
}
