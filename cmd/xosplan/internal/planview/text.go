package planview

import (
	"bytes"
	"github.com/xosplan/xosplan/driver"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/internal/textdiff"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// TextOptions tune the human rendering.
type TextOptions struct {
	// Color adds ANSI colours; the command decides (terminal, NO_COLOR).
	Color bool
	// Recording says that the command records the drift of a refresh-only
	// plan itself (xosplan refresh) rather than offering the plan to
	// apply.
	Recording bool
}

// legendIntroEnd is the line after which the legend of symbols follows, up
// to a blank line (Markdown keeps the legend as diff context).
const legendIntroEnd = "symbols:"

// Fixed lines that CI tools parse; they match Terraform's wording.
const (
	noChangesLine        = "No changes. Your infrastructure matches the configuration."
	noChangesDestroyLine = "No changes. No objects need to be destroyed."
	noChangesRefreshLine = "No changes. Your infrastructure still matches the configuration."
)

// SummaryLine returns "Plan: X to add, Y to change, Z to destroy." (with
// ", N to forget" before the period when something is forgotten), or the
// matching "No changes." sentence when the plan changes nothing.
func SummaryLine(p *planner.Plan) string {
	if !p.HasChanges() {
		switch p.Mode {
		case planner.ModeDestroy:
			return noChangesDestroyLine
		case planner.ModeRefreshOnly:
			return noChangesRefreshLine
		}
		return noChangesLine
	}
	if p.Mode == planner.ModeRefreshOnly {
		return "Plan: 0 to add, 0 to change, 0 to destroy."
	}
	s := p.Summary
	line := "Plan: " + strconv.Itoa(s.Add) + " to add, " + strconv.Itoa(s.Change) + " to change, " +
		strconv.Itoa(s.Destroy) + " to destroy"
	if s.Forget > 0 {
		line += ", " + strconv.Itoa(s.Forget) + " to forget"
	}
	return line + "."
}

// Text writes the plan as a reviewer reads it in a terminal: the legend
// of the symbols used, one block per resource with field-level changes in
// apply order, and the summary line. Sensitive values are never written;
// a changed one shows as "(sensitive value)".
func Text(w io.Writer, p *planner.Plan, opts TextOptions) error {
	return safeText(w, safePlan(p), opts) // control characters as symbols (safe.go)
}

// safeText is Text of a plan safePlan has converted already (Markdown's).
func safeText(w io.Writer, p *planner.Plan, opts TextOptions) error {
	r := &renderer{color: opts.Color, recording: opts.Recording}
	r.plan(p)
	_, err := w.Write(r.buf.Bytes())
	return err
}

// ANSI escapes, used only when TextOptions.Color is set.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

type renderer struct {
	buf       bytes.Buffer
	color     bool
	recording bool
}

func (r *renderer) paint(code, s string) string {
	if !r.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// sym colours a change symbol.
func (r *renderer) sym(s string) string {
	switch strings.TrimSpace(s) {
	case "+":
		return r.paint(ansiGreen, s)
	case "-":
		return r.paint(ansiRed, s)
	case "~":
		return r.paint(ansiYellow, s)
	case "<=":
		return r.paint(ansiCyan, s)
	case "-/+", "+/-":
		return r.paint(ansiYellow, s)
	}
	return s
}

func (r *renderer) line(parts ...string) {
	for _, p := range parts {
		r.buf.WriteString(p)
	}
	r.buf.WriteByte('\n')
}

func (r *renderer) plan(p *planner.Plan) {
	if len(p.Drift) > 0 {
		r.drift(p)
	}
	var shown []*planner.ResourceChange
	for i := range p.Changes {
		if p.Changes[i].Action != planner.NoOp {
			shown = append(shown, &p.Changes[i])
		}
	}
	if len(shown) > 0 {
		r.line()
		r.line("xosplan compared the configuration with the recorded state and made the")
		r.line("following execution plan. Resource actions are indicated with the following")
		r.line(legendIntroEnd)
		r.legend(shown)
		r.line()
		r.line("xosplan will perform the following actions:")
		for _, c := range shown {
			r.line()
			r.change(c)
		}
		r.line()
	}
	r.placementSummary(p)
	if p.HasChanges() {
		r.line(r.paint(ansiBold, "Plan:") + strings.TrimPrefix(SummaryLine(p), "Plan:"))
		return
	}
	r.line()
	r.line(r.paint(ansiBold+ansiGreen, SummaryLine(p)))
	r.line()
	switch p.Mode {
	case planner.ModeDestroy:
		r.line("Either you have not created any objects yet or the existing objects were")
		r.line("already deleted outside of xosplan.")
	case planner.ModeRefreshOnly:
		r.line("xosplan has checked that the real remote objects still match the result of")
		r.line("your most recent changes, and found no differences.")
	default:
		r.line("xosplan has compared your real infrastructure against your configuration")
		r.line("and found no differences, so no changes are needed.")
	}
}

func (r *renderer) legend(shown []*planner.ResourceChange) {
	used := map[planner.Action]bool{}
	imports := false
	for _, c := range shown {
		if c.Imports() {
			imports = true
			continue
		}
		used[c.Action] = true
	}
	for _, l := range []struct {
		a    planner.Action
		sym  string
		text string
	}{
		{planner.Create, "  +", "create"},
		{planner.Update, "  ~", "update in-place"},
		{planner.Delete, "  -", "destroy"},
		{planner.DeleteThenCreate, "-/+", "destroy and then create replacement"},
		{planner.CreateThenDelete, "+/-", "create replacement and then destroy"},
		{planner.Read, " <=", "read (unmanaged resources)"},
		{planner.Forget, "  .", "forget (remove from state; the object is left alone)"},
	} {
		if used[l.a] {
			r.line(r.sym(l.sym), " ", l.text)
		}
		if l.a == planner.Read && imports {
			r.line(r.sym(importSymbol), " ", "import (adopt the existing object an import filter finds)")
		}
	}
}

// header returns the "# addr will be …" comment and the "(because …)" note.
func header(c *planner.ResourceChange) (string, string) {
	return headLine(c), becauseNote(c)
}

// headLine is the "# addr will be …" comment of c.
func headLine(c *planner.ResourceChange) string {
	a := c.Address
	var head string
	switch c.Action {
	case planner.Create:
		head = a + " will be created"
		if c.Imports() {
			head = a + " will be imported"
		}
		if c.Reruns() {
			head = a + " will be created again"
			if c.Driver.Name == graph.DriverScripted {
				head = a + " will be launched again"
			}
		}
	case planner.Read:
		head = a + " will be read during apply"
	case planner.Update:
		head = a + " will be updated in-place"
	case planner.Delete:
		head = a + " will be destroyed"
	case planner.Forget:
		head = a + " will be removed from the state"
	case planner.DeleteThenCreate, planner.CreateThenDelete:
		switch c.Reason {
		case planner.ReasonReplaceRequested:
			head = a + " will be replaced, as requested"
		default:
			head = a + " must be replaced"
		}
	}
	if c.DerivedBy != "" {
		head += ", derived by policy " + c.DerivedBy
	}
	return head
}

// becauseNote is the "(because …)" note of c, empty when c needs none.
func becauseNote(c *planner.ResourceChange) string {
	a := c.Address
	var because string
	switch c.Reason {
	case planner.ReasonNoResourceConfig:
		because = a + " is not in configuration"
		if c.DerivedBy != "" {
			because = "policy " + c.DerivedBy + " no longer derives it"
		}
	case planner.ReasonDependencyReplaced:
		if c.Action.IsReplace() {
			because = "it is hosted on or reads " + strings.Join(c.ForcedBy, ", ") + ", which is replaced or created"
		} else {
			because = "it reads values of " + strings.Join(c.ForcedBy, ", ") + ", which is replaced or created"
		}
	case planner.ReasonLastApplyFailed:
		because = "its last apply did not succeed"
	case planner.ReasonInstanceFailed:
		because = "its last health check found it failed"
	case planner.ReasonTouched:
		because = "touched: it was saved without change, so it is actuated again"
	case planner.ReasonOperationChanged, planner.ReasonImplementationChanged:
		because = operationsBecause(c.Reason, c.ReasonPaths)
	case planner.ReasonTypeChanged:
		because = "its type changed from " + c.PriorType + " to " + c.Type
	case planner.ReasonCannotUpdate:
		because = "its driver cannot update it in place"
		if reason, paths := operationCause(c); reason != planner.ReasonNone {
			because = operationsBecause(reason, paths) + ", and " + because
		}
	case planner.ReasonUnmanagedRead:
		because = "it is unmanaged: xosplan only looks it up"
	case planner.ReasonHostChanged:
		because = "it moves to " + strings.Join(c.ForcedBy, ", ")
	case planner.ReasonTargetChanged:
		because = "the target of its relationship, " + strings.Join(c.ForcedBy, ", ") + ", runs again: only " + strings.Join(c.ReasonPaths, ", ") + " will run, if the target's attributes change"
	}
	if c.Action == planner.Forget {
		// A destroy gives no reason of its own to join.
		if because == "" {
			because = "it is unmanaged; nothing is deleted"
		} else {
			because = "it is unmanaged and " + because + "; nothing is deleted"
		}
	}
	return because
}

// operationsBecause words an operation reason (planner.OperationReason)
// with its paths.
func operationsBecause(reason planner.Reason, paths []string) string {
	if reason == planner.ReasonImplementationChanged {
		return "the implementation of " + strings.Join(paths, ", ") + " changed"
	}
	return "its operations changed: " + strings.Join(paths, ", ")
}

// operationCause is planner.OperationReason of the change's operation
// paths: what a replacement because the driver cannot update in place
// names besides, when what changed is in the operations. The paths of c
// are converted (safePlan), its operation keys not: they are converted
// here so that the paths are matched to the keys they start with.
func operationCause(c *planner.ResourceChange) (planner.Reason, []string) {
	if len(c.OperationPaths) == 0 {
		return planner.ReasonNone, nil
	}
	return planner.OperationReason(c.OperationPaths, safeOperationKeys(c.PriorOperations), safeOperationKeys(c.Driver.Operations))
}

// safeOperationKeys returns ops with its keys converted as safePlan
// converts paths; ops itself when no key changes.
func safeOperationKeys(ops map[string]graph.Operation) map[string]graph.Operation {
	changed := false
	for k := range ops {
		if termsafe.String(k) != k {
			changed = true
			break
		}
	}
	if !changed {
		return ops
	}
	out := make(map[string]graph.Operation, len(ops))
	for k, op := range ops {
		out[termsafe.String(k)] = op
	}
	return out
}

// importSymbol marks a create that adopts an existing object
// (planner.ResourceChange.Imports): like a read, it looks the object up.
const importSymbol = " <="

func symbolOf(a planner.Action) string {
	switch a {
	case planner.Create:
		return "  +"
	case planner.Read:
		return " <="
	case planner.Update:
		return "  ~"
	case planner.Delete:
		return "  -"
	case planner.Forget:
		return "  ."
	case planner.DeleteThenCreate:
		return "-/+"
	case planner.CreateThenDelete:
		return "+/-"
	}
	return "   "
}

func (r *renderer) change(c *planner.ResourceChange) {
	head, because := header(c)
	r.line(r.paint(ansiBold, "  # "+head))
	if because != "" {
		r.line("  # (because ", because, ")")
	}
	if pl := placementNote(c.Placement); pl != "" {
		r.line("  # (", pl, ")")
	}
	if c.Action == planner.Read {
		r.line("  # (", termsafe.String(LookupNote(c)), ")")
	}
	if c.Imports() {
		r.line("  # (", termsafe.String("by filter "+driver.KeysText(c.Import)), "; the object is adopted, not created)")
	}
	kind, sym := "resource", symbolOf(c.Action)
	switch {
	case c.Action == planner.Read:
		kind = "data"
	case c.Imports():
		kind, sym = "import", importSymbol
	}
	r.line(r.sym(sym), " ", kind, " ", strconv.Quote(c.Type), " ", strconv.Quote(c.Address), " {")
	changed := c.ChangedPaths
	if c.Reason == planner.ReasonDependencyReplaced {
		// Values read from a replaced dependency change at apply time.
		changed = append(slices.Clone(changed), c.ReasonPaths...)
	}
	d := newDiffer(c.Sensitive, changed, nil)
	d.setBy = c.SetByPolicy
	if c.Action.IsReplace() && c.Reason != planner.ReasonDependencyReplaced {
		d.forcing = c.ReasonPaths
	}
	before, after := shownValues(c)
	r.mapBody(d, 6, "", before, after, before != nil, after != nil, false)
	r.operations(c)
	r.line("    }")
}

// LookupNote says how the read of c finds its object: `by name =
// "mysite"` (its lookup keys), and "not checked: nothing can look it up"
// when its driver has no lookup operation.
func LookupNote(c *planner.ResourceChange) string {
	var parts []string
	if len(c.Lookup) > 0 {
		parts = append(parts, "by "+driver.KeysText(c.Lookup))
	}
	switch {
	case !c.Checked():
		parts = append(parts, driver.NotCheckedStatus)
	case len(parts) == 0:
		parts = append(parts, "by its lookup operation alone")
	}
	return strings.Join(parts, "; ")
}

// operations shows, in an update or replacement, the operations whose
// definition changed (OperationPaths) or whose inputs read a replaced
// dependency, in the form planner.OperationValues gives them: an
// "operations" map of operation keys, unchanged ones counted, sensitive
// inputs masked. Text reaches it converted (safePlan) but for the
// operations, converted here, keys and paths alike.
func (r *renderer) operations(c *planner.ResourceChange) {
	if c.Action != planner.Update && !c.Action.IsReplace() {
		return
	}
	changed := c.OperationPaths
	if c.Reason == planner.ReasonDependencyReplaced {
		for _, p := range c.ReasonPaths {
			if readsInput(p, c.Driver.Operations) {
				changed = append(slices.Clone(changed), p)
			}
		}
	}
	if len(changed) == 0 {
		return
	}
	prior := c.PriorOperations
	if prior == nil {
		prior = c.Driver.Operations
	}
	before, _ := safeMap(planner.OperationValues(prior))
	after, _ := safeMap(planner.OperationValues(c.Driver.Operations))
	var s sanitizer
	var forcing []string
	if c.Reason == planner.ReasonCannotUpdate {
		// Every operation path that changed forces the replacement.
		forcing = c.OperationPaths
	}
	d := newDiffer(s.strs(planner.OperationSensitivePaths(prior, c.Driver.Operations)), changed, forcing)
	r.line(pad(6), r.sym("~"), " operations = {")
	r.mapBody(d, 10, "", before, after, true, true, true)
	r.line(pad(8), "}")
}

// readsInput reports whether p, a path of ResourceChange.ReasonPaths as
// safePlan converted it, is the path of an input of one of ops.
func readsInput(p string, ops map[string]graph.Operation) bool {
	for k := range ops {
		if strings.HasPrefix(p, termsafe.String(k)+".inputs.") {
			return true
		}
	}
	return false
}

func (r *renderer) drift(p *planner.Plan) {
	r.line()
	r.line(r.paint(ansiBold, "Note: Objects have changed outside of xosplan"))
	r.line()
	r.line("xosplan detected the following changes made outside of xosplan since the")
	r.line("last \"xosplan apply\":")
	for i := range p.Drift {
		dr := &p.Drift[i]
		r.line()
		r.line(r.paint(ansiBold, "  # "+dr.Address+" has changed"))
		r.line(r.sym("  ~"), " resource ", strconv.Quote(dr.Type), " ", strconv.Quote(dr.Address), " {")
		r.mapBody(newDiffer(nil, dr.Paths, nil), 6, "", dr.Before, dr.After, true, true, false)
		r.line("    }")
	}
	r.line()
	if r.recording {
		r.line("xosplan will not take any actions to undo these: it records the updated")
		r.line("values in the xosplan state without changing any remote objects.")
		return
	}
	r.line("This is a refresh-only plan, so xosplan will not take any actions to undo")
	r.line("these. If you were expecting these changes then you can apply this plan to")
	r.line("record the updated values in the xosplan state without changing any remote")
	r.line("objects.")
}

// differ knows, for a dot path, whether it is sensitive, changed, or
// forces replacement. Changed-ness comes from the plan's ChangedPaths, so
// a plan read from a file (sensitive values redacted) renders the same.
type differ struct {
	sensitive []string
	changed   []string
	forcing   []string
	// setBy maps the paths a model policy set to its name
	// (planner.ResourceChange.SetByPolicy).
	setBy map[string]string
}

// setNote is the " # (set by policy NAME)" note of a value a model
// policy set at path, "" for one the configuration gives.
func (d *differ) setNote(path string) string {
	if name, ok := d.setBy[path]; ok {
		return " # (set by policy " + name + ")"
	}
	return ""
}

func newDiffer(sensitive, changed, forcing []string) *differ {
	c := slices.Clone(changed)
	slices.Sort(c)
	return &differ{sensitive: sensitive, changed: c, forcing: forcing}
}

func (d *differ) isSensitive(path string) bool {
	for _, s := range d.sensitive {
		if path == s || strings.HasPrefix(path, s+".") {
			return true
		}
	}
	return false
}

// hasSensitiveBelow reports whether some sensitive path lies under path.
func (d *differ) hasSensitiveBelow(path string) bool {
	for _, s := range d.sensitive {
		if strings.HasPrefix(s, path+".") {
			return true
		}
	}
	return false
}

func (d *differ) isChanged(path string) bool {
	for i := sort.SearchStrings(d.changed, path); i < len(d.changed) && strings.HasPrefix(d.changed[i], path); i++ {
		if len(d.changed[i]) == len(path) || d.changed[i][len(path)] == '.' {
			return true
		}
	}
	return false
}

// hasChangedBelow reports whether some changed path lies under path.
func (d *differ) hasChangedBelow(path string) bool {
	i := sort.SearchStrings(d.changed, path+".")
	return i < len(d.changed) && strings.HasPrefix(d.changed[i], path+".")
}

func (d *differ) forces(path string) bool { return slices.Contains(d.forcing, path) }

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func pad(n int) string { return strings.Repeat(" ", max(n, 0)) }

// entry is one rendered attribute or element before alignment.
type entry struct {
	sym, key string
	// single is the text after "= " for a one-line entry; nested entries
	// render themselves through body.
	single string
	body   func(indent int)
}

// mapBody renders the entries of a map at indent (the column of the
// change symbol). Keys of nested maps are quoted, as Terraform does.
func (r *renderer) mapBody(d *differ, indent int, prefix string, before, after map[string]graph.Value, hasBefore, hasAfter, quoted bool) {
	keys := planner.UnionKeys(before, after)
	var entries []entry
	hidden := 0
	for _, k := range keys {
		path := join(prefix, k)
		b, inB := before[k]
		a, inA := after[k]
		key := k
		if quoted {
			key = strconv.Quote(k)
		}
		switch {
		case hasBefore && hasAfter && inB && inA && !d.isChanged(path):
			hidden++
		case hasBefore && hasAfter && inB && inA:
			entries = append(entries, r.changed(d, path, key, b, a))
		case hasAfter && inA:
			entries = append(entries, r.added(d, path, key, a, "+"))
		case hasBefore && inB:
			entries = append(entries, r.removed(d, path, key, b))
		}
	}
	r.emit(entries, indent)
	if hidden > 0 {
		what := "attribute"
		if quoted {
			what = "element"
		}
		r.hidden(indent, hidden, what)
	}
}

// shownValues are the values of c the plan shows before and after: no
// values before a create, none after a delete or a forget.
func shownValues(c *planner.ResourceChange) (before, after map[string]graph.Value) {
	before, after = c.Before, c.After
	switch c.Action {
	case planner.Create:
		before = nil
	case planner.Delete, planner.Forget:
		after = nil
	}
	return before, after
}

func (r *renderer) hidden(indent, n int, what string) {
	s := what
	if n != 1 {
		s += "s"
	}
	r.line(pad(indent+2), "# (", strconv.Itoa(n), " unchanged ", s, " hidden)")
}

// emit writes entries, aligning the "=" of one-line entries.
func (r *renderer) emit(entries []entry, indent int) {
	width := 0
	for _, e := range entries {
		if e.body == nil {
			width = max(width, len(e.key))
		}
	}
	for _, e := range entries {
		if e.body != nil {
			e.body(indent)
			continue
		}
		r.line(pad(indent), r.sym(e.sym), " ", e.key, pad(width-len(e.key)), " = ", e.single)
	}
}

func isNested(v graph.Value) bool {
	switch x := v.(type) {
	case map[string]graph.Value:
		return len(x) > 0
	case []graph.Value:
		return len(x) > 0
	case string:
		return strings.Contains(x, "\n")
	}
	return false
}

// scalar renders a value on one line: JSON for known values, a marker for
// unknown ones.
func scalar(v graph.Value) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case graph.Unknown:
		return "(known after apply)"
	case map[string]graph.Value, []graph.Value:
		if graph.HasUnknown(x) {
			return "(known after apply)"
		}
	}
	return graph.Render(v)
}

