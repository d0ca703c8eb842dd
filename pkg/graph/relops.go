package graph

import (
	"strconv"
	"strings"
)

// RelationshipInterface is the short name of the interface of a
// relationship's operations (TOSCA's tosca.interfaces.relationship.Configure):
// the compilers put them on the source resource as
// "Configure.<operation>" (RelationshipOperationKey).
const RelationshipInterface = "Configure"

// RelationshipOperationKey is the Driver.Operations key of operation op
// (pre_configure_source, add_target, …) of the relationship that the
// resource's requirement req (its index-th assignment, from 0) makes.
// When op is defined by one relationship of the resource only, the key is
// the plain "Configure.<op>" (unique is true), as it has always been, so
// that the plans and digests of such resources do not change; when
// several define it, each has its own key "Configure.<op>@<req>[<index>]",
// so that none replaces another and each runs (ParseRelationshipOperationKey
// reads it back).
func RelationshipOperationKey(op, req string, index int, unique bool) string {
	key := RelationshipInterface + "." + op
	if unique {
		return key
	}
	return key + "@" + req + "[" + strconv.Itoa(index) + "]"
}

// ParseRelationshipOperationKey reads a key RelationshipOperationKey
// made: the operation, and for a relationship-specific key the
// requirement and index (req "" for the plain key). ok is false for a key
// of no relationship operation ("Standard.create").
func ParseRelationshipOperationKey(key string) (op, req string, index int, ok bool) {
	rest, ok := strings.CutPrefix(key, RelationshipInterface+".")
	if !ok || rest == "" {
		return "", "", 0, false
	}
	op, rel, found := strings.Cut(rest, "@")
	if !found {
		return op, "", 0, true
	}
	// The requirement's name may hold anything, "[" included: the index
	// is what the last "[" opens.
	open := strings.LastIndexByte(rel, '[')
	if open <= 0 || !strings.HasSuffix(rel, "]") {
		return "", "", 0, false
	}
	n, err := strconv.Atoi(rel[open+1 : len(rel)-1])
	if err != nil || n < 0 || strconv.Itoa(n) != rel[open+1:len(rel)-1] {
		return "", "", 0, false
	}
	return op, rel[:open], n, op != ""
}
