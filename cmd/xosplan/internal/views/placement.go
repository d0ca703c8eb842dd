package views

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/diagview"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/placement"
)

// Inventory is what the placement subcommands show of a provider inventory
// file: its problems, as validate shows them, on stdout.
type Inventory interface {
	InventoryDiagnostics(diags diag.Diagnostics) error
}

// Candidates is the view of `xosplan placement candidates`: the answer to
// an allocation-candidates query, as text or (--format json) in
// Placement's own response shape.
type Candidates interface {
	Inventory
	// Candidates renders the answer res to q under microversion v, and,
	// when nothing fits, why providers were excluded.
	Candidates(q placement.Query, v placement.Version, res *placement.Candidates, why []placement.Exclusion) error
}

// NewCandidates returns the view of format: "text" or "json".
func NewCandidates(format string, s *Streams) (Candidates, error) {
	switch format {
	case "text":
		return &candidatesText{inventoryView{s}}, nil
	case "json":
		return &candidatesJSON{inventoryView{s}}, nil
	}
	return nil, fmt.Errorf("%q is not one of text, json", format)
}

type inventoryView struct{ s *Streams }

func (v inventoryView) InventoryDiagnostics(diags diag.Diagnostics) error {
	return v.s.diagnostics(v.s.Stdout, diagview.Text, diags, false)
}

type candidatesJSON struct{ inventoryView }

func (v *candidatesJSON) Candidates(_ placement.Query, ver placement.Version, res *placement.Candidates, _ []placement.Exclusion) error {
	out := append(res.AppendPlacementJSON(nil, ver, "  "), '\n')
	_, err := v.s.Stdout.Write(out)
	return err
}

type candidatesText struct{ inventoryView }

func (v *candidatesText) Candidates(q placement.Query, _ placement.Version, res *placement.Candidates, why []placement.Exclusion) error {
	return writeCandidatesText(v.s.Stdout, q, res, why)
}

func writeCandidatesText(w io.Writer, q placement.Query, res *placement.Candidates, why []placement.Exclusion) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Query: %s\n", q.String())
	switch n := len(res.Requests); n {
	case 0:
		fmt.Fprintln(tw, "No allocation candidates.")
	case 1:
		fmt.Fprintln(tw, "1 allocation candidate:")
	default:
		fmt.Fprintf(tw, "%d allocation candidates:\n", n)
	}
	for i, r := range res.Requests {
		fmt.Fprintf(tw, "  %d. %s\n", i+1, candidateLine(r))
	}
	if res.Truncated {
		fmt.Fprintf(tw, "Stopped after %d combinations (the cap); more candidates may exist.\n", res.Examined)
	}
	if len(res.Requests) == 0 && len(why) > 0 {
		fmt.Fprintln(tw, "Why providers were excluded:")
		for _, e := range why {
			group := ""
			if e.Group != "" {
				group = " (group " + e.Group + ")"
			}
			fmt.Fprintf(tw, "  %s%s\t%s\t%s\n", e.Provider, group, e.Reason, e.Detail)
		}
	}
	return tw.Flush()
}

// candidateLine is one candidate: the amounts per provider, and which
// providers satisfy each request group when there are groups.
func candidateLine(r placement.AllocationRequest) string {
	var parts []string
	for j, a := range r.Resources {
		if j == 0 || a.Provider != r.Resources[j-1].Provider {
			parts = append(parts, a.Provider+": ")
		} else {
			parts[len(parts)-1] += ", "
		}
		parts[len(parts)-1] += fmt.Sprintf("%s %d", a.Class, a.Amount)
	}
	line := strings.Join(parts, "; ")
	if len(r.Mappings) > 1 || (len(r.Mappings) == 1 && r.Mappings[0].Suffix != "") {
		var groups []string
		for _, g := range r.Mappings {
			label := g.Suffix
			if label == "" {
				label = "(unsuffixed)"
			}
			groups = append(groups, label+"="+strings.Join(g.Providers, ","))
		}
		line += "   [" + strings.Join(groups, " ") + "]"
	}
	return line
}

// TraitVerdict is what `placement traits --validate` found a name to be.
type TraitVerdict int

// Trait verdicts.
const (
	TraitStandard TraitVerdict = iota
	TraitCustom
	TraitBadCustom
	TraitUnknown
	// TraitAbsent: well formed, but the Placement service asked
	// (--placement-url) does not list it.
	TraitAbsent
)

// Traits is the view of `xosplan placement traits`: one trait name per
// line, or one verdict per name checked.
type Traits interface {
	Inventory
	// List renders trait names.
	List(names []string)
	// Checked renders the verdict on one name.
	Checked(name string, verdict TraitVerdict)
}

// NewTraits returns the view of placement traits.
func NewTraits(s *Streams) Traits { return &traitsText{inventoryView{s}} }

type traitsText struct{ inventoryView }

func (v *traitsText) List(names []string) {
	for _, t := range names {
		fmt.Fprintln(v.s.Stdout, t)
	}
}

func (v *traitsText) Checked(name string, verdict TraitVerdict) {
	switch verdict {
	case TraitStandard:
		fmt.Fprintf(v.s.Stdout, "%s: standard trait\n", name)
	case TraitCustom:
		fmt.Fprintf(v.s.Stdout, "%s: valid custom trait\n", name)
	case TraitBadCustom:
		fmt.Fprintf(v.s.Stdout, "%s: invalid: a custom trait is CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters\n", name)
	case TraitAbsent:
		fmt.Fprintf(v.s.Stdout, "%s: unknown to the Placement service (GET /traits?name=in: does not list it)\n", name)
	default:
		fmt.Fprintf(v.s.Stdout, "%s: invalid: not a standard trait of os-traits 3.9.0 and not CUSTOM_\n", name)
	}
}
