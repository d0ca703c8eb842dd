package manifest

import (
	"fmt"
	"strings"
)

// typeKind is the kind of a pin's value type.
type typeKind int

// Value type kinds of the manifest grammar.
const (
	tString typeKind = iota + 1
	tInt
	tObject
	tBytes
	tUnit
	tList
	tMap
	// tBool is not in the documented grammar, but deployable manifests
	// declare boolean pins as bool.
	tBool
)

var typeNames = map[string]typeKind{
	"string": tString, "int": tInt, "object": tObject, "bytes": tBytes,
	"unit": tUnit, "list": tList, "map": tMap, "bool": tBool,
}

// valueType is a value type: a scalar kind, list<Elem> or map<Key, Elem>.
type valueType struct {
	Kind typeKind
	Key  *valueType // map keys
	Elem *valueType // list items and map values
}

// String renders the type in the manifest's spelling, normalised
// ("map<string, object>").
func (t *valueType) String() string {
	if t == nil {
		return "?"
	}
	switch t.Kind {
	case tList:
		return "list<" + t.Elem.String() + ">"
	case tMap:
		return "map<" + t.Key.String() + ", " + t.Elem.String() + ">"
	}
	for n, k := range typeNames {
		if k == t.Kind {
			return n
		}
	}
	return "?"
}

// assignable reports whether a value of type from may flow into a pin of
// type to. object is JSON of any shape, so it matches every type in both
// directions: the platform cannot check it statically and neither can we.
func assignable(from, to *valueType) bool {
	if from == nil || to == nil || from.Kind == tObject || to.Kind == tObject {
		return true
	}
	if from.Kind != to.Kind {
		return false
	}
	switch from.Kind {
	case tList:
		return assignable(from.Elem, to.Elem)
	case tMap:
		return assignable(from.Key, to.Key) && assignable(from.Elem, to.Elem)
	}
	return true
}

// parseType reads a type such as "map<string, list<int>>". Nesting is
// bounded by the text's length, which the YAML limits bound.
func parseType(s string) (*valueType, error) {
	p := typeParser{s: s}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q after type %s", p.s[p.i:], t)
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

const maxTypeDepth = 32

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *typeParser) parse(depth int) (*valueType, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type nests deeper than %d levels", maxTypeDepth)
	}
	p.space()
	start := p.i
	for p.i < len(p.s) && isIdentByte(p.s[p.i]) {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		if p.i < len(p.s) {
			return nil, fmt.Errorf("expected a type name at %q", p.s[p.i:])
		}
		return nil, fmt.Errorf("expected a type name")
	}
	k, ok := typeNames[name]
	if !ok {
		return nil, fmt.Errorf("unknown type %q (expected string, int, bool, object, bytes, unit, list<T> or map<K, V>)", name)
	}
	t := &valueType{Kind: k}
	p.space()
	hasArgs := p.i < len(p.s) && p.s[p.i] == '<'
	switch {
	case (k == tList || k == tMap) && !hasArgs:
		return nil, fmt.Errorf("%s needs type arguments, as in %s", name, map[typeKind]string{tList: "list<string>", tMap: "map<string, string>"}[k])
	case k != tList && k != tMap && hasArgs:
		return nil, fmt.Errorf("%s takes no type arguments", name)
	case !hasArgs:
		return t, nil
	}
	if err := p.typeArgs(t, name, depth); err != nil {
		return nil, err
	}
	return t, nil
}

// typeArgs parses the type arguments of t (a list or a map, called name
// in messages) from its '<' to its '>'.
func (p *typeParser) typeArgs(t *valueType, name string, depth int) error {
	p.i++ // '<'
	first, err := p.parse(depth + 1)
	if err != nil {
		return err
	}
	p.space()
	if t.Kind == tMap {
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return fmt.Errorf("map needs two type arguments, as in map<string, string>")
		}
		p.i++
		t.Key = first
		if t.Elem, err = p.parse(depth + 1); err != nil {
			return err
		}
	} else {
		t.Elem = first
	}
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '>' {
		return fmt.Errorf("missing '>' to close %s<", name)
	}
	p.i++
	return nil
}

func isIdentByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// pinKind is the direction and role of a pin.
type pinKind int

// Pin kinds of the manifest grammar.
const (
	pinConfiguration pinKind = iota + 1
	pinPublish
	pinConsume
	pinSend
	pinReceive
)

