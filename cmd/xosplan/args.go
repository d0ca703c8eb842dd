package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// terraformSpellings rewrites the single-dash spellings of long flags that
// Terraform users type (-out=FILE, -auto-approve, -var NAME=VALUE, -json,
// -detailed-exitcode, -chdir=DIR, -help) into the double-dash ones pflag
// parses, which would otherwise read "-out=FILE" as the shorthands o, u,
// t… It is the one place where arguments are rewritten:
//
//   - only a name that some command declares as a long flag is rewritten,
//     so shorthands (-h, -v) and unknown words keep their meaning and
//     errors;
//   - nothing after "--" is touched, nor the value of a flag that takes
//     one ("--var -x" and "-var -json" keep "-x" and "-json" as values).
func terraformSpellings(root *cobra.Command, args []string) []string {
	takesValue := longFlags(root)
	out := make([]string, 0, len(args))
	valueNext := false
	for i, a := range args {
		switch {
		case valueNext:
			valueNext = false
		case a == "--":
			return append(out, args[i:]...)
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, _ := strings.Cut(a[1:], "=")
			if _, ok := takesValue[name]; ok {
				a = "-" + a
			}
		}
		if name, ok := strings.CutPrefix(a, "--"); ok && !strings.Contains(name, "=") && takesValue[name] {
			valueNext = true
		}
		out = append(out, a)
	}
	return out
}

// longFlags returns the long flag names of every command under root, each
// with whether it takes a value (a boolean flag does not). A name means
// the same on every command that declares it (TestLongFlagsHaveOneKind).
func longFlags(root *cobra.Command) map[string]bool {
	// Cobra adds these when it runs; they are flags all the same.
	names := map[string]bool{"help": false, "version": false}
	var walk func(c *cobra.Command)
	add := func(f *pflag.Flag) { names[f.Name] = f.NoOptDefVal == "" }
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return names
}

// chdirFlag is the global -chdir=DIR: the command runs as if xosplan had
// been started in DIR, as Terraform's -chdir does (every relative path,
// --state and the plan file included, is relative to DIR).
type chdirFlag struct{ dir string }

func (f *chdirFlag) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "chdir", "", "switch to `DIR` before anything else: run as if started there")
}

// apply changes the working folder; a run of run is one process, whose
// working folder is its own.
func (f *chdirFlag) apply(cmd *cobra.Command) error {
	if f.dir == "" {
		return nil
	}
	if err := os.Chdir(f.dir); err != nil {
		return usagef(cmd, "-chdir=%s: %v", f.dir, plainError(err))
	}
	return nil
}
