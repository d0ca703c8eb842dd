package manifest

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// smallMap is the size up to which duplicate keys are found by pairwise
// comparison.
const smallMap = 12

// LooksLike reports whether a parsed document is a Tonomi-style manifest:
// a map whose top-level keys include `application`.
func LooksLike(root *yamlsrc.Node) bool {
	_, ok := root.GetPair("application")
	return ok
}

// loader reads one file into a composite tree, reporting every problem.
type loader struct {
	reg   *Registry
	app   *application
	diags diag.Diagnostics
}

// loadApplication reads one manifest. The result is nil only when the file
// is not a manifest at all.
func loadApplication(ctx context.Context, reg *Registry, file, name string, data []byte) (*application, diag.Diagnostics) {
	root, diags := yamlsrc.ParseContext(ctx, file, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		return nil, diags
	}
	return buildApplication(reg, file, name, root, diags)
}

// buildApplication turns a parsed document into a composite tree.
func buildApplication(reg *Registry, file, name string, root *yamlsrc.Node, diags diag.Diagnostics) (*application, diag.Diagnostics) {
	l := &loader{reg: reg, app: &application{name: name, file: file}, diags: diags}
	start := diag.Range{File: file, Start: diag.Pos{Line: 1, Column: 1}}
	if root == nil || root.Kind != yamlsrc.Mapping {
		r := start
		if root != nil {
			r = root.Range
		}
		return nil, l.diags.Errorf(r, "", CodeNotManifest, "expected a map with an `application:` key, found %s", root.Describe())
	}
	l.duplicates(root, "")
	appNode := root.Get("application")
	if appNode == nil {
		return nil, l.diags.Errorf(root.Range, "", CodeNotManifest, "no `application:` key: this is not a manifest")
	}
	for _, p := range root.Pairs() {
		if p.Key.Value != "application" {
			l.diags = l.diags.Errorf(p.Key.Range, p.Key.Value, CodeUnknownKey, "unknown top-level key %q; a manifest has only `application:`", p.Key.Value)
		}
	}
	c := &component{app: l.app, yaml: "application", rng: appNode.Range}
	if ap, ok := root.GetPair("application"); ok {
		c.rng = ap.Key.Range
	}
	l.app.root = c
	if problem := yamlsrc.NameProblem("application name (the file's name)", name); problem != "" {
		// The file name becomes the first part of every address.
		l.diags = l.diags.Errorf(c.rng, "application", CodeBadName, "%s", problem)
	}
	if appNode.Kind != yamlsrc.Mapping {
		l.diags = l.diags.Errorf(appNode.Range, "application", CodeStructure, "`application` must be a map, found %s", appNode.Describe())
		return l.app, l.diags
	}
	l.component(c, appNode)
	return l.app, l.diags
}

