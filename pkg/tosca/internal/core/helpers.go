package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Text returns a scalar's text, "" for nil.
func Text(n *yamlsrc.Node) string {
	if n == nil || n.Kind != yamlsrc.Scalar {
		return ""
	}
	return n.Value
}

// Itoa formats i in decimal.
func Itoa(i int64) string { return strconv.FormatInt(i, 10) }

// PlainErr strips the path from *os.PathError and *userfile.Error so the
// message does not repeat the file name.
func PlainErr(err error) error {
	var ue *userfile.Error
	if errors.As(err, &ue) {
		if ue.Detail == "" {
			return ue.Reason
		}
		return fmt.Errorf("%w (%s)", ue.Reason, ue.Detail)
	}
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// NodeOf builds a YAML node for a Go value given through Options.Inputs,
// so that input values are checked by the same code as written ones.
func NodeOf(v any, r diag.Range) *yamlsrc.Node {
	switch x := v.(type) {
	case nil:
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagNull, Value: "null", Range: r}
	case string:
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: x, Quoted: true, Range: r}
	case bool:
		s := "false"
		if x {
			s = "true"
		}
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagBool, Value: s, Range: r}
	case []any:
		n := &yamlsrc.Node{Kind: yamlsrc.Sequence, Tag: yamlsrc.TagSeq, Range: r}
		for _, e := range x {
			n.Content = append(n.Content, NodeOf(e, r))
		}
		return n
	case map[string]any:
		n := &yamlsrc.Node{Kind: yamlsrc.Mapping, Tag: yamlsrc.TagMap, Range: r}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			n.Content = append(n.Content, NodeOf(k, r), NodeOf(x[k], r))
		}
		return n
	case float64:
		if y, ok := FiniteValue(x).(string); ok {
			// The infinities and not-a-number, which a 2.0 float may be.
			return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagFloat, Value: y, Range: r}
		}
	}
	cv, err := graph.Canonicalize(v)
	if err != nil {
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: graph.Render(v), Range: r}
	}
	switch x := cv.(type) {
	case int64:
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagInt, Value: Itoa(x), Range: r}
	case float64:
		return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagFloat, Value: graph.Render(x), Range: r}
	case []graph.Value:
		return NodeOf([]any(x), r)
	case map[string]graph.Value:
		return NodeOf(map[string]any(x), r)
	}
	return &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: graph.Render(cv), Range: r}
}

// RangeOf returns the node's range, or the zero range for nil.
func RangeOf(n *yamlsrc.Node) diag.Range {
	if n == nil {
		return diag.Range{}
	}
	return n.Range
}

// JoinPath appends a key to a dotted YAML path.
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// StartOf is the point where r starts.
func StartOf(r diag.Range) diag.Range {
	return diag.Range{File: r.File, Start: r.Start, End: r.Start}
}

// DescribeValue quotes a scalar's text or names a collection's kind.
func DescribeValue(n *yamlsrc.Node) string {
	if n.Kind == yamlsrc.Scalar {
		return Quote(n.Value)
	}
	return n.Describe()
}

// MergeNodes overlays over on base: two maps merge key by key (deeply);
// otherwise over wins when present.
func MergeNodes(base, over *yamlsrc.Node) *yamlsrc.Node {
	switch {
	case base == nil:
		return over
	case over == nil:
		return base
	case base.Kind != yamlsrc.Mapping || over.Kind != yamlsrc.Mapping:
		return over
	}
	out := &yamlsrc.Node{Kind: yamlsrc.Mapping, Tag: over.Tag, Range: over.Range}
	for _, p := range base.Pairs() {
		if ov := over.Get(p.Key.Value); ov != nil {
			out.Content = append(out.Content, p.Key, MergeNodes(p.Value, ov))
		} else {
			out.Content = append(out.Content, p.Key, p.Value)
		}
	}
	for _, p := range over.Pairs() {
		if base.Get(p.Key.Value) == nil {
			out.Content = append(out.Content, p.Key, p.Value)
		}
	}
	return out
}

