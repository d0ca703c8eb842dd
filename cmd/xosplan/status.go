package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/internal/userfile"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// statusFlags are the flags of `xosplan status`.
type statusFlags struct {
	listen     string
	listenFile string
	tokenFile  string
	json       bool
	timeout    time.Duration
}

// maxStatusBytes bounds the answer status reads.
const maxStatusBytes = 64 << 20

func newStatusCommand(c *cli) *cobra.Command {
	var f statusFlags
	cmd := &cobra.Command{
		Use:   "status [flags]",
		Short: "Show what a running sync is doing",
		Long: `Status asks a running xosplan sync over its API (GET /v1/status) and shows each resource:
its status, when it was last checked, and why it waits (a retry, a change of the
configuration, a resource it depends on). --json prints the API's answer as it is.

Exit status: 0 success, 1 when no sync answers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStatus(cmd.Context(), c, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.listen, "listen", defaultListen, "the `ADDRESS` the sync's API listens on")
	fs.StringVar(&f.listenFile, "listen-file", "", "read the address from `FILE` (sync --listen-file)")
	fs.StringVar(&f.tokenFile, "api-token-file", "", "send the token in `FILE`")
	fs.BoolVar(&f.json, "json", false, "print the API's JSON answer")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after `DURATION`")
	return cmd
}

func runStatus(ctx context.Context, c *cli, f statusFlags) error {
	addr := f.listen
	if f.listenFile != "" {
		data, err := userfile.Read(ctx, f.listenFile, userfile.Options{MaxBytes: 1024})
		if err != nil {
			return fmt.Errorf("--listen-file: %w", plainError(err))
		}
		addr = strings.TrimSpace(string(data))
	}
	token, err := readToken(ctx, f.tokenFile)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/v1/status", nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("no sync answers on %s: %w", addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStatusBytes))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.Unmarshal(body, &e)
		return fmt.Errorf("the sync on %s answered %s: %s", addr, resp.Status, termsafe.String(e.Error))
	}
	if f.json {
		_, err := c.stdout.Write(body)
		return err
	}
	var st xsync.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return fmt.Errorf("the answer of %s is not a status: %w", addr, err)
	}
	return writeStatus(c.stdout, &st)
}

// writeStatus renders a sync's status for a person.
func writeStatus(w io.Writer, st *xsync.Status) error {
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
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDRESS\tSTATUS\tLAST CHECK\tWAITING")
	for _, r := range st.Resources {
		check := "-"
		if r.LastCheck != nil {
			check = r.LastCheck.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termsafe.String(r.Address), r.Status, check, termsafe.String(orDash(r.Waiting)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