// prior renders a value on the before side: an Unknown there is an
// expression that was enacted, so it is shown as written rather than as
// "(known after apply)", which would be untrue of a value already applied.
func prior(v graph.Value) string {
	if graph.HasUnknown(v) {
		return expression(v)
	}
	return scalar(v)
}

const sensitiveValue = "(sensitive value)"

func (r *renderer) added(d *differ, path, key string, v graph.Value, sym string) entry {
	if d.isSensitive(path) {
		return entry{sym: sym, key: key, single: sensitiveValue}
	}
	if _, unknown := v.(graph.Unknown); unknown || !isNested(v) {
		return entry{sym: sym, key: key, single: scalar(v) + d.setNote(path)}
	}
	return entry{sym: sym, key: key, body: func(indent int) {
		r.nested(d, indent, path, key, sym, v, d.setNote(path))
	}}
}

func (r *renderer) removed(d *differ, path, key string, v graph.Value) entry {
	if d.isSensitive(path) {
		return entry{sym: "-", key: key, single: sensitiveValue + " -> null"}
	}
	if !isNested(v) {
		return entry{sym: "-", key: key, single: prior(v) + " -> null"}
	}
	return entry{sym: "-", key: key, body: func(indent int) {
		r.nested(d, indent, path, key, "-", v, " -> null")
	}}
}

