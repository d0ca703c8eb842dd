package config

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Diagnostic codes of the spec limits; the package documentation explains
// each.
const (
	CodeSpecStringTooLong = "load.spec_string_too_long"
	CodeSpecListTooLong   = "load.spec_list_too_long"
)

// Defaults of SpecLimits (ORC's API contracts: every string and every
// list has a maximum length, even if it has to be guessed).
const (
	DefaultMaxSpecString = 64 << 10
	DefaultMaxSpecList   = 10_000
)

// SpecLimits bound every string and every list of each resource's
// declarative spec, at any depth, whatever made it: a value written in
// the template, an input value, a default, or what a function computed.
// Zero means the default; a negative value means no limit.
type SpecLimits struct {
	// MaxString is the most bytes a string may hold
	// (DefaultMaxSpecString: 64 KiB).
	MaxString int
	// MaxList is the most items a list may hold (DefaultMaxSpecList).
	MaxList int
}

func (l SpecLimits) withDefaults() SpecLimits {
	if l.MaxString == 0 {
		l.MaxString = DefaultMaxSpecString
	}
	if l.MaxList == 0 {
		l.MaxList = DefaultMaxSpecList
	}
	return l
}

// specProblem is one value over a limit: where in the spec, and what.
type specProblem struct {
	path    []string
	code    string
	summary string
}

// checkSpecLimits reports every string and list of the spec of each
// resource of the compiled units over limits, one error each, placed at
// the value where the file writes it (else at the deepest part of its
// path the file writes, at worst the resource's declaration). The value
// itself is never quoted: it may be a secret.
func checkSpecLimits(ctx context.Context, root *Root, units []Unit, limits SpecLimits) diag.Diagnostics {
	limits = limits.withDefaults()
	var diags diag.Diagnostics
	// Files are read again only when a value is over a limit.
	trees := map[string]*yamlsrc.Node{}
	for _, u := range units {
		if u.Graph == nil {
			continue
		}
		for _, r := range u.Graph.Resources() {
			if ctx.Err() != nil {
				return diags
			}
			var problems []specProblem
			for _, k := range slices.Sorted(maps.Keys(r.Spec)) {
				problems = specValueProblems(r.Spec[k], []string{k}, limits, problems)
			}
			for _, p := range problems {
				at := valueRange(ctx, root, trees, r.Range, p.path)
				diags = diags.Errorf(at, "", p.code, "resource %s: %s", r.Address, p.summary)
				d := &diags[len(diags)-1]
				d.Related = []diag.Related{{Range: r.Range, Message: "resource " + r.Address + " is declared here"}}
				// Its source line may hold the secret.
				d.Sensitive = sensitivePath(r.Sensitive, p.path)
			}
		}
	}
	return diags
}

// specValueProblems appends the problems of v, at path, to out.
func specValueProblems(v graph.Value, path []string, l SpecLimits, out []specProblem) []specProblem {
	switch x := v.(type) {
	case string:
		if l.MaxString > 0 && len(x) > l.MaxString {
			out = append(out, specProblem{slices.Clone(path), CodeSpecStringTooLong,
				fmt.Sprintf("%s is a string of %d bytes, over the limit of %d (--max-spec-string)", specPath(path), len(x), l.MaxString)})
		}
	case []graph.Value:
		if l.MaxList > 0 && len(x) > l.MaxList {
			// Its items are not checked one by one: one error says it.
			return append(out, specProblem{slices.Clone(path), CodeSpecListTooLong,
				fmt.Sprintf("%s is a list of %d items, over the limit of %d (--max-spec-list)", specPath(path), len(x), l.MaxList)})
		}
		for i, e := range x {
			out = specValueProblems(e, append(path, "["+strconv.Itoa(i)+"]"), l, out)
		}
	case map[string]graph.Value:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = specValueProblems(x[k], append(path, k), l, out)
		}
	case graph.Unknown:
		for i, a := range x.Args {
			out = specValueProblems(a, append(path, x.Func+"["+strconv.Itoa(i)+"]"), l, out)
		}
	}
	return out
}

// sensitivePath reports whether path is, holds or lies within one of the
// resource's sensitive spec paths (dot-joined, list indices as numbers).
func sensitivePath(sensitive []string, path []string) bool {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = strings.TrimSuffix(strings.TrimPrefix(p, "["), "]")
	}
	joined := strings.Join(parts, ".")
	return slices.ContainsFunc(sensitive, func(s string) bool {
		return s == joined || strings.HasPrefix(joined, s+".") || strings.HasPrefix(s, joined+".")
	})
}

// specPath renders a spec path as a plan shows it: keys joined by dots,
// list indices in brackets.
func specPath(path []string) string {
	s := ""
	for _, p := range path {
		if s != "" && p[0] != '[' {
			s += "."
		}
		s += p
	}
	return s
}

// valueRange finds where the file of decl writes the spec value at path
// of the resource declared at decl: the template's node (the value of the
// key at decl), then each key of path in turn (a manifest's keys under
// configuration too). It returns the deepest node found, else decl.
func valueRange(ctx context.Context, root *Root, trees map[string]*yamlsrc.Node, decl diag.Range, path []string) diag.Range {
	tree, ok := trees[decl.File]
	if !ok {
		if data, problem := ReadFile(ctx, decl.File, root); problem == nil {
			tree, _ = yamlsrc.ParseContext(ctx, decl.File, data, yamlsrc.Limits{})
		}
		trees[decl.File] = tree
	}
	n := declaredNode(tree, decl.Start)
	if n == nil {
		return decl
	}
	at := n.Range
	for _, p := range path {
		next := childNode(n, p)
		if next == nil {
			next = childNode(n.Get("configuration"), p)
		}
		if next == nil {
			break
		}
		n, at = next, next.Range
	}
	return at
}

// declaredNode returns the value of the mapping key written at start,
// searched depth first; nil when there is none.
func declaredNode(n *yamlsrc.Node, start diag.Pos) *yamlsrc.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yamlsrc.Mapping {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Range.Start == start {
				return n.Content[i+1]
			}
		}
	}
	for _, c := range n.Content {
		if c.Kind != yamlsrc.Scalar {
			if found := declaredNode(c, start); found != nil {
				return found
			}
		}
	}
	return nil
}

// childNode returns the child of n that a spec path element names: a
// mapping's value for a key, a sequence's item for "[i]"; nil when n has
// none.
func childNode(n *yamlsrc.Node, elem string) *yamlsrc.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yamlsrc.Sequence && len(elem) > 2 && elem[0] == '[' {
		i, err := strconv.Atoi(elem[1 : len(elem)-1])
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind == yamlsrc.Mapping {
		return n.Get(elem)
	}
	return nil
}
