package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
)

// stateFlags choose the state backend; every command that reads or writes
// recorded state adds them.
type stateFlags struct {
	path        string
	workspace   string
	lockTimeout time.Duration
}

// addRead declares --state and --workspace, for commands that only read.
func (f *stateFlags) addRead(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "state", "", "the `STATE`: a file, or a PostgreSQL connection string (postgres://USER@HOST/DB or host=… dbname=…; "+
		"the password is better kept in PGPASSWORD or ~/.pgpass); default $XOSPLAN_STATE, else "+state.DefaultPath)
	fs.StringVar(&f.workspace, "workspace", "", "the `NAME` of the environment in a PostgreSQL state (default $XOSPLAN_WORKSPACE, else default)")
}

func (f *stateFlags) add(fs *pflag.FlagSet) {
	f.addRead(fs)
	fs.DurationVar(&f.lockTimeout, "lock-timeout", 0, "how long to wait for the state lock (`DURATION` such as 30s; 0 fails at once when it is held)")
}

// where returns the state the flags (or the environment) name, and the
// workspace (stateFlags.choose; "" when none is chosen, or the selection
// cannot be read, which open reports).
func (f *stateFlags) where(c *cli) (string, string) {
	ch, _ := f.choose(c)
	return ch.path, ch.workspace
}

// open returns the backend the flags name: the PostgreSQL backend for a
// connection string, else the file backend. The caller closes it.
func (f *stateFlags) open(ctx context.Context, c *cli) (state.Store, error) {
	ch, err := f.choose(c)
	if err != nil {
		return nil, err
	}
	if pgbackend.IsConnString(ch.path) {
		return pgbackend.Open(ctx, pgbackend.Options{DSN: ch.path, Name: ch.workspace, LockTimeout: f.lockTimeout})
	}
	if ch.workspace != "" && ch.workspace != pgbackend.DefaultWorkspace {
		return nil, fmt.Errorf("%s needs a PostgreSQL state (--state postgres://…): a state file holds one environment, so give each its own --state FILE", ch.workspaceFlag())
	}
	return state.OpenFile(ch.path, state.FileOptions{LockTimeout: f.lockTimeout})
}

