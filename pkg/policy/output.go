package policy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// output is what one run of a policy derived: resources at addresses
// under its prefix, and edges from them.
type output struct {
	resources []derived
	edges     []graph.Edge
	// sets are the values it sets on declared resources, sorted by
	// address and path.
	sets []setting
	// canonical is the output written canonically: two runs derived the
	// same when these bytes are equal.
	canonical []byte
}

// setting is one value a policy sets on a declared resource it reads.
type setting struct {
	address string
	// path is the spec path, dot-joined; keys are its keys.
	path string
	keys []string
	// value is known now; override says the policy's value wins over a
	// value the configuration gives (else it is set only where the
	// configuration gives none).
	value    graph.Value
	override bool
}

// derived is one resource a policy printed.
type derived struct {
	res *graph.Resource
	// driverFrom is the address of a resource of the policy's input whose
	// driver (and type, when none is given) the derived resource takes.
	driverFrom string
}

// maxName bounds a derived resource's name, as every name a user writes.
const maxName = 255

// parseOutput reads a policy's stdout strictly:
//
//	{"format_version": "1.0",            (optional)
//	 "resources": [{"name": "eth0", "type": "xos.Interface",
//	                "type_chain": ["xos.Interface", …], "spec": {…},
//	                "driver_from": "<address of an input resource>"}…],
//	 "edges": [{"source": "<prefix>eth0", "target": "<address>",
//	            "kind": "depends_on", "name": "network"}…],
//	 "set": [{"address": "<a declared resource it reads>",
//	          "path": "properties.mtu", "value": 1500, "override": false}…]}
//
// The lists are optional; an empty document derives and sets nothing. A
// value set is known now and not null, its path has no empty key, and
// no two values set on one resource lie one at or inside the other's
// path (parseSetting). A key the
// format does not have, a key given twice, a name that is empty, longer
// than 255 bytes, not UTF-8 or holding a control character, two resources
// with one name, a spec value known only at apply time, an edge kind that
// is not one of the graph's, more than maxResources resources or anything
// after the document is an error. Addresses are prefix + name.
func parseOutput(data []byte, prefix string, maxResources int) (output, error) {
	var out output
	r := canonjson.NewReader(data)
	names := map[string]bool{}
	err := strictObject(r, "the output", func(key string) error {
		switch key {
		case "format_version":
			v, err := r.Value()
			if s, ok := v.(string); err == nil && (!ok || s != InputFormatVersion) {
				return fmt.Errorf("format_version %s is not %q", graph.Render(v), InputFormatVersion)
			}
			return err
		case "resources":
			return r.Array(func() error {
				if len(out.resources) >= maxResources {
					return fmt.Errorf("more than %d resources", maxResources)
				}
				d, err := parseResource(r, prefix, len(out.resources))
				if err != nil {
					return err
				}
				if names[d.res.Address] {
					return fmt.Errorf("resources[%d]: name %q is given twice", len(out.resources), strings.TrimPrefix(d.res.Address, prefix))
				}
				names[d.res.Address] = true
				out.resources = append(out.resources, d)
				return nil
			})
		case "edges":
			return r.Array(func() error {
				e, err := parseEdge(r, len(out.edges))
				out.edges = append(out.edges, e)
				return err
			})
		case "set":
			return r.Array(func() error {
				if len(out.sets) >= maxResources {
					return fmt.Errorf("more than %d values set", maxResources)
				}
				s, err := parseSetting(r, len(out.sets))
				out.sets = append(out.sets, s)
				return err
			})
		}
		return fmt.Errorf("unknown key %q", key)
	})
	if err == nil && !r.AtEnd() {
		err = r.Errorf(r.Offset(), "text after the output document")
	}
	if err != nil {
		return output{}, err
	}
	for i, e := range out.edges {
		if !names[e.Source] {
			return output{}, fmt.Errorf("edges[%d]: source %q is not a resource this policy derives (the addresses are %q and a name)", i, e.Source, prefix)
		}
	}
	// The order a policy prints in is not a change.
	slices.SortFunc(out.resources, func(a, b derived) int { return cmp.Compare(a.res.Address, b.res.Address) })
	slices.SortFunc(out.sets, func(a, b setting) int { return cmp.Or(cmp.Compare(a.address, b.address), cmp.Compare(a.path, b.path)) })
	for i := 1; i < len(out.sets); i++ {
		if a, b := out.sets[i-1], out.sets[i]; a.address == b.address && pathsOverlap(a.path, b.path) {
			return output{}, fmt.Errorf("set: %s of %s is set twice (as %s and %s)", a.path, a.address, a.path, b.path)
		}
	}
	slices.SortStableFunc(out.edges, func(a, b graph.Edge) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	out.canonical = canonical(out)
	return out, nil
}

// strictObject reads an object whose keys are each given once, what
// names it in errors.
func strictObject(r *canonjson.Reader, what string, member func(key string) error) error {
	seen := map[string]bool{}
	return r.Object(func(k []byte) error {
		key := string(k)
		if seen[key] {
			return fmt.Errorf("%s: key %q is given twice", what, key)
		}
		seen[key] = true
		if err := member(key); err != nil {
			var se *canonjson.SyntaxError
			if errors.As(err, &se) || strings.HasPrefix(err.Error(), what) {
				return err
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
}

func parseResource(r *canonjson.Reader, prefix string, i int) (derived, error) {
	what := fmt.Sprintf("resources[%d]", i)
	res := &graph.Resource{Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverNoop}, Spec: map[string]graph.Value{}}
	d := derived{res: res}
	var name string
	err := strictObject(r, what, func(key string) error {
		var err error
		switch key {
		case "name":
			name, err = text(r, "name")
		case "type":
			res.Type, err = text(r, "type")
		case "driver_from":
			d.driverFrom, err = text(r, "driver_from")
		case "type_chain":
			err = r.Array(func() error {
				s, err := text(r, "type_chain")
				res.TypeChain = append(res.TypeChain, s)
				return err
			})
		case "spec":
			var v graph.Value
			if v, err = r.Value(); err != nil {
				return err
			}
			m, ok := v.(map[string]graph.Value)
			switch {
			case !ok:
				return fmt.Errorf("spec must be an object, found %s", kindOf(v))
			case graph.HasUnknown(m):
				return errors.New("spec holds a value known only at apply time ($unknown): a policy derives values known now")
			}
			res.Spec = m
		default:
			return fmt.Errorf("unknown key %q", key)
		}
		return err
	})
	if err != nil {
		return d, err
	}
	switch {
	case name == "":
		return d, fmt.Errorf("%s: name is required", what)
	case res.Type == "" && d.driverFrom == "":
		return d, fmt.Errorf("%s (%s): type is required without driver_from", what, name)
	}
	res.Address = prefix + name
	if len(res.TypeChain) > 0 && res.TypeChain[0] != res.Type {
		return d, fmt.Errorf("%s (%s): type_chain must start with the type %q", what, name, res.Type)
	}
	return d, nil
}

// parseSetting reads one entry of "set":
//
//	{"address": "net-a", "path": "properties.mtu", "value": 1500, "override": false}
//
// address and path are required (path: keys joined by ".", none empty),
// and so is value, a value known now (not null: a policy sets values);
// override is optional.
func parseSetting(r *canonjson.Reader, i int) (setting, error) {
	what := fmt.Sprintf("set[%d]", i)
	var s setting
	given := false
	err := strictObject(r, what, func(key string) error {
		var err error
		switch key {
		case "address":
			s.address, err = text(r, "address")
		case "path":
			if s.path, err = text(r, "path"); err == nil {
				s.keys = strings.Split(s.path, ".")
				if slices.Contains(s.keys, "") {
					err = fmt.Errorf("path %q has an empty key (keys are joined by \".\")", s.path)
				}
			}
		case "value":
			if s.value, err = r.Value(); err == nil {
				given = s.value != nil
				if graph.HasUnknown(s.value) {
					err = errors.New("value holds a value known only at apply time ($unknown): a policy sets values known now")
				}
			}
		case "override":
			var v graph.Value
			if v, err = r.Value(); err == nil {
				b, ok := v.(bool)
				if !ok {
					return fmt.Errorf("override must be a boolean, found %s", kindOf(v))
				}
				s.override = b
			}
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		return err
	})
	switch {
	case err != nil:
		return s, err
	case s.address == "" || s.path == "":
		return s, fmt.Errorf("%s: address and path are required", what)
	case !given:
		return s, fmt.Errorf("%s (%s of %s): value is required and not null", what, s.path, s.address)
	}
	return s, nil
}

// pathsOverlap reports whether two spec paths are one, or one lies
// inside the other.
func pathsOverlap(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".")
}

func parseEdge(r *canonjson.Reader, i int) (graph.Edge, error) {
	what := fmt.Sprintf("edges[%d]", i)
	e := graph.Edge{Kind: graph.DependsOn}
	err := strictObject(r, what, func(key string) error {
		var err error
		switch key {
		case "source":
			e.Source, err = text(r, "source")
		case "target":
			e.Target, err = text(r, "target")
		case "name":
			e.Name, err = text(r, "name")
		case "kind":
			var k string
			if k, err = text(r, "kind"); err == nil {
				e.Kind = graph.EdgeKind(k)
				if !knownKind(e.Kind) {
					err = fmt.Errorf("kind %q is not one of hosted_on, connects_to, depends_on, attaches_to, routes_to, binding, contains, reference", k)
				}
			}
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		return err
	})
	if err == nil && (e.Source == "" || e.Target == "") {
		err = fmt.Errorf("%s: source and target are required", what)
	}
	return e, err
}

func knownKind(k graph.EdgeKind) bool {
	switch k {
	case graph.HostedOn, graph.ConnectsTo, graph.DependsOn, graph.AttachesTo, graph.RoutesTo,
		graph.Binding, graph.Contains, graph.Reference:
		return true
	}
	return false
}

// text reads a string that is a name: non-empty, at most maxName bytes,
// UTF-8 without control characters.
func text(r *canonjson.Reader, key string) (string, error) {
	v, err := r.Value()
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("%s must be a string, found %s", key, kindOf(v))
	case s == "":
		return "", fmt.Errorf("%s is empty", key)
	case len(s) > maxName:
		return "", fmt.Errorf("%s is longer than %d bytes", key, maxName)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f || c == utf8.RuneError }):
		return "", fmt.Errorf("%s %q holds a control character or is not UTF-8", key, s)
	}
	return s, nil
}

func kindOf(v graph.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a string"
	case []graph.Value:
		return "a list"
	}
	return "an object"
}

// canonical writes out canonically, for comparing two runs.
func canonical(out output) []byte {
	w := &canonjson.Writer{Format: canonjson.ListsNeverNull}
	a := w.BeginArray()
	for _, d := range out.resources {
		o := a.Next().BeginObject()
		o.Key("address").String(d.res.Address)
		o.Key("type").String(d.res.Type)
		o.Key("type_chain").Strings(d.res.TypeChain)
		o.Key("driver_from").String(d.driverFrom)
		canonjson.Map(o.Key("spec"), d.res.Spec)
		o.End()
	}
	for _, e := range out.edges {
		o := a.Next().BeginObject()
		o.Key("source").String(e.Source)
		o.Key("target").String(e.Target)
		o.Key("kind").String(string(e.Kind))
		o.Key("name").String(e.Name)
		o.End()
	}
	for _, s := range out.sets {
		o := a.Next().BeginObject()
		o.Key("address").String(s.address)
		o.Key("path").String(s.path)
		o.Key("value").Value(s.value)
		o.Key("override").Bool(s.override)
		o.End()
	}
	a.End()
	return bytes.Clone(w.Buf)
}
