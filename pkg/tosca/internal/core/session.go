package core

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// Session is the state of one compile that both grammar generations
// share. Nothing is shared between compiles: pkg/tosca makes one
// (NewSession) for each, and the compiler of the file's version embeds a
// pointer to it.
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
	// PlaybookOps holds the paths of the operations whose implementation
	// is an artifact of an Ansible type (drivers.go).
	PlaybookOps map[string]bool

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

	// Parse parses a file's data (the compile's parse cache); nil:
	// yamlsrc.ParseContext without limits of its own.
	Parse func(ctx context.Context, name string, data []byte) (*yamlsrc.Node, diag.Diagnostics)
	// SecretReads counts reads of secrets during evaluation; SecretAt
	// marks the value paths whose values are secret (secrets.go).
	SecretReads int
	SecretAt    map[string]bool
	// suggestCells counts the cells SuggestLast's searches have spent of
	// MaxSuggestCells.
	suggestCells int

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
func (c *Session) Errorf(r diag.Range, path, code, format string, args ...any) {
	c.Diags = c.Diags.Errorf(r, path, code, format, args...)
	c.hideSecretLine()
}

// Warnf reports a warning at r, the YAML path path.
func (c *Session) Warnf(r diag.Range, path, code, format string, args ...any) {
	c.Diags = c.Diags.Warnf(r, path, code, format, args...)
	c.hideSecretLine()
}

// ErrorDetail reports an error with a multi-line detail.
func (c *Session) ErrorDetail(r diag.Range, path, code, detail, format string, args ...any) {
	c.Errorf(r, path, code, format, args...)
	c.Diags[len(c.Diags)-1].Detail = detail
}

// hideSecretLine marks the diagnostic just reported Sensitive when it was
// reported while a secret is checked: its source line may hold the
// secret.
func (c *Session) hideSecretLine() {
	if c.InSecret > 0 && len(c.Diags) > 0 {
		c.Diags[len(c.Diags)-1].Sensitive = true
	}
}

