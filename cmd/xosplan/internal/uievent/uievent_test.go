package uievent

import (
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	at := time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.FixedZone("", 3600))
	for _, tc := range []struct {
		name   string
		fields map[string]any
		want   string
	}{
		{"envelope only", nil,
			`{"@level":"info","@message":"a <b> & c","@module":"xosplan.ui","@timestamp":"2026-11-22T01:02:03.456789+01:00","type":"version"}` + "\n"},
		{"fields sorted in", map[string]any{"z": 1, "hook": map[string]any{"action": "create"}},
			`{"@level":"info","@message":"a <b> & c","@module":"xosplan.ui","@timestamp":"2026-11-22T01:02:03.456789+01:00","hook":{"action":"create"},"type":"version","z":1}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Line(at, "info", "a <b> & c", "version", tc.fields)
			if err != nil || string(got) != tc.want {
				t.Errorf("Line = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	if _, err := Line(at, "info", "m", "t", map[string]any{"bad": func() {}}); err == nil {
		t.Error("Line with an unencodable field: no error")
	}
}
