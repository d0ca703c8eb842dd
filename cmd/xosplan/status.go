package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// statusFlags are the flags of `xosplan status`.
type statusFlags struct {
	listen     string
	listenFile string
	tokenFile  string
	state      stateFlags
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
configuration, a resource it depends on). --json prints the API's answer as it is. It sends
the token of --api-token-file, else the one a sync without --api-token-file made for the
state (--state, as sync was given it).

Exit status: 0 success, 1 when no sync answers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStatus(cmd.Context(), c, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.listen, "listen", defaultListen, "the `ADDRESS` the sync's API listens on")
	fs.StringVar(&f.listenFile, "listen-file", "", "read the address from `FILE` (sync --listen-file)")
	fs.StringVar(&f.tokenFile, "api-token-file", "", "send the token in `FILE` (default: the token the sync made for --state)")
	f.state.addRead(fs)
	fs.BoolVar(&f.json, "json", false, "print the API's JSON answer")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after `DURATION`")
	return cmd
}

func runStatus(ctx context.Context, c *cli, f statusFlags) error {
	addr := f.listen
	if f.listenFile != "" {
		data, err := userfile.Read(ctx, f.listenFile, userfile.Options{MaxBytes: 1024})
		if err != nil {
			return fmt.Errorf("--listen-file: %w", workflow.PlainError(err))
		}
		addr = strings.TrimSpace(string(data))
	}
	token, err := statusToken(ctx, c, f, addr)
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
	return views.NewStatus(f.json, c.streams()).Answer(addr, body)
}
