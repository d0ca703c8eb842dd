package nearest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"json", "json", 0}, {"jsn", "json", 1}, {"lock", "lcok", 2}, {"", "out", 3}, {"kitten", "sitting", 3},
		{"größe", "grösse", 2}, {"ü", "u", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want || Distance(tc.b, tc.a) != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
