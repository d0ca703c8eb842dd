package placement_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/placement/placementtest"
)

// runSequence replays an API-sequence scenario: the starting providers are
// built through the model as Placement's fixtures build them (provider,
// then one inventory class at a time, then each consumer's allocations —
// every write bumping generations as upstream), then each step goes
// through the HTTP handler and its status, error text and JSON are checked.
func runSequence(t *testing.T, m *placement.Model, root *yamlsrc.Node) {
	for _, p := range root.Get("providers").Items() {
		name, _ := p.Get("name").String()
		parent, _ := p.Get("parent").String()
		if err := m.AddProvider(placement.ProviderSpec{Name: name, Parent: parent}); err != nil {
			t.Fatal(err)
		}
		for _, pair := range p.Get("inventories").Pairs() {
			inv, d := placement.ReadInventory(pair.Value, "")
			if d.HasErrors() {
				t.Fatal(d.Err())
			}
			if _, err := m.AddInventory(name, pair.Key.Value, inv, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range root.Get("consumer_allocations").Items() {
		id, _ := c.Get("consumer").String()
		allocs := placement.Allocations{}
		for _, pp := range c.Get("allocations").Pairs() {
			res := map[string]int64{}
			for _, rp := range pp.Value.Pairs() {
				res[rp.Key.Value], _ = rp.Value.Int()
			}
			allocs[pp.Key.Value] = res
		}
		if err := m.PutAllocations(id, allocs, placement.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	defMV, _ := root.Get("microversion_default").String()
	h := placementtest.NewHandler(m)
	for i, step := range root.Get("steps").Items() {
		name, _ := step.Get("name").String()
		req := step.Get("request")
		method, _ := req.Get("method").String()
		path, _ := req.Get("path").String()
		mv, ok := req.Get("microversion").String()
		if !ok {
			mv = defMV
		}
		var body string
		if b := req.Get("body"); b != nil {
			data, err := json.Marshal(b.Interface())
			if err != nil {
				t.Fatal(err)
			}
			body = unbrace(string(data))
		}
		r := httptest.NewRequest(method, unbrace(path), strings.NewReader(body))
		r.Header.Set("OpenStack-API-Version", "placement "+mv)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		exp := step.Get("expect")
		label := fmt.Sprintf("step %d %q (%s %s @%s)", i, name, method, path, mv)
		want, _ := exp.Get("status").Int()
		if int64(w.Code) != want {
			t.Errorf("%s: status %d, want %d; body %s", label, w.Code, want, w.Body.String())
			continue
		}
		for _, sub := range strs(exp.Get("error_contains")) {
			if !strings.Contains(w.Body.String(), unbrace(sub)) && !strings.Contains(unescapeJSON(w.Body.String()), unbrace(sub)) {
				t.Errorf("%s: body %s does not contain %q", label, w.Body.String(), sub)
			}
		}
		if js := exp.Get("json"); js != nil {
			var got map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Errorf("%s: body is not JSON: %v", label, err)
				continue
			}
			for _, pair := range js.Pairs() {
				gv, ok := lookup(got, pair.Key.Value)
				if !ok {
					t.Errorf("%s: %s missing in %s", label, pair.Key.Value, w.Body.String())
					continue
				}
				if !sameJSON(gv, pair.Value.Interface()) {
					t.Errorf("%s: %s = %v, want %v", label, pair.Key.Value, gv, pair.Value.Interface())
				}
			}
		}
	}
}

func unescapeJSON(s string) string { return strings.ReplaceAll(s, `\"`, `"`) }

// lookup resolves a key, or a dotted path of keys, in a decoded body.
func lookup(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	var cur any = m
	for _, part := range strings.Split(key, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// sameJSON compares a decoded body value with a YAML expectation,
// numbers by value.
func sameJSON(got, want any) bool {
	switch w := want.(type) {
	case int64:
		g, ok := got.(float64)
		return ok && g == float64(w)
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(g-w) < 1e-9
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			if !sameJSON(g[k], wv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}
