package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// demoProvidersName is the --providers value that selects the embedded
// demo cloud.
const demoProvidersName = "demo"

// codePlacementBackend marks a placement backend that cannot be used (an
// unreachable --placement-url, both flags at once).
const codePlacementBackend = "placement.backend"

// placementFlags are the placement flags plan, apply and destroy share.
// Placement runs only when one of them is given: a configuration whose
// compute asks for placement is otherwise planned without it, as before
// placement existed, so adding an inventory is a deliberate step.
type placementFlags struct {
	providers string
	url       string
	token     string
}

func (f *placementFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.providers, "providers", "", "place compute on the providers of inventory `FILE` (YAML providers: list; \"demo\": the embedded demo cloud)")
	fs.StringVar(&f.url, "placement-url", "", "place compute through the real Placement API at `URL` instead of an inventory file")
	fs.StringVar(&f.token, "placement-token", "", "X-Auth-Token for --placement-url (default: $OS_AUTH_TOKEN)")
}

func (f placementFlags) enabled() bool { return f.providers != "" || f.url != "" }

// model loads a fresh embedded model from the inventory file (or the demo
// cloud); each plan and each apply gets its own, rebuilt from the file and
// the state's allocations.
func (f placementFlags) model(ctx context.Context, c *cli) (*placement.Model, diag.Diagnostics) {
	name, data := "demo-providers.yaml", placement.DemoProviders()
	if f.providers != demoProvidersName {
		var d *diag.Diagnostic
		if data, d = c.readNamedFile(ctx, f.providers); d != nil {
			return nil, diag.Diagnostics{*d}
		}
		name = f.providers
	}
	m, diags := placement.LoadProviders(name, data)
	if diags.HasErrors() {
		return nil, diags
	}
	return m, diags
}

// client connects to --placement-url.
func (f placementFlags) client(ctx context.Context, c *cli) (*placement.Client, diag.Diagnostics) {
	token := f.token
	if token == "" {
		token = c.getenv("OS_AUTH_TOKEN")
	}
	cl, err := placement.NewClient(ctx, f.url, placement.ClientOptions{Token: token})
	if err != nil {
		return nil, diag.Diagnostics{{Severity: diag.Error, Code: codePlacementBackend,
			Summary: "cannot use the Placement API", Detail: err.Error()}}
	}
	return cl, nil
}

func (f placementFlags) conflict() diag.Diagnostics {
	if f.url != "" && f.providers != "" {
		return diag.Diagnostics{{Severity: diag.Error, Code: codePlacementBackend,
			Summary: "--placement-url and --providers cannot be combined"}}
	}
	return nil
}

// planOptions returns the planner's placement options (nil when placement
// is off) and appends any problem with the backend to diags.
func (f placementFlags) planOptions(ctx context.Context, c *cli, diags diag.Diagnostics) (*planner.PlacementOptions, diag.Diagnostics) {
	if !f.enabled() {
		return nil, diags
	}
	if d := f.conflict(); d != nil {
		return nil, diags.Extend(d)
	}
	if f.url != "" {
		cl, d := f.client(ctx, c)
		if cl == nil {
			return nil, diags.Extend(d)
		}
		return &planner.PlacementOptions{Service: cl, Source: planner.PlacementSource{API: f.url}}, diags
	}
	m, d := f.model(ctx, c)
	diags = diags.Extend(d)
	if m == nil {
		return nil, diags
	}
	return &planner.PlacementOptions{Model: m, Source: planner.PlacementSource{Inventory: f.providers}}, diags
}

// sourceFlags returns the placement flags that make a saved plan's
// placement again: its inventory file; or its Placement API, which must
// be the one given to apply (with the token given to apply), since a plan
// file names no backend to trust.
func (f placementFlags) sourceFlags(src *planner.PlacementSource) (placementFlags, error) {
	switch {
	case src == nil:
		return placementFlags{}, nil
	case src.API != "" && f.url != src.API:
		return placementFlags{}, fmt.Errorf("the plan was placed through the Placement API at %s: give apply the same --placement-url", src.API)
	case src.API != "":
		return placementFlags{url: f.url, token: f.token}, nil
	}
	return placementFlags{providers: src.Inventory}, nil
}

// placer returns what apply claims and releases placements with: nil when
// placement is off, so the plan's decisions are recorded as they are.
// The embedded model is rebuilt from the inventory and the allocations
// prior records; a real API holds its own.
func (f placementFlags) placer(ctx context.Context, c *cli, prior *state.State) (*planner.Claimer, error) {
	if !f.enabled() {
		return nil, nil
	}
	if d := f.conflict(); d != nil {
		return nil, d.Err()
	}
	lineage := ""
	if prior != nil {
		lineage = prior.Lineage
	}
	if f.url != "" {
		cl, d := f.client(ctx, c)
		if cl == nil {
			return nil, fmt.Errorf("%s: %s", d[0].Summary, d[0].Detail)
		}
		return planner.NewClaimer(cl, lineage), nil
	}
	m, d := f.model(ctx, c)
	if m == nil {
		return nil, d.Err()
	}
	planner.SeedAllocations(m, prior)
	return planner.NewClaimer(m, lineage), nil
}

// executorPlacer turns a possibly nil Claimer into the executor's option
// (a nil *Claimer must not become a non-nil interface).
func executorPlacer(cl *planner.Claimer) executor.Placer {
	if cl == nil {
		return nil
	}
	return cl
}
