package tosca2

// Scalar types of TOSCA 2.0 (§9.1.2.2): concrete scalar types derived
// from the abstract scalar, their units, prefixes and canonical unit, and
// scalar values "<number> <unit>". Errors are those listed in types.go.

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// scalarDef is a concrete scalar type's definition, inherited merged.
type scalarDef struct {
	dataType  *typeDef
	units     map[string]float64
	prefixes  map[string]float64
	canonical string
}

// lookup returns the multiplier of a unit as written: a unit, or, when
// prefixes are defined, a prefix followed by the one unit — then the unit
// alone only when "" is one of the prefixes (§9.1.2.2: prefixes "are
// prepended to the unit to obtain the unit string"; "" is what "allows use
// of the base unit without any prefix").
func (s *scalarDef) lookup(u string) (float64, bool) {
	if m, ok := s.units[u]; ok && len(s.prefixes) == 0 {
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

// canonicalUnit returns the unit values are stored in: the type's
// canonical_unit, else its unit of multiplier 1 (the first by name). With
// prefixes but no "" prefix the unit alone is not a unit string, so it is
// the prefixed unit whose multiplier is nearest 1: a canonical value must
// read back as a value of its type.
func (s *scalarDef) canonicalUnit() string {
	if s.canonical != "" {
		return s.canonical
	}
	best, bestScore := "", math.Inf(1)
	consider := func(u string, m float64) {
		score := math.Inf(1)
		if m > 0 {
			score = math.Abs(math.Log(m))
		}
		if best == "" || score < bestScore || (score == bestScore && u < best) {
			best, bestScore = u, score
		}
	}
	for u, m := range s.units {
		if len(s.prefixes) == 0 {
			consider(u, m)
			continue
		}
		for p, pm := range s.prefixes {
			consider(p+u, pm*m)
		}
	}
	return best
}

func (c *compiler) readScalarDef(t *typeDef, n *yamlsrc.Node) {
	s := &scalarDef{units: map[string]float64{}, prefixes: map[string]float64{}}
	inherited := t.scalar
	if inherited != nil {
		clone(s.units, inherited.units)
		clone(s.prefixes, inherited.prefixes)
		s.dataType, s.canonical = inherited.dataType, inherited.canonical
	} else {
		s.dataType = c.state.builtins["float"]
	}
	c.readScalarDataType(t, s, inherited, n)
	ok := c.readScalarUnits(t, s, inherited, n)
	ones := 0
	for _, m := range s.units {
		if m == 1 {
			ones++
		}
	}
	if ok && ones == 0 {
		c.Errorf(t.key, t.path+".units", core.CodeValue, "scalar type %q has no unit of multiplier 1 (§9.1.2.2)", t.name)
	}
	if cp, has := n.GetPair("canonical_unit"); has {
		c.readCanonicalUnit(t, s, inherited, cp)
	} else if ok && ones > 1 && s.canonical == "" {
		c.Errorf(t.key, t.path, core.CodeMissingField, "scalar type %q has %d units of multiplier 1, so it must name its canonical_unit (§9.1.2.2)", t.name, ones)
	}
	t.scalar = s
}

// readScalarDataType reads a scalar type's data_type into s: integer or
// float, or derived from them, and the one it inherits.
func (c *compiler) readScalarDataType(t *typeDef, s, inherited *scalarDef, n *yamlsrc.Node) {
	dn, ok := n.GetPair("data_type")
	if !ok {
		return
	}
	dt := c.typeRef(t.f, core.KData, dn.Value, t.path+".data_type")
	switch {
	case dt == nil:
	case dt.base != "integer" && dt.base != "float":
		c.Errorf(dn.Value.Range, t.path+".data_type", core.CodeValue, "the data_type of scalar type %q must be integer or float, or derived from them; %q is not", t.name, dt.name)
	case inherited != nil && dt != inherited.dataType:
		c.Errorf(dn.Value.Range, t.path+".data_type", core.CodeIncompatibleRefinement, "scalar type %q changes the data_type %q of the scalar type it derives from (§9.1.2.2)", t.name, inherited.dataType.name)
	default:
		s.dataType = dt
	}
}

// readScalarUnits reads a scalar type's units and prefixes into s; false
// when any is wrong (reported).
func (c *compiler) readScalarUnits(t *typeDef, s, inherited *scalarDef, n *yamlsrc.Node) bool {
	ok := true
	un, hasUnits := n.GetPair("units")
	switch {
	case !hasUnits && inherited == nil:
		c.Errorf(t.key, t.path, core.CodeMissingField, "scalar type %q is missing required field \"units\"", t.name)
		ok = false
	case hasUnits && un.Value.Kind != yamlsrc.Mapping:
		c.Errorf(un.Value.Range, t.path+".units", core.CodeWrongKind, "units must be a map of unit names to multipliers, found %s", un.Value.Describe())
		ok = false
	case hasUnits:
		ok = c.readScalarEntries(t, s, inherited, un.Value, "unit") && ok
	}
	if pn, has := n.GetPair("prefixes"); has {
		if pn.Value.Kind != yamlsrc.Mapping {
			c.Errorf(pn.Value.Range, t.path+".prefixes", core.CodeWrongKind, "prefixes must be a map of prefixes to multipliers, found %s", pn.Value.Describe())
			ok = false
		} else {
			ok = c.readScalarEntries(t, s, inherited, pn.Value, "prefix") && ok
			if len(s.units) != 1 {
				c.Errorf(pn.Key.Range, t.path+".prefixes", core.CodeValue, "scalar type %q defines prefixes and %d units; prefixes apply to one unit of multiplier 1 (§9.1.2.2)", t.name, len(s.units))
				ok = false
			}
		}
	}
	return ok
}

// readScalarEntries reads the units or the prefixes (what is "unit" or
// "prefix") into s: names, multipliers, and what a derived type may do
// with its inherited ones.
func (c *compiler) readScalarEntries(t *typeDef, s, inherited *scalarDef, m *yamlsrc.Node, what string) bool {
	into, section := s.units, ".units."
	if what == "prefix" {
		into, section = s.prefixes, ".prefixes."
	}
	intUnits := s.dataType != nil && s.dataType.base == "integer"
	good := true
	for _, p := range m.Pairs() {
		path := t.path + section + p.Key.Value
		if !c.unitName(p.Key, path, what, what == "prefix") {
			good = false
			continue
		}
		if mult, isNum := c.scalarMult(p.Value, path, what+" "+core.Quote(p.Key.Value), intUnits); isNum {
			good = c.extendScalar(t, inherited, into, p, mult, path, what) && good
		} else {
			good = false
		}
	}
	return good
}

// scalarMult reads the multiplier of a unit or prefix: an integer, or a
// float unless the data_type is integer.
func (c *compiler) scalarMult(m *yamlsrc.Node, path, what string, intUnits bool) (float64, bool) {
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
	c.Errorf(m.Range, path, core.CodeValue, "the multiplier of %s must be %s, found %s", what, want, m.Describe())
	return 0, false
}

// readCanonicalUnit reads a scalar type's canonical_unit into s: one of
// its units, of multiplier 1, and not added or changed by a derived type.
func (c *compiler) readCanonicalUnit(t *typeDef, s, inherited *scalarDef, cp yamlsrc.Pair) {
	cu := core.Text(cp.Value)
	switch m, found := s.lookup(cu); {
	case inherited != nil && inherited.canonical != "" && cu != inherited.canonical:
		c.Errorf(cp.Value.Range, t.path+".canonical_unit", core.CodeIncompatibleRefinement, "scalar type %q changes the canonical unit %q it inherits (§9.1.2.2)", t.name, inherited.canonical)
	case inherited != nil && inherited.canonical == "":
		c.Errorf(cp.Value.Range, t.path+".canonical_unit", core.CodeIncompatibleRefinement, "scalar type %q adds a canonical unit to the scalar type it derives from, which has none; a derived scalar type does not add one (§9.1.2.2)", t.name)
	case !found:
		c.Errorf(cp.Value.Range, t.path+".canonical_unit", core.CodeValue, "canonical unit %q is not a unit of scalar type %q", cu, t.name)
	case m != 1:
		c.Errorf(cp.Value.Range, t.path+".canonical_unit", core.CodeValue, "canonical unit %q has multiplier %v; the canonical unit's multiplier is 1 (§9.1.2.2)", cu, m)
	default:
		s.canonical = cu
	}
}

// unitName checks the name of a unit or prefix: a string without white
// space (§9.1.2.2: "<unit>: The YAML string, with no white space"); a unit
// is not empty, a prefix may be ("" allows the unit alone).
func (c *compiler) unitName(k *yamlsrc.Node, path, what string, emptyOK bool) bool {
	switch name := k.Value; {
	case name == "" && !emptyOK:
		c.Errorf(k.Range, path, core.CodeValue, "a %s name is not empty: a scalar is written \"<number> <unit>\" (§9.1.2.2)", what)
	case strings.ContainsFunc(name, unicode.IsSpace):
		c.Errorf(k.Range, path, core.CodeValue, "%s %q contains white space, which separates a scalar's number from its unit (§9.1.2.2)", what, name)
	default:
		return true
	}
	return false
}

// extendScalar adds a unit or prefix to a scalar type's map: a derived
// type may add entries (§9.1.2.2) but not change the multiplier of one it
// inherits (writing it again unchanged is allowed, §6.4.2).
func (c *compiler) extendScalar(t *typeDef, inherited *scalarDef, into map[string]float64, p yamlsrc.Pair, m float64, path, what string) bool {
	if inherited != nil {
		from := inherited.units
		if what == "prefix" {
			from = inherited.prefixes
		}
		if old, has := from[p.Key.Value]; has && old != m {
			c.Errorf(p.Value.Range, path, core.CodeIncompatibleRefinement, "scalar type %q changes the multiplier %v of %s %q it inherits to %v; a derived scalar type only adds %ss (§9.1.2.2)", t.name, old, what, p.Key.Value, m, what)
			return false
		}
	}
	into[p.Key.Value] = m
	return true
}

// parseScalar reads a scalar value "<number> <unit>" of a concrete
// scalar type: the number in the type's data type and the quantity in
// the canonical unit.
func parseScalar(s *scalarDef, text string) (num, canon float64, unit string, err string) {
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
		return 0, 0, "", core.Quote(numText) + " is not a number"
	}
	m, ok := s.lookup(unit)
	if _, bare := s.units[unit]; !ok && bare {
		return 0, 0, "", core.Quote(unit) + " is not a unit of the type: it has prefixes, and \"\" is not one of them to allow the unit alone"
	}
	if !ok {
		return 0, 0, "", core.Quote(unit) + " is not a unit of the type"
	}
	cm, _ := s.lookup(s.canonicalUnit())
	if cm == 0 {
		cm = 1
	}
	return n, n * m / cm, unit, ""
}

// formatScalar renders a quantity in the canonical unit.
func formatScalar(s *scalarDef, canon float64) string {
	return strconv.FormatFloat(canon, 'f', -1, 64) + " " + s.canonicalUnit()
}
