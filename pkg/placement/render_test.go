package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// referencePlacementJSON is the answer built as maps and structs and
// written by encoding/json (what PlacementJSON did before it wrote the
// answer directly): AppendPlacementJSON must give the same bytes.
func referencePlacementJSON(t *testing.T, c *Candidates, v Version) []byte {
	type jsonResources struct {
		Resources map[string]int64 `json:"resources"`
	}
	type jsonRequest struct {
		Allocations map[string]jsonResources `json:"allocations"`
		Mappings    map[string][]string      `json:"mappings,omitempty"`
	}
	type jsonSummary struct {
		Resources map[string]ResourceSummary `json:"resources"`
		Traits    []string                   `json:"traits,omitempty"`
	}
	type jsonTreeSummary struct {
		jsonSummary
		Parent *string `json:"parent_provider_uuid"`
		Root   string  `json:"root_provider_uuid"`
	}
	out := struct {
		AllocationRequests []jsonRequest  `json:"allocation_requests"`
		ProviderSummaries  map[string]any `json:"provider_summaries"`
	}{[]jsonRequest{}, map[string]any{}}
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
	data, err := marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func checkRendering(t *testing.T, what string, c *Candidates, v Version) {
	t.Helper()
	want := referencePlacementJSON(t, c, v)
	if got, _ := c.PlacementJSON(v); !bytes.Equal(got, want) {
		t.Fatalf("%s at %s:\n got %s\nwant %s", what, v, got, want)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, want, "", "  "); err != nil {
		t.Fatal(err)
	}
	if got := c.AppendPlacementJSON([]byte("x"), v, "  "); !bytes.Equal(got[1:], indented.Bytes()) || got[0] != 'x' {
		t.Fatalf("%s at %s, indented:\n got %s\nwant %s", what, v, got, indented.Bytes())
	}
}

// TestPlacementJSONAsEncodingJSON: the direct writer gives encoding/json's
// bytes, compact and indented, for random clouds and queries at every
// microversion, for an empty answer, and for names that need escaping.
func TestPlacementJSONAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	for i := 0; i < 60; i++ {
		m := randomCloud(t, r, "")
		q, _ := randomQuery(r, m)
		for minor := 10; minor <= LatestMinor; minor++ {
			q.Version = Version{Major: 1, Minor: minor}
			res, err := m.Candidates(t.Context(), q)
			if err != nil {
				continue
			}
			checkRendering(t, fmt.Sprintf("cloud %d query %s", i, q), res, q.Version)
		}
	}
	checkRendering(t, "no candidates", &Candidates{}, Latest())
	odd := []string{`a"b`, `back\slash`, "ünï", "<&>", "line\u2028sep", "tab\there", "bad\xffutf8"}
	c := &Candidates{Summaries: map[string]ProviderSummary{}}
	for i, name := range odd {
		c.Requests = append(c.Requests, AllocationRequest{
			Resources: []Amount{{name, "VCPU", int64(i)}, {name, "VCPU", 1}, {"z", "DISK_GB", 3}},
			Mappings:  []GroupMapping{{"_" + name, []string{name, "z"}}, {"", nil}}})
		c.Summaries[name] = ProviderSummary{Resources: map[string]ResourceSummary{"VCPU": {4, 1}}, Traits: []string{name}, Parent: name, Root: "r"}
	}
	c.Summaries["z"] = ProviderSummary{Root: "z", Traits: []string{}}
	for _, v := range []Version{{1, 10}, {1, 17}, {1, 29}, Latest()} {
		checkRendering(t, "odd names", c, v)
	}
}
