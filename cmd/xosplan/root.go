package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
)

// commands lists every xosplan subcommand (help lists them sorted by
// name). A new command is a file with a newXxxCommand(*cli) constructor and
// one line here; there is no other registry.
func commands(c *cli) []*cobra.Command {
	return []*cobra.Command{
		newValidateCommand(c),
		newPlanCommand(c),
		newApplyCommand(c),
		newDestroyCommand(c),
		newShowCommand(c),
		newOutputCommand(c),
		newImportCommand(c),
		newGraphCommand(c),
		newLSPCommand(c),
		newSchemaCommand(c),
		newRefreshCommand(c),
		newSyncCommand(c),
		newStatusCommand(c),
		newInvokeCommand(c),
		newStateCommand(c),
		newWorkspaceCommand(c),
		newPlacementCommand(c),
		newVersionCommand(c),
		newCompletionCommand(c),
	}
}

// Exit statuses shared by every command (DESIGN §4); commands with
// --detailed-exitcode add 2 for "there are changes".
const (
	exitOK    = 0
	exitError = 1
)

// cli is what every command may use of the process: its streams, its
// environment and the root's persistent flags. It is passed explicitly;
// there are no package-level flag variables.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// noColor is the root's --no-color flag.
	noColor bool
	// chdir is the root's -chdir=DIR.
	chdir chdirFlag
	// sources holds the text of the files diagnostics show snippets of.
	sources *sourceCache
	// abort ends at a second interrupt: running actions stop at once
	// (executor.Options.Abort); nil: never.
	abort context.Context
	// singleDash holds the long flag names typed with one dash (-json),
	// which messages name as typed (cli.flag).
	singleDash map[string]bool
}

// errInterrupted is the cause with which an interrupt cancels a command's
// context, so that what stops says "interrupted", not "context canceled".
var errInterrupted = errors.New("interrupted")

// errStopped completes the message of a command an interrupt stopped.
var errStopped = errors.New("the command stopped before it finished")

// run executes one xosplan invocation and returns its exit status. It
// never panics and never prints a stack trace: every failure is one line
// on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runAbortable(ctx, nil, args, stdin, stdout, stderr)
}

// runAbortable is run where abort ends at a second interrupt (see
// runProcess).
func runAbortable(ctx, abort context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "Error: internal error: %v (this is a bug in xosplan; please report it with the command line)\n", r)
			code = exitError
		}
	}()
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, sources: newSourceCache(), abort: abort, singleDash: singleDashNames(args)}
	root := newRootCommand(c)
	root.SetArgs(terraformSpellings(root, args))
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var st *exitStatus
	if errors.Is(context.Cause(ctx), errInterrupted) && errors.Is(err, context.Canceled) && !errors.As(err, &st) {
		// Whatever stopped with "context canceled", an interrupt is why.
		err = fmt.Errorf("%w: %w", errInterrupted, errStopped)
	}
	if errors.As(err, &st) {
		if st.err != nil {
			printError(stderr, st.err)
		}
		return st.code
	}
	printError(stderr, withLockHint(err))
	var ue *usageError
	if errors.As(err, &ue) && ue.cmd != "" {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ue.cmd)
	}
	return exitError
}

func printError(w io.Writer, err error) {
	// One line: multi-line errors (errors.Join) are folded with "; ".
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	fmt.Fprintf(w, "Error: %s\n", msg)
}

func newRootCommand(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "xosplan",
		Short: "Validate, plan and apply TOSCA service templates, XOS recipes and Tonomi manifests",
		Long: `xosplan compiles declarative service descriptions (TOSCA Simple Profile in YAML 1.0-1.3
and TOSCA 2.0 service templates, XOS recipes and Tonomi-style application manifests) into one
resource graph, plans the changes against recorded state, applies them (scripts, Ansible
playbooks, Tonomi script components), and with sync keeps them at their goal.

Start with: xosplan validate DIR, xosplan plan -out=plan.bin DIR, xosplan apply plan.bin.
Every command has --help; the reference and a tutorial are in the project's docs/ folder
(also as man pages: man xosplan).

Long flags take one dash or two, as Terraform users type them: -out=FILE and --out=FILE,
-auto-approve, -var NAME=VALUE, -json, -detailed-exitcode. -chdir=DIR, before the command,
runs it as if started in DIR: xosplan -chdir=infra plan -out=plan.bin.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += fmt.Sprintf("; did you mean %q?", s[0])
				}
				return &usageError{cmd: cmd.CommandPath(), err: errors.New(msg)}
			}
			return nil
		},
		// Without this, "xosplan" alone would print help and exit 0, which
		// hides a broken CI invocation.
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &usageError{cmd: cmd.CommandPath(), err: errors.New("no command given")}
		},
	}
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	// --version prints what `xosplan version` prints.
	root.SetVersionTemplate(buildInfo().VersionText())
	root.CompletionOptions.DisableDefaultCmd = true
	root.SuggestionsMinimumDistance = 2
	root.PersistentFlags().BoolVar(&c.noColor, "no-color", false, "never colour the output (NO_COLOR in the environment does the same)")
	c.chdir.add(root.PersistentFlags())
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return c.chdir.apply(cmd) }
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd: cmd.CommandPath(), err: c.flagError(cmd, err)}
	})
	for _, sub := range commands(c) {
		root.AddCommand(sub)
	}
	return root
}

// exitStatus is an error that sets the exit status. A nil err means the
// command has already reported everything (diagnostics, a plan), so run
// prints nothing more.
type exitStatus struct {
	code int
	err  error
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitStatus) Unwrap() error { return e.err }

// exitWith returns an error that makes run exit with code, silently.
func exitWith(code int) error { return &exitStatus{code: code} }

// usageError is a command line that cannot run: run prints it and a hint
// naming the command's help, and exits 1.
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef builds a usageError for cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf(format, args...)}
}

// minArgs is cobra.MinimumNArgs returning a usageError.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef(cmd, "%s needs at least %d %s", cmd.CommandPath(), n, what)
		}
		return nil
	}
}

// streams returns what the views of this invocation write to.
func (c *cli) streams() *views.Streams {
	wd, _ := os.Getwd()
	return &views.Streams{Stdout: c.stdout, Stderr: c.stderr, Color: c.useColor, Sources: c.sources.get,
		Version: version(), BaseDir: wd, Now: time.Now}
}

// useColor reports whether output to w may be coloured: only on a terminal
// (or with FORCE_COLOR set, for CI logs that render colours), never with
// --no-color, NO_COLOR set (https://no-color.org) or TERM=dumb.
func (c *cli) useColor(w io.Writer) bool {
	if c.noColor || c.getenv("NO_COLOR") != "" || c.getenv("TERM") == "dumb" {
		return false
	}
	if c.getenv("FORCE_COLOR") != "" {
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
