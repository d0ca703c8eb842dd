package quartz

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		perMinute int
		err       string
	}{
		{expr: "0/30 * * * * ? *", perMinute: 2},
		{expr: "0 * * * * ? *", perMinute: 1},
		{expr: "* * * * * ?", perMinute: 60},
		{expr: "0,15,30,45 * * * * ?", perMinute: 4},
		{expr: "10-14 0/5 * ? * MON-FRI", perMinute: 5},
		{expr: "0 0 12 ? JAN,JUL 6L 2030", perMinute: 1},
		{expr: "0 0 12 ? * 2#3", perMinute: 1},
		{expr: "0 0 12 15W * ?", perMinute: 1},
		{expr: "0 0 12 LW * ?", perMinute: 1},
		{expr: "0 0 22 ? * FRI-MON", perMinute: 1},
		{expr: "0 0 * * *", err: "expected 6 or 7 fields"},
		{expr: "0 60 * * * ?", err: `minutes field "60"`},
		{expr: "0 0 0 * FOO ?", err: "month field"},
		{expr: "? 0 0 * * ?", err: "allowed only in day-of-month"},
		{expr: "0 0 0 ? * ?", err: "exactly one of"},
		{expr: "0 0 0 * * * 1969", err: "exactly one of"},
		{expr: "0 0 0 * * ? 1969", err: "year field"},
		{expr: "0/x * * * * ?", err: "step"},
	} {
		n, err := Check(tc.expr)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.expr, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.expr, err)
		case n != tc.perMinute:
			t.Errorf("%q fires %d times a minute, want %d", tc.expr, n, tc.perMinute)
		}
	}
}