// lockAndRead opens the state backend the flags name, takes its lock for
// operation (the caller releases it, then closes the backend) and reads
// the state.
func (f *stateFlags) lockAndRead(ctx context.Context, c *cli, operation string) (state.Store, *state.HeldLock, *state.State, error) {
	backend, err := f.open(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	held, err := backend.Lock(ctx, stateLockInfo(operation))
	if err != nil {
		backend.Close()
		return nil, nil, nil, err
	}
	cur, err := backend.Read(ctx)
	if err != nil {
		held.Unlock()
		backend.Close()
		return nil, nil, nil, err
	}
	return backend, held, cur, nil
}

// stateLockInfo describes this invocation to anyone it blocks.
// locked runs fn on the state the flags name while holding its lock
// (operation says what for), then closes it.
func (f *stateFlags) locked(cmd *cobra.Command, c *cli, operation string, fn func(state.Store) error) error {
	b, err := f.open(cmd.Context(), c)
	if err != nil {
		return err
	}
	defer b.Close()
	return state.WithLock(cmd.Context(), b, stateLockInfo(operation), func() error { return fn(b) })
}

func stateLockInfo(operation string) state.LockInfo {
	return state.LockInfo{Operation: operation, Version: version()}
}

func newStateCommand(c *cli) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect and repair recorded state",
		Long: `State reads and edits the recorded state (xosplan.state.json unless --state says otherwise).
Commands that write hold the state lock; a second writer fails with "state is locked by …",
or waits up to --lock-timeout.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef(cmd, "unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef(cmd, "%s needs a subcommand: list, show, discovered, rm, mv, pull, push, force-unlock or migrate", cmd.CommandPath())
		},
	}
	sf.add(cmd.PersistentFlags())
	cmd.AddCommand(
		newStateListCommand(c, &sf),
		newStateShowCommand(c, &sf),
		newStateDiscoveredCommand(c, &sf),
		newStateRmCommand(c, &sf),
		newStateMvCommand(c, &sf),
		newStatePullCommand(c, &sf),
		newStatePushCommand(c, &sf),
		newStateForceUnlockCommand(c, &sf),
		newStateMigrateCommand(c, &sf),
	)
	return cmd
}

func stateExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef(cmd, "%s needs exactly %d %s", cmd.CommandPath(), n, what)
		}
		return nil
	}
}

func newStateListCommand(c *cli, sf *stateFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded resources with their type and status",
		Long: `List prints every recorded resource, sorted by address, with its type and a one-word status:
ok, active, converging, pending (not applied, or interrupted by a crash) or error.
Operations an interrupted apply left unfinished are listed after the resources ("interrupted: …"),
then those of an apply that still runs after a force-unlock took its lock ("running: …").`,
		Args: stateExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			l, err := b.LoadWithJournal(cmd.Context())
			if err != nil {
				return err
			}
			view := views.NewStateList(asJSON, c.streams())
			view.TornJournal(l.TornBytes)
			return view.List(l)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {format_version, serial, lineage, resources[{address, type, management, status}], interrupted[], running[]}")
	return cmd
}

func newStateShowCommand(c *cli, sf *stateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "show ADDRESS",
		Short: "Print one recorded resource as JSON, sensitive values masked",
		Args:  stateExactArgs(1, "ADDRESS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			r, err := state.Show(cmd.Context(), b, args[0])
			if err != nil {
				return err
			}
			return views.NewState(c.streams()).Resource(r)
		},
	}
}

func newStateDiscoveredCommand(c *cli, sf *stateFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "discovered [FACTORY]",
		Short: "List the instances factories discovered that xosplan does not manage",
		Long: `Discovered lists, for every factory (or FACTORY alone), the instances its discovery script
reported at the last refresh that no recorded component manages: FACTORY, ID (the natural id
xosplan import takes), NAME and STATUS, sorted. Run xosplan refresh to discover again.`,
		Example: `  xosplan refresh && xosplan state discovered
  xosplan import VM.vm "$(xosplan state discovered --json 'VM Factory.factory' | jq -r '.discovered[0].id')"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(cmd, "%s takes at most one FACTORY", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			st, err := b.Read(cmd.Context())
			if err != nil {
				return err
			}
			found, err := discoveries(st, args)
			if err != nil {
				return err
			}
			return views.NewStateDiscovered(asJSON, c.streams()).List(found)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {format_version, discovered[{factory, id, name, status}]}")
	return cmd
}

// discoveries returns what the factories of st (or the one named in only)
// discovered, by factory address and then id.
func discoveries(st *state.State, only []string) ([]views.Discovered, error) {
	var out []views.Discovered
	for i := range st.Resources {
		r := &st.Resources[i]
		if len(only) > 0 && r.Address != only[0] {
			continue
		}
		if !r.Driver.HasOperation(graph.OpDiscovery) {
			if len(only) > 0 {
				return nil, fmt.Errorf("%s is not a factory: it has no discovery script", only[0])
			}
			continue
		}
		for _, d := range executor.FactoryDiscoveries(r) {
			out = append(out, views.Discovered{Factory: r.Address, DiscoveredInstance: d})
		}
	}
	if len(only) > 0 {
		if _, ok := st.Lookup(only[0]); !ok {
			return nil, fmt.Errorf("%w: %s", state.ErrNotFound, only[0])
		}
	}
	return out, nil
}

func newStateRmCommand(c *cli, sf *stateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ADDRESS...",
		Short: "Forget resources without destroying them",
		Long: `Rm removes resources from the recorded state; what they stand for is left alone, and the next
plan proposes to create them again if the configuration still has them. Nothing is removed
when any address is not in the state.`,
		Args: minArgs(1, "ADDRESS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sf.locked(cmd, c, "state rm", func(b state.Store) error {
				s, err := state.Remove(cmd.Context(), b, args...)
				if err != nil {
					return err
				}
				views.NewState(c.streams()).Removed(args, s.Serial)
				return nil
			})
		},
	}
}

func newStateMvCommand(c *cli, sf *stateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "mv SOURCE DESTINATION",
		Short: "Rename a recorded resource without touching it",
		Long: `Mv renames the resource recorded at SOURCE to DESTINATION, as terraform state mv does: nothing
runs, only the record changes, so that a resource renamed in the configuration is not destroyed
and created again. The resources nested in SOURCE (SOURCE.part) move with it, and what depends
on them is recorded as depending on their new addresses. It holds the state lock, writes once
(the previous state kept as the backup) and writes nothing when SOURCE is not recorded or
DESTINATION already is.`,
		Example: `  xosplan state mv web frontend`,
		Args:    stateExactArgs(2, "addresses: SOURCE and DESTINATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sf.locked(cmd, c, "state mv", func(b state.Store) error {
				s, moves, err := state.Move(cmd.Context(), b, args[0], args[1])
				if err != nil {
					return err
				}
				views.NewState(c.streams()).Moved(moves, s.Serial)
				return nil
			})
		},
	}
}

