package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestTerraformSpellingsBecomeLongFlags: the single-dash spellings
// Terraform users type become the long flags pflag parses; shorthands,
// values, words that name no flag and everything after "--" are left
// alone.
func TestTerraformSpellingsBecomeLongFlags(t *testing.T) {
	root := newRootCommand(&cli{sources: newSourceCache()})
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"plan", "-out=plan.bin", "-detailed-exitcode", "stack/"}, []string{"plan", "--out=plan.bin", "--detailed-exitcode", "stack/"}},
		{[]string{"apply", "-auto-approve", "-json", "plan.bin"}, []string{"apply", "--auto-approve", "--json", "plan.bin"}},
		{[]string{"plan", "-var", "size=3", "-var=name=x"}, []string{"plan", "--var", "size=3", "--var=name=x"}},
		{[]string{"-chdir=infra", "plan"}, []string{"--chdir=infra", "plan"}},
		{[]string{"-chdir", "infra", "plan"}, []string{"--chdir", "infra", "plan"}},
		{[]string{"-help"}, []string{"--help"}},
		{[]string{"-version"}, []string{"--version"}},
		// The value of a flag that takes one is a value.
		{[]string{"plan", "-var", "-json"}, []string{"plan", "--var", "-json"}},
		{[]string{"plan", "--out", "-json", "-json"}, []string{"plan", "--out", "-json", "--json"}},
		{[]string{"plan", "--retries", "-1"}, []string{"plan", "--retries", "-1"}},
		// Shorthands, unknown words, stdin and "--" are left alone.
		{[]string{"plan", "-h"}, []string{"plan", "-h"}},
		{[]string{"-v"}, []string{"-v"}},
		{[]string{"plan", "-bogus"}, []string{"plan", "-bogus"}},
		{[]string{"state", "push", "-"}, []string{"state", "push", "-"}},
		{[]string{"plan", "--", "-json"}, []string{"plan", "--", "-json"}},
		{[]string{"plan", "--json", "-out=x"}, []string{"plan", "--json", "--out=x"}},
	} {
		if got := terraformSpellings(root, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLongFlagsHaveOneKind: a long flag name takes a value on every
// command that declares it or on none, so that terraformSpellings knows
// whether the next argument is its value without knowing the command.
func TestLongFlagsHaveOneKind(t *testing.T) {
	root := newRootCommand(&cli{sources: newSourceCache()})
	kinds := map[string]map[bool][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) {
			if kinds[f.Name] == nil {
				kinds[f.Name] = map[bool][]string{}
			}
			kinds[f.Name][f.NoOptDefVal == ""] = append(kinds[f.Name][f.NoOptDefVal == ""], c.CommandPath())
		}
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for name, k := range kinds {
		if len(k) > 1 {
			t.Errorf("--%s takes a value on %v but not on %v", name, k[true], k[false])
		}
	}
}

// TestHelpNamesBothSpellings: every command's help says that the
// single-dash spellings work.
func TestHelpNamesBothSpellings(t *testing.T) {
	var out bytes.Buffer
	if code := run(t.Context(), []string{"--help"}, nil, &out, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if !bytes.Contains(out.Bytes(), []byte("-out=FILE")) {
		t.Errorf("help does not mention the single-dash spellings:\n%s", out.String())
	}
}

// TestUnknownFlagsAreNamedAsTyped: an unknown flag is named with the
// dashes the user typed, never the --form terraformSpellings gave it, and
// the nearest flag of the command is suggested, spelt alike, when one is
// near enough.
func TestUnknownFlagsAreNamedAsTyped(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-jsn"}, "Error: unknown flag: -jsn; did you mean -json?\n"},
		{[]string{"plan", "--jsn"}, "Error: unknown flag: --jsn; did you mean --json?\n"},
		{[]string{"plan", "-lock-timout=3s"}, "Error: unknown flag: -lock-timout; did you mean -lock-timeout?\n"},
		{[]string{"plan", "-var-fil", "x.yaml"}, "Error: unknown flag: -var-fil; did you mean -var-file?\n"},
		{[]string{"graph", "-json"}, "Error: unknown flag: -json\n"},
		{[]string{"plan", "-zzzzzz"}, "Error: unknown flag: -zzzzzz\n"},
		{[]string{"state", "list", "-workspce", "x"}, "Error: unknown flag: -workspce; did you mean -workspace?\n"},
	} {
		var out bytes.Buffer
		if code := run(t.Context(), tc.args, nil, &out, &out); code != exitError {
			t.Errorf("%q: exit %d", tc.args, code)
		}
		if first, _, _ := strings.Cut(out.String(), "Run '"); first != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, first, tc.want)
		}
	}
}
