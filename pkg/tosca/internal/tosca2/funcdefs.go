package tosca2

// Phase 3 (2.0) — custom function definitions (§6.6, §10.4): each
// function's signatures (arguments, optional_arguments, variadic, result,
// implementation), and calls checked against them.
//
// A call is checked twice: statically, by its number of arguments
// (checkSignature), and where it is evaluated, by the arguments' values
// (matchSig): the signatures are tried in the order of their definition
// and the first whose arguments fit is the one called (§10.4). An
// argument known at compile time fits when it would be a valid value of
// the argument's definition (type, entry_schema, key_schema, validation);
// one known only at apply time fits unless its type is known and cannot
// be the definition's ($get_input of a typed input, a custom function's
// result). The chosen signature's result must in turn fit where the call
// is assigned (resultFits).
//
// Errors detected here:
//   - functions that is not a map, a definition without signatures or of the wrong kind,
//     signature keynames the grammar does not define, argument and result definitions with
//     unknown types (tosca.wrong_kind, tosca.missing_field, tosca.unknown_field,
//     tosca.unknown_type)
//   - a call whose number of arguments no signature accepts, whose arguments no signature
//     of that number accepts, or whose result does not fit the definition it is assigned to
//     (tosca.function)

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// funcDef is one custom function definition.
type funcDef struct {
	name string
	f    *file
	sigs []sig
}

// sig is a signature.
type sig struct {
	min, max int // max < 0: variadic
	// params are the argument definitions, then the optional ones; nil
	// where one could not be read (any value fits it).
	params   []*prop
	variadic bool
	// result is the result's definition, nil for any result.
	result *prop
	// impl is the implementation's artifact file as written in implF (the
	// file of the signature, or of the service template that refines
	// it), at implAt; "" for none. timeout is its timeout in seconds, 0
	// for the default.
	impl     string
	implAt   *yamlsrc.Node
	implF    *file
	implPath string
	timeout  int64
	// implRel is impl as apply finds it (relative to the top-level
	// template's folder), worked out, and confined, at the first call.
	implRel string
}

// param returns the definition of argument i: the last one repeats when
// the signature is variadic.
func (s *sig) param(i int) *prop {
	switch {
	case i < len(s.params):
		return s.params[i]
	case s.variadic && len(s.params) > 0:
		return s.params[len(s.params)-1]
	}
	return nil
}

// takes reports whether the signature takes n arguments.
func (s *sig) takes(n int) bool {
	return n >= s.min && (s.max < 0 || n <= s.max)
}

// setImpl reads an implementation definition (§11.8): an artifact file
// name, or a map whose primary is one or an artifact definition with a
// file; its timeout, when an integer, is in seconds.
func (s *sig) setImpl(f *file, n *yamlsrc.Node, path string) {
	at := n
	if n.Kind == yamlsrc.Mapping {
		if t, ok := n.Get("timeout").Int(); ok && t > 0 {
			s.timeout = t
		}
		at = n.Get("primary")
		if at != nil && at.Kind == yamlsrc.Mapping {
			at = at.Get("file")
		}
	}
	if at == nil || !at.IsString() || at.Value == "" {
		return
	}
	s.impl, s.implAt, s.implF, s.implPath, s.implRel = at.Value, at, f, path, ""
}

// readFunctions declares every custom function of every loaded file.
func (c *compiler) readFunctions() {
	for _, f := range c.state.files {
		n := f.root.Get("functions")
		if n == nil || n.Kind != yamlsrc.Mapping {
			continue
		}
		s := c.scope(f)
		for _, p := range n.Pairs() {
			if d := c.readFuncDef(f, p, "functions."+p.Key.Value); d != nil {
				s.funcs[d.name] = d
				c.state.funcs = append(c.state.funcs, d)
			}
		}
	}
	if st := c.root.root.Get("service_template"); st != nil {
		c.refineFunctions(c.root, st.Get("functions"))
	}
}

