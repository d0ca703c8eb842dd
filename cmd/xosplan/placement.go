package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/workflow"
)

func newPlacementCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "placement",
		Short: "Ask where compute fits, with OpenStack Placement's semantics",
		Long: `Placement answers allocation-candidate queries against a provider inventory (a YAML file
with a providers: list, or the embedded demo cloud) and checks trait names.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef(cmd, "unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef(cmd, "%s needs a subcommand: candidates or traits", cmd.CommandPath())
		},
	}
	cmd.AddCommand(newPlacementCandidatesCommand(c), newPlacementTraitsCommand(c))
	return cmd
}

// candidatesFlags are the flags of `xosplan placement candidates`.
type candidatesFlags struct {
	providers    string
	query        string
	format       string
	microversion string
	resources    string
	required     []string
	forbidden    []string
	memberOf     []string
	limit        int
	url          string
	token        string
	state        stateFlags
	noCache      bool
}

func newPlacementCandidatesCommand(c *cli) *cobra.Command {
	var f candidatesFlags
	cmd := &cobra.Command{
		Use:   "candidates [flags]",
		Short: "List allocation candidates for a query",
		Long: `Candidates runs Placement's GET /allocation_candidates on a provider inventory. QUERY is
Placement's own query string (microversion 1.39 by default) with provider and aggregate names
where Placement takes UUIDs. The convenience flags build the same query; they may not be
combined with --query.

Without --providers the embedded demo cloud is used. With --state, the allocations an apply
recorded in that state count as usage, so the answer after an apply accounts for what it
claimed (a real Placement API holds them already: --state goes with an inventory only).