// nested writes a whole map, list or multi-line string added or removed.
func (r *renderer) nested(d *differ, indent int, path, key, sym string, v graph.Value, suffix string) {
	switch x := v.(type) {
	case map[string]graph.Value:
		r.line(pad(indent), r.sym(sym), " ", key, " = {")
		if sym == "-" {
			r.mapBody(d, indent+4, path, x, nil, true, false, true)
		} else {
			r.mapBody(d, indent+4, path, nil, x, false, true, true)
		}
		r.line(pad(indent+2), "}", suffix)
	case []graph.Value:
		r.line(pad(indent), r.sym(sym), " ", key, " = [")
		for i, e := range x {
			p := join(path, strconv.Itoa(i))
			switch {
			case d.isSensitive(p) || d.hasSensitiveBelow(p):
				r.line(pad(indent+4), r.sym(sym), " ", sensitiveValue, ",")
			case isNested(e) && !graph.HasUnknown(e):
				r.line(pad(indent+4), r.sym(sym), " ", graph.Render(e), ",")
			case sym == "-":
				r.line(pad(indent+4), r.sym(sym), " ", prior(e), ",")
			default:
				r.line(pad(indent+4), r.sym(sym), " ", scalar(e), ",")
			}
		}
		r.line(pad(indent+2), "]", suffix)
	case string:
		r.line(pad(indent), r.sym(sym), " ", key, " = <<-EOT")
		for _, l := range strings.Split(strings.TrimSuffix(x, "\n"), "\n") {
			r.line(pad(indent+6), l)
		}
		r.line(pad(indent+2), "EOT", suffix)
	}
}

