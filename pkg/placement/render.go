package placement

import (
	"bytes"
	"encoding/json"
)

// jsonCandidates is Placement's GET /allocation_candidates answer.
type jsonCandidates struct {
	AllocationRequests []jsonRequest  `json:"allocation_requests"`
	ProviderSummaries  map[string]any `json:"provider_summaries"`
}

type jsonRequest struct {
	Allocations map[string]jsonResources `json:"allocations"`
	Mappings    map[string][]string      `json:"mappings,omitempty"`
}

type jsonResources struct {
	Resources map[string]int64 `json:"resources"`
}

type jsonSummary struct {
	Resources map[string]ResourceSummary `json:"resources"`
	Traits    []string                   `json:"traits,omitempty"`
}

// jsonTreeSummary is the 1.29+ summary: parent is null for a root.
type jsonTreeSummary struct {
	jsonSummary
	Parent *string `json:"parent_provider_uuid"`
	Root   string  `json:"root_provider_uuid"`
}

// PlacementJSON renders the candidates in Placement's JSON shape for
// microversion v (dict-form allocations; mappings from 1.34; traits from
// 1.17; parent and root provider from 1.29), with provider names where
// Placement has UUIDs. Keys are sorted, so the output is deterministic;
// empty lists are [] and never null.
func (c *Candidates) PlacementJSON(v Version) ([]byte, error) {
	out := jsonCandidates{AllocationRequests: []jsonRequest{}, ProviderSummaries: map[string]any{}}
	for _, r := range c.Requests {
		jr := jsonRequest{Allocations: map[string]jsonResources{}}
		for p, res := range r.Allocations() {
			jr.Allocations[p] = jsonResources{Resources: res}
		}
		if v.AtLeast(34) {
			jr.Mappings = r.MappingsMap()
		}
		out.AllocationRequests = append(out.AllocationRequests, jr)
	}
	for name, s := range c.Summaries {
		js := jsonSummary{Resources: s.Resources}
		if v.AtLeast(17) {
			js.Traits = s.Traits
			if js.Traits == nil {
				js.Traits = []string{}
			}
		}
		if !v.AtLeast(29) {
			out.ProviderSummaries[name] = js
			continue
		}
		ts := jsonTreeSummary{jsonSummary: js, Root: s.Root}
		if s.Parent != "" {
			parent := s.Parent
			ts.Parent = &parent
		}
		out.ProviderSummaries[name] = ts
	}
	return marshal(out)
}

// marshal encodes without HTML escaping (messages quote names with < >
// rarely, but Placement does not escape and clients compare text).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
