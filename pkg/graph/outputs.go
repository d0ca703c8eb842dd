package graph

import (
	"encoding/json"
	"strconv"
	"strings"
)

// OutputAttribute is where an operation output mapped onto an attribute
// of another entity than the resource the operation runs on is kept: an
// attribute of one of the resource's relationships (TOSCA: SELF in a
// relationship's operation, 1.3 §3.6.17, 2.0 §9.9) or of a relationship's
// target (TARGET). Operation.Outputs names it by its String form; a
// driver reports the output as the attribute of that name, and the
// executor's walk records it where it belongs (ParseOutputAttribute).
type OutputAttribute struct {
	// Requirement and Index name the relationship: the requirement of
	// the resource that makes it and the index among the resource's
	// assignments of that requirement (0 for the first). Empty
	// Requirement: the relationship's target.
	Requirement string `json:"requirement,omitempty"`
	Index       int    `json:"index,omitempty"`
	// Target is the address of the relationship's target.
	Target string `json:"target"`
	// Name is the attribute's name.
	Name string `json:"attribute"`
}

// outputAttributeMark starts the String form of every OutputAttribute: no
// attribute a template declares is named so (a JSON object), so a plain
// attribute name never reads as one.
const outputAttributeMark = `{"`

// String is the form Operation.Outputs names the attribute by: a JSON
// object, so that plans show it as it is.
func (a OutputAttribute) String() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// ParseOutputAttribute reads the attribute an Operation.Outputs value
// names: ok is false for a plain attribute name of the resource itself.
func ParseOutputAttribute(s string) (OutputAttribute, bool) {
	if !strings.HasPrefix(s, outputAttributeMark) {
		return OutputAttribute{}, false
	}
	var a OutputAttribute
	if err := json.Unmarshal([]byte(s), &a); err != nil || a.Name == "" || a.Target == "" || a.Index < 0 {
		return OutputAttribute{}, false
	}
	return a, true
}

// RelationshipPath is the spec path of the attribute name of the
// relationship that a resource's requirement req makes (its idx-th
// assignment of it): Resource.Sensitive names a sensitive relationship
// attribute so, and a spec that assigns relationship attributes holds
// them there (Spec["relationships"][req] a list with one entry per
// assignment, {target, attributes}).
func RelationshipPath(req string, idx int, name string) string {
	return "relationships." + req + "." + strconv.Itoa(idx) + ".attributes." + name
}
