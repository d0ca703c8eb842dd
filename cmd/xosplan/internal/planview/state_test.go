package planview

import (
	"bytes"
	"path/filepath"
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
