package values

import "testing"

// TestCompilePatternDialects: RE2 patterns compile; PCRE and ECMAScript
// constructs RE2 lacks are unchecked, not invalid; a pattern no dialect
// reads is invalid.
func TestCompilePatternDialects(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // "ok", "unchecked" or "invalid"
	}{
		{`[a-z]+[0-9]*`, "ok"},
		{`(?i)abc`, "ok"},
		{`[]a]`, "ok"},
		{`(?P<n>a)`, "ok"},
		{`^(?=.*[0-9]).{8,}$`, "unchecked"}, // lookahead
		{`(?<!x)y`, "unchecked"},            // lookbehind
		{`(a)\1`, "unchecked"},              // backreference
		{`(?<n>a)\k<n>`, "unchecked"},       // named backreference
		{`(?>a+)b`, "unchecked"},            // atomic group
		{`a++b`, "unchecked"},               // possessive
		{`a{2,}+`, "unchecked"},             // possessive
		{`\u00e9+`, "unchecked"},            // ECMAScript escape
		{`[^]`, "unchecked"},                // ECMAScript: any character
		{`(?x) a b`, "unchecked"},           // extended mode
		{`(`, "invalid"},
		{`)`, "invalid"},
		{`[a-`, "invalid"},
		{`*a`, "invalid"},
		{`(?=a`, "invalid"},
		{`\d(?!x`, "invalid"},
	}
	for _, tt := range tests {
		re, problem := CompilePattern(tt.pattern)
		got := "ok"
		switch {
		case problem != nil && problem.Invalid:
			got = "invalid"
		case problem != nil:
			got = "unchecked"
		}
		if got != tt.want || (re == nil) != (problem != nil) {
			t.Errorf("CompilePattern(%q) = %v, %+v: %s, want %s", tt.pattern, re, problem, got, tt.want)
		}
		if problem != nil && problem.Reason == "" {
			t.Errorf("CompilePattern(%q): no reason", tt.pattern)
		}
	}
	if re, _ := CompilePattern(`ab|cd`); re.MatchString("xab") || !re.MatchString("cd") {
		t.Error("the pattern is not anchored at both ends")
	}
}

// FuzzCompilePattern checks that CompilePattern never panics, that it
// gives a regexp exactly when it reports no problem, and that a problem
// always has a reason.
func FuzzCompilePattern(f *testing.F) {
	for _, s := range []string{`[a-z]+`, `(?=a)b`, `(?<!x)y`, `(a)\1`, `\k<n>`, `\k`, `a++`, `a{2}+`, `[^]`, `[]`,
		`(?>a)`, `\u00e9`, `\c`, `(`, `)`, `[a-`, `*`, `\`, `(?`, `(?<`, `[\1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		re, problem := CompilePattern(p)
		if (re == nil) == (problem == nil) {
			t.Fatalf("CompilePattern(%q) = %v, %+v", p, re, problem)
		}
		if problem != nil && problem.Reason == "" {
			t.Fatalf("CompilePattern(%q): a problem without a reason", p)
		}
	})
}
