package planview

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

func TestStateViews(t *testing.T) {
	_, st, _ := loadCase(t, filepath.Join(casesDir, "unmanaged"))
	for i := range st.Resources {
		if st.Resources[i].Address == "db" {
			st.Resources[i].Feedback.Resolved = map[string]graph.Value{"password": "s3cret", "name": "app"}
		}
	}
	// show includes the recorded outputs, a sensitive one masked.
	st.Outputs = map[string]state.Output{
		"url":      {Value: "http://10.0.0.3/"},
		"ports":    {Value: []graph.Value{int64(80), int64(443)}},
		"password": {Value: "s3cret", Sensitive: true},
	}
	var text, js bytes.Buffer
	if err := StateText(&text, st, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := StateJSON(&js, st); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "state", "show.txt"), text.Bytes())
	testutil.Golden(t, filepath.Join("testdata", "state", "show.json"), js.Bytes())
	for _, b := range [][]byte{text.Bytes(), js.Bytes()} {
		if bytes.Contains(b, []byte("s3cret")) {
			t.Error("a sensitive value was shown")
		}
	}
	for _, c := range []struct {
		name string
		st   *state.State
		want string
	}{
		{"none", nil, "No state.\n"},
		{"no file", &state.State{Version: state.FormatVersion}, "No state.\n"},
		{"all destroyed", &state.State{Version: state.FormatVersion, Serial: 9, Lineage: "5a1d"},
			"The state has no resources (serial 9, lineage 5a1d).\n"},
	} {
		var empty bytes.Buffer
		if err := StateText(&empty, c.st, TextOptions{}); err != nil || empty.String() != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, empty.String(), err, c.want)
		}
	}
}

// TestStateTextShowsEmptyMapsAsEmpty: an empty map or list whose paths
// below are sensitive shows as {} or [], not as "(sensitive value)":
// there is nothing in it to hide. A filled one stays masked.
func TestStateTextShowsEmptyMapsAsEmpty(t *testing.T) {
	st := &state.State{Version: state.FormatVersion, Serial: 1, Lineage: "l", Resources: []state.Resource{{
		Address: "repo", Type: "t", Management: graph.Managed,
		Spec: map[string]graph.Value{
			"credential": map[string]graph.Value{},
			"keys":       []graph.Value{},
			"filled":     map[string]graph.Value{"token": "s3cret"},
			"token":      map[string]graph.Value{},
		},
		Sensitive: []string{"credential.token", "keys.0", "filled.token", "token"},
	}}}
	var text bytes.Buffer
	if err := StateText(&text, st, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(text.String()), " ")
	for _, want := range []string{"credential = {}", "keys = []", "} keys = [] token = (sensitive value)", `"token" = (sensitive value)`} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, text.String())
		}
	}
	if bytes.Contains(text.Bytes(), []byte("s3cret")) {
		t.Errorf("a sensitive value was shown:\n%s", text.String())
	}
}
