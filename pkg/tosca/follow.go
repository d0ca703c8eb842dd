package tosca

// One cause, one message: a problem that makes others follow (an unknown
// parent type, an import that could not be loaded, a type name that is not
// defined) is reported once, where it is written; what follows from it is
// not reported again but counted in the root cause's detail ("N more
// problems follow from this"). Every diagnostic is reported once, however
// many paths reach it (an interface's inputs are evaluated for each of its
// operations).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// unknownKey names an undefined type reference: its kind and name, and
// whether it was reported as an error (a warning inside type definitions
// does not stand for a later error).
type unknownKey struct {
	k     kind
	name  string
	error bool
}

// last returns the index of the last diagnostic added.
func (c *compiler) last() int { return len(c.diags) - 1 }

// followOn counts a problem that is not reported because the diagnostic at
// index cause explains it.
func (c *compiler) followOn(cause int) {
	if cause < 0 {
		return
	}
	if c.followOns == nil {
		c.followOns = map[int]int{}
	}
	c.followOns[cause]++
}

// failedImport records the diagnostic just added as an import that could
// not be loaded: type names it may have defined are its follow-ons.
func (c *compiler) failedImport() {
	if c.importFailed < 0 {
		c.importFailed = c.last()
	}
}

// unknownType reports a reference n to a type of kind k that is not
// defined, as an error or (lenient, inside type definitions) a warning,
// once per name: later references to the same name, and every reference
// while an import could not be loaded (it may have defined the name), are
// follow-ons. It returns the index of the diagnostic that explains the
// reference.
func (c *compiler) unknownType(k kind, n *yamlsrc.Node, path string, lenient bool, format string, args ...any) int {
	lenient = lenient && c.inTypes
	return c.unknownOnce(unknownKey{k: k, name: n.Value, error: !lenient}, func() {
		if lenient {
			c.warnf(n.Range, path, CodeUnknownType, format, args...)
		} else {
			c.errorf(n.Range, path, CodeUnknownType, format, args...)
		}
	})
}

// unknownParent reports the derived_from pn of t that names no type of
// t's kind, as unknownType does.
func (c *compiler) unknownParent(t *typeDef, pn *yamlsrc.Node) int {
	return c.unknownOnce(unknownKey{k: t.kind, name: pn.Value, error: true}, func() {
		c.errorf(pn.Range, t.path+".derived_from", CodeUnknownParent, "%s %q derives from unknown %s %q", t.kind.word(), t.name, t.kind.word(), pn.Value)
	})
}

// unknownOnce runs report for the first reference to an undefined name
// (unless an import failed) and returns the index of the diagnostic that
// explains the reference, counting it as a follow-on when that is not a
// new report.
func (c *compiler) unknownOnce(key unknownKey, report func()) int {
	if at, ok := c.unknownAt[key]; ok {
		c.followOn(at)
		return at
	}
	if c.importFailed >= 0 {
		c.followOn(c.importFailed)
		return c.importFailed
	}
	report()
	if c.unknownAt == nil {
		c.unknownAt = map[unknownKey]int{}
	}
	c.unknownAt[key] = c.last()
	return c.last()
}

// finish writes the follow-on counts into their root causes' details, then
// sorts the diagnostics and drops repeats: the same problem at the same
// place, whatever YAML path led to it.
func (c *compiler) finish() diag.Diagnostics {
	for at, n := range c.followOns {
		more := "1 more problem follows from this."
		if n > 1 {
			more = fmt.Sprintf("%d more problems follow from this.", n)
		}
		if d := &c.diags[at]; d.Detail == "" {
			d.Detail = more
		} else {
			d.Detail += "\n" + more
		}
	}
	// Ordered by path first, so that of repeats reached by several paths
	// (in map order) the one kept is always the same.
	slices.SortStableFunc(c.diags, func(a, b diag.Diagnostic) int { return strings.Compare(a.Path, b.Path) })
	ds := c.diags.Sort()
	return slices.CompactFunc(ds, func(a, b diag.Diagnostic) bool {
		return a.Range == b.Range && a.Severity == b.Severity && a.Code == b.Code && a.Summary == b.Summary
	})
}

// lacks reports whether a member that t seems not to have is a follow-on
// of t's incomplete definition, counting it if so: the caller then does
// not report it.
func (c *compiler) lacks(t *typeDef) bool {
	if t == nil || t.incomplete == 0 {
		return false
	}
	c.followOn(t.incomplete - 1)
	return true
}
