package workflow

import (
	"context"
	"fmt"
	"github.com/xosplan/xosplan/driver"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// DemoProviders is the Placement.Providers value that selects the
// embedded demo cloud.
const DemoProviders = "demo"

// CodePlacementBackend marks a placement backend that cannot be used (an
// unreachable Placement API, an inventory and an API at once).
const CodePlacementBackend = "placement.backend"

// Placement says where compute is placed: on the providers of an
// inventory file (or the demo cloud), or through a real Placement API.
// Placement runs only when one of them is given: a configuration whose
// compute asks for placement is otherwise planned without it, so adding
// an inventory is a deliberate step.
type Placement struct {
	// Providers is the inventory file (YAML providers: list), or
	// DemoProviders.
	Providers string
	// URL is the Placement API's, and Token its X-Auth-Token.
	URL, Token string
	// ReadFile reads the inventory file; nil: config.ReadFile, unconfined
	// (the file is named by the person running xosplan, not by the
	// configuration).
	ReadFile func(ctx context.Context, path string) ([]byte, *diag.Diagnostic)
}

// Endpoint is the Placement API the placement driver manages objects in:
// p's URL and token (empty when p names none).
func (p Placement) Endpoint() driver.PlacementEndpoint {
	return driver.PlacementEndpoint{URL: p.URL, Token: p.Token}
}

// Enabled reports whether placement runs at all.
func (p Placement) Enabled() bool { return p.Providers != "" || p.URL != "" }

// model loads a fresh embedded model from the inventory file (or the demo
// cloud); each plan and each apply gets its own, rebuilt from the file and
// the state's allocations.
func (p Placement) model(ctx context.Context) (*placement.Model, diag.Diagnostics) {
	name, data := "demo-providers.yaml", placement.DemoProviders()
	if p.Providers != DemoProviders {
		read := p.ReadFile
		if read == nil {
			read = func(ctx context.Context, path string) ([]byte, *diag.Diagnostic) {
				return config.ReadFile(ctx, path, nil)
			}
		}
		var d *diag.Diagnostic
		if data, d = read(ctx, p.Providers); d != nil {
			return nil, diag.Diagnostics{*d}
		}
		name = p.Providers
	}
	m, diags := placement.LoadProviders(name, data)
	if diags.HasErrors() {
		return nil, diags
	}
	return m, diags
}

// client connects to the Placement API.
func (p Placement) client(ctx context.Context) (*placement.Client, diag.Diagnostics) {
	cl, err := placement.NewClient(ctx, p.URL, placement.ClientOptions{Token: p.Token})
	if err != nil {
		return nil, diag.Diagnostics{{Severity: diag.Error, Code: CodePlacementBackend,
			Summary: "cannot use the Placement API", Detail: err.Error()}}
	}
	return cl, nil
}

func (p Placement) conflict() diag.Diagnostics {
	if p.URL != "" && p.Providers != "" {
		return diag.Diagnostics{{Severity: diag.Error, Code: CodePlacementBackend,
			Summary: "--placement-url and --providers cannot be combined"}}
	}
	return nil
}

// PlanOptions returns the planner's placement options (nil when placement
// is off) and appends any problem with the backend to diags.
func (p Placement) PlanOptions(ctx context.Context, diags diag.Diagnostics) (*planner.PlacementOptions, diag.Diagnostics) {
	if !p.Enabled() {
		return nil, diags
	}
	if d := p.conflict(); d != nil {
		return nil, diags.Extend(d)
	}
	if p.URL != "" {
		cl, d := p.client(ctx)
		if cl == nil {
			return nil, diags.Extend(d)
		}
		return &planner.PlacementOptions{Service: cl, Source: planner.PlacementSource{API: p.URL}}, diags
	}
	m, d := p.model(ctx)
	diags = diags.Extend(d)
	if m == nil {
		return nil, diags
	}
	return &planner.PlacementOptions{Model: m, Source: planner.PlacementSource{Inventory: p.Providers}}, diags
}

// ForSaved returns the placement that makes a saved plan's placement
// again: its inventory file; or its Placement API, which must be p's
// (with p's token), since a plan file names no backend to trust.
func (p Placement) ForSaved(src *planner.PlacementSource) (Placement, error) {
	switch {
	case src == nil:
		return Placement{}, nil
	case src.API != "" && p.URL != src.API:
		return Placement{}, fmt.Errorf("the plan was placed through the Placement API at %s: give apply the same --placement-url", src.API)
	case src.API != "":
		return Placement{URL: p.URL, Token: p.Token, ReadFile: p.ReadFile}, nil
	}
	return Placement{Providers: src.Inventory, ReadFile: p.ReadFile}, nil
}

// Placer returns what apply claims and releases placements with
// (executor.Options.Placer): nil when placement is off, so the plan's
// decisions are recorded as they are. The embedded model is rebuilt from
// the inventory and the allocations prior records; a real API holds its
// own. The Claimer's Errors are the warnings to show after the apply.
func (p Placement) Placer(ctx context.Context, prior *state.State) (*planner.Claimer, error) {
	if !p.Enabled() {
		return nil, nil
	}
	if d := p.conflict(); d != nil {
		return nil, d.Err()
	}
	lineage := ""
	if prior != nil {
		lineage = prior.Lineage
	}
	if p.URL != "" {
		cl, d := p.client(ctx)
		if cl == nil {
			return nil, fmt.Errorf("%s: %s", d[0].Summary, d[0].Detail)
		}
		return planner.NewClaimer(cl, lineage), nil
	}
	m, d := p.model(ctx)
	if m == nil {
		return nil, d.Err()
	}
	planner.SeedAllocations(m, prior)
	return planner.NewClaimer(m, lineage), nil
}

// ExecutorPlacer turns a possibly nil Claimer into the executor's option
// (a nil *Claimer must not become a non-nil interface).
func ExecutorPlacer(cl *planner.Claimer) executor.Placer {
	if cl == nil {
		return nil
	}
	return cl
}

// CountRecorded makes the allocations recorded in st usage of m, as a
// plan against st counts them, so that a candidates query after an apply
// accounts for what it claimed. It returns, by address, the recorded
// allocations that no longer fit m (left out).
func CountRecorded(m *placement.Model, st *state.State) map[string]error {
	return planner.SeedAllocations(m, st)
}
