package tosca

// Scalar types of TOSCA 2.0 (§9.1.2.2): concrete scalar types derived
// from the abstract scalar, their units, prefixes and canonical unit, and
// scalar values "<number> <unit>". Errors are those listed in v2types.go.

import (
	"math"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// scalarDef2 is a concrete scalar type's definition, inherited merged.
type scalarDef2 struct {
	dataType  *typeDef2
	units     map[string]float64
	prefixes  map[string]float64
	canonical string
}

// lookup returns the multiplier of a unit as written (a unit, or a prefix
// followed by the one unit when prefixes are defined).
func (s *scalarDef2) lookup(u string) (float64, bool) {
	if m, ok := s.units[u]; ok {
		return m, true
	}
	for base, bm := range s.units {
		if p, ok := strings.CutSuffix(u, base); ok {
			if pm, ok := s.prefixes[p]; ok {
				return pm * bm, true
			}
		}
	}
	return 0, false
}

// canonicalUnit returns the unit values are stored in.
func (s *scalarDef2) canonicalUnit() string {
	if s.canonical != "" {
		return s.canonical
	}
	best := ""
	for u, m := range s.units {
		if m == 1 && (best == "" || u < best) {
			best = u
		}
	}
	return best
}

func (c *compiler) readScalarDef2(t *typeDef2, n *yamlsrc.Node) {
	s := &scalarDef2{units: map[string]float64{}, prefixes: map[string]float64{}}
	inherited := t.scalar
	if inherited != nil {
		clone2(s.units, inherited.units)
		clone2(s.prefixes, inherited.prefixes)
		s.dataType, s.canonical = inherited.dataType, inherited.canonical
	} else {
		s.dataType = c.v2.builtins["float"]
	}
	if dn, ok := n.GetPair("data_type"); ok {
		dt := c.typeRef2(t.f, kData, dn.Value, t.path+".data_type")
		switch {
		case dt == nil:
		case dt.base != "integer" && dt.base != "float":
			c.errorf(dn.Value.Range, t.path+".data_type", CodeValue, "the data_type of scalar type %q must be integer or float, or derived from them; %q is not", t.name, dt.name)
		case inherited != nil && dt != inherited.dataType:
			c.errorf(dn.Value.Range, t.path+".data_type", CodeIncompatibleRefinement, "scalar type %q changes the data_type %q of the scalar type it derives from (§9.1.2.2)", t.name, inherited.dataType.name)
		default:
			s.dataType = dt
		}
	}
	intUnits := s.dataType != nil && s.dataType.base == "integer"
	ok := true
	readMult := func(m *yamlsrc.Node, path, what string) (float64, bool) {
		if i, isInt := m.Int(); isInt {
			return float64(i), true
		}
		if f, isFloat := m.Float(); isFloat && !intUnits && !m.Quoted && m.Tag == yamlsrc.TagFloat {
			return f, true
		}
		want := "an integer or a float"
		if intUnits {
			want = "an integer (the data_type is integer)"
		}
		c.errorf(m.Range, path, CodeValue, "the multiplier of %s must be %s, found %s", what, want, m.Describe())
		return 0, false
	}
	un, hasUnits := n.GetPair("units")
	switch {
	case !hasUnits && inherited == nil:
		c.errorf(t.key, t.path, CodeMissingField, "scalar type %q is missing required field \"units\"", t.name)
		ok = false
	case hasUnits && un.Value.Kind != yamlsrc.Mapping:
		c.errorf(un.Value.Range, t.path+".units", CodeWrongKind, "units must be a map of unit names to multipliers, found %s", un.Value.Describe())
		ok = false
	case hasUnits:
		for _, p := range un.Value.Pairs() {
			if m, good := readMult(p.Value, t.path+".units."+p.Key.Value, "unit "+quote(p.Key.Value)); good {
				s.units[p.Key.Value] = m
			} else {
				ok = false
			}
		}
	}
	if pn, has := n.GetPair("prefixes"); has {
		if pn.Value.Kind != yamlsrc.Mapping {
			c.errorf(pn.Value.Range, t.path+".prefixes", CodeWrongKind, "prefixes must be a map of prefixes to multipliers, found %s", pn.Value.Describe())
			ok = false
		} else {
			for _, p := range pn.Value.Pairs() {
				if m, good := readMult(p.Value, t.path+".prefixes."+p.Key.Value, "prefix "+quote(p.Key.Value)); good {
					s.prefixes[p.Key.Value] = m
				} else {
					ok = false
				}
			}
			if len(s.units) != 1 {
				c.errorf(pn.Key.Range, t.path+".prefixes", CodeValue, "scalar type %q defines prefixes and %d units; prefixes apply to one unit of multiplier 1 (§9.1.2.2)", t.name, len(s.units))
				ok = false
			}
		}
	}
	ones := 0
	for _, m := range s.units {
		if m == 1 {
			ones++
		}
	}
	if ok && ones == 0 {
		c.errorf(t.key, t.path+".units", CodeValue, "scalar type %q has no unit of multiplier 1 (§9.1.2.2)", t.name)
	}
	if cp, has := n.GetPair("canonical_unit"); has {
		cu := text(cp.Value)
		switch m, found := s.lookup(cu); {
		case inherited != nil && inherited.canonical != "" && cu != inherited.canonical:
			c.errorf(cp.Value.Range, t.path+".canonical_unit", CodeIncompatibleRefinement, "scalar type %q changes the canonical unit %q it inherits (§9.1.2.2)", t.name, inherited.canonical)
		case !found:
			c.errorf(cp.Value.Range, t.path+".canonical_unit", CodeValue, "canonical unit %q is not a unit of scalar type %q", cu, t.name)
		case m != 1:
			c.errorf(cp.Value.Range, t.path+".canonical_unit", CodeValue, "canonical unit %q has multiplier %v; the canonical unit's multiplier is 1 (§9.1.2.2)", cu, m)
		default:
			s.canonical = cu
		}
	} else if ok && ones > 1 && s.canonical == "" {
		c.errorf(t.key, t.path, CodeMissingField, "scalar type %q has %d units of multiplier 1, so it must name its canonical_unit (§9.1.2.2)", t.name, ones)
	}
	t.scalar = s
}

// parseScalar2 reads a scalar value "<number> <unit>" of a concrete
// scalar type: the number in the type's data type and the quantity in
// the canonical unit.
func parseScalar2(s *scalarDef2, text string) (num, canon float64, unit string, err string) {
	text = strings.TrimSpace(text)
	i := strings.IndexAny(text, " \t")
	if i < 0 {
		return 0, 0, "", "a scalar is written \"<number> <unit>\""
	}
	numText, unit := text[:i], strings.TrimSpace(text[i+1:])
	n, perr := strconv.ParseFloat(strings.ReplaceAll(numText, "_", ""), 64)
	if perr != nil {
		if iv, ierr := strconv.ParseInt(numText, 0, 64); ierr == nil {
			n, perr = float64(iv), nil
		}
	}
	if perr != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, 0, "", quote(numText) + " is not a number"
	}
	m, ok := s.lookup(unit)
	if !ok {
		return 0, 0, "", quote(unit) + " is not a unit of the type"
	}
	cm, _ := s.lookup(s.canonicalUnit())
	if cm == 0 {
		cm = 1
	}
	return n, n * m / cm, unit, ""
}

// formatScalar2 renders a quantity in the canonical unit.
func formatScalar2(s *scalarDef2, canon float64) string {
	return strconv.FormatFloat(canon, 'f', -1, 64) + " " + s.canonicalUnit()
}