var pinKindNames = []string{"", "configuration", "publish-signal", "consume-signal", "send-command", "receive-command"}

// String returns the kind as written in a manifest.
func (k pinKind) String() string {
	if k > 0 && int(k) < len(pinKindNames) {
		return pinKindNames[k]
	}
	return "unknown"
}

// isCommand reports whether the kind is send-command or receive-command.
func (k pinKind) isCommand() bool { return k == pinSend || k == pinReceive }

// peer returns the kind a pin of kind k binds to across a binding, or 0
// when k does not take part in bindings.
func (k pinKind) peer() pinKind {
	switch k {
	case pinPublish:
		return pinConsume
	case pinConsume:
		return pinPublish
	case pinSend:
		return pinReceive
	case pinReceive:
		return pinSend
	}
	return 0
}

// provides reports whether the pin is the side applied first: a publisher
// or a command receiver.
func (k pinKind) provides() bool { return k == pinPublish || k == pinReceive }

// param is one named argument or result of a command.
type param struct {
	Name string
	Type *valueType
}

// signature is what a pin declaration says after its kind: a value type
// for configuration and signals, arguments and result phases for commands.
type signature struct {
	Type *valueType
	Args []param
	// Results holds one list per phase after the arguments: none, the
	// final results, or intermediate then final results.
	Results [][]param
}

// String renders the signature in the manifest's spelling.
func (s signature) String(k pinKind) string {
	if !k.isCommand() {
		return k.String() + "(" + s.Type.String() + ")"
	}
	parts := []string{params(s.Args)}
	for _, r := range s.Results {
		parts = append(parts, params(r))
	}
	return k.String() + "(" + strings.Join(parts, " => ") + ")"
}

func params(ps []param) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Type.String() + " " + p.Name
	}
	return strings.Join(out, ", ")
}

// parsePinDecl reads "KIND(SIG)".
func parsePinDecl(s string) (pinKind, signature, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return 0, signature{}, fmt.Errorf("expected KIND(SIGNATURE) such as publish-signal(string), found %q", s)
	}
	name := strings.TrimSpace(s[:open])
	body := s[open+1 : len(s)-1]
	var kind pinKind
	for k := pinConfiguration; k <= pinReceive; k++ {
		if pinKindNames[k] == name {
			kind = k
		}
	}
	if kind == 0 {
		return 0, signature{}, fmt.Errorf("unknown pin kind %q (expected configuration, publish-signal, consume-signal, send-command or receive-command)", name)
	}
	if !kind.isCommand() {
		t, err := parseType(body)
		if err != nil {
			return kind, signature{}, err
		}
		return kind, signature{Type: t}, nil
	}
	phases := strings.Split(body, "=>")
	if len(phases) > 3 {
		return kind, signature{}, fmt.Errorf("a command has at most three parts (arguments => progress => results), found %d", len(phases))
	}
	var sig signature
	for i, ph := range phases {
		ps, err := parseParams(ph)
		if err != nil {
			return kind, signature{}, err
		}
		if i == 0 {
			sig.Args = ps
		} else {
			sig.Results = append(sig.Results, ps)
		}
	}
	return kind, sig, nil
}

// parseParams reads a comma list of "TYPE name", splitting only at commas
// outside angle brackets.
func parseParams(s string) ([]param, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []param
	seen := map[string]bool{}
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '<':
				depth++
				continue
			case '>':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		p, err := parseParam(strings.TrimSpace(s[start:i]))
		if err != nil {
			return nil, err
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter %q is declared twice", p.Name)
		}
		seen[p.Name] = true
		out = append(out, p)
		start = i + 1
	}
	return out, nil
}

func parseParam(s string) (param, error) {
	sp := strings.LastIndexAny(s, " \t")
	if sp < 0 || strings.ContainsAny(s[sp+1:], "<>") {
		return param{}, fmt.Errorf("expected \"TYPE name\", found %q", s)
	}
	name := s[sp+1:]
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) && name[i] != '.' {
			return param{}, fmt.Errorf("parameter name %q has a character that is not allowed", name)
		}
	}
	t, err := parseType(s[:sp])
	if err != nil {
		return param{}, err
	}
	return param{Name: name, Type: t}, nil
}
