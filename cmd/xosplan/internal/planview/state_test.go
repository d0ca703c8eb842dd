package planview

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
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
	golden(t, filepath.Join("testdata", "state", "show.txt"), text.Bytes())
	golden(t, filepath.Join("testdata", "state", "show.json"), js.Bytes())
	for _, b := range [][]byte{text.Bytes(), js.Bytes()} {
		if bytes.Contains(b, []byte("s3cret")) {
			t.Error("a sensitive value was shown")
		}
	}
	var empty bytes.Buffer
	if err := StateText(&empty, nil, TextOptions{}); err != nil || empty.String() != "No state.\n" {
		t.Errorf("empty state: %q %v", empty.String(), err)
	}
}
