package values

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Patterns. Neither TOSCA 1.3 (§3.6.3 pattern) nor 2.0 (§10.2.2.2.7
// $matches) fixes a regular expression dialect, and real profiles write
// PCRE and ECMAScript constructs Go's RE2 lacks (lookahead, lookbehind,
// backreferences, atomic groups, possessive quantifiers). Such a pattern is
// not wrong by the specification, only not checkable here: it is a
// warning (CodeUncheckedPattern) and values are not checked against it. A
// pattern that stays invalid once those constructs are read as RE2 ones
// (an unbalanced parenthesis or bracket, a quantifier with nothing to
// repeat) is invalid in every dialect: an error (CodeBadPattern).

// PatternProblem tells why a pattern cannot be checked with RE2.
type PatternProblem struct {
	// Invalid is true when the pattern is invalid in every dialect, false
	// when only RE2 lacks a construct it uses.
	Invalid bool
	// Reason is what RE2 or the pattern's syntax says, for a message.
	Reason string
}

// CompilePattern compiles p with Go's RE2, anchored at both ends (the
// whole value must match), as 1.x's pattern constraint is read: 1.3
// §3.6.3 allows "a value that is allowed by the provided regular
// expression", and tosca-parser accepts a value only when the pattern
// matches from its start and the match ends where the value does. 2.0's $matches is not anchored (funceval); its pattern
// is compiled here only for the problem. When RE2
// cannot compile it, the regexp is nil and the problem tells whether the
// pattern is invalid in every dialect or uses a construct RE2 lacks.
func CompilePattern(p string) (*regexp.Regexp, *PatternProblem) {
	// Parsed alone first, so that a message quotes the user's text and
	// not the anchoring added around it; the anchored pattern is written
	// from the parse, so that an open \Q quotes nothing of the anchoring.
	tree, err := syntax.Parse(p, syntax.Perl)
	if err == nil {
		re, err := regexp.Compile(`^(?:` + tree.String() + `)$`)
		if err != nil {
			return nil, &PatternProblem{Reason: err.Error()}
		}
		return re, nil
	}
	var se *syntax.Error
	if !errors.As(err, &se) {
		return nil, &PatternProblem{Reason: err.Error()}
	}
	reason := fmt.Sprintf("%s: %s", se.Code, quote(se.Expr))
	switch {
	case strings.Contains(p, "(?=") || strings.Contains(p, "(?!") || strings.Contains(p, "(?<=") || strings.Contains(p, "(?<!"):
		reason = "Go's RE2 has no lookahead or lookbehind assertions"
	case se.Code == syntax.ErrInvalidEscape && backreference(p):
		reason = "Go's RE2 has no backreferences"
	}
	// ECMAScript's empty classes [] and [^] (nothing, anything) are a
	// missing bracket to PCRE and RE2.
	ecma := strings.NewReplacer("[^]", ".", "[]", "x").Replace(p)
	if _, err := regexp.Compile(asRE2(p)); err != nil && errors.As(err, &se) && invalidEverywhere(se.Code) {
		if _, err := regexp.Compile(asRE2(ecma)); err != nil {
			return nil, &PatternProblem{Invalid: true, Reason: se.Code.String()}
		}
	}
	return nil, &PatternProblem{Reason: reason}
}

// invalidEverywhere reports whether an RE2 syntax error is one in PCRE and
// ECMAScript too.
func invalidEverywhere(code syntax.ErrorCode) bool {
	switch code {
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen, syntax.ErrMissingBracket, syntax.ErrMissingRepeatArgument:
		return true
	}
	return false
}

// asRE2 rewrites the PCRE and ECMAScript constructs RE2 lacks into RE2
// ones of the same shape (a group for a group, a character for an escape),
// so that what is left to RE2's parser is the pattern's structure:
// lookaround and atomic groups become non-capturing groups, backreferences
// and escapes RE2 does not know a literal character, possessive
// quantifiers plain ones.
func asRE2(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n >= '1' && n <= '9' && !inClass, strings.IndexByte("kgZGKRhHXecu", n) >= 0:
				b.WriteByte('x')
				i++
				if n == 'k' || n == 'g' {
					if j := strings.IndexAny(p[i+1:], ">'}"); j >= 0 && i+1 < len(p) && strings.IndexByte("<'{", p[i+1]) >= 0 {
						i += j + 1
					}
				}
			default:
				b.WriteString(p[i : i+2])
				i++
			}
		case inClass:
			if ch == ']' {
				inClass = false
			}
			b.WriteByte(ch)
		case ch == '[':
			inClass = true
			b.WriteByte(ch)
			// A ] first in a class is a member, not its end.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case ch == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!"):
				b.WriteString("(?:")
				i += 3
			case rest != "" && strings.IndexByte("=!>|", rest[0]) >= 0:
				b.WriteString("(?:")
				i += 2
			default:
				b.WriteByte(ch)
			}
		case ch == '+' && i > 0 && strings.IndexByte("*+?}", p[i-1]) >= 0 && (i < 2 || p[i-2] != '\\'):
			// possessive quantifier: drop the +
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// backreference reports whether the pattern holds \1 … \9.
func backreference(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '\\' {
			if p[i+1] >= '1' && p[i+1] <= '9' {
				return true
			}
			i++
		}
	}
	return false
}