Exit status: 0 with the answer (also when nothing fits), 1 on a bad query or inventory.`,
		Example: `  xosplan placement candidates --providers cloud.yaml --query 'resources=VCPU:2,MEMORY_MB:2048&required=HW_ARCH_X86_64'
  xosplan placement candidates --resources VCPU:2,MEMORY_MB:2048 --required HW_CPU_X86_AVX2 --member-of rack1
  xosplan placement candidates --query 'resources1=VGPU:1&resources2=VGPU:1&group_policy=isolate' --format json`,
		Args: exactArgsPlacement(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPlacementCandidates(cmd, c, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.providers, "providers", "", "provider inventory `FILE` (YAML providers: list); default: the embedded demo cloud")
	fs.StringVar(&f.query, "query", "", "Placement `QUERY` string, e.g. resources=VCPU:1&required=HW_ARCH_X86_64")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text or json (Placement's response shape, names for UUIDs)")
	fs.StringVar(&f.microversion, "microversion", placement.Latest().String(), "Placement microversion `X.Y` whose semantics to use")
	fs.StringVar(&f.resources, "resources", "", "resources of the unsuffixed group, `RC:N,...`")
	fs.StringSliceVar(&f.required, "required", nil, "required `TRAIT` (repeatable)")
	fs.StringSliceVar(&f.forbidden, "forbidden", nil, "forbidden `TRAIT` (repeatable)")
	fs.StringSliceVar(&f.memberOf, "member-of", nil, "required `AGGREGATE` (repeatable: all of them)")
	fs.IntVar(&f.limit, "limit", 0, "return at most `N` candidates")
	fs.StringVar(&f.url, "placement-url", "", "ask the real Placement API at `URL` instead of an inventory file")
	fs.StringVar(&f.token, "placement-token", "", "X-Auth-Token for --placement-url (default: $OS_AUTH_TOKEN)")
	f.state.addRead(fs)
	fs.BoolVar(&f.noCache, "no-cache", false, "parse --providers every time: neither read nor write the inventory cache")
	return cmd
}

func exactArgsPlacement(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef(cmd, "%s takes no arguments (got %q)", cmd.CommandPath(), strings.Join(args, " "))
		}
		return nil
	}
}

// buildQuery turns the flags into Placement's query string.
func (f candidatesFlags) buildQuery(cmd *cobra.Command) (string, error) {
	convenience := f.resources != "" || len(f.required)+len(f.forbidden)+len(f.memberOf) > 0 || f.limit != 0
	switch {
	case f.query != "" && convenience:
		return "", usagef(cmd, "--query cannot be combined with --resources, --required, --forbidden, --member-of or --limit")
	case f.query != "":
		return f.query, nil
	case f.resources == "":
		return "", usagef(cmd, "give --query or --resources")
	}
	parts := []string{"resources=" + f.resources}
	var req []string
	req = append(req, f.required...)
	for _, t := range f.forbidden {
		req = append(req, "!"+t)
	}
	if len(req) > 0 {
		parts = append(parts, "required="+strings.Join(req, ","))
	}
	for _, a := range f.memberOf {
		parts = append(parts, "member_of="+a)
	}
	if f.limit != 0 {
		parts = append(parts, fmt.Sprintf("limit=%d", f.limit))
	}
	return strings.Join(parts, "&"), nil
}

// loadProviders reads the inventory file, or the embedded demo cloud, and
// shows its problems on view; errors exit 1. A file goes through the
// inventory cache (placement_cache.go) unless noCache.
func loadProviders(ctx context.Context, c *cli, view views.Inventory, path string, noCache bool) (*placement.Model, error) {
	name, data := "demo-providers.yaml", placement.DemoProviders()
	if path != "" {
		var d *diag.Diagnostic
		data, d = c.readNamedFile(ctx, path)
		if d != nil {
			return nil, inventoryFailed(view, diag.Diagnostics{*d})
		}
		name = path
	}
	ic := inventoryCache{}
	if path != "" {
		ic = newInventoryCache(c, noCache)
	}
	m, diags := ic.load(name, data)
	if len(diags) > 0 {
		if err := inventoryFailed(view, diags.Sort()); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// inventoryFailed shows inventory problems the way validate does and turns
// errors into exit status 1.
func inventoryFailed(view views.Inventory, diags diag.Diagnostics) error {
	if err := view.InventoryDiagnostics(diags); err != nil {
		return err
	}
	if diags.HasErrors() {
		return exitWith(exitError)
	}
	return nil
}

func runPlacementCandidates(cmd *cobra.Command, c *cli, f candidatesFlags) error {
	view, err := views.NewCandidates(f.format, c.streams())
	if err != nil {
		return usagef(cmd, "--format: %v", err)
	}
	v, err := placement.ParseVersion(f.microversion)
	if err != nil || v.Minor > placement.LatestMinor {
		return usagef(cmd, "--microversion: %q is not a microversion from 1.10 to %s", f.microversion, placement.Latest())
	}
	raw, err := f.buildQuery(cmd)
	if err != nil {
		return err
	}
	if f.url != "" && f.providers != "" {
		return usagef(cmd, "--placement-url and --providers cannot be combined")
	}
	withState := cmd.Flags().Changed("state") || cmd.Flags().Changed("workspace")
	if f.url != "" && withState {
		return usagef(cmd, "--state goes with an inventory: the Placement API at --placement-url holds the allocations apply claimed already")
	}
	q, err := placement.ParseQuery(raw, v)
	if err != nil {
		return queryError(err)
	}
	var svc placement.Service
	var m *placement.Model
	if f.url != "" {
		token := f.token
		if token == "" {
			token = c.getenv("OS_AUTH_TOKEN")
		}
		client, err := placement.NewClient(cmd.Context(), f.url, placement.ClientOptions{Token: token})
		if err != nil {
			return err
		}
		if client.Version().Minor < v.Minor {
			v = client.Version()
			q.Version = v
		}
		svc = client
	} else {
		if m, err = loadProviders(cmd.Context(), c, view, f.providers, f.noCache); err != nil {
			return err
		}
		if withState {
			if err := seedFromState(cmd.Context(), c, f.state, m); err != nil {
				return err
			}
		}
		svc = m
	}
	res, err := svc.Candidates(cmd.Context(), q)
	if err != nil {
		return queryError(err)
	}
	// The view shows why providers were excluded only when nothing fits.
	var why []placement.Exclusion
	if m != nil && len(res.Requests) == 0 {
		why = m.Explain(q)
	}
	return view.Candidates(q, v, res, why)
}

// queryError reports a refused query with Placement's status, as a user
// pasting a query from Placement's docs expects to see it.
func queryError(err error) error {
	var pe *placement.Error
	if errors.As(err, &pe) {
		return &exitStatus{code: exitError, err: fmt.Errorf("query refused (%d): %s", pe.Status, pe.Detail)}
	}
	return err
}

// traitsFlags are the flags of `xosplan placement traits`.
type traitsFlags struct {
	validate   []string
	providers  string
	url, token string
	startsWith string
	in         []string
	associated string
	noCache    bool
}

func newPlacementTraitsCommand(c *cli) *cobra.Command {
	var f traitsFlags
	cmd := &cobra.Command{
		Use:   "traits [flags]",
		Short: "List the standard traits, or check trait names",
		Long: `Traits lists the 377 standard traits of os-traits 3.9.0 (with --providers, also the custom
traits the inventory defines; with --placement-url, the traits a real Placement API has, asked
with GET /traits, the token from --placement-token or $OS_AUTH_TOKEN). --starts-with, --in and
--associated are GET /traits's filters (name=startswith:, name=in:, associated=), applied by the
service or, without one, to the list. With --validate it checks each NAME instead: a standard
trait, a valid custom trait (CUSTOM_[A-Z0-9_]+, at most 255 characters), or invalid; with
--placement-url a well-formed name the service does not list is reported too.

