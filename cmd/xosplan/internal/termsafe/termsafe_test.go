package termsafe

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "web.server", "web.server"},
		{"tab kept", "a\tb", "a\tb"},
		{"escape sequence", "a\x1b]0;title\x07b", "a␛]0;title␇b"},
		{"line feed and CR", "a\r\nb", "a␍␊b"},
		{"DEL and C1", "\x7f\u0085\u009b", "␡\uFFFD\uFFFD"},
		{"non-ASCII kept", "été ␛", "été ␛"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLines(t *testing.T) {
	if got, want := Lines("one\x1b[2J\ntwo\r\n"), "one␛[2J\ntwo␍\n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestVisibleKeepsHighlight(t *testing.T) {
	code, start, end := Visible([]byte("k: \x1b[31mred"), 4, 9)
	if code != "k: ␛[31mred" || code[start:end] != "[31mr" {
		t.Errorf("Visible = %q [%d:%d]", code, start, end)
	}
}

func TestNoAllocationOnCleanText(t *testing.T) {
	s, lines := "resource.address", "one\ntwo\n"
	if n := testing.AllocsPerRun(10, func() { _ = String(s) }); n != 0 {
		t.Errorf("String allocates %v times on clean text", n)
	}
	if n := testing.AllocsPerRun(10, func() { _ = Lines(lines) }); n != 0 {
		t.Errorf("Lines allocates %v times on clean multi-line text", n)
	}
}
