package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

func render(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString([]string{" ", "+", "-"}[l.Op])
		b.WriteString(l.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func TestLines(t *testing.T) {
	for _, tc := range []struct{ name, a, b, want string }{
		{"same", "x\ny\n", "x\ny\n", " x\n y\n"},
		{"change middle", "a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"append", "a\n", "a\nb\n", " a\n+b\n"},
		{"from empty", "", "a\nb", "+a\n+b\n"},
		{"to empty", "a\n", "", "-a\n"},
		{"no final newline", "a\nb", "a\nc", " a\n-b\n+c\n"},
	} {
		if got := render(Lines(tc.a, tc.b)); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func TestHugeFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := range MaxLines + 1 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	ls := Lines(a.String(), b.String())
	if len(ls) != 2*(MaxLines+1) || ls[0].Op != Delete || ls[len(ls)-1].Op != Insert {
		t.Errorf("fallback: %d lines", len(ls))
	}
}

func BenchmarkLines(b *testing.B) {
	var x, y strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&x, "setting_%d = %d\n", i, i)
		if i%50 == 0 {
			fmt.Fprintf(&y, "setting_%d = changed\n", i)
			continue
		}
		fmt.Fprintf(&y, "setting_%d = %d\n", i, i)
	}
	for b.Loop() {
		Lines(x.String(), y.String())
	}
}
