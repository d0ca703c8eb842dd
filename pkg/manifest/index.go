package manifest

// The symbol index of an environment, for editors (xosplan lsp): the
// applications, components and declared pins with where they are
// written, and what names them — component types, bind() targets and
// the ends of bindings — as the resolver understood them.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// CompileEnvironmentIndexed is CompileEnvironment, whose graph and
// diagnostics it returns unchanged, with the index of the environment's
// names: every file (Files, sorted), application, component, component
// type of the registry (embedded) and declared pin (named
// "interface.pin", its Container the component's address), and the
// references of component types, bind() targets and binding ends. The
// index is never nil.
func CompileEnvironmentIndexed(ctx context.Context, paths []string, opts Options) (*graph.Graph, *symbols.Index, diag.Diagnostics) {
	env, g, diags := compileEnvironment(ctx, paths, opts)
	x := &symbols.Index{}
	if env != nil {
		env.index(x)
	}
	return g, x, diags
}

// PinKinds lists the pin kinds of the grammar, as manifests write them.
func PinKinds() []string { return slices.Clone(pinKindNames[1:]) }

// PinTypes lists the value types a pin declaration may name, sorted
// (list<T> and map<K, V> take type arguments).
func PinTypes() []string {
	out := make([]string, 0, len(typeNames))
	for n := range typeNames {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

type indexBuilder struct {
	x     *symbols.Index
	comps map[*component]int
	pins  map[*pin]int
	kinds map[string]int
}

func (env *environment) index(x *symbols.Index) {
	b := &indexBuilder{x: x, comps: map[*component]int{}, pins: map[*pin]int{}, kinds: map[string]int{}}
	for _, name := range env.reg.Names() {
		info := env.reg.kinds[name]
		var d strings.Builder
		fmt.Fprintf(&d, "**component type** `%s` (driver %s, %s)", name, info.Driver, info.Management)
		for _, f := range info.ifaces {
			fmt.Fprintf(&d, "\n\n`%s`:", f.name)
			for _, p := range f.pins {
				fmt.Fprintf(&d, " `%s: %s`", p.name, p.sig.String(p.kind))
			}
		}
		b.kinds[name] = b.add(symbols.Symbol{Kind: symbols.ComponentKind, Name: name, Embedded: true, Detail: d.String()})
	}
	for _, app := range env.apps {
		x.Files = append(x.Files, app.file)
		start := diag.Range{File: app.file, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
		b.add(symbols.Symbol{Kind: symbols.File, Name: app.file, Range: start})
		b.comps[app.root] = b.add(symbols.Symbol{Kind: symbols.Application, Name: app.name, Range: start,
			Detail: fmt.Sprintf("**application** `%s` (%s)", app.name, app.file)})
		b.define(app.root)
	}
	slices.Sort(x.Files)
	for _, app := range env.apps {
		b.refer(app.root)
		b.policies(app)
	}
	x.Sort()
}

func (b *indexBuilder) add(s symbols.Symbol) int { return b.x.Add(s) }

func (b *indexBuilder) ref(at diag.Range, sym int) { b.x.Refer(at, sym) }

// define adds the symbols of c's subtree, pins before children.
func (b *indexBuilder) define(c *component) {
	if c.path != "" {
		d := fmt.Sprintf("**component** `%s` of application `%s`", c.path, c.app.name)
		if c.kind != "" {
			d += fmt.Sprintf("\n\ntype: `%s`", c.kind)
		}
		if names := c.ifaceNames(); len(names) > 0 {
			d += "\n\ninterfaces: " + strings.Join(names, ", ")
		}
		b.comps[c] = b.add(symbols.Symbol{Kind: symbols.Component, Name: c.path, Container: c.app.name, Range: c.rng, Type: c.kind, Detail: d})
	}
	for _, f := range c.ifaces {
		for _, p := range f.pins {
			if p.implicit || p.exported && p.bind == nil || p.rng.File == "" {
				continue
			}
			decl := "bind()"
			if p.valid && p.kind != 0 {
				decl = p.sig.String(p.kind)
			}
			d := fmt.Sprintf("**pin** `%s.%s` of %s\n\n`%s`", f.name, p.name, c.describe(), decl)
			b.pins[p] = b.add(symbols.Symbol{Kind: symbols.Pin, Name: f.name + "." + p.name, Container: c.address(), Range: p.rng, Type: decl, Detail: d})
		}
	}
	for _, ch := range c.children {
		b.define(ch)
	}
}

// policies adds the application's model policies, and refers their
// targets to the components they name and their types to the registry's.
func (b *indexBuilder) policies(app *application) {
	for _, d := range app.policies {
		detail := fmt.Sprintf("**model policy** `%s` of application `%s`\n\nimplementation: `%s`", d.name, app.name, d.impl)
		if d.timeout > 0 {
			detail += fmt.Sprintf("\n\ntimeout: %s", d.timeout)
		}
		b.add(symbols.Symbol{Kind: symbols.Policy, Name: d.name, Container: app.name, Range: d.rng, Detail: detail})
		for _, t := range d.targets {
			if tc := follow(app.root, strings.Split(t.name, ".")); tc != nil {
				b.ref(t.rng, b.comps[tc])
			}
		}
	}
}

// ifaceNames lists the component's interfaces as `name`.
func (c *component) ifaceNames() []string {
	out := make([]string, 0, len(c.ifaces))
	for _, f := range c.ifaces {
		out = append(out, "`"+f.name+"`")
	}
	return out
}

// refer adds the references of c's subtree.
func (b *indexBuilder) refer(c *component) {
	if i, ok := b.kinds[c.kind]; ok {
		b.ref(c.kindRng, i)
	}
	for _, f := range c.ifaces {
		for _, t := range f.star {
			b.target(c, t)
		}
		for _, p := range f.pins {
			if !p.exported || p.bind != nil {
				for _, t := range p.bind {
					b.target(c, t)
				}
			}
		}
	}
	for _, bd := range c.bindings {
		for _, e := range bd.ends {
			if tc := follow(c, e.path); tc != nil {
				b.ref(e.rng, b.comps[tc])
			}
		}
	}
	for _, ch := range c.children {
		b.refer(ch)
	}
}

// target refers a bind() target to the pin it names when that pin is
// declared, else to its component.
func (b *indexBuilder) target(c *component, t target) {
	tc := follow(c, t.path)
	if tc == nil {
		return
	}
	if f := tc.ifaceByName[t.iface]; f != nil {
		if p := f.pin(t.pin); p != nil {
			if i, ok := b.pins[p]; ok {
				b.ref(t.rng, i)
				return
			}
		}
	}
	if i, ok := b.comps[tc]; ok {
		b.ref(t.rng, i)
	}
}

// follow walks a dotted path of child names down from c; nil when a
// name is missing (the resolver reported it).
func follow(c *component, path []string) *component {
	for _, seg := range path {
		if c = c.childByName[seg]; c == nil {
			return nil
		}
	}
	return c
}
