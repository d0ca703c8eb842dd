package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/placement"
)

// cacheEntries lists the entries of the inventory cache under cacheHome.
func cacheEntries(t *testing.T, cacheHome string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cacheHome, "xosplan", "placement", "*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestPlacementInventoryCache runs `placement candidates` on one inventory
// file several times: the first run stores its compact form in the cache,
// the second decodes it (shown by swapping the entry for another valid
// model, whose answer then comes back), a damaged entry is ignored and
// rewritten, and every sound run prints the same bytes as --no-cache.
func TestPlacementInventoryCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("XOSPLAN_NO_CACHE", "")
	dir := t.TempDir()
	path := filepath.Join(dir, "providers.yaml")
	inv := flatInventory(40)
	if err := os.WriteFile(path, inv, 0o644); err != nil {
		t.Fatal(err)
	}
	candidates := func(extra ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"placement", "candidates", "--providers", path, "--resources", "VCPU:2", "--format", "json"}, extra...)
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stdout.String()
	}
	want := candidates("--no-cache")
	if got := cacheEntries(t, home); len(got) != 0 {
		t.Fatalf("--no-cache wrote %v", got)
	}
	if got := candidates(); got != want {
		t.Fatalf("first run differs from --no-cache")
	}
	entries := cacheEntries(t, home)
	if len(entries) != 1 {
		t.Fatalf("after the first run the cache holds %v, want one entry", entries)
	}
	if got := candidates(); got != want {
		t.Fatalf("run from the cache differs from --no-cache")
	}
	sound, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}

	// The second run reads the entry: an entry with the same key holding
	// a model of 3 providers answers with 3 candidates.
	other, diags := placement.LoadProviders("other.yaml", flatInventory(3))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	ic := inventoryCache{dir: filepath.Dir(entries[0])}
	ic.write(entries[0], ic.key(inv), other.MarshalCompact())
	if got := candidates(); bytes.Count([]byte(got), []byte(`"allocations"`)) != 3 {
		t.Fatalf("the run did not use the cache entry: %.200s", got)
	}

	// Damaged entries are ignored, and the next run rewrites them.
	header := len(inventoryCacheHeader)
	for name, damage := range map[string]func([]byte) []byte{
		"flipped payload byte": func(b []byte) []byte { b[len(b)-5] ^= 0x40; return b },
		"truncated":            func(b []byte) []byte { return b[:len(b)/2] },
		"other key":            func(b []byte) []byte { b[header] ^= 1; return b },
		"other header":         func(b []byte) []byte { b[0] = 'X'; return b },
		"empty":                func([]byte) []byte { return nil },
		"too large":            func(b []byte) []byte { return append(b, make([]byte, 4*len(inv)+inventoryCacheSlack)...) },
		"valid checksum, invalid model": func(b []byte) []byte {
			payload := append([]byte(nil), "XOSPLC\x00\x01garbage"...)
			sum := sha256.Sum256(payload)
			return append(append(b[:header+sha256.Size], sum[:]...), payload...)
		},
	} {
		if err := os.WriteFile(entries[0], damage(bytes.Clone(sound)), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := candidates(); got != want {
			t.Fatalf("%s: the answer differs from --no-cache", name)
		}
		if back, err := os.ReadFile(entries[0]); err != nil || !bytes.Equal(back, sound) {
			t.Fatalf("%s: the entry was not rewritten (%v)", name, err)
		}
	}

	// XOSPLAN_NO_CACHE=1 neither reads nor writes.
	if err := os.Remove(entries[0]); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XOSPLAN_NO_CACHE", "1")
	if got := candidates(); got != want || len(cacheEntries(t, home)) != 0 {
		t.Fatalf("XOSPLAN_NO_CACHE=1: cache %v", cacheEntries(t, home))
	}
}

// TestPlacementInventoryCacheOnlyValid: an inventory with diagnostics
// (an error, or only a warning) is not cached, and its diagnostics are
// the same on every run.
func TestPlacementInventoryCacheOnlyValid(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("XOSPLAN_NO_CACHE", "")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"error.yaml":   "providers:\n  - name: a\n    inventories: {VCPU: {total: 0}}\n",
		"warning.yaml": "providers:\n  - name: a\n    colour: blue\n    inventories: {VCPU: 4}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var outs []string
		for range 2 {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"placement", "candidates", "--providers", path, "--resources", "VCPU:1"}, nil, &stdout, &stderr)
			outs = append(outs, fmt.Sprint(code, stdout.String(), stderr.String()))
		}
		if outs[0] != outs[1] || !bytes.Contains([]byte(outs[0]), []byte(name+":")) {
			t.Fatalf("%s: runs differ or show no file:line:col:\n%s\n%s", name, outs[0], outs[1])
		}
		if got := cacheEntries(t, home); len(got) != 0 {
			t.Fatalf("%s was cached: %v", name, got)
		}
	}
}

// TestPlacementInventoryCacheBound: the cache keeps at most
// maxInventoryCacheEntries entries, dropping the least recently written.
func TestPlacementInventoryCacheBound(t *testing.T) {
	home := t.TempDir()
	ic := inventoryCache{dir: filepath.Join(home, "xosplan", "placement")}
	inventory := func(i int) []byte {
		return []byte(fmt.Sprintf("providers:\n  - name: cn%d\n    inventories: {VCPU: 4}\n", i))
	}
	// Entries get distinct ages, an hour ago plus a second per write, so
	// that "oldest" does not depend on the file system's clock resolution.
	base := time.Now().Add(-time.Hour)
	seen := map[string]bool{}
	var order []string
	for i := range maxInventoryCacheEntries + 4 {
		if _, diags := ic.load("p.yaml", inventory(i)); len(diags) > 0 {
			t.Fatal(diags)
		}
		for _, e := range cacheEntries(t, home) {
			if !seen[e] {
				seen[e] = true
				order = append(order, e)
				if err := os.Chtimes(e, base, base.Add(time.Duration(i)*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	got := cacheEntries(t, home)
	slices.Sort(got)
	want := slices.Clone(order[len(order)-maxInventoryCacheEntries:])
	slices.Sort(want)
	if len(order) != maxInventoryCacheEntries+4 || !slices.Equal(got, want) {
		t.Fatalf("entries %v, want the newest %d of %v", got, maxInventoryCacheEntries, order)
	}
	m, _ := ic.load("p.yaml", inventory(19))
	if ps := m.Providers(); len(ps) != 1 || ps[0].Name != "cn19" {
		t.Fatalf("%+v", ps)
	}
}
