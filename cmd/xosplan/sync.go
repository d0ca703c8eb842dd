package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	stdsync "sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/uievent"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	xsync "github.com/xosplan/xosplan/pkg/sync"
	"github.com/xosplan/xosplan/pkg/sync/pgcluster"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// defaultListen is where sync's API listens unless --listen says
// otherwise: loopback only.
const defaultListen = "127.0.0.1:8420"

// syncFlags are the flags of `xosplan sync`.
type syncFlags struct {
	apply          applyFlags
	retryBase      time.Duration
	retryMax       time.Duration
	healthInterval time.Duration
	// checkDrift and checkDriftTimeout are the drift check's
	// (xsync.Options.CheckDrift).
	checkDrift, checkDriftTimeout time.Duration
	checkDriftRepair              bool
	resync                        time.Duration
	debounce                      time.Duration
	poll                          time.Duration
	listen                        string
	listenFile                    string
	tokenFile                     string
	logFormat                     string
	memberName                    string
	lease                         time.Duration
}

func newSyncCommand(c *cli) *cobra.Command {
	var f syncFlags
	cmd := &cobra.Command{
		Use:   "sync [flags] [PATH...]",
		Short: "Keep the real objects at the configuration's goal, continuously",
		Long: `Sync runs until it is interrupted and keeps the resources at the goal the configuration
(PATHs as plan reads them; the current folder when none is given) describes:

- A reconcile plans the configuration against the state and applies what differs, exactly as
  plan and apply do (the same reasons, the same journal). It runs at the start, when a file
  of the configuration or a script it names changes (file notifications, debounced, backed by
  a poll every --poll-interval), on SIGHUP, on POST /v1/sync, after a health check found
  drift, and when a retry is due.
- A resource that fails is retried after --retry-base, doubling up to --retry-max (with
  jitter), while independent resources go on; what depends on it waits and names it. A
  failure no retry can mend (a missing script) and a configuration with errors wait for the
  configuration to change.
- Every resource with a health check is checked every --health-interval (a scripted
  component's factory.healthCheckInterval, or a TOSCA node template's metadata
  xosplan.health_interval, overrides it), jittered; a failed or missing
  instance is repaired by the next reconcile. A factory with discovery settings runs its
  discovery script on its Quartz schedule and records what it finds. Every resource is
  checked and the configuration compiled again every --resync; the time of the last one is
  kept in the state, so a restart does not check everything at once.
- With --check-drift INTERVAL (off by default: it runs playbooks against the hosts), every
  configured resource whose operations are Ansible playbooks has the playbooks an update
  would run (configure) run in check mode with --diff every INTERVAL, jittered, each bounded
  by --check-drift-timeout, changing nothing (a playbook that sets check_mode: false is
  skipped); predicted changes are drift, reported in the events, the log, the drift metric
  and status. With --check-drift-repair the resource is also recorded failed, as a failed
  health check, and the next reconcile runs its playbooks again (its create over the
  recorded object); without it the drift is reported only.

Sync holds the state lock for its whole run: apply, destroy and a second sync refuse while it
runs; plan still works. With a PostgreSQL state (--state postgres://…), several syncs on
different machines, each with the same configuration checkout, share the workspace as a
cluster: one leads (it holds the lease and the state lock, plans and schedules) and every
member, the leader included, runs the actions the leader hands out through a job queue in the
database. A member whose checkout differs from the leader's runs none of them; when the leader
stops, another takes over within --lease.

Its API listens on --listen (loopback by default): GET /v1/status, GET /v1/resources/{address},
GET /v1/events (server-sent events), POST /v1/sync, POST /v1/resources/{address}/check,
POST /v1/resources/{address}/feedback (an observation recorded as the resource's feedback,
never its spec: an event step), POST /v1/resources/{address}/resync, GET /healthz, GET /readyz,
GET /metrics, and the web console at /. A token (--api-token-file) is required for every
request that is not a GET, and for every request when the listener is not on a loopback
address; without --api-token-file on a loopback listener, sync makes one in a file only its
user reads (STATE.api-token beside a file state) and removes it when it stops. Requests from a
web page of another origin and POST bodies that are not JSON are refused; at most 64 event
streams are served at once. xosplan status asks a running sync, with the token sync made for
the same --state.

Logs go to stderr, text or JSON (--log-format json). On SIGINT or SIGTERM nothing new starts,
running actions get --grace to finish, the state is saved, and sync exits 0.`,
		Example: `  xosplan sync examples/petclinic
  xosplan sync --health-interval 30s --log-format json --listen 127.0.0.1:9000 stack/
  curl -X POST -H "Authorization: Bearer $(cat token)" http://127.0.0.1:8420/v1/sync`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSync(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	f.apply.state.add(fs)
	f.apply.root.add(fs)
	f.apply.addRun(fs)
	f.apply.inputs.add(fs)
	f.apply.imports.add(fs)
	f.apply.imports.addLimits(fs)
	f.apply.placement.add(fs)
	fs.DurationVar(&f.retryBase, "retry-base", xsync.DefaultRetryBase, "wait `DURATION` before retrying a failed resource, doubled after each failure")
	fs.DurationVar(&f.retryMax, "retry-max", xsync.DefaultRetryMax, "never wait longer than `DURATION` between two retries")
	fs.DurationVar(&f.healthInterval, "health-interval", xsync.DefaultHealthInterval, "run each resource's health check every `DURATION`")
	fs.DurationVar(&f.checkDrift, "check-drift", 0, "every `INTERVAL`, run the playbooks an update of each configured resource would run in Ansible's check mode and report predicted changes as drift (0: never)")
	fs.DurationVar(&f.checkDriftTimeout, "check-drift-timeout", xsync.DefaultCheckDriftTimeout, "bound each resource's drift check, its check-mode runs together (`DURATION`)")
	fs.BoolVar(&f.checkDriftRepair, "check-drift-repair", false, "record a resource the drift check found drifted as failed, so that the next reconcile runs its playbooks again (default: report only)")
	fs.DurationVar(&f.resync, "resync", xsync.DefaultResync, "check every resource and compile the configuration again at least every `DURATION`")
	fs.DurationVar(&f.debounce, "debounce", 500*time.Millisecond, "wait for files to stay unchanged `DURATION` before reconciling")
	fs.DurationVar(&f.poll, "poll-interval", xsync.DefaultPoll, "also compare the files every `DURATION`, where notifications do not arrive (0: never)")
	fs.StringVar(&f.listen, "listen", defaultListen, "serve the API on `ADDRESS` (host:port; empty: no API)")
	fs.StringVar(&f.listenFile, "listen-file", "", "write the address the API listens on to `FILE` (for --listen with port 0)")
	fs.StringVar(&f.tokenFile, "api-token-file", "", "require the token in `FILE` (Authorization: Bearer TOKEN) for requests that are not GETs, and for all on a non-loopback listener (default on loopback: a token sync makes, beside the state)")
	fs.StringVar(&f.logFormat, "log-format", "text", "write the log as `FORMAT`: text or json")
	fs.StringVar(&f.memberName, "member-name", "", "with a PostgreSQL state, this process's `NAME` in the cluster of syncs sharing the workspace (default: the host name; the member is NAME:PID)")
	fs.DurationVar(&f.lease, "lease", pgcluster.DefaultLease, "with a PostgreSQL state, how long the leader's lease and each membership last unrenewed (`DURATION`; renewed every third of it)")
	return cmd
}

func (f *syncFlags) check(cmd *cobra.Command) error {
	switch {
	case f.apply.parallelism < 1:
		return usagef(cmd, "--parallelism must be at least 1")
	case f.logFormat != "text" && f.logFormat != "json":
		return usagef(cmd, "--log-format must be text or json, not %q", f.logFormat)
	case f.retryBase <= 0 || f.retryMax < f.retryBase:
		return usagef(cmd, "--retry-base must be positive and --retry-max at least --retry-base")
	case f.healthInterval < time.Second || f.resync < time.Second:
		return usagef(cmd, "--health-interval and --resync must be at least 1s")
	case f.checkDrift != 0 && f.checkDrift < time.Second:
		return usagef(cmd, "--check-drift must be 0 (off) or at least 1s")
	case f.checkDriftTimeout <= 0:
		return usagef(cmd, "--check-drift-timeout must be positive")
	case f.poll < 0 || f.debounce < 0:
		return usagef(cmd, "--poll-interval and --debounce cannot be negative")
	case f.lease < time.Second:
		return usagef(cmd, "--lease must be at least 1s")
	}
	return nil
}

func runSync(cmd *cobra.Command, c *cli, f syncFlags, paths []string) error {
	ctx := cmd.Context()
	if err := f.check(cmd); err != nil {
		return err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	setup, err := f.setup(cmd, c, paths)
	if err != nil {
		return err
	}
	if setup.diags.HasErrors() {
		return planFailed(views.NewPlan(false, c.stderr, c.streams()), setup.diags)
	}
	logger := newSyncLogger(c.stderr, f.logFormat)

	backend, err := f.apply.state.open(ctx, c)
	if err != nil {
		return err
	}
	defer backend.Close()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reasons, stopReasons := signalReasons(hup, "SIGHUP")
	defer stopReasons()
	svc, err := xsync.NewService(f.serviceOptions(c, setup, backend, logger, reasons))
	if err != nil {
		return err
	}
	err = svc.Run(ctx)
	if errors.Is(err, syscall.EADDRINUSE) {
		// Two syncs on one machine both take the default 127.0.0.1:8420.
		return fmt.Errorf("%w: another program, such as another xosplan sync, listens on %s; give this sync "+
			"another --listen ADDRESS (127.0.0.1:0 picks a free port and --listen-file records it), or --listen '' for no API", err, f.listen)
	}
	return err
}

// syncSetup is what the flags of a sync give its service.
type syncSetup struct {
	applyOpts executor.Options
	// token is the API's token; empty: none.
	token string
	spec  workflow.Spec
	diags diag.Diagnostics
}

// setup reads the flags and the files they name that a sync of paths
// needs before it opens the state, in this order: the apply options, the
// configuration root, the API token and the spec.
func (f *syncFlags) setup(cmd *cobra.Command, c *cli, paths []string) (syncSetup, error) {
	ctx := cmd.Context()
	applyOpts, err := f.apply.options(c)
	if err != nil {
		return syncSetup{}, usagef(cmd, "%v", err)
	}
	root, err := f.apply.root.root(c, paths)
	if err != nil {
		return syncSetup{}, usagef(cmd, "%v", err)
	}
	if err := workflow.RefuseArchives(paths); err != nil {
		return syncSetup{}, err
	}
	token, err := readToken(ctx, f.tokenFile)
	if err != nil {
		return syncSetup{}, usagef(cmd, "%v", err)
	}
	if f.listen != "" && !xsync.IsLoopback(f.listen) && token == "" {
		return syncSetup{}, usagef(cmd, "--listen %s is not a loopback address: give --api-token-file, whose token every request must then carry", f.listen)
	}
	spec, diags, err := f.spec(cmd, c, paths, root)
	if err != nil {
		return syncSetup{}, err
	}
	return syncSetup{applyOpts: applyOpts, token: token, spec: spec, diags: diags}, nil
}

// serviceOptions are the options of the sync service of setup over
// backend, reconciling also for reasons.
func (f *syncFlags) serviceOptions(c *cli, setup syncSetup, backend state.Store, logger *slog.Logger, reasons <-chan string) xsync.ServiceOptions {
	dsn, workspace := f.apply.state.where(c)
	return xsync.ServiceOptions{Spec: setup.spec, Diags: setup.diags, Placement: f.apply.placement.workflow(c),
		Store: backend, LockInfo: stateLockInfo("sync"), Apply: setup.applyOpts, Timeout: f.apply.timeout,
		RetryBase: f.retryBase, RetryMax: f.retryMax, HealthInterval: f.healthInterval, Resync: f.resync,
		CheckDrift: f.checkDrift, CheckDriftTimeout: f.checkDriftTimeout, CheckDriftRepair: f.checkDriftRepair,
		Debounce: f.debounce, Poll: pollOption(f.poll), Logger: logger, Events: logApplyEvent(logger),
		API: xsync.ServiceAPI{Listen: f.listen, ListenFile: f.listenFile, Token: setup.token, Encode: encodeSyncEvent,
			TokenPath: func(port string) (string, error) { return apiTokenPath(c, &f.apply.state, port) }},
		Reconcile: reasons,
		// With a PostgreSQL state, several syncs share the workspace as a
		// cluster: the leader takes the state lock for its term. Otherwise
		// this sync holds the lock for its whole run.
		Join: pgcluster.Joiner(pgcluster.Options{DSN: dsn, Workspace: cmp.Or(workspace, pgbackend.DefaultWorkspace),
			Name: f.memberName, Lease: f.lease})}
}

// spec reads the inputs, the import map and the placement options into
// the spec every compile of the goal uses.
func (f *syncFlags) spec(cmd *cobra.Command, c *cli, paths []string, root *config.Root) (workflow.Spec, diag.Diagnostics, error) {
	a := &f.apply
	inputs, importMap, diags, err := readValues(cmd, c, &a.inputs, &a.imports)
	if err != nil {
		return workflow.Spec{}, nil, err
	}
	placeOpts, diags := a.placement.workflow(c).PlanOptions(cmd.Context(), diags)
	return workflow.Spec{Paths: paths, Root: root, Inputs: inputs, ImportMap: importMap,
		ProfilePath: a.imports.profilePath(c), SpecLimits: a.imports.specLimits(), ScriptRoot: a.scriptRoot, Options: planner.Options{Placement: placeOpts}}, diags, nil
}

// signalReasons turns each signal received on sig into a request for a
// reconcile for reason, until stop is called, which waits for the
// goroutine that does it to end.
func signalReasons(sig <-chan os.Signal, reason string) (reasons <-chan string, stop func()) {
	out, done := make(chan string), make(chan struct{})
	var wg stdsync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-sig:
				select {
				case out <- reason:
				case <-done:
					return
				}
			}
		}
	})
	return out, func() { close(done); wg.Wait() }
}