// refineFunctions reads the functions of the service template: new
// ones, or refinements of those the file sees, whose signatures may
// change only their implementation (an empty entry keeps one), new
// signatures following (§10.4).
func (c *compiler) refineFunctions(f *file, n *yamlsrc.Node) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	s := c.scope(f)
	for _, p := range n.Pairs() {
		path := "service_template.functions." + p.Key.Value
		outer := c.findFunc(f, p.Key.Value)
		if outer == nil {
			if d := c.readFuncDef(f, p, path); d != nil {
				s.funcs[d.name] = d
			}
			continue
		}
		if !c.keys(p.Value, path, func() string { return "function " + core.Quote(p.Key.Value) }, functionKeys(), nil) {
			continue
		}
		d := &funcDef{name: outer.name, f: f, sigs: slices.Clone(outer.sigs)}
		sn := p.Value.Get("signatures")
		for i, sig := range sn.Items() {
			sp := path + ".signatures[" + core.Itoa(int64(i)) + "]"
			if i >= len(outer.sigs) {
				if more, ok := c.readSignature(f, sig, sp); ok {
					d.sigs = append(d.sigs, more)
				}
				continue
			}
			if sig.IsNull() {
				continue
			}
			if c.keys(sig, sp, func() string { return "signature" }, []string{"implementation"}, nil) {
				if im := sig.Get("implementation"); im != nil {
					c.checkImpl(im, sp+".implementation")
					d.sigs[i].impl, d.sigs[i].implAt, d.sigs[i].implF, d.sigs[i].implRel, d.sigs[i].timeout = "", nil, nil, "", 0
					d.sigs[i].setImpl(f, im, sp+".implementation")
				}
			}
		}
		s.funcs[d.name] = d
	}
}

func (c *compiler) readFuncDef(f *file, p yamlsrc.Pair, path string) *funcDef {
	name := p.Key.Value
	if !p.Key.IsString() || name == "" {
		c.Errorf(p.Key.Range, path, core.CodeBadName, "a function name must be a non-empty string, found %s", p.Key.Describe())
		return nil
	}
	if !c.keys(p.Value, path, func() string { return "function " + core.Quote(name) }, functionKeys(), nil) {
		if p.Value.IsNull() {
			c.Errorf(p.Key.Range, path, core.CodeMissingField, "function %q is missing required field \"signatures\"", name)
		}
		return nil
	}
	c.metadata(p.Value, path)
	sn := p.Value.Get("signatures")
	if sn == nil || sn.Kind != yamlsrc.Sequence || len(sn.Content) == 0 {
		c.Errorf(core.RangeOf(sn), path+".signatures", core.CodeMissingField, "function %q needs a list of one or more signatures", name)
		return nil
	}
	d := &funcDef{name: name, f: f}
	for i, sig := range sn.Content {
		if sg, ok := c.readSignature(f, sig, path+".signatures["+core.Itoa(int64(i))+"]"); ok {
			d.sigs = append(d.sigs, sg)
		}
	}
	return d
}

// readSignature reads one signature: its argument definitions and
// whether it is variadic.
func (c *compiler) readSignature(f *file, s *yamlsrc.Node, sp string) (sig, bool) {
	sig := sig{}
	if !c.keys(s, sp, func() string { return "signature" }, signatureKeys(), nil) {
		return sig, false
	}
	for _, key := range []string{"arguments", "optional_arguments"} {
		an := s.Get(key)
		if an == nil || an.IsNull() {
			continue
		}
		if an.Kind != yamlsrc.Sequence {
			c.Errorf(an.Range, sp+"."+key, core.CodeWrongKind, "%s must be a list of definitions, found %s", key, an.Describe())
			continue
		}
		for j, a := range an.Content {
			sig.params = append(sig.params, c.readSchema(f, a, sp+"."+key+"["+core.Itoa(int64(j))+"]"))
		}
		if key == "arguments" {
			sig.min = len(an.Content)
		}
		sig.max += len(an.Content)
	}
	if v, set := c.boolValue(s, sp, "variadic"); set && v {
		sig.max, sig.variadic = -1, true
	}
	if r := s.Get("result"); r != nil {
		sig.result = c.readSchema(f, r, sp+".result")
	}
	if im := s.Get("implementation"); im != nil {
		c.checkImpl(im, sp+".implementation")
		sig.setImpl(f, im, sp+".implementation")
	}
	return sig, true
}

