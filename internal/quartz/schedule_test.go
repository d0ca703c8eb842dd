package quartz

import (
	"testing"
	"time"
)

// TestScheduleNextFollowsQuartz: each expression's next firings after a
// fixed time, in the forms factories use (every few seconds for tests,
// every few minutes, named days, the special day forms).
func TestScheduleNextFollowsQuartz(t *testing.T) {
	from := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC) // a Wednesday
	tests := []struct {
		expr string
		want []string
	}{
		{"*/2 * * * * ?", []string{"2026-11-25T10:00:02Z", "2026-11-25T10:00:04Z"}},
		{"0 0/5 * * * ?", []string{"2026-11-25T10:05:00Z", "2026-11-25T10:10:00Z"}},
		{"30 15 10 * * ?", []string{"2026-11-25T10:15:30Z", "2026-11-26T10:15:30Z"}},
		{"0 0 12 ? * MON-FRI", []string{"2026-11-25T12:00:00Z", "2026-11-26T12:00:00Z", "2026-11-27T12:00:00Z", "2026-11-30T12:00:00Z"}},
		{"0 0 0 L * ?", []string{"2026-11-30T00:00:00Z", "2026-12-31T00:00:00Z"}},
		{"0 0 0 L-2 * ?", []string{"2026-11-28T00:00:00Z"}},
		{"0 0 0 1W * ?", []string{"2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", "2027-04-01T00:00:00Z", "2027-05-03T00:00:00Z"}},
		{"0 0 0 LW * ?", []string{"2026-11-30T00:00:00Z", "2026-12-31T00:00:00Z", "2027-01-29T00:00:00Z"}},
		{"0 0 0 ? * 6L", []string{"2026-11-27T00:00:00Z", "2026-12-25T00:00:00Z"}},
		{"0 0 0 ? * MON#1", []string{"2026-12-07T00:00:00Z", "2027-01-04T00:00:00Z"}},
		{"0 0 0 ? * L", []string{"2026-11-28T00:00:00Z"}},
		{"0 0 0 1 1 ? 2027", []string{"2027-01-01T00:00:00Z", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			s, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			at := from
			for i, want := range tc.want {
				at = s.Next(at)
				got := ""
				if !at.IsZero() {
					got = at.Format(time.RFC3339)
				}
				if got != want {
					t.Fatalf("firing %d = %q, want %q", i+1, got, want)
				}
			}
		})
	}
}

// TestParseRefusesWhatCheckRefuses: Parse makes the checks of Check
// (which validate reports as manifest.bad_schedule).
func TestParseRefusesWhatCheckRefuses(t *testing.T) {
	for _, expr := range []string{"* * * * *", "0 0 0 * * *", "0 0 0 ? * ?", "61 * * * * ?"} {
		if _, err := Parse(expr); err == nil {
			t.Errorf("%q parsed", expr)
		}
	}
}