Exit status: 0, or 1 when a --validate name is invalid or unknown to the service.`,
		Example: `  xosplan placement traits
  xosplan placement traits --validate HW_CPU_X86_AVX2 --validate CUSTOM_GOLD
  xosplan placement traits --placement-url http://placement:8778 --starts-with CUSTOM_ --associated true`,
		Args: exactArgsPlacement(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPlacementTraits(cmd, c, f)
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&f.validate, "validate", nil, "check trait `NAME` (repeatable or comma-separated)")
	fs.StringVar(&f.providers, "providers", "", "provider inventory `FILE` whose custom traits to include")
	fs.StringVar(&f.url, "placement-url", "", "ask the real Placement API at `URL` (GET /traits)")
	fs.StringVar(&f.token, "placement-token", "", "X-Auth-Token for --placement-url (default: $OS_AUTH_TOKEN)")
	fs.StringVar(&f.startsWith, "starts-with", "", "only traits whose name starts with `PREFIX` (name=startswith:)")
	fs.StringSliceVar(&f.in, "in", nil, "only these trait `NAMES` that exist (name=in:; repeatable or comma-separated)")
	fs.BoolVar(&f.noCache, "no-cache", false, "parse --providers every time: neither read nor write the inventory cache")
	fs.StringVar(&f.associated, "associated", "", "only traits some provider has (`true`) or none has (false)")
	return cmd
}

// filter turns the query flags into a trait filter.
func (f traitsFlags) filter(cmd *cobra.Command) (placement.TraitFilter, error) {
	tf := placement.TraitFilter{Prefix: f.startsWith, Names: f.in}
	if f.startsWith != "" && len(f.in) > 0 {
		return tf, usagef(cmd, "--starts-with and --in cannot be combined (GET /traits takes one name filter)")
	}
	switch f.associated {
	case "":
	case "true", "false":
		a := f.associated == "true"
		tf.Associated = &a
	default:
		return tf, usagef(cmd, "--associated takes true or false, not %q", f.associated)
	}
	return tf, nil
}

func runPlacementTraits(cmd *cobra.Command, c *cli, f traitsFlags) error {
	ctx := cmd.Context()
	view := views.NewTraits(c.streams())
	tf, err := f.filter(cmd)
	if err != nil {
		return err
	}
	if f.url != "" && f.providers != "" {
		return usagef(cmd, "--placement-url and --providers cannot be combined")
	}
	var client *placement.Client
	if f.url != "" {
		token := f.token
		if token == "" {
			token = c.getenv("OS_AUTH_TOKEN")
		}
		if client, err = placement.NewClient(ctx, f.url, placement.ClientOptions{Token: token}); err != nil {
			return err
		}
	}
	if len(f.validate) == 0 {
		var names []string
		switch {
		case client != nil:
			if names, err = client.ListTraits(ctx, tf); err != nil {
				return queryError(err)
			}
		case f.providers != "":
			m, err := loadProviders(ctx, c, view, f.providers, f.noCache)
			if err != nil {
				return err
			}
			names = m.ListTraits(tf)
		default:
			names = placement.NewModel().ListTraits(tf)
		}
		view.List(names)
		return nil
	}
	if f.startsWith != "" || len(f.in) > 0 || f.associated != "" {
		return usagef(cmd, "--validate cannot be combined with --starts-with, --in or --associated")
	}
	known := map[string]bool{}
	if client != nil {
		names, err := client.ListTraits(ctx, placement.TraitFilter{Names: f.validate})
		if err != nil {
			return queryError(err)
		}
		for _, n := range names {
			known[n] = true
		}
	}
	standard := map[string]bool{}
	for _, t := range placement.StandardTraits() {
		standard[t] = true
	}
	bad := 0
	for _, name := range f.validate {
		verdict := views.TraitUnknown
		switch {
		case client != nil && known[name] && placement.IsValidCustomTrait(name):
			verdict = views.TraitCustom
		case client != nil && known[name]:
			verdict = views.TraitStandard
		case client != nil && (standard[name] || placement.IsValidCustomTrait(name)):
			verdict = views.TraitAbsent
		case standard[name]:
			verdict = views.TraitStandard
		case placement.IsValidCustomTrait(name):
			verdict = views.TraitCustom
		case strings.HasPrefix(name, "CUSTOM_"):
			verdict = views.TraitBadCustom
		}
		if verdict == views.TraitBadCustom || verdict == views.TraitUnknown || verdict == views.TraitAbsent {
			bad++
		}
		view.Checked(name, verdict)
	}
	if bad > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%d of %d trait names are invalid", bad, len(f.validate))}
	}
	return nil
}

// seedFromState counts the allocations recorded in the state the flags
// name as usage of m; an allocation that no longer fits (a provider gone
// or shrunk) is left out with a warning.
func seedFromState(ctx context.Context, c *cli, sf stateFlags, m *placement.Model) error {
	backend, err := sf.open(ctx, c)
	if err != nil {
		return err
	}
	defer backend.Close()
	st, err := backend.Read(ctx)
	if err != nil {
		return err
	}
	stale := workflow.CountRecorded(m, st)
	for _, addr := range slices.Sorted(maps.Keys(stale)) {
		fmt.Fprintf(c.stderr, "Warning: the allocations recorded for %s are left out: %v\n", addr, stale[addr])
	}
	return nil
}
