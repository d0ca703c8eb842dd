package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// ImportFilterKey is the node template metadata key that declares an
// import filter (ORC's spec.import.filter): the first apply adopts the one
// existing object whose fields equal every key instead of creating one
// (graph.Resource.Import). Its value is a string (TOSCA 1.x metadata
// values are strings) of key=value pairs separated by spaces or commas,
// a value in double quotes when it holds either:
//
//	xosplan.import.filter: name=mysite zone="eu west"
const ImportFilterKey = "xosplan.import.filter"

// MaxImportFilterKeys bounds the keys of an import filter.
const MaxImportFilterKeys = 32

// ParseImportFilter reads the value of ImportFilterKey: at least one
// key=value pair, at most MaxImportFilterKeys, each key once, a key of
// letters, digits, '_', '-' and '.', never an ID field
// (graph.IsIDField). Values are strings.
func ParseImportFilter(s string) (map[string]graph.Value, error) {
	out := map[string]graph.Value{}
	rest := s
	for {
		rest = strings.TrimLeft(rest, " \t\n,")
		if rest == "" {
			break
		}
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%q is not key=value", cut(rest))
		}
		key := rest[:eq]
		if i := strings.IndexFunc(key, func(r rune) bool { return !filterKeyRune(r) }); i >= 0 {
			return nil, fmt.Errorf("the key %q may hold only letters, digits, '_', '-' and '.'", cut(key))
		}
		rest = rest[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("the value of %s: an unterminated or invalid quoted string", key)
			}
			val, _ = strconv.Unquote(q)
			rest = rest[len(q):]
			if rest != "" && !strings.ContainsAny(rest[:1], " \t\n,") {
				return nil, fmt.Errorf("the value of %s: text after the closing quote", key)
			}
		} else {
			end := strings.IndexAny(rest, " \t\n,")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		switch {
		case graph.IsIDField(key):
			return nil, fmt.Errorf("the key %s is an ID field: a filter finds an object by what it is, never by its id (import it by id instead: xosplan import ADDRESS ID)", key)
		case out[key] != nil:
			return nil, fmt.Errorf("the key %s is given twice", key)
		case len(out) == MaxImportFilterKeys:
			return nil, fmt.Errorf("more than %d keys", MaxImportFilterKeys)
		}
		out[key] = val
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no key=value pair")
	}
	return out, nil
}

// filterKeyRune reports whether r may be part of a filter key.
func filterKeyRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// cut shortens text quoted in a message.
func cut(s string) string {
	if len(s) > 40 {
		return strings.ToValidUTF8(s[:40], "") + "…"
	}
	return s
}

// ImportFilter reads a node template's metadata ImportFilterKey
// (ParseImportFilter) into r.Import: node is the template's mapping at
// path, name its name, and selectHow how an unmanaged template is marked
// ("select"), named in the error that refuses a filter on one.
func (c *Session) ImportFilter(node *yamlsrc.Node, path, name, selectHow string, r *graph.Resource) {
	n := node.Get("metadata").Get(ImportFilterKey)
	if n == nil {
		return
	}
	path += ".metadata." + ImportFilterKey
	if r.Management == graph.Unmanaged {
		c.Errorf(n.Range, path, CodeImportFilter,
			"%s adopts an object for xosplan to manage; node template %q is unmanaged (%s), so it is only read", ImportFilterKey, name, selectHow)
		return
	}
	filter, err := ParseImportFilter(Text(n))
	if n.Kind != yamlsrc.Scalar || err != nil {
		if err == nil {
			err = errors.New("it is not a string")
		}
		c.Errorf(n.Range, path, CodeImportFilter, "%s must be key=value pairs such as \"name=mysite zone=eu\": %v", ImportFilterKey, err)
		return
	}
	r.Import = filter
}