// checkSignature checks a call's number of arguments against the
// function's signatures.
func (c *compiler) checkSignature(d *funcDef, n, args *yamlsrc.Node, path string) {
	if len(d.sigs) == 0 {
		return
	}
	got := len(argList(args))
	for _, s := range d.sigs {
		if s.takes(got) {
			return
		}
	}
	c.Errorf(n.Range, path, core.CodeFunction, "no signature of function $%s takes %d arguments", d.name, got)
}

// matchSig returns the first signature of d that takes the evaluated
// arguments vals of the call n (§10.4: signatures are tried in order),
// and records it for the check of the result (resultFits). When none
// does, it reports why at the argument (one signature of that number of
// arguments) or at the call (several), and returns nil; a number of
// arguments no signature takes was reported by checkSignature.
func (ev *eval) matchSig(n *yamlsrc.Node, name string, d *funcDef, vals []graph.Value) *sig {
	c := ev.c
	_, args, _ := funcCall(n)
	argNodes := argList(args)
	type miss struct {
		sig, arg int
		why      diag.Diagnostic
	}
	var misses []miss
	for si := range d.sigs {
		s := &d.sigs[si]
		if !s.takes(len(vals)) {
			continue
		}
		fits := true
		for i, v := range vals {
			if why, ok := ev.argFits(s.param(i), v, argNodes[i], i); !ok {
				misses = append(misses, miss{si, i, why})
				fits = false
				break
			}
		}
		if fits {
			c.state.calls[n] = s
			return s
		}
	}
	switch len(misses) {
	case 0:
	case 1:
		m := misses[0]
		c.Errorf(m.why.Range, ev.path, core.CodeFunction, "argument %d of $%s: %s", m.arg+1, name, m.why.Summary)
	default:
		parts := make([]string, len(misses))
		for i, m := range misses {
			parts[i] = "signature " + core.Itoa(int64(m.sig+1)) + ", argument " + core.Itoa(int64(m.arg+1)) + ": " + m.why.Summary
		}
		c.Errorf(n.Range, ev.path, core.CodeFunction, "no signature of function $%s accepts these arguments (%s)", name, strings.Join(parts, "; "))
	}
	return nil
}

// argFits reports whether the value v of argument i (written at at)
// fits the definition p; when not, why is the problem, positioned at the
// argument.
func (ev *eval) argFits(p *prop, v graph.Value, at *yamlsrc.Node, i int) (diag.Diagnostic, bool) {
	c := ev.c
	if p == nil || p.typ == nil {
		return diag.Diagnostic{}, true
	}
	if graph.HasUnknown(v) {
		st := c.staticType(at)
		if st == nil || !c.schemaClash(st, p) {
			return diag.Diagnostic{}, true
		}
		fn, _, _ := funcCall(at)
		return diag.Diagnostic{Range: at.Range, Summary: "$" + fn + " gives type " + schemaText(st) + ", not " + schemaText(p)}, false
	}
	if v == nil || dollarText(v) {
		// Reported where it was evaluated, or text that written again
		// would read as a call.
		return diag.Diagnostic{}, true
	}
	path := ev.path + "[" + core.Itoa(int64(i)) + "]"
	errs := c.Quietly(func() {
		c.checkValueDepth(ev, p.typ, p.entry, p.keyS, p.validation, core.NodeOf(v, at.Range), path, 1)
	})
	for _, e := range errs {
		if e.Severity == diag.Error {
			return e, false
		}
	}
	return diag.Diagnostic{}, true
}

// staticType returns the definition of what the call n yields when its
// value is known only at apply time but its type now: the chosen
// signature's result of a custom function, the definition of an input
// $get_input reads whole; nil otherwise.
func (c *compiler) staticType(n *yamlsrc.Node) *prop {
	name, args, ok := funcCall(n)
	if !ok {
		return nil
	}
	if s := c.state.calls[n]; s != nil {
		return s.result
	}
	if name != "get_input" || c.state.topo == nil {
		return nil
	}
	a := argList(args)
	if len(a) != 1 || !a[0].IsString() {
		return nil
	}
	return c.state.topo.inputDefs[a[0].Value]
}