func (r *renderer) changed(d *differ, path, key string, b, a graph.Value) entry {
	note := d.setNote(path)
	if d.forces(path) {
		note += r.paint(ansiRed, " # forces replacement")
	}
	if d.isSensitive(path) {
		return entry{sym: "~", key: key, single: sensitiveValue + note}
	}
	if graph.HasUnknown(a) && graph.Equal(b, a) && !d.hasSensitiveBelow(path) && !d.hasChangedBelow(path) {
		// Unchanged expression, new value: it reads a replaced dependency.
		return entry{sym: "~", key: key, single: "(known after apply)" + note}
	}
	bm, bIsMap := b.(map[string]graph.Value)
	am, aIsMap := a.(map[string]graph.Value)
	if bIsMap && aIsMap {
		return entry{sym: "~", key: key, body: func(indent int) {
			r.line(pad(indent), r.sym("~"), " ", key, " = {", note)
			r.mapBody(d, indent+4, path, bm, am, true, true, true)
			r.line(pad(indent+2), "}")
		}}
	}
	bl, bIsList := b.([]graph.Value)
	al, aIsList := a.([]graph.Value)
	if bIsList && aIsList && !d.hasSensitiveBelow(path) {
		return entry{sym: "~", key: key, body: func(indent int) {
			r.line(pad(indent), r.sym("~"), " ", key, " = [", note)
			r.listBody(d, indent+4, path, bl, al)
			r.line(pad(indent+2), "]")
		}}
	}
	bs, bIsStr := b.(string)
	as, aIsStr := a.(string)
	if bIsStr && aIsStr && (strings.Contains(bs, "\n") || strings.Contains(as, "\n")) {
		return entry{sym: "~", key: key, body: func(indent int) {
			r.line(pad(indent), r.sym("~"), " ", key, " = <<-EOT", note)
			r.textDiff(indent, bs, as)
			r.line(pad(indent+2), "EOT")
		}}
	}
	if d.hasSensitiveBelow(path) {
		return entry{sym: "~", key: key, single: sensitiveValue + note}
	}
	return entry{sym: "~", key: key, single: prior(b) + " -> " + scalar(a) + note}
}

