package planview

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/planner"
)

// MaxMarkdown is GitHub's limit on the length of a comment body.
const MaxMarkdown = 65536

// maxListed bounds the addresses listed per action group.
const maxListed = 100

// MarkdownOptions tune the pull-request comment.
type MarkdownOptions struct {
	// Title names what was planned (a folder, an environment); empty
	// means "xosplan plan".
	Title string
	// Limit is the maximum length in bytes; zero means MaxMarkdown.
	Limit int
	// Predictions are plan --check's (nil without it), shown after the
	// action groups in at most a quarter of Limit.
	Predictions []Prediction
	// ID names the configuration the comment is for (plan
	// --markdown-id), so that a bot planning several in one pull request
	// updates each one's comment: the marker becomes
	// <!-- xosplan:plan_id=… id=ID -->. The caller checks it is a
	// ValidMarkdownID.
	ID string
}

// ValidMarkdownID reports whether id may go in the comment's marker: 1 to
// 100 letters, digits, '.', '_', '-' and '/', nothing that could end the
// HTML comment or break a bot's match.
func ValidMarkdownID(id string) bool {
	if id == "" || len(id) > 100 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)) {
			return false
		}
	}
	return true
}

// Markdown renders the plan as a pull-request comment: a hidden marker with
// the plan_id (so a bot can find and update its comment), a status title,
// the summary line, a warning naming every resource destroyed or replaced,
// the addresses grouped by action, and the full text plan in a collapsed
// diff block. It never exceeds the limit (GitHub's 65,536): the diff block
// is truncated first, with a notice, and the lists are capped.
func Markdown(p *planner.Plan, opts MarkdownOptions) string {
	p = safePlan(p) // control characters as symbols (safe.go)
	limit := opts.Limit
	if limit <= 0 {
		limit = MaxMarkdown
	}
	title := opts.Title
	if title == "" {
		title = "xosplan plan"
	}
	return markdownDiff(p, markdownHead(p, title, opts.ID)+markdownPredictions(safePredictions(opts.Predictions), limit/4), limit)
}

// markdownHead is the part of the comment never truncated: the marker, the
// title, the summary, the destruction warning, the action groups and the
// placement.
func markdownHead(p *planner.Plan, title, id string) string {
	var head bytes.Buffer
	head.WriteString("<!-- xosplan:plan_id=" + p.PlanID)
	if id != "" {
		head.WriteString(" id=" + id)
	}
	head.WriteString(" -->\n")
	groups := groupByAction(p)
	var destructive []string
	for _, g := range groups {
		if g.destructive {
			for _, c := range g.changes {
				destructive = append(destructive, "`"+c.Address+"` ("+g.verb+")")
			}
		}
	}
	switch {
	case !p.HasChanges():
		head.WriteString("## :white_check_mark: " + title + ": no changes\n\n")
	case len(destructive) > 0:
		head.WriteString("## :warning: " + title + ": changes that destroy resources\n\n")
	default:
		head.WriteString("## :memo: " + title + ": changes\n\n")
	}
	head.WriteString("**" + SummaryLine(p) + "**\n\n")
	markdownDestructive(&head, destructive)
	for _, g := range groups {
		head.WriteString("#### " + g.title + " (" + strconv.Itoa(len(g.changes)) + ")\n\n")
		for i, c := range g.changes {
			if i == maxListed {
				head.WriteString("- … and " + strconv.Itoa(len(g.changes)-maxListed) + " more\n")
				break
			}
			markdownChange(&head, c)
		}
		head.WriteString("\n")
	}
	head.WriteString(markdownPlacement(p))
	return head.String()
}

// markdownDestructive writes the warning naming the resources destroyed or
// replaced, if there are any.
func markdownDestructive(head *bytes.Buffer, destructive []string) {
	if len(destructive) == 0 {
		return
	}
	head.WriteString("> [!WARNING]\n> :warning: This plan **destroys or replaces " + strconv.Itoa(len(destructive)) + " resource")
	if len(destructive) != 1 {
		head.WriteString("s")
	}
	head.WriteString("**:\n")
	for i, d := range destructive {
		if i == maxListed {
			head.WriteString("> - … and " + strconv.Itoa(len(destructive)-maxListed) + " more\n")
			break
		}
		head.WriteString("> - " + d + "\n")
	}
	head.WriteString("\n")
}

