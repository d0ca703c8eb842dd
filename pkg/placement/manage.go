package placement

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// The writes below manage Placement objects (custom traits, custom
// resource classes, providers with their inventories, traits and
// aggregates) for the placement driver, under the API's rules: every
// provider write carries the provider generation, and a 409
// placement.concurrent_update is answered by reading the generation again
// and retrying (ClientOptions.Retries times). Each needs a microversion
// the client negotiated; RequireVersion says which.

// Microversions the management calls need.
const (
	// VersionParentProviders: parent_provider_uuid (nested providers).
	VersionParentProviders = 14
	// VersionRequiredFilter: GET /resource_providers?required=.
	VersionRequiredFilter = 18
	// VersionAggregateGeneration: aggregates written under the
	// provider generation.
	VersionAggregateGeneration = 19
	// VersionProviderBody: POST /resource_providers answers the provider.
	VersionProviderBody = 20
	// VersionReparent: a provider's parent may change once set.
	VersionReparent = 37
)

// ProviderRecord is a provider as Placement reports it: what the driver
// records as a resource's status, kept as the service answered it
// (aggregates are UUIDs; nothing is validated).
type ProviderRecord struct {
	UUID        string               `json:"uuid"`
	Name        string               `json:"name"`
	Generation  int64                `json:"generation"`
	Parent      string               `json:"parent_provider_uuid,omitempty"`
	Root        string               `json:"root_provider_uuid,omitempty"`
	Inventories map[string]Inventory `json:"inventories"`
	Traits      []string             `json:"traits"`
	Aggregates  []string             `json:"aggregates"`
}

// ListTraits asks GET /traits with the filter: Prefix as
// name=startswith:, Names as name=in:, Associated as associated=. A
// filter with both Prefix and Names is refused (Placement takes one name
// parameter).
func (c *Client) ListTraits(ctx context.Context, f TraitFilter) ([]string, error) {
	q := url.Values{}
	switch {
	case f.Prefix != "" && len(f.Names) > 0:
		return nil, badRequest("a traits query takes a name prefix or a list of names, not both")
	case f.Prefix != "":
		q.Set("name", "startswith:"+f.Prefix)
	case len(f.Names) > 0:
		q.Set("name", "in:"+strings.Join(f.Names, ","))
	}
	if f.Associated != nil {
		q.Set("associated", fmt.Sprint(*f.Associated))
	}
	path := "/traits"
	if len(q) > 0 {
		path += "?" + strings.NewReplacer("%3A", ":", "%2C", ",").Replace(q.Encode())
	}
	var body struct {
		Traits []string `json:"traits"`
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &body); err != nil {
		return nil, err
	}
	sort.Strings(body.Traits)
	if body.Traits == nil {
		body.Traits = []string{}
	}
	return body.Traits, nil
}

// TraitExists asks GET /traits/{name}: 204 is true, 404 false.
func (c *Client) TraitExists(ctx context.Context, name string) (bool, error) {
	return c.exists(ctx, "/traits/"+url.PathEscape(name))
}

// deleteGone sends DELETE path; a 404 (gone already) is success.
func (c *Client) deleteGone(ctx context.Context, path string) error {
	if err := c.do(ctx, http.MethodDelete, path, nil, nil); !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

func (c *Client) exists(ctx context.Context, path string) (bool, error) {
	err := c.do(ctx, http.MethodGet, path, nil, nil)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	}
	return false, err
}

// EnsureTrait creates a custom trait (PUT /traits/{name}); one that exists
// already is fine. Placement answers 400 for a name that is not
// CUSTOM_[A-Z0-9_]+.
func (c *Client) EnsureTrait(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPut, "/traits/"+url.PathEscape(name), nil, nil)
}

// DeleteTrait deletes a custom trait (DELETE /traits/{name}). A trait that
// is gone already is fine; a trait some provider still has is a 409
// (ErrConflict), returned as it is.
func (c *Client) DeleteTrait(ctx context.Context, name string) error {
	return c.deleteGone(ctx, "/traits/"+url.PathEscape(name))
}