// schemaClash reports whether values of the definition got can never be
// values of want: neither type derives from the other (an integer is a
// float; a complex data type's value is a map), or their entry or key
// schemas clash.
func (c *compiler) schemaClash(got, want *prop) bool {
	if got == nil || want == nil || got.typ == nil || want.typ == nil {
		return false
	}
	g, w := got.typ, want.typ
	switch {
	case c.derives(g, w) || c.derives(w, g):
	case g.base == "integer" && w.base == "float":
		return false
	case (g.base == "" && w.base == "map") || (g.base == "map" && w.base == ""):
		return false
	default:
		return true
	}
	return c.schemaClash(schemaOf(got.entry, g.entry), schemaOf(want.entry, w.entry)) ||
		c.schemaClash(schemaOf(got.keyS, g.keyS), schemaOf(want.keyS, w.keyS))
}

func schemaOf(own, typ *prop) *prop {
	if own != nil {
		return own
	}
	return typ
}

// schemaText names a definition's type for a message: "list of
// integer".
func schemaText(p *prop) string {
	if p == nil || p.typ == nil {
		return "value"
	}
	s := p.typ.name
	if e := schemaOf(p.entry, p.typ.entry); e != nil && e.typ != nil && (p.typ.base == "list" || p.typ.base == "map") {
		s += " of " + schemaText(e)
	}
	return s
}

// resultFits checks the result of the custom function call n, known
// only at apply time, against the definition it is assigned to (type t
// with its entry and key schemas).
func (c *compiler) resultFits(n *yamlsrc.Node, t *typeDef, entry, keyS *prop, path string) {
	s := c.state.calls[n]
	if s == nil || s.result == nil {
		return
	}
	want := &prop{typ: t, entry: entry, keyS: keyS}
	if c.schemaClash(s.result, want) {
		name, _, _ := funcCall(n)
		c.Errorf(n.Range, path, core.CodeFunction, "$%s returns type %s, not %s", name, schemaText(s.result), schemaText(want))
	}
}

// customCall is the value of a call of a custom function with the
// signature s (nil when none could be read): graph.Unknown
// function(name, declaration, [arguments…]), which apply evaluates by
// running the signature's implementation (pkg/executor.Resolver). The
// declaration holds implementation (its file relative to the folder of
// the top-level template, where apply runs operations), timeout (seconds)
// and result (the kind of JSON value the result must be: string,
// integer, float, boolean, list or map), each when known. An
// implementation outside the configuration root is a warning here, as an
// operation's is; apply refuses to run it.
func (ev *eval) customCall(name string, s *sig, vals []graph.Value) graph.Value {
	c := ev.c
	decl := map[string]graph.Value{}
	if s != nil && s.impl != "" {
		if s.implRel == "" {
			s.implRel = s.impl
			if !strings.Contains(s.impl, "://") && !filepath.IsAbs(s.impl) && s.implF.dir != "" {
				c.ConfineNamed(s.implAt, s.impl, s.implF.dir, s.implPath, core.CodeImplOutsideRoot, "implementation")
				if rel, err := filepath.Rel(c.root.dir, filepath.Join(s.implF.dir, filepath.FromSlash(s.impl))); err == nil {
					s.implRel = filepath.ToSlash(rel)
				}
			}
		}
		decl["implementation"] = s.implRel
		if s.timeout > 0 {
			decl["timeout"] = s.timeout
		}
	}
	if s != nil && s.result != nil && s.result.typ != nil {
		if k := resultKind(s.result.typ); k != "" {
			decl["result"] = k
		}
	}
	args := make([]graph.Value, len(vals))
	copy(args, vals)
	return graph.Unknown{Func: "function", Args: []graph.Value{name, decl, args}}
}

// resultKind is the kind of JSON value a value of type t is: scalars,
// timestamps and versions are written as strings, complex data types
// as maps; "" for types without values (nil).
func resultKind(t *typeDef) string {
	switch {
	case t.scalar != nil:
		return "string"
	case t.base == "":
		return "map"
	}
	switch t.base {
	case "integer", "float", "boolean", "list", "map":
		return t.base
	case "range":
		return "list"
	case "nil":
		return ""
	}
	return "string"
}
