package main

import (
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
)

// stampedVersion is the release version `make dist` stamps into the
// binaries it builds (-ldflags "-X main.stampedVersion=v1.2.0"); it wins
// over the module version, which a build from a checkout does not have.
var stampedVersion string

// buildInfo is what the binary knows of its build: the module version
// ("dev" for a build from a work tree, or the version make dist stamped),
// the VCS revision and time when Go stamped them (go build in a checkout),
// whether the tree had changes, and the Go version and platform.
func buildInfo() views.BuildInfo {
	b := views.BuildInfo{Version: "dev", Platform: runtime.GOOS + "_" + runtime.GOARCH}
	if stampedVersion != "" {
		b.Version = stampedVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.GoVersion = bi.GoVersion
	if v := bi.Main.Version; v != "" && v != "(devel)" && stampedVersion == "" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.RevisionTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// version is the one-line version that --version, lock holders, JSON
// streams and SARIF name: the module version, the first 12 digits of the
// revision, and the Go version ("v1.2.0+0123456789ab (go1.26.0)").
func version() string { return buildInfo().String() }

func newVersionCommand(c *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the version of xosplan and what it was built from",
		Long: `Version prints the version, as --version does: the module version ("dev" for a build
from a work tree) with the revision it was built from, the Go version, and the platform.
--json prints one object with fixed keys: xosplan_version, revision, revision_time, modified,
go_version and platform (empty strings and false when unknown).`,
		Args: stateExactArgs(0, "arguments"),
		RunE: func(*cobra.Command, []string) error {
			return views.NewVersion(asJSON, c.streams()).Version(buildInfo())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func newCompletionCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `Completion prints a script that makes the shell complete xosplan's commands, flags and
files. Load it in the current shell, or install it where the shell looks for completions:

  source <(xosplan completion bash)        # bash (needs the bash-completion package)
  xosplan completion zsh > "${fpath[1]}/_xosplan"
  xosplan completion fish > ~/.config/fish/completions/xosplan.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(cmd, "%s needs exactly one shell: bash, zsh or fish", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, view := cmd.Root(), views.NewCompletion(c.streams())
			switch args[0] {
			case "bash":
				return view.Script(func(w io.Writer) error { return root.GenBashCompletionV2(w, true) })
			case "zsh":
				return view.Script(root.GenZshCompletion)
			case "fish":
				return view.Script(func(w io.Writer) error { return root.GenFishCompletion(w, true) })
			}
			return usagef(cmd, "unknown shell %q: want bash, zsh or fish", args[0])
		},
	}
	return cmd
}