// DropNil is m without its nil values: m itself when it has none, an
// empty map for a nil m.
func DropNil(m map[string]graph.Value) map[string]graph.Value {
	hasNil := m == nil
	for _, v := range m {
		hasNil = hasNil || v == nil
	}
	if !hasNil {
		return m
	}
	out := make(map[string]graph.Value, len(m))
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// FileKey identifies a file so that it is loaded once: its absolute
// path, cleaned.
func FileKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// RepositoryURL is the URL an import of file from the repository
// definition repo names: the repository's url (short or long form)
// joined with the file, which may be a URL of its own.
func RepositoryURL(repo *yamlsrc.Node, file string) string {
	base := repo.Value
	if repo.Kind == yamlsrc.Mapping {
		base = Text(repo.Get("url"))
	}
	if strings.Contains(file, "://") || base == "" {
		return file
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(file, "/")
}

// RepositoryFile is the file an import of file from the repository
// definition repo names when the repository is local, with the
// repository's folder: file is a path from the repository's root (a
// leading "/" changes nothing, 2.0 §6.8.2.2). ok is false when the
// repository is on the network (repositoryDir), or when file is a URL of
// its own.
func RepositoryFile(repo *yamlsrc.Node, def, file string) (name, dir string, ok bool) {
	if strings.Contains(file, "://") {
		return "", "", false
	}
	if dir, ok = repositoryDir(repo, def); !ok {
		return "", "", false
	}
	return filepath.Join(dir, filepath.FromSlash(strings.TrimLeft(file, "/"))), dir, true
}

// repositoryDir is the folder a repository definition's url names when
// it is local: a file: URL of this host, or a URL without a scheme, which
// is a relative reference (RFC 3986 §4.2) and so is resolved against the
// file that defines the repository (in the folder def), as a relative
// import is. Neither TOSCA 1.3 (§3.6.7) nor 2.0 (§6.5) says more than
// "the URL or network address used to access the repository". ok is false
// for any other scheme or host (the network, which xosplan never uses),
// and for a relative url in an embedded file (def "": it has no folder).
func repositoryDir(repo *yamlsrc.Node, def string) (string, bool) {
	base := repo.Value
	if repo.Kind == yamlsrc.Mapping {
		base = Text(repo.Get("url"))
	}
	u, err := url.Parse(base)
	if err != nil || base == "" {
		return "", false
	}
	var dir string
	switch {
	case u.Scheme != "":
		local, ok := LocalURL(base)
		if !ok {
			return "", false
		}
		dir = local
	case u.Host != "":
		// A network-path reference: //host/path.
		return "", false
	default:
		dir = filepath.FromSlash(u.Path)
	}
	if !filepath.IsAbs(dir) {
		if def == "" {
			return "", false
		}
		dir = filepath.Join(def, dir)
	}
	return dir, true
}

// DeclaredAt is the Markdown that says where a definition is, "" for
// one of an embedded file.
func DeclaredAt(key *yamlsrc.Node, embedded bool) string {
	if embedded {
		return ""
	}
	return "\n\ndefined at " + key.Range.String()
}

// CallResult says what a call evaluated to at compile time, in Markdown.
func CallResult(v graph.Value, secret bool) string {
	switch {
	case secret:
		return "a sensitive value (not shown)"
	case v == nil:
		return "no value at compile time"
	case graph.HasUnknown(v):
		return "known at apply time: `" + ClipText(fmt.Sprint(v), 400) + "`"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "a value that cannot be shown"
	}
	return "`" + ClipText(string(b), 400) + "`"
}

// WriteDescription writes the description of n, clipped, as a paragraph
// of its own.
func WriteDescription(b *strings.Builder, n *yamlsrc.Node) {
	if s := Text(n.Get("description")); s != "" {
		b.WriteString("\n\n" + ClipText(s, 2000))
	}
}

// WriteDescriptionTo appends the description of n to *d
// (WriteDescription).
func WriteDescriptionTo(d *string, n *yamlsrc.Node) {
	var b strings.Builder
	WriteDescription(&b, n)
	*d += b.String()
}

// ClipText is s cut to n bytes, with an ellipsis when cut.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// QuoteAll writes each name as Markdown code.
func QuoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}

// FiniteValue is v with its non-finite floats written as YAML text;
// lists and maps are updated in place.
func FiniteValue(v graph.Value) graph.Value {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
	case []graph.Value:
		for i, e := range x {
			x[i] = FiniteValue(e)
		}
	case map[string]graph.Value:
		FiniteMap(x)
	case graph.Unknown:
		for i, e := range x.Args {
			x.Args[i] = FiniteValue(e)
		}
	}
	return v
}

// FiniteMap is FiniteValue of each value of m, in place. Only a
// non-finite float is written back (a list or map is updated in place):
// a compile calls it on every value of every resource.
func FiniteMap(m map[string]graph.Value) {
	for k, v := range m {
		if f, ok := v.(float64); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				m[k] = FiniteValue(v)
			}
			continue
		}
		FiniteValue(v)
	}
}