// ResourceClassExists asks GET /resource_classes/{name}.
func (c *Client) ResourceClassExists(ctx context.Context, name string) (bool, error) {
	return c.exists(ctx, "/resource_classes/"+url.PathEscape(name))
}

// EnsureResourceClass creates a custom resource class (PUT
// /resource_classes/{name}, 1.7); one that exists is fine.
func (c *Client) EnsureResourceClass(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodPut, "/resource_classes/"+url.PathEscape(name), nil, nil)
}

// DeleteResourceClass deletes a custom resource class; gone already is
// fine, one with inventories is a 409.
func (c *Client) DeleteResourceClass(ctx context.Context, name string) error {
	return c.deleteGone(ctx, "/resource_classes/"+url.PathEscape(name))
}

// FindProvider returns the UUID of the provider called name (GET
// /resource_providers?name=); ok is false when there is none. Names are
// unique in Placement.
func (c *Client) FindProvider(ctx context.Context, name string) (uuid string, ok bool, err error) {
	var list struct {
		Providers []rpJSON `json:"resource_providers"`
	}
	if err := c.do(ctx, http.MethodGet, "/resource_providers?name="+url.QueryEscape(name), nil, &list); err != nil {
		return "", false, err
	}
	for _, p := range list.Providers {
		if p.Name == name {
			c.remember(p.Name, p.UUID)
			return p.UUID, true, nil
		}
	}
	return "", false, nil
}

// ProvidersWithTrait returns the names of the providers that have trait
// (GET /resource_providers?required=, 1.18), sorted.
func (c *Client) ProvidersWithTrait(ctx context.Context, trait string) ([]string, error) {
	if !c.version.AtLeast(VersionRequiredFilter) {
		return nil, nil
	}
	var list struct {
		Providers []rpJSON `json:"resource_providers"`
	}
	if err := c.do(ctx, http.MethodGet, "/resource_providers?required="+url.QueryEscape(trait), nil, &list); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range list.Providers {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out, nil
}

// ReadProvider reads a provider by UUID with its inventories, traits and
// aggregates; nil when there is no such provider.
func (c *Client) ReadProvider(ctx context.Context, uuid string) (*ProviderRecord, error) {
	var rp rpJSON
	err := c.do(ctx, http.MethodGet, "/resource_providers/"+url.PathEscape(uuid), nil, &rp)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec := &ProviderRecord{UUID: rp.UUID, Name: rp.Name, Generation: rp.Generation, Root: rp.Root,
		Inventories: map[string]Inventory{}, Traits: []string{}, Aggregates: []string{}}
	if rp.Parent != nil {
		rec.Parent = *rp.Parent
	}
	var invs struct {
		Inventories map[string]Inventory `json:"inventories"`
	}
	var traits struct {
		Traits []string `json:"traits"`
	}
	var aggs struct {
		Aggregates []string `json:"aggregates"`
	}
	base := "/resource_providers/" + url.PathEscape(uuid)
	for _, r := range []struct {
		path string
		out  any
	}{{base + "/inventories", &invs}, {base + "/traits", &traits}, {base + "/aggregates", &aggs}} {
		if err := c.do(ctx, http.MethodGet, r.path, nil, r.out); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, nil
			}
			return nil, err
		}
	}
	if invs.Inventories != nil {
		rec.Inventories = invs.Inventories
	}
	if traits.Traits != nil {
		rec.Traits = traits.Traits
	}
	if aggs.Aggregates != nil {
		rec.Aggregates = aggs.Aggregates
	}
	sort.Strings(rec.Traits)
	sort.Strings(rec.Aggregates)
	return rec, nil
}

// CreateProvider creates a provider (POST /resource_providers) with the
// given UUID (name-derived when empty) under parentUUID ("" for a root)
// and returns its UUID.
func (c *Client) CreateProvider(ctx context.Context, name, uuid, parentUUID string) (string, error) {
	if uuid == "" {
		uuid = NameUUID("provider", name)
	}
	body := map[string]any{"name": name, "uuid": uuid}
	if parentUUID != "" {
		if !c.version.AtLeast(VersionParentProviders) {
			return "", fmt.Errorf("provider %s: a parent needs microversion 1.%d; the service speaks %s", name, VersionParentProviders, c.version)
		}
		body["parent_provider_uuid"] = parentUUID
	}
	if err := c.do(ctx, http.MethodPost, "/resource_providers", body, nil); err != nil {
		return "", err
	}
	c.remember(name, uuid)
	return uuid, nil
}