// duplicates reports repeated keys of a map. The last entry wins (as in
// the YAML loaders the platform used), but a repeat is almost always a
// merge gone wrong, so it is an error.
func (l *loader) duplicates(n *yamlsrc.Node, path string) {
	if len(n.Content) <= 2*smallMap {
		// Most maps are small: comparing keys pairwise costs less than
		// the set DuplicateKeys builds.
		for i := 2; i < len(n.Content); i += 2 {
			for j := 0; j < i; j += 2 {
				if k := n.Content[i]; k.Kind == yamlsrc.Scalar && n.Content[j].Kind == yamlsrc.Scalar && k.Value == n.Content[j].Value {
					l.diags = l.diags.Errorf(k.Range, join(path, k.Value), CodeDuplicateKey, "key %q is repeated in this map", k.Value)
					break
				}
			}
		}
		return
	}
	for _, d := range n.DuplicateKeys() {
		l.diags = l.diags.Errorf(d.Key.Range, join(path, d.Key.Value), CodeDuplicateKey, "key %q is repeated in this map", d.Key.Value)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (l *loader) expectMap(n *yamlsrc.Node, path, what string) bool {
	if n.IsNull() {
		return false
	}
	if n.Kind != yamlsrc.Mapping {
		l.diags = l.diags.Errorf(n.Range, path, CodeStructure, "%s must be a map, found %s", what, n.Describe())
		return false
	}
	l.duplicates(n, path)
	return true
}

// name checks a component, interface or pin name.
func (l *loader) name(k *yamlsrc.Node, path, what, forbidden string) bool {
	s, ok := k.String()
	problem := yamlsrc.NameProblem(what+" name", s)
	switch {
	case !ok || s == "":
		l.diags = l.diags.Errorf(k.Range, path, CodeBadName, "%s name must be a non-empty string", what)
	case problem != "":
		// Names become resource addresses, printed in plans and logs: an
		// escape character there would drive the reader's terminal.
		l.diags = l.diags.Errorf(k.Range, path, CodeBadName, "%s", problem)
	case strings.ContainsAny(s, forbidden):
		l.diags = l.diags.Errorf(k.Range, path, CodeBadName, "%s name %q may not contain any of %q", what, s, forbidden)
	default:
		return true
	}
	return false
}

func (l *loader) component(c *component, n *yamlsrc.Node) {
	l.duplicates(n, c.yaml)
	var ifacesNode *yamlsrc.Node
	for _, p := range n.Pairs() {
		key, path := p.Key.Value, join(c.yaml, p.Key.Value)
		switch key {
		case "type":
			l.componentType(c, p, path)
		case "interfaces":
			ifacesNode = p.Value
		case "required":
			l.required(c, p.Value, path)
		case "configuration":
			l.configuration(c, p.Value, path)
		case "components":
			l.components(c, p.Value, path)
		case "bindings":
			l.bindings(c, p.Value, path)
		case "policies":
			l.policies(c, p.Key, p.Value, path)
		default:
			l.diags = l.diags.Errorf(p.Key.Range, path, CodeUnknownKey,
				"unknown key %q in %s (expected type, interfaces, required, configuration, components, bindings or, for the application, policies)", key, c.describe())
		}
	}
	l.knownKind(c)
	if ifacesNode != nil {
		l.interfaces(c, ifacesNode, join(c.yaml, "interfaces"))
	}
	if len(c.children) > 0 && c.known != nil && !c.known.Container {
		l.diags = l.diags.Errorf(c.kindRng, join(c.yaml, "type"), CodeStructure,
			"a %s cannot hold components; only plain composites and container types such as composite.Scaler can", c.kind)
	}
}

// componentType reads a component's `type`; the application has none.
func (l *loader) componentType(c *component, p yamlsrc.Pair, path string) {
	s, ok := p.Value.String()
	if !ok || !p.Value.IsString() || s == "" {
		l.diags = l.diags.Errorf(p.Value.Range, path, CodeStructure, "`type` must be a component type name such as workflow.Instance, found %s", p.Value.Describe())
		return
	}
	if c.path == "" {
		l.diags = l.diags.Errorf(p.Key.Range, path, CodeUnknownKey, "the application itself has no `type`; put typed components under `components:`")
		return
	}
	c.kind, c.kindRng = s, p.Value.Range
}

// knownKind looks the component's type up in the registry (warning when
// it is unknown) and gives the component the implicit interfaces of a
// known one.
func (l *loader) knownKind(c *component) {
	if c.kind != "" {
		if k, ok := l.reg.kinds[c.kind]; ok {
			c.known = k
		} else {
			l.diags = l.diags.Warnf(c.kindRng, join(c.yaml, "type"), CodeUnknownKind,
				"unknown component type %q: its declared interfaces are trusted as written", c.kind)
		}
	}
	if c.known != nil {
		// Implicit pins are shared with the registry and never modified:
		// a declared pin of the same name replaces one in this
		// component's own list.
		for _, f := range c.known.ifaces {
			c.addIface(&iface{name: f.name, implicit: true, yaml: join(c.yaml, "type"), pins: slices.Clone(f.pins)})
		}
	}
}

func (l *loader) components(c *component, n *yamlsrc.Node, path string) {
	if !l.expectMap(n, path, "`components`") {
		return
	}
	for _, p := range n.Pairs() {
		cpath := join(path, p.Key.Value)
		if !l.name(p.Key, cpath, "component", ".#,()* \t") {
			continue
		}
		if c.childByName[p.Key.Value] != nil {
			continue // reported as a duplicate key
		}
		child := &component{app: l.app, parent: c, name: p.Key.Value, path: join(c.path, p.Key.Value), yaml: cpath, rng: p.Key.Range}
		if c.childByName == nil {
			c.childByName = map[string]*component{}
		}
		c.children = append(c.children, child)
		c.childByName[child.name] = child
		switch {
		case p.Value.IsNull():
		case p.Value.Kind != yamlsrc.Mapping:
			l.diags = l.diags.Errorf(p.Value.Range, cpath, CodeStructure, "component %q must be a map, found %s", p.Key.Value, p.Value.Describe())
		default:
			l.component(child, p.Value)
		}
	}
}

func (l *loader) interfaces(c *component, n *yamlsrc.Node, path string) {
	if !l.expectMap(n, path, "`interfaces`") {
		return
	}
	for _, p := range n.Pairs() {
		ipath := join(path, p.Key.Value)
		if !l.name(p.Key, ipath, "interface", ".#,()*") {
			continue
		}
		f := c.ifaceByName[p.Key.Value]
		if f == nil {
			f = &iface{name: p.Key.Value}
			c.addIface(f)
		}
		f.yaml, f.implicit = ipath, false
		if !l.expectMap(p.Value, ipath, "interface "+quote(p.Key.Value)) {
			continue // an empty interface is a marker, bound as a whole
		}
		for _, pp := range p.Value.Pairs() {
			l.pin(c, f, pp, join(ipath, pp.Key.Value))
		}
	}
}

func (l *loader) pin(c *component, f *iface, p yamlsrc.Pair, path string) {
	if p.Key.Value == "*" && p.Key.Kind == yamlsrc.Scalar {
		s, _ := p.Value.String()
		if !isBind(s) {
			l.diags = l.diags.Errorf(p.Value.Range, path, CodeBadBind, "a \"*\" entry re-exports an interface and must be bind(component#interface.*), found %s", p.Value.Describe())
			return
		}
		for _, t := range l.bindExpr(c, p.Value, path) {
			if t.pin != "*" {
				l.diags = l.diags.Errorf(t.rng, path, CodeBadBind, "a \"*\" entry re-exports whole interfaces: write %s#%s.*", strings.Join(t.path, "."), t.iface)
				continue
			}
			f.star = append(f.star, t)
		}
		return
	}
	if !l.name(p.Key, path, "pin", ".#,()* \t") {
		return
	}
	pn := &pin{name: p.Key.Value, rng: p.Key.Range, yaml: path}
	decl := p.Value
	if p.Value.Kind == yamlsrc.Mapping {
		decl = l.longPin(pn, p.Value, path)
	}
	if decl == nil {
		f.addPin(pn)
		return
	}
	s, ok := decl.String()
	switch {
	case !ok || decl.Kind != yamlsrc.Scalar:
		l.diags = l.diags.Errorf(decl.Range, path, CodeBadPin, "pin %q needs a declaration such as publish-signal(string), found %s", pn.name, decl.Describe())
	case isBind(s):
		if p.Value.Kind == yamlsrc.Mapping {
			l.diags = l.diags.Errorf(decl.Range, path, CodeBadBind, "bind() is written as the pin's value, not as its `type`")
			break
		}
		pn.bind = l.bindExpr(c, decl, path)
		for _, t := range pn.bind {
			if t.pin == "*" {
				l.diags = l.diags.Errorf(t.rng, path, CodeBadBind, "a wildcard target re-exports a whole interface; write it as \"*\": bind(%s)", t.text)
			}
		}
		pn.valid = len(pn.bind) > 0
	default:
		kind, sig, err := parsePinDecl(s)
		if err != nil {
			l.diags = l.diags.Errorf(decl.Range, path, CodeBadPin, "malformed pin declaration: %v", err)
			break
		}
		pn.kind, pn.sig, pn.valid = kind, sig, true
		if p.Value.Kind == yamlsrc.Mapping {
			l.longPinParts(pn, p.Value, path)
		}
	}
	if old := f.pin(pn.name); old != nil && old.implicit {
		// A declared pin replaces the implicit pin of the same name.
		f.replacePin(pn)
		return
	}
	f.addPin(pn)
}

// longPin checks the long form {type, name, suggestions, arguments,
// results} and returns the `type` node.
func (l *loader) longPin(pn *pin, n *yamlsrc.Node, path string) *yamlsrc.Node {
	l.duplicates(n, path)
	var decl *yamlsrc.Node
	for _, p := range n.Pairs() {
		switch p.Key.Value {
		case "type":
			decl = p.Value
		case "name":
			title, ok := p.Value.String()
			switch problem := yamlsrc.NameProblem("pin display name", title); {
			case !ok && !p.Value.IsNull():
				l.diags = l.diags.Errorf(p.Value.Range, join(path, "name"), CodeStructure, "a pin's `name` is its display title and must be a string, found %s", p.Value.Describe())
			case problem != "":
				l.diags = l.diags.Errorf(p.Value.Range, join(path, "name"), CodeBadName, "%s", problem)
			}
		case "suggestions", "arguments", "results":
			l.expectMap(p.Value, join(path, p.Key.Value), "`"+p.Key.Value+"`")
		default:
			l.diags = l.diags.Errorf(p.Key.Range, join(path, p.Key.Value), CodeUnknownKey,
				"unknown key %q in pin %q (expected type, name, suggestions, arguments or results)", p.Key.Value, pn.name)
		}
	}
	if decl == nil {
		l.diags = l.diags.Errorf(n.Range, path, CodeBadPin, "pin %q in long form needs `type:`, such as type: publish-signal(string)", pn.name)
	}
	return decl
}

// longPinParts checks that `arguments` and `results` of a long-form pin
// name parameters the command declares.
func (l *loader) longPinParts(pn *pin, n *yamlsrc.Node, path string) {
	for _, part := range []string{"arguments", "results"} {
		m := n.Get(part)
		if m == nil || m.Kind != yamlsrc.Mapping {
			continue
		}
		if !pn.kind.isCommand() {
			l.diags = l.diags.Errorf(m.Range, join(path, part), CodeBadPin, "only commands have %s; pin %q is %s", part, pn.name, pn.kind)
			continue
		}
		names := map[string]bool{}
		if part == "arguments" {
			for _, a := range pn.sig.Args {
				names[a.Name] = true
			}
		} else {
			for _, ph := range pn.sig.Results {
				for _, r := range ph {
					names[r.Name] = true
				}
			}
		}
		for _, p := range m.Pairs() {
			if !names[p.Key.Value] {
				l.diags = l.diags.Errorf(p.Key.Range, join(join(path, part), p.Key.Value), CodeUnknownPin,
					"command %q has no %s named %q", pn.name, strings.TrimSuffix(part, "s"), p.Key.Value)
			}
		}
	}
}

func isBind(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "bind(")
}

// bindExpr parses bind(target, …) with a position for every target.
func (l *loader) bindExpr(c *component, n *yamlsrc.Node, path string) []target {
	s := n.Value
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	body := strings.TrimSpace(s)
	if !strings.HasSuffix(body, ")") {
		l.diags = l.diags.Errorf(n.Range, path, CodeBadBind, "bind( is not closed: expected bind(component#interface.pin, …)")
		return nil
	}
	inner := body[len("bind(") : len(body)-1]
	off := lead + len("bind(")
	if strings.TrimSpace(inner) == "" {
		l.diags = l.diags.Errorf(n.Range, path, CodeBadBind, "bind() names no target: expected bind(component#interface.pin, …)")
		return nil
	}
	var out []target
	for _, part := range strings.Split(inner, ",") {
		trimmed := strings.TrimSpace(part)
		at := off + strings.Index(part, trimmed)
		off += len(part) + 1
		rng := subRange(n, at, len(trimmed))
		t, msg := parseTarget(trimmed)
		if msg != "" {
			l.diags = l.diags.Errorf(rng, path, CodeBadBind, "malformed bind target %q: %s", trimmed, msg)
			continue
		}
		t.rng = rng
		out = append(out, t)
	}
	return out
}

// parseTarget reads path#iface.pin; the message is empty when it is
// well formed.
func parseTarget(s string) (target, string) {
	hash := strings.IndexByte(s, '#')
	if hash < 0 {
		return target{}, "expected component#interface.pin"
	}
	path, rest := s[:hash], s[hash+1:]
	dot := strings.IndexByte(rest, '.')
	if dot < 0 {
		return target{}, "expected interface.pin after '#'"
	}
	t := target{iface: rest[:dot], pin: rest[dot+1:], text: s}
	var msg string
	if t.path, msg = splitPath(path); msg != "" {
		return target{}, msg
	}
	if t.iface == "" || t.pin == "" || strings.ContainsAny(t.iface+t.pin, "#.() \t") {
		return target{}, "expected interface.pin after '#'"
	}
	return t, ""
}

// subRange narrows a one-line scalar's range to a part of its text, so
// that a diagnostic points at the target inside a bind() string.
func subRange(n *yamlsrc.Node, off, length int) diag.Range {
	r := n.Range
	if off < 0 || off+length > len(n.Value) || r.End.Line != r.Start.Line {
		return r
	}
	width := utf8.RuneCountInString(n.Value)
	shift := 0
	switch r.End.Column - r.Start.Column {
	case width:
	case width + 2:
		shift = 1
	default:
		return r // escapes or block style: the text is not the source
	}
	startCol := r.Start.Column + shift + utf8.RuneCountInString(n.Value[:off])
	endCol := startCol + utf8.RuneCountInString(n.Value[off:off+length])
	b := r.Start.Byte + shift + off
	return diag.Range{File: r.File,
		Start: diag.Pos{Line: r.Start.Line, Column: startCol, Byte: b},
		End:   diag.Pos{Line: r.Start.Line, Column: endCol, Byte: b + length}}
}

func (l *loader) required(c *component, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		l.diags = l.diags.Errorf(n.Range, path, CodeStructure, "`required` must be a list of interface names, found %s", n.Describe())
		return
	}
	for _, it := range n.Items() {
		s, ok := it.String()
		if !ok || it.Kind != yamlsrc.Scalar || s == "" {
			l.diags = l.diags.Errorf(it.Range, path, CodeStructure, "`required` lists interface names; found %s", it.Describe())
			continue
		}
		c.required = append(c.required, ident{name: s, rng: it.Range})
	}
}

