package placement

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

func TestStandardTraitsMatchOsTraits(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.CorpusDir(t, "placement"), "os-traits.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	sort.Strings(want)
	got := StandardTraits()
	if len(got) != 377 {
		t.Errorf("%d standard traits, want 377", len(got))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("embedded standard traits differ from os-traits 3.9.0 (%d vs %d names)", len(got), len(want))
	}
}

func TestIsValidCustomTrait(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"CUSTOM_A", true},
		{"CUSTOM_DISK_SSD_2", true},
		{"CUSTOM_", false},
		{"CUSTOM_lower", false},
		{"CUSTOM_ABC:1", false},
		{"TRAIT_X", false},
		{"HW_CPU_X86_SSE", false},
		{"CUSTOM_" + strings.Repeat("A", 248), true},
		{"CUSTOM_" + strings.Repeat("A", 249), false},
	} {
		if got := IsValidCustomTrait(tc.name); got != tc.ok {
			t.Errorf("IsValidCustomTrait(%.20q…) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

func TestTraitLifecycle(t *testing.T) {
	m := NewModel()
	steps := []struct {
		name   string
		do     func() error
		status int
	}{
		{"create custom", func() error { _, err := m.CreateTrait("CUSTOM_GOLD"); return err }, 200},
		{"create standard refused", func() error { _, err := m.CreateTrait("HW_CPU_X86_SSE"); return err }, 400},
		{"delete standard refused", func() error { return m.DeleteTrait("HW_CPU_X86_SSE") }, 400},
		{"delete unknown", func() error { return m.DeleteTrait("CUSTOM_NOPE") }, 404},
		{"add provider with trait", func() error {
			return m.AddProvider(ProviderSpec{Name: "cn", Traits: []string{"CUSTOM_GOLD"}})
		}, 200},
		{"delete in use", func() error { return m.DeleteTrait("CUSTOM_GOLD") }, 409},
		{"stale generation", func() error { _, err := m.SetProviderTraits("cn", 7, nil); return err }, 409},
		{"unknown trait on provider", func() error { _, err := m.SetProviderTraits("cn", 0, []string{"NOT_A_TRAIT"}); return err }, 400},
		{"clear traits", func() error { _, err := m.SetProviderTraits("cn", 0, nil); return err }, 200},
		{"delete now unused", func() error { return m.DeleteTrait("CUSTOM_GOLD") }, 200},
	}
	for _, s := range steps {
		if got := StatusOf(s.do()); got != s.status {
			t.Errorf("%s: status %d, want %d", s.name, got, s.status)
		}
	}
}