func (c *Client) remember(name, uuid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName, c.byUUID = map[string]string{}, map[string]string{}
	}
	c.byName[name], c.byUUID[uuid] = uuid, name
}

// UpdateProvider renames a provider or moves it under another parent (PUT
// /resource_providers/{uuid}; a parent that was set changes only from
// 1.37).
func (c *Client) UpdateProvider(ctx context.Context, uuid, name, parentUUID string) error {
	body := map[string]any{"name": name}
	if c.version.AtLeast(VersionParentProviders) && parentUUID != "" {
		body["parent_provider_uuid"] = parentUUID
	}
	if err := c.do(ctx, http.MethodPut, "/resource_providers/"+url.PathEscape(uuid), body, nil); err != nil {
		return err
	}
	c.remember(name, uuid)
	return nil
}

// DeleteProvider deletes a provider; gone already is fine. A provider
// with allocations or children is a 409.
func (c *Client) DeleteProvider(ctx context.Context, uuid string) error {
	return c.deleteGone(ctx, "/resource_providers/"+url.PathEscape(uuid))
}

// SetInventories replaces a provider's inventories under its generation,
// retrying after a generation conflict; it returns how many conflicts it
// survived.
func (c *Client) SetInventories(ctx context.Context, uuid string, invs map[string]Inventory) (int, error) {
	if invs == nil {
		invs = map[string]Inventory{}
	}
	return c.writeCounted(ctx, uuid, func(gen int64) error {
		return c.do(ctx, http.MethodPut, "/resource_providers/"+url.PathEscape(uuid)+"/inventories",
			map[string]any{"resource_provider_generation": gen, "inventories": invs}, nil)
	})
}

// SetProviderTraits replaces a provider's traits under its generation
// (PUT /resource_providers/{uuid}/traits), retrying after a generation
// conflict; it returns how many conflicts it survived.
func (c *Client) SetProviderTraits(ctx context.Context, uuid string, traits []string) (int, error) {
	traits = append([]string{}, traits...)
	return c.writeCounted(ctx, uuid, func(gen int64) error {
		return c.do(ctx, http.MethodPut, "/resource_providers/"+url.PathEscape(uuid)+"/traits",
			map[string]any{"resource_provider_generation": gen, "traits": traits}, nil)
	})
}

// SetAggregates replaces a provider's aggregates (UUIDs): under its
// generation from 1.19, as a plain list before.
func (c *Client) SetAggregates(ctx context.Context, uuid string, aggs []string) (int, error) {
	aggs = append([]string{}, aggs...)
	path := "/resource_providers/" + url.PathEscape(uuid) + "/aggregates"
	if !c.version.AtLeast(VersionAggregateGeneration) {
		return 0, c.do(ctx, http.MethodPut, path, aggs, nil)
	}
	return c.writeCounted(ctx, uuid, func(gen int64) error {
		return c.do(ctx, http.MethodPut, path, map[string]any{"resource_provider_generation": gen, "aggregates": aggs}, nil)
	})
}

// writeCounted is writeWithRetry counting the conflicts survived.
func (c *Client) writeCounted(ctx context.Context, uuid string, write func(gen int64) error) (int, error) {
	conflicts := 0
	err := c.writeWithRetry(ctx, uuid, func(gen int64) error {
		err := write(gen)
		if errors.Is(err, ErrGenerationConflict) {
			conflicts++
		}
		return err
	})
	return conflicts, err
}

// AggregateUUIDs maps aggregate names to the UUIDs the Client uses (a
// UUID stays as it is), sorted and without duplicates.
func AggregateUUIDs(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, NameUUID("aggregate", n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
