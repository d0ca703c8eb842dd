package placement

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// PlacementJSON renders the candidates in Placement's JSON shape for
// microversion v (dict-form allocations; mappings from 1.34; traits from
// 1.17; parent and root provider from 1.29), with provider names where
// Placement has UUIDs. Keys are sorted, so the output is deterministic;
// empty lists are [] and never null. The bytes are what encoding/json
// writes for the same shape, without HTML escaping.
func (c *Candidates) PlacementJSON(v Version) ([]byte, error) {
	return c.AppendPlacementJSON(nil, v, ""), nil
}

// AppendPlacementJSON appends PlacementJSON's answer to b, indented as
// json.Indent(dst, src, "", indent) would indent it when indent is not
// empty. It writes the answer directly, without building maps of it, so a
// large answer costs one pass.
func (c *Candidates) AppendPlacementJSON(b []byte, v Version, indent string) []byte {
	w := jsonWriter{b: b, indent: indent}
	w.open('{')
	w.key("allocation_requests")
	w.open('[')
	for _, r := range c.Requests {
		w.elem()
		w.open('{')
		w.key("allocations")
		w.open('{')
		res := r.Resources
		if !slices.IsSortedFunc(res, compareAmounts) {
			res = slices.SortedFunc(slices.Values(res), compareAmounts)
		}
		for i := 0; i < len(res); {
			p := res[i].Provider
			w.key(p)
			w.open('{')
			w.key("resources")
			w.open('{')
			for ; i < len(res) && res[i].Provider == p; i++ {
				amt := res[i].Amount
				for i+1 < len(res) && res[i+1].Provider == p && res[i+1].Class == res[i].Class {
					i++
					amt += res[i].Amount
				}
				w.key(res[i].Class)
				w.int(amt)
			}
			w.close('}')
			w.close('}')
		}
		w.close('}')
		if v.AtLeast(34) && len(r.Mappings) > 0 {
			w.key("mappings")
			w.open('{')
			ms := r.Mappings
			if !slices.IsSortedFunc(ms, compareMappings) {
				ms = slices.SortedStableFunc(slices.Values(ms), compareMappings)
			}
			for i, m := range ms {
				if i+1 < len(ms) && ms[i+1].Suffix == m.Suffix {
					continue // MappingsMap keeps the last of a suffix
				}
				w.key(m.Suffix)
				w.strings(m.Providers)
			}
			w.close('}')
		}
		w.close('}')
	}
	w.close(']')
	w.key("provider_summaries")
	w.open('{')
	for _, name := range slices.Sorted(maps.Keys(c.Summaries)) {
		s := c.Summaries[name]
		w.key(name)
		w.open('{')
		w.key("resources")
		if s.Resources == nil {
			w.null()
		} else {
			w.open('{')
			for _, rc := range slices.Sorted(maps.Keys(s.Resources)) {
				w.key(rc)
				w.open('{')
				w.key("capacity")
				w.int(s.Resources[rc].Capacity)
				w.key("used")
				w.int(s.Resources[rc].Used)
				w.close('}')
			}
			w.close('}')
		}
		if v.AtLeast(17) && len(s.Traits) > 0 {
			w.key("traits")
			w.strings(s.Traits)
		}
		if v.AtLeast(29) {
			w.key("parent_provider_uuid")
			if s.Parent == "" {
				w.null()
			} else {
				w.string(s.Parent)
			}
			w.key("root_provider_uuid")
			w.string(s.Root)
		}
		w.close('}')
	}
	w.close('}')
	w.close('}')
	return w.b
}

func compareAmounts(a, b Amount) int {
	return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.Class, b.Class))
}

// compareMappings orders by suffix only, and is used with a stable sort,
// so that of two mappings of one suffix the later stays later.
func compareMappings(a, b GroupMapping) int { return strings.Compare(a.Suffix, b.Suffix) }

// jsonWriter writes JSON the way encoding/json (without HTML escaping)
// and json.Indent with an empty prefix write it: "key": value with a
// space when indented, empty objects and arrays as {} and [].
type jsonWriter struct {
	b      []byte
	indent string
	depth  int
	// first is true in a container that has no element yet.
	first bool
	// pad is a newline and the indentation of the deepest level so far.
	pad string
}

func (w *jsonWriter) newline() {
	if w.indent == "" {
		return
	}
	n := 1 + w.depth*len(w.indent)
	for len(w.pad) < n {
		if w.pad == "" {
			w.pad = "\n"
		}
		w.pad += w.indent
	}
	w.b = append(w.b, w.pad[:n]...)
}

// elem starts an element of the current container.
func (w *jsonWriter) elem() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.first {
		w.newline()
	}
	w.b = append(w.b, c)
	w.first = false
}

func (w *jsonWriter) key(k string) {
	w.elem()
	w.string(k)
	w.b = append(w.b, ':')
	if w.indent != "" {
		w.b = append(w.b, ' ')
	}
}

func (w *jsonWriter) int(x int64) { w.b = strconv.AppendInt(w.b, x, 10) }

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

func (w *jsonWriter) strings(ss []string) {
	if ss == nil {
		w.null()
		return
	}
	w.open('[')
	for _, s := range ss {
		w.elem()
		w.string(s)
	}
	w.close(']')
}

// string writes s quoted: printable ASCII without quote or backslash as
// is, anything else as encoding/json escapes it.
func (w *jsonWriter) string(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := marshal(s)
			w.b = append(w.b, q...)
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// marshal encodes without HTML escaping (messages quote names with < >
// rarely, but Placement does not escape and clients compare text).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
