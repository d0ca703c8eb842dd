package yamlsrc

import (
	"strings"
	"testing"
)

func TestNameProblem(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "web_server", ""},
		{"limit in characters, not bytes", strings.Repeat("é", MaxNameChars), ""},
		{"too long", strings.Repeat("a", MaxNameChars+1), "node name is 256 characters long; the limit is 255"},
		{"escape", "a\x1b[2Jb", `node name "a\x1b[2Jb" may not contain control characters`},
		{"newline", "a\nb", "may not contain control characters"},
		{"C1 control", "a\u009bb", "may not contain control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NameProblem("node name", tt.in)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("NameProblem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTextProblem(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		limit int
		want  string
	}{
		{"fits", MaxDescriptionBytes, MaxDescriptionBytes, ""},
		{"KiB", MaxDescriptionBytes + 1, MaxDescriptionBytes, "description is 65537 bytes long; the limit is 65536 (64 KiB)"},
		{"MiB", 1<<20 + 1, 1 << 20, "(1 MiB)"},
		{"bytes", 11, 10, "(10 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TextProblem("description", strings.Repeat("x", tt.size), tt.limit)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("TextProblem(%d bytes, %d) = %q, want %q", tt.size, tt.limit, got, tt.want)
			}
		})
	}
}
