package graph

import (
	"slices"
	"strings"
)

// ReadsSensitive reports whether v holds an apply-time reference
// attribute(address, name, …) (an Unknown, at any depth, in its
// arguments too) to a value at, within or holding a sensitive path of
// the resource at address: sensitiveOf returns that resource's sensitive
// paths (Resource.Sensitive). The reference's path (name, then keys or
// indexes) is compared as a property ("properties.<path>"), as an
// attribute an operation output sets ("attributes.<path>"), as a
// capability's property ("capabilities.<name>.properties.<rest>") and as
// written (a Tonomi spec key). A relationship's attribute,
// get_attribute(address, RELATIONSHIP, requirement, [index,] name, …), is
// compared as "relationships.<requirement>.<index>.attributes.<path>".
func ReadsSensitive(v Value, sensitiveOf func(address string) []string) bool {
	switch x := v.(type) {
	case Unknown:
		if x.Func == "attribute" && len(x.Args) >= 2 {
			addr, _ := x.Args[0].(string)
			if sensitive := sensitiveOf(addr); len(sensitive) > 0 && coversSensitive(sensitive, x.Args[1:]) {
				return true
			}
		}
		if path, ok := relationshipRead(x); ok {
			addr, _ := x.Args[0].(string)
			if sensitive := sensitiveOf(addr); len(sensitive) > 0 && coversSensitive(sensitive, path) {
				return true
			}
		}
		return slices.ContainsFunc(x.Args, func(a Value) bool { return ReadsSensitive(a, sensitiveOf) })
	case []Value:
		return slices.ContainsFunc(x, func(e Value) bool { return ReadsSensitive(e, sensitiveOf) })
	case map[string]Value:
		for _, e := range x {
			if ReadsSensitive(e, sensitiveOf) {
				return true
			}
		}
	}
	return false
}

// coversSensitive reports whether the path of an attribute reference's
// arguments is, holds or lies within one of the sensitive paths.
func coversSensitive(sensitive []string, args []Value) bool {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = Text(a)
	}
	path := strings.Join(parts, ".")
	candidates := []string{path, "properties." + path, "attributes." + path}
	if len(parts) > 1 {
		candidates = append(candidates, "capabilities."+parts[0]+".properties."+strings.Join(parts[1:], "."))
	}
	for _, p := range sensitive {
		for _, c := range candidates {
			if c == p || strings.HasPrefix(c, p+".") || strings.HasPrefix(p, c+".") {
				return true
			}
		}
	}
	return false
}

// relationshipRead returns the spec path, as arguments, that
// get_attribute(address, RELATIONSHIP, requirement, [index,] name, …)
// reads: relationships, requirement, index (0 when not given),
// attributes, name, …; ok is false for any other reference.
func relationshipRead(u Unknown) (path []Value, ok bool) {
	if u.Func != "get_attribute" || len(u.Args) < 4 || u.Args[1] != "RELATIONSHIP" || u.Args[3] == "ALL" {
		return nil, false
	}
	rest := u.Args[3:]
	var idx Value = int64(0)
	if i, isInt := rest[0].(int64); isInt {
		idx, rest = i, rest[1:]
	}
	if len(rest) == 0 {
		return nil, false
	}
	return append([]Value{"relationships", u.Args[2], idx, "attributes"}, rest...), true
}