// pollOption maps --poll-interval (0: never) to WatchOptions.Poll.
func pollOption(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// maxTokenBytes bounds an API token file.
const maxTokenBytes = 4096

// readToken reads the API token from path ("" for none): the file's
// content without surrounding space.
func readToken(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, err := userfile.Read(ctx, path, userfile.Options{MaxBytes: maxTokenBytes})
	if err != nil {
		return "", fmt.Errorf("--api-token-file: %w", workflow.PlainError(err))
	}
	token := strings.TrimSpace(string(data))
	if token == "" || strings.ContainsAny(token, "\r\n") {
		return "", fmt.Errorf("--api-token-file %s must hold one non-empty line", path)
	}
	return token, nil
}

// newSyncLogger returns sync's logger on w.
func newSyncLogger(w io.Writer, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// logApplyEvent logs what the apply walks do, one line per step start
// and end (the scripts' output lines stay in the activity log and the
// event stream). Everything an event holds was redacted by the walk.
func logApplyEvent(logger *slog.Logger) func(xsync.Event) {
	return func(ev xsync.Event) {
		x := ev.Apply
		if x == nil {
			return
		}
		attrs := []any{"address", x.Address, "action", x.Action}
		switch x.Type {
		case executor.EventStart:
			logger.Info("action started", attrs...)
		case executor.EventComplete:
			attrs = append(attrs, "elapsed", x.Elapsed.Round(time.Millisecond))
			if x.Detail != "" {
				attrs = append(attrs, "detail", x.Detail)
			}
			logger.Info("action complete", attrs...)
		case executor.EventConverging:
			logger.Info("converging", attrs...)
		case executor.EventErrored:
			logger.Warn("action failed", append(attrs, "error", x.Error)...)
		case executor.EventSkipped:
			logger.Info("waiting", append(attrs, "on", x.Cause)...)
		}
	}
}

// encodeSyncEvent renders an event for GET /v1/events: an apply's events
// exactly as `apply --json` prints them, the engine's own in the same
// envelope (uievent).
func encodeSyncEvent(ev xsync.Event) ([]byte, bool) {
	if ev.Apply != nil {
		var buf bytes.Buffer
		applyview.NewJSON(&buf, func() time.Time { return ev.Time }).Event(*ev.Apply)
		return buf.Bytes(), buf.Len() > 0
	}
	level, msg := "info", ""
	fields := map[string]any{}
	if ev.Address != "" {
		fields["hook"] = map[string]any{"resource": map[string]any{"addr": ev.Address}}
	}
	switch ev.Type {
	case xsync.EventReconcileStart:
		msg = "reconcile started (" + ev.Message + ")"
		fields["reason"] = ev.Message
	case xsync.EventReconcileEnd:
		msg = "reconcile ended: " + ev.Outcome
		fields["outcome"] = ev.Outcome
		fields["elapsed_seconds"] = ev.Elapsed.Seconds()
		if ev.Message != "" {
			fields["error"] = ev.Message
			level = "warn"
		}
		if rep := ev.Report; rep != nil {
			fields["changes"] = map[string]any{"add": rep.Added, "change": rep.Changed, "remove": rep.Destroyed,
				"failed": rep.Failed, "skipped": rep.Skipped, "not_started": rep.NotStarted}
		}
	case xsync.EventDrift, xsync.EventHeld:
		level, msg = "warn", ev.Address+": "+ev.Message
	case xsync.EventDiscovery:
		msg = fmt.Sprintf("%s: discovery found %d unmanaged instances", ev.Address, ev.Count)
		fields["unmanaged_instances"] = ev.Count
	case xsync.EventResync:
		msg = ev.Address + ": " + ev.Message
	default:
		return nil, false
	}
	line, err := uievent.Line(ev.Time, level, msg, ev.Type, fields)
	return line, err == nil
}
