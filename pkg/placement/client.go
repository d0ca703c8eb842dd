package placement

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// ClientOptions configure a Client of a real Placement API.
type ClientOptions struct {
	// HTTPClient defaults to a client with a 30 s timeout.
	HTTPClient *http.Client
	// Token is sent as X-Auth-Token ("admin" suits auth_strategy=noauth2).
	Token string
	// ProjectID and UserID are recorded with every allocation (Placement
	// requires them from microversion 1.8); defaults are fixed UUIDs.
	ProjectID, UserID string
	// Retries bounds the re-reads after a provider generation conflict
	// (default 5).
	Retries int
	// ConsumerType is sent with allocations from 1.38 (default INSTANCE).
	ConsumerType string
	// MaxVersion caps the negotiated microversion (zero: Latest()), to ask
	// with an older microversion's semantics.
	MaxVersion Version
}

// Client talks to a real Placement service and implements Service. It
// speaks names where Placement speaks UUIDs: a provider is found by name,
// and aggregate and consumer names map to name-derived UUIDs (a name that
// is already a UUID is used as it is), so queries and answers read the same
// as with the embedded Model.
type Client struct {
	base    string
	http    *http.Client
	opts    ClientOptions
	version Version

	mu     sync.Mutex
	byName map[string]string // provider name -> uuid
	byUUID map[string]string // uuid -> provider name
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// NameUUID returns the UUID xosplan uses for a name of the given kind
// ("provider", "aggregate", "consumer"): the name itself when it is a
// UUID, else a version-5-style UUID derived from kind and name, so the same
// name always maps to the same UUID.
func NameUUID(kind, name string) string {
	if uuidRE.MatchString(name) {
		return strings.ToLower(name)
	}
	sum := sha1.Sum([]byte("xosplan:" + kind + ":" + name))
	sum[6] = (sum[6] & 0x0f) | 0x50
	sum[8] = (sum[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// NewClient connects to the Placement API at baseURL and negotiates the
// microversion: the newest both sides speak, at most Latest(). A service
// older than 1.10 (no allocation candidates) is refused.
func NewClient(ctx context.Context, baseURL string, opts ClientOptions) (*Client, error) {
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.ProjectID == "" {
		opts.ProjectID = NameUUID("project", "xosplan")
	}
	if opts.UserID == "" {
		opts.UserID = NameUUID("user", "xosplan")
	}
	if opts.Retries <= 0 {
		opts.Retries = 5
	}
	if opts.ConsumerType == "" {
		opts.ConsumerType = "INSTANCE"
	}
	c := &Client{base: strings.TrimRight(baseURL, "/"), http: opts.HTTPClient, opts: opts, version: Version{1, 0}}
	var root struct {
		Versions []struct {
			MaxVersion string `json:"max_version"`
			MinVersion string `json:"min_version"`
		} `json:"versions"`
	}
	if err := c.do(ctx, http.MethodGet, "/", nil, &root); err != nil {
		return nil, fmt.Errorf("placement at %s: %w", baseURL, err)
	}
	if len(root.Versions) == 0 {
		return nil, fmt.Errorf("placement at %s: no versions advertised", baseURL)
	}
	max, err := ParseVersion(root.Versions[0].MaxVersion)
	if err != nil {
		return nil, fmt.Errorf("placement at %s: bad max_version %q", baseURL, root.Versions[0].MaxVersion)
	}
	if !max.AtLeast(10) {
		return nil, fmt.Errorf("placement at %s speaks at most %s; allocation candidates need 1.10", baseURL, max)
	}
	limit := Latest()
	if opts.MaxVersion != (Version{}) && !opts.MaxVersion.AtLeast(limit.Minor) {
		limit = opts.MaxVersion
	}
	c.version = limit
	if !max.AtLeast(limit.Minor) {
		c.version = max
	}
	if !c.version.AtLeast(10) {
		return nil, fmt.Errorf("placement at %s: microversion %s is below 1.10 (allocation candidates)", baseURL, c.version)
	}
	return c, nil
}

// Version is the negotiated microversion.
func (c *Client) Version() Version { return c.version }

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("OpenStack-API-Version", "placement "+c.version.String())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opts.Token != "" {
		req.Header.Set("X-Auth-Token", c.opts.Token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		return decodeError(resp.StatusCode, data)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: bad JSON answer: %w", method, path, err)
		}
	}
	return nil
}

func decodeError(status int, data []byte) error {
	var body struct {
		Errors []struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
		} `json:"errors"`
	}
	e := &Error{Status: status, Code: CodeUndefined, Detail: strings.TrimSpace(string(data))}
	if json.Unmarshal(data, &body) == nil && len(body.Errors) > 0 {
		e.Detail = body.Errors[0].Detail
		if body.Errors[0].Code != "" {
			e.Code = body.Errors[0].Code
		}
	}
	return e
}

type rpJSON struct {
	UUID       string  `json:"uuid"`
	Name       string  `json:"name"`
	Generation int64   `json:"generation"`
	Parent     *string `json:"parent_provider_uuid"`
	Root       string  `json:"root_provider_uuid"`
}

// refresh reloads the provider name <-> UUID maps.
func (c *Client) refresh(ctx context.Context) error {
	var list struct {
		Providers []rpJSON `json:"resource_providers"`
	}
	if err := c.do(ctx, http.MethodGet, "/resource_providers", nil, &list); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byName, c.byUUID = map[string]string{}, map[string]string{}
	for _, p := range list.Providers {
		c.byName[p.Name], c.byUUID[p.UUID] = p.UUID, p.Name
	}
	return nil
}

func (c *Client) providerUUID(ctx context.Context, name string) (string, bool, error) {
	c.mu.Lock()
	u, ok := c.byName[name]
	c.mu.Unlock()
	if ok {
		return u, true, nil
	}
	if err := c.refresh(ctx); err != nil {
		return "", false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	u, ok = c.byName[name]
	return u, ok, nil
}

func (c *Client) providerName(uuid string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.byUUID[uuid]; ok {
		return n
	}
	return uuid
}

// translate rewrites a query's provider and aggregate names into UUIDs.
func (c *Client) translate(ctx context.Context, q Query) (Query, bool, error) {
	out := q
	out.Groups = make([]RequestGroup, len(q.Groups))
	for i, g := range q.Groups {
		g2 := g
		if g.InTree != "" {
			u, ok, err := c.providerUUID(ctx, g.InTree)
			if err != nil {
				return out, false, err
			}
			if !ok {
				return out, false, nil // unknown provider: nothing matches
			}
			g2.InTree = u
		}
		g2.MemberOfAnyOf = nil
		for _, any := range g.MemberOfAnyOf {
			var l []string
			for _, a := range any {
				l = append(l, NameUUID("aggregate", a))
			}
			g2.MemberOfAnyOf = append(g2.MemberOfAnyOf, l)
		}
		g2.ForbiddenAggs = nil
		for _, a := range g.ForbiddenAggs {
			g2.ForbiddenAggs = append(g2.ForbiddenAggs, NameUUID("aggregate", a))
		}
		out.Groups[i] = g2
	}
	return out, true, nil
}

// Candidates implements Service against the real service, at the
// negotiated microversion; provider UUIDs in the answer are turned back
// into names.
func (c *Client) Candidates(ctx context.Context, q Query) (*Candidates, error) {
	tq, ok, err := c.translate(ctx, q)
	if err != nil {
		return nil, err
	}
	res := &Candidates{Requests: []AllocationRequest{}, Summaries: map[string]ProviderSummary{}}
	if !ok {
		return res, nil
	}
	if err := c.refresh(ctx); err != nil {
		return nil, err
	}
	var body struct {
		AllocationRequests []struct {
			Allocations map[string]struct {
				Resources map[string]int64 `json:"resources"`
			} `json:"allocations"`
			Mappings map[string][]string `json:"mappings"`
		} `json:"allocation_requests"`
		ProviderSummaries map[string]struct {
			Resources map[string]ResourceSummary `json:"resources"`
			Traits    []string                   `json:"traits"`
			Parent    *string                    `json:"parent_provider_uuid"`
			Root      string                     `json:"root_provider_uuid"`
		} `json:"provider_summaries"`
	}
	if err := c.do(ctx, http.MethodGet, "/allocation_candidates?"+encodeQuery(tq.String()), nil, &body); err != nil {
		return nil, err
	}
	for _, ar := range body.AllocationRequests {
		allocs, mappings := Allocations{}, map[string][]string{}
		for u, a := range ar.Allocations {
			allocs[c.providerName(u)] = a.Resources
		}
		for g, l := range ar.Mappings {
			for _, u := range l {
				mappings[g] = append(mappings[g], c.providerName(u))
			}
		}
		res.Requests = append(res.Requests, NewAllocationRequest(allocs, mappings))
	}
	for u, s := range body.ProviderSummaries {
		ps := ProviderSummary{Resources: s.Resources, Traits: s.Traits, Root: c.providerName(s.Root)}
		if s.Parent != nil {
			ps.Parent = c.providerName(*s.Parent)
		}
		sort.Strings(ps.Traits)
		res.Summaries[c.providerName(u)] = ps
	}
	return res, nil
}

// encodeQuery escapes the values of a query string written in Placement's
// syntax (names may hold characters that need escaping).
func encodeQuery(raw string) string {
	var parts []string
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		parts = append(parts, url.QueryEscape(k)+"="+strings.NewReplacer("%3A", ":", "%2C", ",", "%21", "!").Replace(url.QueryEscape(v)))
	}
	return strings.Join(parts, "&")
}

// Claim implements Service: PUT /allocations/{consumer} with the consumer
// generation (1.28+). Provider generation races inside the write are
// retried by Placement itself; a consumer generation conflict is returned.
func (c *Client) Claim(ctx context.Context, consumer string, allocs Allocations, generation *int64) error {
	body := map[string]any{"project_id": c.opts.ProjectID, "user_id": c.opts.UserID}
	dict := map[string]any{}
	for name, res := range allocs {
		u, ok, err := c.providerUUID(ctx, name)
		if err != nil {
			return err
		}
		if !ok {
			return badRequest("Allocation for resource provider '%s' that does not exist.", name)
		}
		dict[u] = map[string]any{"resources": res}
	}
	body["allocations"] = dict
	if c.version.AtLeast(28) {
		body["consumer_generation"] = generation
	}
	if c.version.AtLeast(38) {
		body["consumer_type"] = c.opts.ConsumerType
	}
	return c.do(ctx, http.MethodPut, "/allocations/"+NameUUID("consumer", consumer), body, nil)
}

// Release implements Service; a consumer with nothing allocated is fine.
func (c *Client) Release(ctx context.Context, consumer string) error {
	return c.deleteGone(ctx, "/allocations/"+NameUUID("consumer", consumer))
}

// writeWithRetry runs a provider write that carries the provider
// generation, re-reading the generation and retrying after a conflict.
func (c *Client) writeWithRetry(ctx context.Context, uuid string, write func(gen int64) error) error {
	var err error
	for i := 0; i <= c.opts.Retries; i++ {
		var rp rpJSON
		if err = c.do(ctx, http.MethodGet, "/resource_providers/"+uuid, nil, &rp); err != nil {
			return err
		}
		if err = write(rp.Generation); !errors.Is(err, ErrGenerationConflict) {
			return err
		}
	}
	return err
}

// Push creates the model's providers in the real service (parents first):
// provider, inventories, custom traits and traits, aggregates, and, for
// usage the model holds outside any consumer, one consumer per provider
// ("usage-<name>") that holds it. It is how an inventory file seeds a
// service, and how the differential test builds the same cloud twice.
func (c *Client) Push(ctx context.Context, m *Model) error {
	for _, t := range m.ListTraits(TraitFilter{Prefix: "CUSTOM_"}) {
		if err := c.do(ctx, http.MethodPut, "/traits/"+t, nil, nil); err != nil {
			return err
		}
	}
	for _, p := range m.Providers() {
		u := p.UUID
		if u == "" {
			u = NameUUID("provider", p.Name)
		}
		body := map[string]any{"name": p.Name, "uuid": u}
		if p.Parent != "" {
			pu, ok, err := c.providerUUID(ctx, p.Parent)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("push %s: parent %s not found", p.Name, p.Parent)
			}
			body["parent_provider_uuid"] = pu
		}
		if err := c.do(ctx, http.MethodPost, "/resource_providers", body, nil); err != nil {
			return fmt.Errorf("push %s: %w", p.Name, err)
		}
		c.mu.Lock()
		if c.byName == nil {
			c.byName, c.byUUID = map[string]string{}, map[string]string{}
		}
		c.byName[p.Name], c.byUUID[u] = u, p.Name
		c.mu.Unlock()
		if err := c.pushDetails(ctx, u, p); err != nil {
			return fmt.Errorf("push %s: %w", p.Name, err)
		}
	}
	for _, p := range m.Providers() {
		if len(p.Usages) == 0 {
			continue
		}
		inUse := Allocations{p.Name: {}}
		for rc, n := range p.Usages {
			if n > 0 {
				inUse[p.Name][rc] = n
			}
		}
		if len(inUse[p.Name]) == 0 {
			continue
		}
		if err := c.Claim(ctx, "usage-"+p.Name, inUse, nil); err != nil {
			return fmt.Errorf("push usage of %s: %w", p.Name, err)
		}
	}
	return nil
}

func (c *Client) pushDetails(ctx context.Context, u string, p ProviderInfo) error {
	if len(p.Inventories) > 0 {
		invs := map[string]any{}
		for rc, inv := range p.Inventories {
			if !IsStandardResourceClass(rc) {
				if err := c.do(ctx, http.MethodPut, "/resource_classes/"+rc, nil, nil); err != nil {
					return err
				}
			}
			invs[rc] = inv
		}
		if err := c.writeWithRetry(ctx, u, func(gen int64) error {
			return c.do(ctx, http.MethodPut, "/resource_providers/"+u+"/inventories",
				map[string]any{"resource_provider_generation": gen, "inventories": invs}, nil)
		}); err != nil {
			return err
		}
	}
	if len(p.Traits) > 0 {
		if err := c.writeWithRetry(ctx, u, func(gen int64) error {
			return c.do(ctx, http.MethodPut, "/resource_providers/"+u+"/traits",
				map[string]any{"resource_provider_generation": gen, "traits": p.Traits}, nil)
		}); err != nil {
			return err
		}
	}
	if len(p.Aggregates) > 0 {
		var aggs []string
		for _, a := range p.Aggregates {
			aggs = append(aggs, NameUUID("aggregate", a))
		}
		if err := c.writeWithRetry(ctx, u, func(gen int64) error {
			return c.do(ctx, http.MethodPut, "/resource_providers/"+u+"/aggregates",
				map[string]any{"resource_provider_generation": gen, "aggregates": aggs}, nil)
		}); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the model's providers from the real service (children
// first), after releasing the usage consumers Push created.
func (c *Client) Remove(ctx context.Context, m *Model) error {
	ps := m.Providers()
	for _, p := range ps {
		if err := c.Release(ctx, "usage-"+p.Name); err != nil {
			return err
		}
	}
	for i := len(ps) - 1; i >= 0; i-- {
		u, ok, err := c.providerUUID(ctx, ps[i].Name)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := c.do(ctx, http.MethodDelete, "/resource_providers/"+u, nil, nil); err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("remove %s: %w", ps[i].Name, err)
		}
	}
	return c.refresh(ctx)
}

var _ Service = (*Client)(nil)
