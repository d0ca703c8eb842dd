package views

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// Status is the view of `xosplan status`: what a running sync answered on
// GET /v1/status, as a summary line, the configuration's diagnostics and a
// table of resources, or (--json) the answer as the sync sent it, since
// the API's JSON is the contract a script reads.
type Status interface {
	// Answer renders body, the answer of the sync at addr. The human view
	// reads it as a sync.Status and fails, naming addr, when it is none;
	// the JSON view writes it unchanged.
	Answer(addr string, body []byte) error
}

// NewStatus returns the JSON view (json) or the human one.
func NewStatus(json bool, s *Streams) Status {
	if json {
		return statusJSON{s}
	}
	return statusText{s}
}

type statusJSON struct{ s *Streams }

func (v statusJSON) Answer(_ string, body []byte) error {
	_, err := v.s.Stdout.Write(body)
	return err
}

type statusText struct{ s *Streams }

func (v statusText) Answer(addr string, body []byte) error {
	var st xsync.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return fmt.Errorf("the answer of %s is not a status: %w", addr, err)
	}
	w := v.s.Stdout
	if c := st.Cluster; c != nil && c.Role == xsync.RoleFollower {
		// A follower plans nothing: it runs the actions the leader hands
		// out, and the leader's status shows the resources.
		if err := clusterText(w, c); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w, "Ask the leader for the resources (its API, or xosplan status --listen on its address).")
		return err
	}
	ready := "not ready"
	if st.Ready {
		ready = "ready"
	}
	fmt.Fprintf(w, "Sync %s: %d reconciles, last %s", ready, st.Reconciles, orDash(st.LastOutcome))
	if st.LastReconcile != nil {
		fmt.Fprintf(w, " at %s", st.LastReconcile.Format(time.RFC3339))
	}
	fmt.Fprintf(w, "; %d waiting for a retry.\n", st.RetryQueue)
	for _, d := range st.Diagnostics {
		fmt.Fprintf(w, "%s: %s: %s\n", termsafe.String(d.At), d.Severity, termsafe.String(d.Summary))
	}
	if c := st.Cluster; c != nil {
		if err := clusterText(w, c); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if st.Cluster != nil {
		fmt.Fprintln(tw, "ADDRESS\tSTATUS\tLAST CHECK\tRUNNING ON\tWAITING")
	} else {
		fmt.Fprintln(tw, "ADDRESS\tSTATUS\tLAST CHECK\tWAITING")
	}
	for _, r := range st.Resources {
		if r.Drift != "" {
			r.Status += " (drifted: " + termsafe.String(r.Drift) + ")"
		}
		check := "-"
		if r.LastCheck != nil {
			check = r.LastCheck.Format(time.RFC3339)
		}
		if st.Cluster != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.String(r.Address), r.Status, check, termsafe.String(orDash(r.RunningOn)),
				termsafe.String(orDash(r.Waiting)))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termsafe.String(r.Address), r.Status, check, termsafe.String(orDash(r.Waiting)))
	}
	return tw.Flush()
}

// clusterText shows the members of a cluster of synchronizers: who leads,
// who is alive, and what each runs now.
func clusterText(w io.Writer, c *xsync.ClusterStatus) error {
	leader := "no member leads now"
	if c.Leader != "" {
		leader = "led by " + termsafe.String(c.Leader)
	}
	fmt.Fprintf(w, "Cluster of workspace %s, %s; this is %s, a %s.\n", termsafe.String(c.Workspace), leader, termsafe.String(c.Member), c.Role)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tHOST\tALIVE\tACTIONS AT ONCE\tRUNNING")
	for _, m := range c.Members {
		name := termsafe.String(m.Member)
		if m.Leader {
			name += " (leader)"
		}
		alive := "yes"
		if !m.Alive {
			alive = "no"
		}
		running := "-"
		if len(m.Running) > 0 {
			running = termsafe.String(strings.Join(m.Running, ", "))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", name, termsafe.String(m.Host), alive, m.Capacity, running)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// orDash stands "-" for an empty cell, so that the columns stay readable.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