// Display names a file in a message: relative to the working folder when
// it lies inside it, as the files of diagnostics are named.
func (c *Session) Display(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	if c.wd == "" {
		c.wd, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(c.wd, name); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return name
}

// Finish writes the follow-on counts into their root causes' details, then
// sorts the diagnostics and drops repeats: the same problem at the same
// place, whatever YAML path led to it.
func (c *Session) Finish() diag.Diagnostics {
	for at, n := range c.FollowOns {
		more := "1 more problem follows from this."
		if n > 1 {
			more = fmt.Sprintf("%d more problems follow from this.", n)
		}
		if d := &c.Diags[at]; d.Detail == "" {
			d.Detail = more
		} else {
			d.Detail += "\n" + more
		}
	}
	// Ordered by path first, so that of repeats reached by several paths
	// (in map order) the one kept is always the same.
	slices.SortStableFunc(c.Diags, func(a, b diag.Diagnostic) int { return strings.Compare(a.Path, b.Path) })
	ds := c.Diags.Sort()
	return slices.CompactFunc(ds, func(a, b diag.Diagnostic) bool {
		return a.Range == b.Range && a.Severity == b.Severity && a.Code == b.Code && a.Summary == b.Summary
	})
}

// Quietly runs check and returns the diagnostics it reported, which it
// takes back: a trial of a value against a definition.
func (c *Session) Quietly(check func()) diag.Diagnostics {
	n0 := len(c.Diags)
	check()
	got := slices.Clone(c.Diags[n0:])
	c.Diags = c.Diags[:n0]
	for at := range c.FollowOns {
		if at >= n0 {
			delete(c.FollowOns, at)
		}
	}
	return got
}

// AddEdge adds e to g. Render adds edges only between the node templates
// it made resources of, so a refusal is a bug of xosplan; it is reported
// at e's position (CodeInternal) rather than lost, since the plan would
// otherwise order the two resources wrongly without saying so.
func (c *Session) AddEdge(g *graph.Graph, e graph.Edge, path string) {
	if err := g.AddEdge(e); err != nil {
		c.Errorf(e.Range, path, CodeInternal, "the dependency of %s on %s cannot be kept: %v", e.Source, e.Target, err)
	}
}

// ReportCanceled replaces the diagnostics found since the compile
// stopped with one error that says why: the context's cause
// ("interrupted" for the CLI's signals) for the compile of file, or the
// value budget of a 2.0 compile, at the value it ran out at.
func (c *Session) ReportCanceled(file string) {
	// A problem found quietly (Quietly: internal/tosca2/funcdefs.go) may have been dropped since.
	c.DropSinceStop()
	if c.Halt.Spent {
		c.Diags = c.Diags.Errorf(c.Halt.SpentAt, c.Halt.SpentPath, CodeTooComplex, "%s", c.Halt.SpentMessage)
		c.Diags[len(c.Diags)-1].Sensitive = c.Halt.SpentSecret
		return
	}
	c.Errorf(diag.Range{File: file}, "", CodeCanceled, "compilation stopped: %v", context.Cause(c.Ctx))
}

// UndeclaredInputs reports, as errors (Terraform refuses a value for an
// undeclared variable too), each input value given (inputs:
// tosca.Options.Inputs) for an input the template (named template) does
// not declare, with the nearest declared name when one is close. The
// error is placed where the value was given (ranges:
// tosca.Options.InputRanges, its entry in an inputs file), else at fallback
// (the template's inputs, or its first line); a --var, which has no place,
// is named as such. The message names the input, never its value: it may
// be a secret. section is the keyname inputs are declared under
// (topology_template or service_template); the diagnostic's path is
// section.inputs.NAME, which tosca.UndeclaredInput reads back.
func (c *Session) UndeclaredInputs(inputs map[string]any, ranges map[string]diag.Range, template string, declared map[string]bool, section string, fallback diag.Range) {
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		if declared[name] {
			continue
		}
		at, given := ranges[name]
		var summary string
		switch {
		case given && at.File == "":
			summary = fmt.Sprintf("--var gives a value for input %q, which the template %s does not declare", name, c.Display(template))
		default:
			summary = fmt.Sprintf("input value given for %q, which the template %s does not declare", name, c.Display(template))
		}
		if !given {
			at = fallback
		}
		if s := NearestName(name, slices.Collect(maps.Keys(declared))); s != "" {
			summary += fmt.Sprintf("; did you mean %q?", s)
		}
		c.Diags = c.Diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeUnknownInput, Range: at,
			Path: section + ".inputs." + name, Summary: summary,
			Detail: "Declare the input under " + section + ".inputs, or remove the value."})
	}
}

// ReadMetadata checks a metadata map: values are scalars; at the template
// level template_name and template_author are strings and template_version
// is a TOSCA version.
func (c *Session) ReadMetadata(md *yamlsrc.Node, path string, template bool) {
	if md.IsNull() {
		return
	}
	if !template {
		// tosca-parser accepts any metadata on types and templates.
		return
	}
	if md.Kind != yamlsrc.Mapping {
		c.Errorf(md.Range, path, CodeWrongKind, "metadata must be a map, found %s", md.Describe())
		return
	}
	for _, p := range md.Pairs() {
		switch p.Key.Value {
		case "template_name", "template_author":
			if !p.Value.IsString() {
				c.Errorf(p.Value.Range, JoinPath(path, p.Key.Value), CodeMetadata, "metadata %s must be a string, found %s", p.Key.Value, p.Value.Describe())
			}
		case "template_version":
			if _, err := values.Coerce("version", p.Value); err != nil {
				c.Errorf(p.Value.Range, JoinPath(path, p.Key.Value), CodeMetadata, "metadata template_version must be a version: %v", err)
			} else {
				c.VersionWithoutMinor(p.Value, JoinPath(path, p.Key.Value))
			}
		}
	}
}

// VersionWithoutMinor warns of a 1.x version written as its major number
// alone: 1.3 §3.2.2 makes minor_version mandatory, but tosca-parser reads
// "2" as 2.0, and so does xosplan (TOSCA 2.0 rejects it, §9.1.2.3).
func (c *Session) VersionWithoutMinor(n *yamlsrc.Node, path string) {
	if n.Kind == yamlsrc.Scalar && values.VersionWithoutMinor(n.Value) {
		c.Warnf(n.Range, path, CodeValue, "%q is read as version %s.0: a TOSCA version is major.minor[.fix[.qualifier[-build]]], the minor version mandatory (TOSCA 1.3 §3.2.2)", n.Value, n.Value)
	}
}