func newStatePullCommand(c *cli, sf *stateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "pull",
		Short: "Print the current state file to stdout",
		Long: `Pull prints the state in its file format, with an interrupted apply's journal folded in; it
prints nothing when there is no state. When the journal is damaged, pull still prints what is
readable (the snapshot with every intact record replayed), says what is damaged, and exits 1:
check the output, then make it the state with push --force.`,
		Args: stateExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			data, err := state.Pull(cmd.Context(), b)
			if werr := views.NewState(c.streams()).Pulled(data); werr != nil {
				return errors.Join(err, werr)
			}
			return err
		},
	}
}

func newStatePushCommand(c *cli, sf *stateFlags) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "push FILE",
		Short: "Replace the state with a state file (- reads stdin)",
		Long: `Push validates FILE and makes it the recorded state. It refuses a state of another lineage,
or one whose serial is not above the current one, unless --force; a forced push still never
lowers the serial, so plans made against the replaced state are refused as stale. --force also
replaces a corrupt state (kept as the .backup file), never one of an unknown format version.`,
		Args: stateExactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			var err error
			if args[0] == "-" {
				data, err = userfile.ReadAll(cmd.Context(), c.stdin, "stdin", 0, state.MaxFileBytes)
			} else {
				// A named pipe, a device or a file over the limit is
				// refused before a byte is read.
				data, err = userfile.Read(cmd.Context(), args[0], userfile.Options{MaxBytes: state.MaxFileBytes})
			}
			if err != nil {
				return err
			}
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			return state.WithLock(cmd.Context(), b, stateLockInfo("state push"), func() error {
				s, err := state.Push(cmd.Context(), b, data, force)
				if err != nil {
					return err
				}
				views.NewState(c.streams()).Pushed(s)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace the state even when its lineage differs or its serial is not newer")
	return cmd
}

func newStateForceUnlockCommand(c *cli, sf *stateFlags) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "force-unlock [--force] LOCK_ID",
		Short: "Release a state lock left by a stuck or vanished holder",
		Long: `Force-unlock releases the state lock when LOCK_ID is the ID that "state is locked by …" named.

A lock whose holder has ended is released at once. While the holder still runs on this host
(the lock's flock says so), force-unlock refuses and names it: let it finish, or stop it. A
holder on another host cannot be checked from here, so its lock is released only with --force.

--force releases the lock anyway. Nothing is lost or corrupted then: the old holder keeps its
apply journal to itself until it ends (other writers are told the journal is in use), starts no
new operation, and fails at its next state write, leaving the operations it completed in the
journal for the next command to replay.

With a PostgreSQL state the lock is a session lock of the holder's database connection: it goes
when the holder ends, however it ends, so force-unlock is only needed for a holder that still
runs. Without --force it refuses while that connection is open; --force ends the connection, and
the holder, whose writes go over it, cannot write anything more.`,
		Example: `  xosplan state force-unlock 6f1c3e0a-1b2c-4d5e-8f90-123456789abc
  xosplan state force-unlock --force 6f1c3e0a-1b2c-4d5e-8f90-123456789abc`,
		Args: stateExactArgs(1, "LOCK_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := sf.open(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer b.Close()
			if err := b.ForceUnlock(cmd.Context(), args[0], force); err != nil {
				return err
			}
			views.NewState(c.streams()).Unlocked(args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "release the lock even when its holder may still be running")
	return cmd
}

// lockedError is a *state.LockedError with what to do about it.
type lockedError struct {
	err error
	id  string
}

// Error names the holder, then the two ways on: wait for it, or remove a
// lock whose holder is gone.
func (e *lockedError) Error() string {
	return fmt.Sprintf("%v; wait for it with --lock-timeout DURATION, or, if no xosplan holds it any more, remove it with xosplan state force-unlock %s",
		e.err, cmp.Or(e.id, "LOCK_ID"))
}

func (e *lockedError) Unwrap() error { return e.err }

// withLockHint returns err with what to do about it when a held state lock
// is why it failed, and err otherwise.
func withLockHint(err error) error {
	var le *state.LockedError
	var done *lockedError
	if err == nil || !errors.As(err, &le) || errors.As(err, &done) {
		return err
	}
	return &lockedError{err: err, id: le.Info.ID}
}