// markdownChange writes one change's list item: its address, the policy
// that derived it and the reason for it, where those say more than the
// group's title.
func markdownChange(head *bytes.Buffer, c *planner.ResourceChange) {
	head.WriteString("- `" + c.Address + "`")
	if c.DerivedBy != "" {
		head.WriteString(" (derived by policy `" + c.DerivedBy + "`)")
	}
	if c.Reason != planner.ReasonNone && c.Reason != planner.ReasonNotInState && c.Reason != planner.ReasonSpecChanged {
		head.WriteString(" — " + c.Reason.String())
		switch c.Reason {
		case planner.ReasonOperationChanged, planner.ReasonImplementationChanged:
			head.WriteString(": `" + strings.Join(c.ReasonPaths, "`, `") + "`")
		case planner.ReasonCannotUpdate:
			if reason, paths := operationCause(c); reason != planner.ReasonNone {
				head.WriteString(", " + reason.String() + ": `" + strings.Join(paths, "`, `") + "`")
			}
		}
	}
	head.WriteString("\n")
}

// markdownDiff returns the head out followed by the full text plan in a
// collapsed diff block, cut at a line with a notice when the whole
// comment would exceed limit.
func markdownDiff(p *planner.Plan, out string, limit int) string {
	var text bytes.Buffer
	_ = safeText(&text, p, TextOptions{})
	diffLines := diffStyle(strings.Split(strings.TrimRight(text.String(), "\n"), "\n"))
	fence := fenceFor(text.String())
	open := "<details><summary>Show the full plan (" + strconv.Itoa(len(diffLines)) + " lines)</summary>\n\n" + fence + "diff\n"
	closing := fence + "\n\n</details>\n"

	full := strings.Join(diffLines, "\n") + "\n"
	if len(out)+len(open)+len(full)+len(closing) <= limit {
		return out + open + full + closing
	}
	// Too long: keep the head whole, cut the diff at a line, say so.
	const noticeRoom = 300
	budget := limit - len(out) - len(open) - len(closing) - noticeRoom
	if budget <= 0 {
		return truncateBytes(out, limit)
	}
	var body strings.Builder
	kept := 0
	for _, l := range diffLines {
		if body.Len()+len(l)+1 > budget {
			break
		}
		body.WriteString(l)
		body.WriteByte('\n')
		kept++
	}
	notice := "\n> [!NOTE]\n> The plan was truncated after " + strconv.Itoa(kept) + " of " + strconv.Itoa(len(diffLines)) +
		" lines to fit in a comment. Run `xosplan show` on the saved plan file for the rest.\n"
	return out + open + body.String() + closing + notice
}

// truncateBytes cuts s to at most n bytes at a line boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// diffStyle moves each line's change symbol to the first column, where
// GitHub's diff highlighting looks for it: "+" green, "-" red, and "!" for
// in-place updates and replacements. The legend stays context, as written:
// its symbols explain the others and change nothing.
func diffStyle(lines []string) []string {
	out := make([]string, len(lines))
	legend := false
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if legend && trimmed != "" {
			out[i] = " " + l
			continue
		}
		legend = trimmed == legendIntroEnd
		switch {
		case strings.HasPrefix(trimmed, "-/+ "), strings.HasPrefix(trimmed, "+/- "):
			out[i] = "!" + l[1:]
		case strings.HasPrefix(trimmed, "+ "), trimmed == "+":
			out[i] = "+" + l[:indent] + trimmed[1:]
		case strings.HasPrefix(trimmed, "- "), trimmed == "-":
			out[i] = "-" + l[:indent] + trimmed[1:]
		case strings.HasPrefix(trimmed, "~ "):
			out[i] = "!" + l[:indent] + trimmed[1:]
		default:
			out[i] = " " + l
		}
	}
	return out
}

// fenceFor returns a backtick fence longer than any run in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

type actionGroup struct {
	title, verb string
	destructive bool
	changes     []*planner.ResourceChange
}

func groupByAction(p *planner.Plan) []actionGroup {
	groups := []actionGroup{
		{title: "Destroy", verb: "destroy", destructive: true},
		{title: "Replace", verb: "replace", destructive: true},
		{title: "Create", verb: "create"},
		{title: "Update in-place", verb: "update"},
		{title: "Read", verb: "read"},
		{title: "Forget", verb: "forget"},
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		g := -1
		switch c.Action {
		case planner.Delete:
			g = 0
		case planner.DeleteThenCreate, planner.CreateThenDelete:
			g = 1
		case planner.Create:
			g = 2
		case planner.Update:
			g = 3
		case planner.Read:
			g = 4
		case planner.Forget:
			g = 5
		}
		if g >= 0 {
			groups[g].changes = append(groups[g].changes, c)
		}
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.changes) > 0 {
			out = append(out, g)
		}
	}
	return out
}
