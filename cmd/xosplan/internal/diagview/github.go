package diagview

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// renderGitHub writes one GitHub Actions workflow command per diagnostic
// (`::error file=F,line=L,col=C,endLine=…,endColumn=…,title=CODE::message`)
// so that the runner turns them into annotations, then the verdict as a
// plain log line. endColumn is inclusive, as the annotation API counts it.
func renderGitHub(w io.Writer, ds diag.Diagnostics, opt Options) error {
	bw := bufio.NewWriter(w)
	for _, d := range ds {
		bw.WriteString("::" + d.Severity.String())
		var props []string
		msg := d.Summary
		if archive, _, ok := diag.SplitMember(d.Range.File); ok {
			// An annotation can only name a file of the repository: the
			// archive, with the member's position leading the message.
			props = append(props, "file="+escapeProperty(archive))
			msg = d.Range.String() + ": " + msg
		} else if r := d.Range; r.File != "" {
			props = append(props, "file="+escapeProperty(r.File))
			if r.Start.Line > 0 {
				props = append(props, "line="+strconv.Itoa(r.Start.Line), "col="+strconv.Itoa(max(r.Start.Column, 1)))
				switch {
				case r.End.Line > r.Start.Line:
					props = append(props, "endLine="+strconv.Itoa(r.End.Line))
				case r.End.Line == r.Start.Line && r.End.Column > r.Start.Column+1:
					props = append(props, "endLine="+strconv.Itoa(r.End.Line), "endColumn="+strconv.Itoa(r.End.Column-1))
				}
			}
		}
		if d.Code != "" {
			props = append(props, "title="+escapeProperty(d.Code))
		}
		if len(props) > 0 {
			bw.WriteString(" " + strings.Join(props, ","))
		}
		if d.Detail != "" {
			msg += "\n" + d.Detail
		}
		bw.WriteString("::" + escapeData(msg) + "\n")
	}
	bw.WriteString(verdictLine(ds, opt.Strict, false) + "\n")
	return bw.Flush()
}

// escapeData escapes a workflow command's message as the Actions toolkit
// does: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property value: the message
// escapes plus ':' and ',', which separate properties.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