func (l *loader) configuration(c *component, n *yamlsrc.Node, path string) {
	if !l.expectMap(n, path, "`configuration`") {
		return
	}
	for _, p := range n.Pairs() {
		k, ok := p.Key.String()
		if !ok || p.Key.Kind != yamlsrc.Scalar {
			l.diags = l.diags.Errorf(p.Key.Range, path, CodeStructure, "configuration keys are \"interface.pin\" strings; found %s", p.Key.Describe())
			continue
		}
		if c.configByKey == nil {
			c.configByKey = map[string]*configEntry{}
		}
		e := &configEntry{key: k, keyRng: p.Key.Range, yaml: join(path, k), value: p.Value}
		if c.configByKey[k] == nil {
			c.config = append(c.config, e)
		} else {
			// Keep the last value, as YAML loaders do; the duplicate is
			// reported.
			for i, old := range c.config {
				if old.key == k {
					c.config[i] = e
				}
			}
		}
		c.configByKey[k] = e
	}
}

func (l *loader) bindings(c *component, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		l.diags = l.diags.Errorf(n.Range, path, CodeStructure, "`bindings` must be a list of [component, component] pairs, found %s", n.Describe())
		return
	}
	for i, it := range n.Items() {
		items := it.Items()
		if it.Kind != yamlsrc.Sequence || len(items) != 2 {
			l.diags = l.diags.Errorf(it.Range, path, CodeBadBinding, "a binding is a pair [component, component], found %s", describeBinding(it))
			continue
		}
		b := &binding{rng: it.Range, yaml: path + "[" + strconv.Itoa(i) + "]"}
		ok := true
		for i, e := range items {
			s, isStr := e.String()
			if !isStr || e.Kind != yamlsrc.Scalar {
				l.diags = l.diags.Errorf(e.Range, path, CodeBadBinding, "a binding side is component or component#interface, found %s", e.Describe())
				ok = false
				continue
			}
			ep, msg := parseEndpoint(strings.TrimSpace(s))
			if msg != "" {
				l.diags = l.diags.Errorf(e.Range, path, CodeBadBinding, "malformed binding side %q: %s", s, msg)
				ok = false
				continue
			}
			ep.rng = e.Range
			b.ends[i] = ep
		}
		if ok {
			b.text = "[" + b.ends[0].text + ", " + b.ends[1].text + "]"
			c.bindings = append(c.bindings, b)
		}
	}
}

func describeBinding(n *yamlsrc.Node) string {
	if n.Kind == yamlsrc.Sequence {
		return "a list of " + strconv.Itoa(len(n.Items()))
	}
	return n.Describe()
}

func parseEndpoint(s string) (endpoint, string) {
	ep := endpoint{text: s}
	path := s
	if hash := strings.IndexByte(s, '#'); hash >= 0 {
		path, ep.iface = s[:hash], s[hash+1:]
		if ep.iface == "" || strings.ContainsAny(ep.iface, "#.() \t") {
			return endpoint{}, "expected component#interface"
		}
	}
	var msg string
	if ep.path, msg = splitPath(path); msg != "" {
		return endpoint{}, msg
	}
	return ep, ""
}

// splitPath splits a dotted component path such as "cluster.compute"; the
// message is empty when it is well formed.
func splitPath(path string) ([]string, string) {
	if path == "" {
		return nil, "the component path is empty"
	}
	segs := strings.Split(path, ".")
	for _, seg := range segs {
		if seg == "" || strings.ContainsAny(seg, " \t#()") {
			return nil, "the component path " + quote(path) + " is not a dot-separated list of names"
		}
	}
	return segs, ""
}
