package core

// One cause, one message: a problem that makes others follow (an unknown
// parent type, an import that could not be loaded, a type name that is not
// defined) is reported once, where it is written; what follows from it is
// not reported again but counted in the root cause's detail ("N more
// problems follow from this", Finish). Every diagnostic is reported once,
// however many paths reach it.

// UnknownKey names an undefined type reference: its kind (the grammar's
// numbering of type kinds) and name, and whether it was reported as an
// error (a warning inside type definitions does not stand for a later
// error).
type UnknownKey struct {
	Kind  Kind
	Name  string
	Error bool
}

// Last returns the index of the last diagnostic added.
func (c *Session) Last() int { return len(c.Diags) - 1 }

// FollowOn counts a problem that is not reported because the diagnostic
// at index cause explains it.
func (c *Session) FollowOn(cause int) {
	if cause < 0 {
		return
	}
	if c.FollowOns == nil {
		c.FollowOns = map[int]int{}
	}
	c.FollowOns[cause]++
}

// FailedImport records the diagnostic just added as an import that could
// not be loaded: type names it may have defined are its follow-ons.
func (c *Session) FailedImport() {
	if c.ImportFailed < 0 {
		c.ImportFailed = c.Last()
	}
}

// UnknownOnce runs report for the first reference to an undefined name
// (unless an import failed) and returns the index of the diagnostic that
// explains the reference, counting it as a follow-on when that is not a
// new report.
func (c *Session) UnknownOnce(key UnknownKey, report func()) int {
	if at, ok := c.UnknownAt[key]; ok {
		c.FollowOn(at)
		return at
	}
	if c.ImportFailed >= 0 {
		c.FollowOn(c.ImportFailed)
		return c.ImportFailed
	}
	report()
	if c.UnknownAt == nil {
		c.UnknownAt = map[UnknownKey]int{}
	}
	c.UnknownAt[key] = c.Last()
	return c.Last()
}
