package planview

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/planner"
)

// placed lists the changes that carry a placement decision, by address.
func placed(p *planner.Plan) []*planner.ResourceChange {
	var out []*planner.ResourceChange
	for i := range p.Changes {
		if c := &p.Changes[i]; isPlaced(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// isPlaced reports whether c carries a placement decision that the
// placement summary shows, no-op or not.
func isPlaced(c *planner.ResourceChange) bool {
	return c.Placement != nil && len(c.Placement.Allocations) > 0
}

// placementCells renders a decision as its providers and their amounts
// ("compute-2", "MEMORY_MB=2048, VCPU=2").
func placementCells(pd *planner.PlacementDecision) (providers, amounts string) {
	var ps, as []string
	for _, a := range pd.Allocations {
		ps = append(ps, a.Provider)
		classes := make([]string, 0, len(a.Resources))
		for rc := range a.Resources {
			classes = append(classes, rc)
		}
		sort.Strings(classes)
		for _, rc := range classes {
			as = append(as, rc+"="+strconv.FormatInt(a.Resources[rc], 10))
		}
	}
	return strings.Join(ps, "+"), strings.Join(as, ", ")
}

// placementSummary writes the "Placement:" section of the human plan: one
// aligned line per placed resource, kept placements marked, so a reader
// sees every host choice at once, no-ops included.
func (r *renderer) placementSummary(p *planner.Plan) {
	list := placed(p)
	if len(list) == 0 {
		return
	}
	width := 0
	for _, c := range list {
		width = max(width, len(c.Address))
	}
	r.line(r.paint(ansiBold, "Placement:"))
	for _, c := range list {
		provs, amounts := placementCells(c.Placement)
		note := ""
		if c.Placement.Kept {
			note = " (kept)"
		}
		r.line("  ", c.Address, pad(width-len(c.Address)), "  -> ", provs, " (", amounts, ")", note)
	}
	if p.HasChanges() {
		// "No changes." brings its own blank line.
		r.line()
	}
}

// markdownPlacement is the pull-request comment's placement table.
func markdownPlacement(p *planner.Plan) string {
	list := placed(p)
	if len(list) == 0 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString("#### Placement (" + strconv.Itoa(len(list)) + ")\n\n| resource | provider | resources |\n|---|---|---|\n")
	for i, c := range list {
		if i == maxListed {
			b.WriteString("| … and " + strconv.Itoa(len(list)-maxListed) + " more | | |\n")
			break
		}
		provs, amounts := placementCells(c.Placement)
		if c.Placement.Kept {
			provs += " (kept)"
		}
		b.WriteString("| `" + c.Address + "` | " + provs + " | " + amounts + " |\n")
	}
	b.WriteString("\n")
	return b.String()
}
