package tosca1

// One cause, one message: a problem that makes others follow (an unknown
// parent type, an import that could not be loaded, a type name that is not
// defined) is reported once, where it is written; what follows from it is
// not reported again but counted in the root cause's detail ("N more
// problems follow from this"). Every diagnostic is reported once, however
// many paths reach it (an interface's inputs are evaluated for each of its
// operations).

import (
	"maps"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// unknownType reports a reference n to a type of kind k that is not
// defined, as an error or (lenient, inside type definitions) a warning,
// once per name: later references to the same name, and every reference
// while an import could not be loaded (it may have defined the name), are
// follow-ons. It returns the index of the diagnostic that explains the
// reference.
func (c *compiler) unknownType(k kind, n *yamlsrc.Node, path string, lenient bool, format string, args ...any) int {
	lenient = lenient && c.inTypes
	return c.UnknownOnce(core.UnknownKey{Kind: k, Name: n.Value, Error: !lenient}, func() {
		if lenient {
			c.warnf(n.Range, path, core.CodeUnknownType, format, args...)
		} else {
			c.errorf(n.Range, path, core.CodeUnknownType, format, args...)
		}
		c.SuggestLast(n.Value, maps.Keys(c.ns[k]))
	})
}

// unknownParent reports the derived_from pn of t that names no type of
// t's kind, as unknownType does.
func (c *compiler) unknownParent(t *typeDef, pn *yamlsrc.Node) int {
	return c.UnknownOnce(core.UnknownKey{Kind: t.kind, Name: pn.Value, Error: true}, func() {
		c.errorf(pn.Range, t.path+".derived_from", core.CodeUnknownParent, "%s %q derives from unknown %s %q", t.kind.Word(), t.name, t.kind.Word(), pn.Value)
	})
}

// lacks reports whether a member that t seems not to have is a follow-on
// of t's incomplete definition, counting it if so: the caller then does
// not report it.
func (c *compiler) lacks(t *typeDef) bool {
	if t == nil || t.incomplete == 0 {
		return false
	}
	c.FollowOn(t.incomplete - 1)
	return true
}
