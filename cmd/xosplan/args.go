package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/internal/nearest"
	"github.com/xosplan/xosplan/pkg/workflow"
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
		return usagef(cmd, "-chdir=%s: %v", f.dir, workflow.PlainError(err))
	}
	return nil
}

// addInputsFileFlags declares the inputs file flag, --inputs FILE, with
// Terraform's spellings of what it and the absence of prompts mean:
// --var-file FILE (the same file: YAML or JSON, read as --inputs reads it)
// and --input=false (accepted, and true too: xosplan never prompts for an
// input value; apply without --auto-approve or a plan file refuses to ask
// for its confirmation when it is false). One inputs file is read: naming
// a second one, with either flag, is an error (Terraform merges several
// -var-file; silently reading only the last would drop values).
func addInputsFileFlags(fs *pflag.FlagSet, file *string) {
	fs.Var(&inputsFileFlag{file: file}, "inputs", "read TOSCA input values from `FILE` (a YAML or JSON map)")
	fs.Var(&inputsFileFlag{file: file}, "var-file", "Terraform's spelling of --inputs `FILE`")
	fs.Bool("input", true, "Terraform's -input: xosplan never prompts for input values; with false, apply never asks for confirmation either (it needs --auto-approve or a plan file)")
}

// inputsFileFlag is one of the flags that name the inputs file.
type inputsFileFlag struct{ file *string }

func (f *inputsFileFlag) String() string {
	if f.file == nil {
		return ""
	}
	return *f.file
}

func (f *inputsFileFlag) Type() string { return "string" }

func (f *inputsFileFlag) Set(v string) error {
	if *f.file != "" && *f.file != v {
		return fmt.Errorf("the inputs file is already %s: give one inputs file", *f.file)
	}
	*f.file = v
	return nil
}

// noInput reports whether cmd was given --input=false (or -input=false).
func noInput(cmd *cobra.Command) bool {
	fl := cmd.Flags().Lookup("input")
	return fl != nil && fl.Value.String() == "false"
}

// singleDashNames returns the names the arguments spell with one dash
// (-json, -out=FILE), before any "--": terraformSpellings gives pflag
// their two-dash form, and messages name them as they were typed.
func singleDashNames(args []string) map[string]bool {
	names := map[string]bool{}
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, _, _ := strings.Cut(a[1:], "=")
			names[name] = true
		}
	}
	return names
}

// flag names the long flag name as the user spelt it: "-json" when it
// was typed with one dash, else "--json".
func (c *cli) flag(name string) string {
	if c.singleDash[name] {
		return "-" + name
	}
	return "--" + name
}

// flagError rewrites pflag's "unknown flag" errors to name the flag as it
// was typed (-jsn, not "unknown shorthand flag 'j'"; -json, not the
// --json it was rewritten to) and to suggest cmd's nearest flag, spelt
// the same way; an invalid value names its flag as typed too.
func (c *cli) flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) && iv.GetFlag() != nil && iv.GetFlag().Shorthand == "" {
		return fmt.Errorf("invalid argument %q for %q flag: %w", iv.GetValue(), c.flag(iv.GetFlag().Name), iv.Unwrap())
	}
	if !errors.As(err, &ne) {
		return err
	}
	name := ne.GetSpecifiedName()
	spelt := c.flag(name)
	if group := ne.GetSpecifiedShortnames(); group != "" {
		name, _, _ = strings.Cut(group, "=")
		spelt = "-" + name
	}
	msg := "unknown flag: " + spelt
	if near := nearestFlag(cmd, name); near != "" {
		msg += fmt.Sprintf("; did you mean %s%s?", strings.TrimSuffix(spelt, name), near)
	}
	return errors.New(msg)
}

// nearestFlag returns the long flag of cmd nearest to name: within an
// edit distance of a third of its length (at least 1, at most 2), or that
// it begins (for names of 3 characters or more); "" when none is. Ties go
// to the first in alphabetical order.
func nearestFlag(cmd *cobra.Command, name string) string {
	if len(name) < 2 {
		return ""
	}
	limit := min(max(len(name)/3, 1), 2)
	best, bestDist := "", limit+1
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := nearest.Distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d < bestDist || (d == bestDist && f.Name < best) {
			best, bestDist = f.Name, d
		}
	})
	if bestDist > limit {
		return ""
	}
	return best
}
