package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
)

func newWorkspaceCommand(c *cli) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "workspace",
		Short: "List, create, select and delete the workspaces of a PostgreSQL state",
		Long: `Workspace manages the environments one PostgreSQL state database holds (--state postgres://…):
each workspace has its own state, journal and lock. Commands choose one with --workspace NAME,
else XOSPLAN_WORKSPACE, else the one workspace select recorded in .xosplan/environment (in the
working folder, as Terraform keeps .terraform/environment), else "default". "default" always
exists; any other is created with workspace new.`,
		Example: `  xosplan workspace new --state postgres://ci@db.example/xosplan staging
  xosplan apply --auto-approve --state postgres://ci@db.example/xosplan --workspace staging stack/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef(cmd, "unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef(cmd, "%s needs a subcommand: list, show, new, select or delete", cmd.CommandPath())
		},
	}
	sf.add(cmd.PersistentFlags())
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the workspaces, the selected one marked *",
			Args:  stateExactArgs(0, "arguments"),
			RunE: func(cmd *cobra.Command, _ []string) error {
				b, err := sf.openDatabase(cmd, c, pgbackend.DefaultWorkspace)
				if err != nil {
					return err
				}
				defer b.Close()
				ws, err := b.Workspaces(cmd.Context())
				if err != nil {
					return err
				}
				var names []string
				for _, w := range ws {
					names = append(names, w.Name)
				}
				_, selected := sf.where(c)
				views.NewWorkspace(c.streams()).List(names, cmp.Or(selected, pgbackend.DefaultWorkspace))
				return nil
			},
		},
		&cobra.Command{
			Use:   "new NAME",
			Short: "Create an empty workspace",
			Args:  stateExactArgs(1, "NAME"),
			RunE: func(cmd *cobra.Command, args []string) error {
				b, err := sf.openDatabase(cmd, c, pgbackend.DefaultWorkspace)
				if err != nil {
					return err
				}
				defer b.Close()
				if err := b.CreateWorkspace(cmd.Context(), args[0]); err != nil {
					return err
				}
				views.NewWorkspace(c.streams()).Created(args[0])
				return nil
			},
		},
		newWorkspaceSelectCommand(c, &sf),
		&cobra.Command{
			Use:   "show",
			Short: "Print the name of the workspace commands use",
			Long: `Show prints the workspace commands use here: --workspace, else XOSPLAN_WORKSPACE, else the one
workspace select recorded in .xosplan/environment, else default. It does not connect.`,
			Args: stateExactArgs(0, "arguments"),
			RunE: func(cmd *cobra.Command, _ []string) error {
				ch, err := sf.choose(c)
				if err != nil {
					return err
				}
				views.NewWorkspace(c.streams()).Current(cmp.Or(ch.workspace, pgbackend.DefaultWorkspace))
				return nil
			},
		},
		newWorkspaceDeleteCommand(c, &sf),
	)
	return cmd
}

func newWorkspaceSelectCommand(c *cli, sf *stateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "select NAME",
		Short: "Make NAME the workspace commands in this folder use",
		Long: `Select records NAME in .xosplan/environment in the working folder, as terraform workspace select
records .terraform/environment: later commands run here use that workspace unless --workspace or
XOSPLAN_WORKSPACE names another. NAME must exist in the database (workspace new creates one).`,
		Example: `  xosplan workspace select --state postgres://ci@db.example/xosplan staging`,
		Args:    stateExactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := sf.openDatabase(cmd, c, args[0])
			if err != nil {
				return err
			}
			b.Close()
			if err := selectWorkspace(args[0]); err != nil {
				return err
			}
			views.NewWorkspace(c.streams()).Selected(args[0])
			return nil
		},
	}
}

