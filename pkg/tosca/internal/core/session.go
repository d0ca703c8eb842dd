package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Session is the state of one compile that both grammar generations
// share. Nothing is shared between compiles: a compiler embeds a new
// Session (NewSession) for each.
type Session struct {
	// Ctx ends the compile (cancel.go); Halt is its cancellation state.
	Ctx  context.Context
	Halt Halt
	// FSRoot confines the files the template names (built from the
	// compile's root folders, or the top-level file's folder).
	FSRoot *userfile.Root
	// Files, when not nil, holds files read in place of the file system
	// (files.go); Archive says they are all the compile may read besides
	// the embedded type libraries (an archive: Files with no root folders
	// beside them). confined remembers the names checked against FSRoot.
	Files    Files
	Archive  bool
	confined map[confinedKey]bool

	// Diags holds the diagnostics in the order found.
	Diags diag.Diagnostics
	// InSecret is above zero while a value of a sensitive definition is
	// checked: its diagnostics must not quote it (hideSecretLine).
	InSecret int
	// FollowOns counts, by the index in Diags of a root cause, the
	// problems that follow from it and are not reported (follow.go).
	FollowOns map[int]int
	// UnknownAt holds, by kind and name, the index in Diags of the report
	// of a type name that is not defined; ImportFailed is the index of
	// the first import that could not be loaded, or -1.
	UnknownAt    map[UnknownKey]int
	ImportFailed int

	// wd is the working folder, read once for display.
	wd string
}

// NewSession returns the session of a compile that ctx (nil: none) ends.
func NewSession(ctx context.Context) Session {
	if ctx == nil {
		ctx = context.Background()
	}
	return Session{Ctx: ctx, ImportFailed: -1}
}

// Errorf reports an error at r, the YAML path path.
func (s *Session) Errorf(r diag.Range, path, code, format string, args ...any) {
	s.Diags = s.Diags.Errorf(r, path, code, format, args...)
	s.hideSecretLine()
}

// Warnf reports a warning at r, the YAML path path.
func (s *Session) Warnf(r diag.Range, path, code, format string, args ...any) {
	s.Diags = s.Diags.Warnf(r, path, code, format, args...)
	s.hideSecretLine()
}

// ErrorDetail reports an error with a multi-line detail.
func (s *Session) ErrorDetail(r diag.Range, path, code, detail, format string, args ...any) {
	s.Errorf(r, path, code, format, args...)
	s.Diags[len(s.Diags)-1].Detail = detail
}

// hideSecretLine marks the diagnostic just reported Sensitive when it was
// reported while a secret is checked: its source line may hold the
// secret.
func (s *Session) hideSecretLine() {
	if s.InSecret > 0 && len(s.Diags) > 0 {
		s.Diags[len(s.Diags)-1].Sensitive = true
	}
}

// Display names a file in a message: relative to the working folder when
// it lies inside it, as the files of diagnostics are named.
func (s *Session) Display(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	if s.wd == "" {
		s.wd, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(s.wd, name); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return name
}

// Finish writes the follow-on counts into their root causes' details, then
// sorts the diagnostics and drops repeats: the same problem at the same
// place, whatever YAML path led to it.
func (s *Session) Finish() diag.Diagnostics {
	for at, n := range s.FollowOns {
		more := "1 more problem follows from this."
		if n > 1 {
			more = fmt.Sprintf("%d more problems follow from this.", n)
		}
		if d := &s.Diags[at]; d.Detail == "" {
			d.Detail = more
		} else {
			d.Detail += "\n" + more
		}
	}
	// Ordered by path first, so that of repeats reached by several paths
	// (in map order) the one kept is always the same.
	slices.SortStableFunc(s.Diags, func(a, b diag.Diagnostic) int { return strings.Compare(a.Path, b.Path) })
	ds := s.Diags.Sort()
	return slices.CompactFunc(ds, func(a, b diag.Diagnostic) bool {
		return a.Range == b.Range && a.Severity == b.Severity && a.Code == b.Code && a.Summary == b.Summary
	})
}
