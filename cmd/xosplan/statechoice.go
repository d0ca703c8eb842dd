package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
)

// environmentFile is where `workspace select` records the selected
// workspace, relative to the working folder, as Terraform keeps
// .terraform/environment.
const environmentFile = ".xosplan/environment"

// Where a state or workspace was chosen (stateChoice).
const (
	fromDefault = ""
	fromFlag    = "flag"
	fromEnv     = "env"
	fromFile    = "file"
)

// stateChoice is the state and workspace a command uses, and where each
// was chosen: the state by --state, else XOSPLAN_STATE, else the default
// file; the workspace by --workspace, else XOSPLAN_WORKSPACE, else the
// workspace `workspace select` recorded, else none ("": the default).
type stateChoice struct {
	path, pathFrom           string
	workspace, workspaceFrom string
}

// choose returns what the flags, the environment and the selected
// workspace name. A selection file that cannot be read, or names no valid
// workspace, is an error naming it.
func (f *stateFlags) choose(c *cli) (stateChoice, error) {
	var ch stateChoice
	switch {
	case f.path != "":
		ch.path, ch.pathFrom = f.path, fromFlag
	case c.getenv("XOSPLAN_STATE") != "":
		ch.path, ch.pathFrom = c.getenv("XOSPLAN_STATE"), fromEnv
	default:
		ch.path = state.DefaultPath
	}
	switch {
	case f.workspace != "":
		ch.workspace, ch.workspaceFrom = f.workspace, fromFlag
	case c.getenv("XOSPLAN_WORKSPACE") != "":
		ch.workspace, ch.workspaceFrom = c.getenv("XOSPLAN_WORKSPACE"), fromEnv
	default:
		name, err := selectedWorkspace()
		if err != nil {
			return ch, err
		}
		if name != "" {
			ch.workspace, ch.workspaceFrom = name, fromFile
		}
	}
	return ch, nil
}

// workspaceFlag names the workspace choice as the user made it, for
// messages: "--workspace prod", or "workspace prod (selected in
// .xosplan/environment)".
func (ch stateChoice) workspaceFlag() string {
	if ch.workspaceFrom == fromFile {
		return fmt.Sprintf("workspace %s (selected in %s)", ch.workspace, environmentFile)
	}
	return "--workspace " + ch.workspace
}

// maxEnvironmentFile bounds what selectedWorkspace reads: a name is at
// most 90 bytes.
const maxEnvironmentFile = 1024

// selectedWorkspace returns the workspace `workspace select` recorded in
// the working folder, or "" when none is.
func selectedWorkspace() (string, error) {
	fh, _, err := userfile.Open(context.Background(), environmentFile, userfile.Options{MaxBytes: maxEnvironmentFile})
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the selected workspace: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxEnvironmentFile+1))
	if err != nil {
		return "", fmt.Errorf("reading the selected workspace: %s: %w", environmentFile, err)
	}
	name := strings.TrimSpace(string(data))
	if err := pgbackend.CheckWorkspaceName(name); err != nil {
		return "", fmt.Errorf("%s: %w; select one again with xosplan workspace select NAME", environmentFile, err)
	}
	return name, nil
}

// selectWorkspace records name as the selected workspace of the working
// folder (atomically: a temporary file renamed over the old one).
func selectWorkspace(name string) error {
	if err := os.MkdirAll(filepath.Dir(environmentFile), 0o755); err != nil {
		return fmt.Errorf("selecting workspace %s: %w", name, err)
	}
	tmp := environmentFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("selecting workspace %s: %w", name, err)
	}
	if err := os.Rename(tmp, environmentFile); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("selecting workspace %s: %w", name, err)
	}
	return nil
}

// forPlan returns the state flags that apply of a saved plan bound to
// planned uses. What the user chose (a flag, the environment, a selected
// workspace) is kept, and CheckState refuses the plan if it names another
// state. Where the user chose nothing, the plan's own choice is taken,
// since it is the only one made: its state file, or its workspace. A
// plan made against a database needs --state or XOSPLAN_STATE, since a
// plan file never records a connection string (it may hold a password).
func (f stateFlags) forPlan(c *cli, planned *state.Identity) (stateFlags, error) {
	if planned == nil {
		return f, nil
	}
	ch, err := f.choose(c)
	if err != nil {
		return f, err
	}
	if ch.pathFrom == fromDefault {
		switch planned.Backend {
		case state.BackendFile:
			f.path = planned.Path
		case state.BackendPostgres:
			return f, fmt.Errorf("the plan was made against %s: give its connection string with --state or XOSPLAN_STATE (a plan file never records one)", planned)
		}
	}
	if ch.workspaceFrom == fromDefault && planned.Backend == state.BackendPostgres {
		f.workspace = planned.Workspace
	}
	return f, nil
}

// applyArgs returns the arguments of the `xosplan apply` that applies the
// plan file out made with these flags against id: the --state given as a
// flag (a connection string without its password, which apply takes from
// PGPASSWORD or ~/.pgpass as plan did, or from XOSPLAN_STATE), the
// workspace when it is not the default one or was given as a flag, then
// the file.
func (f *stateFlags) applyArgs(id state.Identity, out string) []string {
	var args []string
	if f.path != "" {
		args = append(args, "--state", shellQuote(pgbackend.WithoutPassword(f.path)))
	}
	if id.Backend == state.BackendPostgres && (id.Workspace != state.DefaultWorkspace || f.workspace != "") {
		args = append(args, "--workspace", shellQuote(id.Workspace))
	}
	return append(args, shellQuote(out))
}

// shellSafe matches words a POSIX shell reads as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellQuote returns s as one word of a POSIX shell command line.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