func newWorkspaceDeleteCommand(c *cli, sf *stateFlags) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workspace with its state",
		Long: `Delete removes a workspace with its state, backup and journal, under its lock. It refuses a
workspace that still records resources (destroy them first) unless --force, which forgets them
without destroying anything; the default workspace is never deleted, nor the one workspace select
recorded (select another first).`,
		Args: stateExactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if selected, err := selectedWorkspace(); err == nil && selected == args[0] {
				return fmt.Errorf("workspace %s is the one workspace select recorded in %s: select another first (xosplan workspace select default)", args[0], environmentFile)
			}
			b, err := sf.openDatabase(cmd, c, args[0])
			if err != nil {
				return err
			}
			defer b.Close()
			if err := b.Delete(cmd.Context(), stateLockInfo("workspace delete"), force); err != nil {
				return err
			}
			views.NewWorkspace(c.streams()).Deleted(args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "delete the workspace even when it records resources")
	return cmd
}

// openDatabase opens workspace of the PostgreSQL state the flags name; a
// state file has no workspaces.
func (f *stateFlags) openDatabase(cmd *cobra.Command, c *cli, workspace string) (*pgbackend.Backend, error) {
	ch, err := f.choose(c)
	if err != nil {
		return nil, err
	}
	if !pgbackend.IsConnString(ch.path) {
		return nil, usagef(cmd, "%s needs a PostgreSQL state (--state postgres://… or XOSPLAN_STATE): the state file %s holds one environment", cmd.CommandPath(), ch.path)
	}
	return pgbackend.Open(cmd.Context(), pgbackend.Options{DSN: ch.path, Name: workspace, LockTimeout: f.lockTimeout})
}

func newStateMigrateCommand(c *cli, sf *stateFlags) *cobra.Command {
	var from, to string
	var force bool
	cmd := &cobra.Command{
		Use:   "migrate --from STATE --to STATE",
		Short: "Copy a state between a file and a PostgreSQL database, lineage and serial kept",
		Long: `Migrate copies the state at --from to --to, each a state file or a PostgreSQL connection string
(--workspace chooses the workspace of a database side). Both are locked; an apply journal at
--from is folded into its snapshot first; lineage and serial are kept (a plan file is bound to
the state it was made against: plan again against the copy). --to must hold no state unless --force.`,
		Example: `  xosplan state migrate --from xosplan.state.json --to postgres://ci@db.example/xosplan --workspace prod
  xosplan state migrate --from postgres://ci@db.example/xosplan --to backup.state.json`,
		Args: stateExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"from", "to"} {
				// "--to $DATABASE_URL" with the variable unset: say so,
				// not that the flag is missing.
				if f := cmd.Flags().Lookup(name); f.Changed && f.Value.String() == "" {
					return usagef(cmd, "--%s is empty: name a state file or a PostgreSQL connection string (if you gave it a variable, such as \"$DATABASE_URL\", the variable is not set)", name)
				}
			}
			if from == "" || to == "" {
				return usagef(cmd, "%s needs --from and --to", cmd.CommandPath())
			}
			ctx := cmd.Context()
			src, dst := *sf, *sf
			src.path, dst.path = from, to
			// --workspace is the database side's.
			for _, side := range []*stateFlags{&src, &dst} {
				if !pgbackend.IsConnString(side.path) {
					side.workspace = pgbackend.DefaultWorkspace
				}
			}
			fromStore, err := src.open(ctx, c)
			if err != nil {
				return err
			}
			defer fromStore.Close()
			toStore, err := dst.open(ctx, c)
			if err != nil {
				return err
			}
			defer toStore.Close()
			if fromStore.Location() == toStore.Location() {
				return usagef(cmd, "--from and --to name the same state (%s)", fromStore.Location())
			}
			return state.WithLock(ctx, fromStore, stateLockInfo("state migrate"), func() error {
				return state.WithLock(ctx, toStore, stateLockInfo("state migrate"), func() error {
					s, err := state.Migrate(ctx, fromStore, toStore, force)
					if err != nil {
						return err
					}
					views.NewWorkspace(c.streams()).Migrated(fromStore.Location(), toStore.Location(), len(s.Resources), s.Serial, s.Lineage)
					return nil
				})
			})
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the state to copy: a `FILE` or a PostgreSQL connection string")
	cmd.Flags().StringVar(&to, "to", "", "where to copy it: a `FILE` or a PostgreSQL connection string")
	cmd.Flags().BoolVar(&force, "force", false, "replace a state already at --to")
	return cmd
}
