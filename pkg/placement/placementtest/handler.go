package placementtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/xosplan/xosplan/pkg/placement"
)

// NewHandler exposes a Model through Placement's REST API (the subset the
// embedded backend needs: traits, provider traits, aggregates, inventories,
// usages, allocations, allocation candidates and provider create/delete),
// with microversions from the OpenStack-API-Version header (default 1.0)
// and Placement's status codes and error bodies. Provider names stand
// where Placement has UUIDs. It lets the Model be driven exactly as the
// real service is, which is how the corpus API sequences are replayed.
func NewHandler(m *placement.Model) http.Handler { return &handler{m: m} }

type handler struct{ m *placement.Model }

// maxBody bounds a request body; Placement's own bodies are small.
const maxBody = 4 << 20

type apiReq struct {
	r     *http.Request
	v     placement.Version
	parts []string
	body  map[string]any
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := placement.Version{Major: 1, Minor: 0}
	if hv := r.Header.Get("OpenStack-API-Version"); hv != "" {
		pv, err := placement.ParseVersion(strings.TrimSpace(strings.TrimPrefix(hv, "placement")))
		if err != nil || pv.Minor > placement.LatestMinor {
			writeError(w, &placement.Error{Status: http.StatusNotAcceptable, Code: placement.CodeUndefined, Detail: fmt.Sprintf("Invalid microversion %q.", hv)})
			return
		}
		v = pv
	}
	w.Header().Set("OpenStack-API-Version", "placement "+v.String())
	q := &apiReq{r: r, v: v, parts: strings.Split(strings.Trim(r.URL.Path, "/"), "/")}
	if r.Method == http.MethodPut || r.Method == http.MethodPost {
		data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err == nil && len(strings.TrimSpace(string(data))) > 0 {
			err = json.Unmarshal(data, &q.body)
		}
		if err != nil {
			writeError(w, badRequest("Malformed JSON: %v", err))
			return
		}
	}
	status, out, err := h.route(q)
	if err != nil {
		writeError(w, err)
		return
	}
	if out == nil {
		w.WriteHeader(status)
		return
	}
	data, err := marshal(out)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func writeError(w http.ResponseWriter, err error) {
	e, ok := err.(*placement.Error)
	if !ok {
		e = &placement.Error{Status: http.StatusInternalServerError, Code: placement.CodeUndefined, Detail: err.Error()}
	}
	code := e.Code
	if code == "" {
		code = placement.CodeUndefined
	}
	body, _ := marshal(map[string]any{"errors": []any{map[string]any{
		"status": e.Status, "title": http.StatusText(e.Status), "detail": e.Detail, "code": code}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

func badRequest(format string, args ...any) *placement.Error {
	return &placement.Error{Status: http.StatusBadRequest, Code: placement.CodeUndefined, Detail: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *placement.Error {
	return &placement.Error{Status: http.StatusNotFound, Code: placement.CodeUndefined, Detail: fmt.Sprintf(format, args...)}
}

// marshal encodes without HTML escaping, as placement's own JSON does:
// Placement does not escape and clients compare text.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func errNotFoundRoute() error { return notFound("The resource could not be found.") }

func methodNotAllowed() error {
	return &placement.Error{Status: http.StatusMethodNotAllowed, Code: placement.CodeUndefined, Detail: "The method specified is not allowed for this resource."}
}

// resolve maps a provider UUID in a path or body to the model's name;
// anything unknown is returned as is (and then not found).
func (h *handler) resolve(id string) string {
	if name, ok := h.m.Lookup(id); ok {
		return name
	}
	return id
}

func (h *handler) route(q *apiReq) (int, any, error) {
	p := q.parts
	if len(p) >= 2 && p[0] == "resource_providers" {
		p[1] = h.resolve(p[1])
	}
	switch {
	case len(p) == 1 && p[0] == "":
		return h.versions(q)
	case len(p) == 2 && p[0] == "resource_classes":
		return h.resourceClass(q, p[1])
	case len(p) == 1 && p[0] == "allocation_candidates":
		return h.candidates(q)
	case len(p) >= 1 && p[0] == "traits":
		if !q.v.AtLeast(6) {
			return 0, nil, errNotFoundRoute()
		}
		if len(p) == 1 {
			return h.listTraits(q)
		}
		if len(p) == 2 {
			return h.trait(q, p[1])
		}
	case len(p) == 2 && p[0] == "allocations":
		return h.allocations(q, p[1])
	case len(p) >= 1 && p[0] == "resource_providers":
		return h.providerRoute(q, p)
	}
	return 0, nil, errNotFoundRoute()
}

// providerRoute routes the paths under /resource_providers.
func (h *handler) providerRoute(q *apiReq, p []string) (int, any, error) {
	switch len(p) {
	case 1:
		return h.providers(q)
	case 2:
		return h.provider(q, p[1])
	case 3:
		switch p[2] {
		case "traits":
			if q.v.AtLeast(6) {
				return h.providerTraits(q, p[1])
			}
		case "inventories":
			return h.inventories(q, p[1])
		case "usages":
			return h.usages(q, p[1])
		case "aggregates":
			if q.v.AtLeast(1) {
				return h.aggregates(q, p[1])
			}
		}
	case 4:
		if p[2] == "inventories" {
			return h.inventory(q, p[1], p[3])
		}
	}
	return 0, nil, errNotFoundRoute()
}

func (h *handler) versions(q *apiReq) (int, any, error) {
	if q.r.Method != http.MethodGet {
		return 0, nil, methodNotAllowed()
	}
	return http.StatusOK, map[string]any{"versions": []any{map[string]any{
		"id": "v1.0", "min_version": "1.0", "max_version": placement.Latest().String(), "status": "CURRENT"}}}, nil
}

func (h *handler) resourceClass(q *apiReq, name string) (int, any, error) {
	switch q.r.Method {
	case http.MethodPut:
		if placement.IsStandardResourceClass(name) {
			return 0, nil, badRequest("Cannot update standard resource class %s", name)
		}
		if !placement.IsValidCustomResourceClass(name) {
			return 0, nil, badRequest("JSON does not validate: %q does not match '^CUSTOM_[A-Z0-9_]+$'", name)
		}
		if err := h.m.EnsureCustomResourceClass(name); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

func (h *handler) candidates(q *apiReq) (int, any, error) {
	if q.r.Method != http.MethodGet {
		return 0, nil, methodNotAllowed()
	}
	query, err := placement.ParseQuery(q.r.URL.RawQuery, q.v)
	if err != nil {
		return 0, nil, err
	}
	for i := range query.Groups {
		if query.Groups[i].InTree != "" {
			query.Groups[i].InTree = h.resolve(query.Groups[i].InTree)
		}
	}
	res, err := h.m.Candidates(q.r.Context(), query)
	if err != nil {
		return 0, nil, err
	}
	data, err := res.PlacementJSON(q.v)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, json.RawMessage(data), nil
}

func (h *handler) listTraits(q *apiReq) (int, any, error) {
	if q.r.Method != http.MethodGet {
		return 0, nil, methodNotAllowed()
	}
	var f placement.TraitFilter
	vals := q.r.URL.Query()
	if name := vals.Get("name"); name != "" {
		switch {
		case strings.HasPrefix(name, "startswith:"):
			f.Prefix = strings.TrimPrefix(name, "startswith:")
		case strings.HasPrefix(name, "in:"):
			f.Names = strings.Split(strings.TrimPrefix(name, "in:"), ",")
		default:
			return 0, nil, badRequest(`Badly formatted name parameter. Expected name query string parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "%s"`, name)
		}
	}
	if a := vals.Get("associated"); a != "" {
		switch strings.ToLower(a) {
		case "true":
			t := true
			f.Associated = &t
		case "false":
			t := false
			f.Associated = &t
		default:
			return 0, nil, badRequest(`The query parameter "associated" only accepts "true" or "false"`)
		}
	}
	traits := h.m.ListTraits(f)
	if traits == nil {
		traits = []string{}
	}
	return http.StatusOK, map[string]any{"traits": traits}, nil
}

func (h *handler) trait(q *apiReq, name string) (int, any, error) {
	switch q.r.Method {
	case http.MethodPut:
		created, err := h.m.CreateTrait(name)
		if err != nil {
			return 0, nil, err
		}
		if created {
			return http.StatusCreated, nil, nil
		}
		return http.StatusNoContent, nil, nil
	case http.MethodGet:
		if !h.m.TraitExists(name) {
			return 0, nil, notFound("No such trait(s): %s.", name)
		}
		return http.StatusNoContent, nil, nil
	case http.MethodDelete:
		if err := h.m.DeleteTrait(name); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

func (h *handler) providers(q *apiReq) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		var list []any
		for _, p := range h.m.Providers() {
			list = append(list, providerJSON(p))
		}
		if list == nil {
			list = []any{}
		}
		return http.StatusOK, map[string]any{"resource_providers": list}, nil
	case http.MethodPost:
		name, _ := q.body["name"].(string)
		parent, _ := q.body["parent_provider_uuid"].(string)
		uuid, _ := q.body["uuid"].(string)
		if parent != "" {
			parent = h.resolve(parent)
		}
		if name == "" {
			return 0, nil, badRequest("JSON does not validate: 'name' is a required property")
		}
		if err := h.m.AddProvider(placement.ProviderSpec{Name: name, UUID: uuid, Parent: parent}); err != nil {
			return 0, nil, err
		}
		for _, p := range h.m.Providers() {
			if p.Name == name {
				return http.StatusOK, providerJSON(p), nil
			}
		}
	}
	return 0, nil, methodNotAllowed()
}

func providerJSON(p placement.ProviderInfo) map[string]any {
	id := p.Name
	if p.UUID != "" {
		id = p.UUID
	}
	out := map[string]any{"uuid": id, "name": p.Name, "generation": p.Generation, "root_provider_uuid": p.Root,
		"parent_provider_uuid": nil}
	if p.Parent != "" {
		out["parent_provider_uuid"] = p.Parent
	}
	return out
}

func (h *handler) provider(q *apiReq, name string) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		for _, p := range h.m.Providers() {
			if p.Name == name {
				return http.StatusOK, providerJSON(p), nil
			}
		}
		return 0, nil, notFound("No resource provider with uuid %s found", name)
	case http.MethodDelete:
		if err := h.m.DeleteProvider(name); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

// generation reads resource_provider_generation, required by every write.
func (q *apiReq) generation() (int64, error) {
	g, ok := q.body["resource_provider_generation"]
	if !ok {
		return 0, badRequest("JSON does not validate: 'resource_provider_generation' is a required property")
	}
	n, ok := asInt(g)
	if !ok {
		return 0, badRequest("JSON does not validate: %v is not of type 'integer'", g)
	}
	return n, nil
}

func asInt(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func (h *handler) providerTraits(q *apiReq, name string) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		traits, gen, err := h.m.ProviderTraits(name)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"traits": nonNil(traits), "resource_provider_generation": gen}, nil
	case http.MethodPut:
		raw, ok := q.body["traits"].([]any)
		if !ok {
			return 0, nil, badRequest("JSON does not validate: 'traits' is a required property")
		}
		gen, err := q.generation()
		if err != nil {
			return 0, nil, err
		}
		traits, err := names(raw, "a valid trait name")
		if err != nil {
			return 0, nil, err
		}
		newGen, err := h.m.SetProviderTraits(name, gen, traits)
		if err != nil {
			if e, ok := err.(*placement.Error); ok && e.Code == placement.CodeConcurrentUpdate {
				e.Detail = "Resource provider's generation already changed. Please update the generation and try again."
			}
			return 0, nil, err
		}
		traits, _, _ = h.m.ProviderTraits(name)
		return http.StatusOK, map[string]any{"traits": nonNil(traits), "resource_provider_generation": newGen}, nil
	case http.MethodDelete:
		if err := h.m.DeleteProviderTraits(name); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

// names reads a request body's list of trait or aggregate names: strings
// of 1 to MaxNameLength characters, else a 400 saying the item is not what.
func names(raw []any, what string) ([]string, error) {
	var out []string
	for _, x := range raw {
		s, ok := x.(string)
		if !ok || s == "" || len(s) > placement.MaxNameLength {
			return nil, badRequest("JSON does not validate: %v is not %s", x, what)
		}
		out = append(out, s)
	}
	return out, nil
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func (h *handler) aggregates(q *apiReq, name string) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		for _, p := range h.m.Providers() {
			if p.Name == name {
				return http.StatusOK, map[string]any{"aggregates": nonNil(p.Aggregates), "resource_provider_generation": p.Generation}, nil
			}
		}
		return 0, nil, notFound("No resource provider with uuid %s found", name)
	case http.MethodPut:
		raw, ok := q.body["aggregates"].([]any)
		if !ok {
			return 0, nil, badRequest("JSON does not validate: 'aggregates' is a required property")
		}
		gen, err := q.generation()
		if err != nil {
			return 0, nil, err
		}
		aggs, err := names(raw, "a valid aggregate")
		if err != nil {
			return 0, nil, err
		}
		newGen, err := h.m.SetProviderAggregates(name, gen, aggs)
		if err != nil {
			return 0, nil, err
		}
		sort.Strings(aggs)
		return http.StatusOK, map[string]any{"aggregates": nonNil(aggs), "resource_provider_generation": newGen}, nil
	}
	return 0, nil, methodNotAllowed()
}

// readInventoryBody validates an inventory body as Placement's JSON schema
// does and fills the REST defaults.
func readInventoryBody(body map[string]any) (placement.Inventory, error) {
	inv := placement.DefaultInventory(0)
	total, ok := body["total"]
	if !ok {
		return inv, badRequest("JSON does not validate: 'total' is a required property")
	}
	fields := []struct {
		key string
		dst *int64
		min int64
		v   any
	}{{"total", &inv.Total, 1, total}, {"reserved", &inv.Reserved, 0, body["reserved"]},
		{"min_unit", &inv.MinUnit, 1, body["min_unit"]}, {"max_unit", &inv.MaxUnit, 1, body["max_unit"]},
		{"step_size", &inv.StepSize, 1, body["step_size"]}}
	for _, f := range fields {
		if f.v == nil {
			continue
		}
		n, ok := asInt(f.v)
		switch {
		case !ok:
			return inv, badRequest("JSON does not validate: %v is not of type 'integer'  Failed validating 'type' in schema['properties']['%s']", f.v, f.key)
		case n < f.min:
			return inv, badRequest("JSON does not validate: %d is less than the minimum of %d  Failed validating 'minimum' in schema['properties']['%s']", n, f.min, f.key)
		case n > placement.MaxInt:
			return inv, badRequest("JSON does not validate: %d is greater than the maximum of %d  Failed validating 'maximum' in schema['properties']['%s']", n, placement.MaxInt, f.key)
		}
		*f.dst = n
	}
	if r, ok := body["allocation_ratio"]; ok {
		f, isNum := r.(float64)
		if !isNum || f > 3.40282e+38 {
			return inv, badRequest("JSON does not validate: %v is not a valid allocation_ratio  Failed validating 'maximum' in schema['properties']['allocation_ratio']", r)
		}
		inv.AllocationRatio = f
	}
	for k := range body {
		switch k {
		case "total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio", "resource_class", "resource_provider_generation":
		default:
			return inv, badRequest("JSON does not validate: Additional properties are not allowed ('%s' was unexpected)", k)
		}
	}
	return inv, nil
}

func inventoryJSON(inv placement.Inventory, gen int64) map[string]any {
	return map[string]any{"total": inv.Total, "reserved": inv.Reserved, "min_unit": inv.MinUnit,
		"max_unit": inv.MaxUnit, "step_size": inv.StepSize, "allocation_ratio": inv.AllocationRatio,
		"resource_provider_generation": gen}
}

func inventoriesJSON(invs map[string]placement.Inventory, gen int64) map[string]any {
	out := map[string]any{}
	for rc, inv := range invs {
		j := inventoryJSON(inv, gen)
		delete(j, "resource_provider_generation")
		out[rc] = j
	}
	return map[string]any{"inventories": out, "resource_provider_generation": gen}
}

func (h *handler) inventories(q *apiReq, name string) (int, any, error) {
	zeroOK := q.v.AtLeast(26)
	switch q.r.Method {
	case http.MethodGet:
		invs, gen, err := h.m.Inventories(name)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, inventoriesJSON(invs, gen), nil
	case http.MethodPost:
		inv, err := readInventoryBody(q.body)
		if err != nil {
			return 0, nil, err
		}
		rc, _ := q.body["resource_class"].(string)
		if rc == "" {
			return 0, nil, badRequest("JSON does not validate: 'resource_class' is a required property")
		}
		gen, err := h.m.AddInventory(name, rc, inv, zeroOK)
		if err != nil {
			return 0, nil, err
		}
		out := inventoryJSON(inv, gen)
		out["resource_class"] = rc
		return http.StatusCreated, out, nil
	case http.MethodPut:
		gen, err := q.generation()
		if err != nil {
			return 0, nil, err
		}
		raw, ok := q.body["inventories"].(map[string]any)
		if !ok {
			return 0, nil, badRequest("JSON does not validate: 'inventories' is a required property")
		}
		invs := map[string]placement.Inventory{}
		for rc, b := range raw {
			bm, ok := b.(map[string]any)
			if !ok {
				return 0, nil, badRequest("JSON does not validate: inventory of %s is not an object", rc)
			}
			inv, err := readInventoryBody(bm)
			if err != nil {
				return 0, nil, err
			}
			invs[rc] = inv
		}
		newGen, err := h.m.SetInventories(name, gen, invs, zeroOK)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, inventoriesJSON(invs, newGen), nil
	case http.MethodDelete:
		if !q.v.AtLeast(5) {
			return 0, nil, methodNotAllowed()
		}
		if _, err := h.m.DeleteInventories(name); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

func (h *handler) inventory(q *apiReq, name, rc string) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		invs, gen, err := h.m.Inventories(name)
		if err != nil {
			return 0, nil, err
		}
		inv, ok := invs[rc]
		if !ok {
			return 0, nil, notFound("No inventory of class %s for %s", rc, name)
		}
		return http.StatusOK, inventoryJSON(inv, gen), nil
	case http.MethodPut:
		gen, err := q.generation()
		if err != nil {
			return 0, nil, err
		}
		inv, err := readInventoryBody(q.body)
		if err != nil {
			return 0, nil, err
		}
		newGen, err := h.m.UpdateInventory(name, gen, rc, inv, q.v.AtLeast(26))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, inventoryJSON(inv, newGen), nil
	}
	return 0, nil, methodNotAllowed()
}

func (h *handler) usages(q *apiReq, name string) (int, any, error) {
	if q.r.Method != http.MethodGet {
		return 0, nil, methodNotAllowed()
	}
	u, gen, err := h.m.Usages(name)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"usages": u, "resource_provider_generation": gen}, nil
}

func (h *handler) allocations(q *apiReq, consumerID string) (int, any, error) {
	switch q.r.Method {
	case http.MethodGet:
		ca := h.m.Allocations(consumerID)
		allocs := map[string]any{}
		for p, res := range ca.Allocations {
			gen, _ := h.m.ProviderGeneration(p)
			allocs[p] = map[string]any{"resources": res, "generation": gen}
		}
		out := map[string]any{"allocations": allocs}
		if q.v.AtLeast(12) && ca.Exists {
			out["project_id"], out["user_id"] = ca.ProjectID, ca.UserID
		}
		if q.v.AtLeast(28) && ca.Exists {
			out["consumer_generation"] = ca.Generation
		}
		return http.StatusOK, out, nil
	case http.MethodPut:
		allocs, opts, err := readAllocationBody(q.body, q.v)
		if err != nil {
			return 0, nil, err
		}
		for id, res := range allocs {
			if name := h.resolve(id); name != id {
				delete(allocs, id)
				allocs[name] = res
			}
		}
		if err := h.m.PutAllocations(consumerID, allocs, opts); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	case http.MethodDelete:
		if err := h.m.DeleteAllocations(consumerID); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
	return 0, nil, methodNotAllowed()
}

// readAllocationBody accepts the list form (before 1.12) and the dict form
// (1.12+), with project/user (1.8+) and consumer_generation (1.28+).
func readAllocationBody(body map[string]any, v placement.Version) (placement.Allocations, placement.WriteOptions, error) {
	opts := placement.WriteOptions{}
	raw, ok := body["allocations"]
	if !ok {
		return nil, opts, badRequest("JSON does not validate: 'allocations' is a required property")
	}
	allocs, err := readAllocationList(raw, v)
	if err != nil {
		return nil, opts, err
	}
	if err := readConsumerFields(body, v, &opts); err != nil {
		return nil, opts, err
	}
	return allocs, opts, nil
}

// readAllocationList reads the allocations of a body: a dict by provider
// from 1.12 on, a list of {resource_provider, resources} before.
func readAllocationList(raw any, v placement.Version) (placement.Allocations, error) {
	allocs := placement.Allocations{}
	if v.AtLeast(12) {
		dict, ok := raw.(map[string]any)
		if !ok {
			return nil, badRequest("JSON does not validate: 'allocations' is not of type 'object'")
		}
		for rp, entry := range dict {
			em, _ := entry.(map[string]any)
			if err := addResources(allocs, rp, em["resources"]); err != nil {
				return nil, err
			}
		}
		return allocs, nil
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, badRequest("JSON does not validate: 'allocations' must be a non-empty array")
	}
	for _, entry := range list {
		em, _ := entry.(map[string]any)
		rpm, _ := em["resource_provider"].(map[string]any)
		rp, _ := rpm["uuid"].(string)
		if rp == "" {
			return nil, badRequest("JSON does not validate: 'resource_provider' is a required property")
		}
		if err := addResources(allocs, rp, em["resources"]); err != nil {
			return nil, err
		}
	}
	return allocs, nil
}

// addResources reads the resources of one provider's allocation into
// allocs (nothing when there are none).
func addResources(allocs placement.Allocations, rp string, res any) error {
	rm, ok := res.(map[string]any)
	if !ok {
		return badRequest("JSON does not validate: 'resources' is a required property")
	}
	out := map[string]int64{}
	for rc, a := range rm {
		n, ok := asInt(a)
		if !ok {
			return badRequest("JSON does not validate: %v is not of type 'integer'", a)
		}
		if n < 1 {
			return badRequest("JSON does not validate: %d is less than the minimum of 1", n)
		}
		out[rc] = n
	}
	if len(out) > 0 {
		allocs[rp] = out
	}
	return nil
}

// readConsumerFields reads project_id and user_id (1.8+) and
// consumer_generation (1.28+) into opts.
func readConsumerFields(body map[string]any, v placement.Version, opts *placement.WriteOptions) error {
	if v.AtLeast(8) {
		p, ok1 := body["project_id"].(string)
		u, ok2 := body["user_id"].(string)
		if !ok1 || !ok2 {
			return badRequest("JSON does not validate: 'project_id' and 'user_id' are required properties")
		}
		opts.ProjectID, opts.UserID = p, u
	}
	if v.AtLeast(28) {
		g, ok := body["consumer_generation"]
		if !ok {
			return badRequest("JSON does not validate: 'consumer_generation' is a required property")
		}
		opts.CheckGeneration = true
		if g != nil {
			n, ok := asInt(g)
			if !ok {
				return badRequest("JSON does not validate: %v is not of type 'integer', 'null'", g)
			}
			opts.Generation = &n
		}
	}
	return nil
}
