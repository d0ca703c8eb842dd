package planner

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/graph"
)

// encoder writes the canonical plan JSON by hand: the field names and
// omission rules of the struct tags (so encoding/json reads it back), map
// keys sorted, no HTML escaping. Reflection-based encoding of 10,000
// resources' values cost most of the planning time; this walk is linear
// and allocates little.
type encoder struct {
	b   []byte
	err error
}

// object tracks whether a field was written, for the commas.
type object struct {
	e     *encoder
	first bool
}

func (e *encoder) begin() *object {
	e.b = append(e.b, '{')
	return &object{e: e, first: true}
}

func (o *object) key(k string) *encoder {
	if !o.first {
		o.e.b = append(o.e.b, ',')
	}
	o.first = false
	o.e.str(k)
	o.e.b = append(o.e.b, ':')
	return o.e
}

func (o *object) end() { o.e.b = append(o.e.b, '}') }

func (o *object) str(k, v string) { o.key(k).str(v) }

func (o *object) strOmit(k, v string) {
	if v != "" {
		o.key(k).str(v)
	}
}

func (o *object) int(k string, v int64) {
	e := o.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

// null writes the field k as null.
func (o *object) null(k string) {
	e := o.key(k)
	e.b = append(e.b, "null"...)
}

func (o *object) list(k string, v []string) { o.key(k).strs(v) }

func (o *object) listOmit(k string, v []string) {
	if len(v) > 0 {
		o.key(k).strs(v)
	}
}

func (e *encoder) strs(v []string) {
	e.b = append(e.b, '[')
	for i, s := range v {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

const hexDigits = "0123456789abcdef"

// str writes a JSON string as encoding/json does without HTML escaping:
// invalid UTF-8 becomes U+FFFD; U+2028 and U+2029 are escaped.
func (e *encoder) str(s string) {
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			e.b = append(e.b, s[start:i]...)
			switch c {
			case '"', '\\':
				e.b = append(e.b, '\\', c)
			case '\n':
				e.b = append(e.b, '\\', 'n')
			case '\r':
				e.b = append(e.b, '\\', 'r')
			case '\t':
				e.b = append(e.b, '\\', 't')
			default:
				e.b = append(e.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

// value writes a canonical value; Unknowns as {"$unknown": …} (graph's
// file form). Anything outside the canonical set falls back to
// encoding/json.
func (e *encoder) value(v graph.Value) {
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case bool:
		e.b = strconv.AppendBool(e.b, x)
	case int64:
		e.b = strconv.AppendInt(e.b, x, 10)
	case float64:
		e.float(x)
	case string:
		e.str(x)
	case []graph.Value:
		e.b = append(e.b, '[')
		for i, el := range x {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.value(el)
		}
		e.b = append(e.b, ']')
	case map[string]graph.Value:
		e.valueMap(x)
	case graph.Unknown:
		o := e.begin()
		u := o.key("$unknown").begin()
		u.str("func", x.Func)
		u.key("args").value(nonNilValues(x.Args))
		u.end()
		o.end()
	default:
		b, err := json.Marshal(v)
		if err != nil && e.err == nil {
			e.err = fmt.Errorf("encoding %T: %w", v, err)
		}
		e.b = append(e.b, b...)
	}
}

func nonNilValues(v []graph.Value) []graph.Value {
	if v == nil {
		return []graph.Value{}
	}
	return v
}

// float writes a number as encoding/json does.
func (e *encoder) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.err == nil {
			e.err = fmt.Errorf("unsupported number %v", f)
		}
		e.b = append(e.b, "null"...)
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-7, not e-07.
		if n := len(e.b); n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

func (e *encoder) valueMap(m map[string]graph.Value) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := e.begin()
	for _, k := range keys {
		o.key(k).value(m[k])
	}
	o.end()
}

func (e *encoder) stringMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := e.begin()
	for _, k := range keys {
		o.str(k, m[k])
	}
	o.end()
}

func (e *encoder) driver(d *graph.Driver) {
	o := e.begin()
	o.str("name", d.Name)
	if len(d.Operations) > 0 {
		keys := make([]string, 0, len(d.Operations))
		for k := range d.Operations {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		ops := o.key("operations").begin()
		for _, k := range keys {
			op := d.Operations[k]
			oo := ops.key(k).begin()
			oo.strOmit("implementation", op.Implementation)
			oo.listOmit("dependencies", op.Dependencies)
			if len(op.Inputs) > 0 {
				oo.key("inputs").valueMap(redactInputs(op.Inputs, op.Sensitive))
			}
			oo.listOmit("sensitive", op.Sensitive)
			if len(op.Outputs) > 0 {
				oo.key("outputs").stringMap(op.Outputs)
			}
			if op.Timeout != 0 {
				oo.int("timeout", int64(op.Timeout))
			}
			oo.end()
		}
		ops.end()
	}
	if len(d.Options) > 0 {
		o.key("options").valueMap(d.Options)
	}
	o.end()
}

// redactInputs returns inputs with the values of the sensitive names
// replaced by nil, as Redact does for spec paths; inputs itself is not
// modified.
func redactInputs(inputs map[string]graph.Value, sensitive []string) map[string]graph.Value {
	if len(sensitive) == 0 {
		return inputs
	}
	out := maps.Clone(inputs)
	for _, name := range sensitive {
		if _, ok := out[name]; ok {
			out[name] = nil
		}
	}
	return out
}

func (e *encoder) change(c *ResourceChange) {
	before, after := c.Before, c.After
	if len(c.Sensitive) > 0 {
		before, after = Redact(before, c.Sensitive), Redact(after, c.Sensitive)
	}
	o := e.begin()
	o.str("address", c.Address)
	o.str("type", c.Type)
	o.strOmit("prior_type", c.PriorType)
	o.str("action", c.Action.String())
	o.str("action_reason", c.Reason.String())
	o.listOmit("changed_paths", c.ChangedPaths)
	o.listOmit("reason_paths", c.ReasonPaths)
	o.listOmit("forced_by", c.ForcedBy)
	o.key("before").valueMap(before)
	o.key("after").valueMap(after)
	o.listOmit("dependencies", c.Dependencies)
	o.listOmit("prior_dependencies", c.PriorDependencies)
	o.key("driver").driver(&c.Driver)
	o.str("management", string(c.Management))
	o.listOmit("sensitive", c.Sensitive)
	if c.Placement != nil {
		p := o.key("placement").begin()
		if c.Placement.Allocations == nil {
			p.null("allocations")
		} else {
			allocs := p.key("allocations")
			allocs.b = append(allocs.b, '[')
			for i, a := range c.Placement.Allocations {
				if i > 0 {
					allocs.b = append(allocs.b, ',')
				}
				ao := allocs.begin()
				ao.str("provider", a.Provider)
				if a.Resources == nil {
					ao.null("resources")
				} else {
					rk := make([]string, 0, len(a.Resources))
					for k := range a.Resources {
						rk = append(rk, k)
					}
					slices.Sort(rk)
					ro := ao.key("resources").begin()
					for _, k := range rk {
						ro.int(k, a.Resources[k])
					}
					ro.end()
				}
				ao.end()
			}
			allocs.b = append(allocs.b, ']')
		}
		p.strOmit("query", c.Placement.Query)
		if c.Placement.Kept {
			p.key("kept").value(true)
		}
		p.end()
	}
	o.end()
}

// encodePlan writes the plan's canonical JSON (no trailing newline).
func encodePlan(p *Plan) ([]byte, error) {
	if p.Mode != "" && p.Mode != ModeNormal && p.Mode != ModeDestroy && p.Mode != ModeRefreshOnly {
		return nil, fmt.Errorf("invalid plan mode %q", p.Mode)
	}
	for i := range p.Changes {
		if p.Changes[i].Action > Forget || p.Changes[i].Reason > lastReason {
			return nil, fmt.Errorf("invalid action or reason for %s", p.Changes[i].Address)
		}
	}
	e := &encoder{b: make([]byte, 0, 512*len(p.Changes)+1024)}
	o := e.begin()
	o.str("format_version", p.FormatVersion)
	o.str("plan_id", p.PlanID)
	o.str("lineage", p.Lineage)
	o.key("serial")
	e.b = strconv.AppendUint(e.b, p.Serial, 10)
	o.str("mode", string(p.Mode))
	if p.Configuration == nil {
		o.null("configuration")
	} else {
		o.list("configuration", p.Configuration)
	}
	if p.InputDigests == nil {
		o.null("input_digests")
	} else {
		o.key("input_digests").stringMap(p.InputDigests)
	}
	o.str("input_salt", p.InputSalt)
	o.listOmit("targets", p.Targets)
	o.listOmit("excludes", p.Excludes)
	o.listOmit("replace", p.Replace)
	if p.CreateBeforeDestroy {
		o.key("create_before_destroy").value(true)
	}
	if src := p.PlacementSource; src != nil {
		so := o.key("placement_source").begin()
		so.strOmit("inventory", src.Inventory)
		so.strOmit("api", src.API)
		so.end()
	}
	o.key("resource_changes")
	if p.Changes == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, '[')
		for i := range p.Changes {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.change(&p.Changes[i])
		}
		e.b = append(e.b, ']')
	}
	o.key("resource_drift")
	if p.Drift == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, '[')
		for i, d := range p.Drift {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			do := e.begin()
			do.str("address", d.Address)
			do.str("type", d.Type)
			if d.Paths == nil {
				do.null("paths")
			} else {
				do.list("paths", d.Paths)
			}
			do.key("before").valueMap(d.Before)
			do.key("after").valueMap(d.After)
			do.end()
		}
		e.b = append(e.b, ']')
	}
	s := o.key("summary").begin()
	s.int("add", int64(p.Summary.Add))
	s.int("change", int64(p.Summary.Change))
	s.int("destroy", int64(p.Summary.Destroy))
	s.int("replace", int64(p.Summary.Replace))
	s.int("read", int64(p.Summary.Read))
	s.int("forget", int64(p.Summary.Forget))
	s.int("no_op", int64(p.Summary.NoOp))
	s.end()
	o.end()
	if e.err != nil {
		return nil, fmt.Errorf("encoding plan: %w", e.err)
	}
	return e.b, nil
}

// AppendJSON appends the canonical JSON of a value to dst: map keys
// sorted, no HTML escaping, Unknowns as {"$unknown": …}, numbers as
// encoding/json writes them. Views use it to write large plans quickly.
func AppendJSON(dst []byte, v graph.Value) ([]byte, error) {
	e := &encoder{b: dst}
	e.value(v)
	return e.b, e.err
}