// listBody shows a changed list: element by element when the lengths
// match, otherwise every old element removed and every new one added.
func (r *renderer) listBody(d *differ, indent int, path string, b, a []graph.Value) {
	if len(b) == len(a) {
		hidden := 0
		for i := range b {
			p := join(path, strconv.Itoa(i))
			if !d.isChanged(p) {
				hidden++
				continue
			}
			r.line(pad(indent), r.sym("~"), " ", prior(b[i]), " -> ", scalar(a[i]), ",")
		}
		if hidden > 0 {
			r.hidden(indent, hidden, "element")
		}
		return
	}
	for _, e := range b {
		r.line(pad(indent), r.sym("-"), " ", prior(e), ",")
	}
	for _, e := range a {
		r.line(pad(indent), r.sym("+"), " ", scalar(e), ",")
	}
}

// contextLines is how many unchanged lines stay visible around a change
// in a multi-line string diff.
const contextLines = 2

func (r *renderer) textDiff(indent int, before, after string) {
	lines := textdiff.Lines(before, after)
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l.Op == textdiff.Equal {
			continue
		}
		for j := max(0, i-contextLines); j <= min(len(lines)-1, i+contextLines); j++ {
			keep[j] = true
		}
	}
	skipped := 0
	flush := func() {
		if skipped > 0 {
			r.hidden(indent+4, skipped, "line")
			skipped = 0
		}
	}
	for i, l := range lines {
		if !keep[i] {
			skipped++
			continue
		}
		flush()
		switch l.Op {
		case textdiff.Equal:
			r.line(pad(indent+6), l.Text)
		case textdiff.Insert:
			r.line(pad(indent+4), r.sym("+"), " ", l.Text)
		case textdiff.Delete:
			r.line(pad(indent+4), r.sym("-"), " ", l.Text)
		}
	}
	flush()
}

// placementNote says where a resource lands: "placed on cn1: DISK_GB=10,
// VCPU=2", with "kept" when it keeps its recorded allocations.
func placementNote(pd *planner.PlacementDecision) string {
	if pd == nil || len(pd.Allocations) == 0 {
		return ""
	}
	parts := make([]string, 0, len(pd.Allocations))
	for _, a := range pd.Allocations {
		classes := make([]string, 0, len(a.Resources))
		for rc := range a.Resources {
			classes = append(classes, rc)
		}
		sort.Strings(classes)
		amounts := make([]string, len(classes))
		for i, rc := range classes {
			amounts[i] = rc + "=" + strconv.FormatInt(a.Resources[rc], 10)
		}
		parts = append(parts, a.Provider+": "+strings.Join(amounts, ", "))
	}
	note := "placed on " + strings.Join(parts, "; ")
	if pd.Kept {
		note += "; kept from the last apply"
	}
	return note
}
