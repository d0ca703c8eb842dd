package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// inputFlags are the --inputs and --var flags, shared by every command that
// compiles TOSCA (validate, plan, apply).
type inputFlags struct {
	file string
	vars []string
}

// add declares the flags on fs.
func (f *inputFlags) add(fs *pflag.FlagSet) {
	addInputsFileFlags(fs, &f.file)
	fs.StringArrayVar(&f.vars, "var", nil, "set the TOSCA input `NAME=VALUE` (VALUE read as a YAML scalar; repeatable; wins over --inputs)")
}

// given reports whether any input value was supplied.
func (f *inputFlags) given() bool { return f.file != "" || len(f.vars) > 0 }

// values merges the --inputs file (config.ReadInputs) and the --var flags
// into one map (nil when neither is given). Problems in the file are
// diagnostics; a --var without "NAME=" is an error (a usage problem).
//
// A --var value is read as YAML: `8080` is an integer, `true` a boolean,
// `[80, 443]` a list, `""` or nothing the empty string. A value that is not
// one YAML node (`a: b`, or a syntax error) is taken as the literal string,
// since that is what a shell user typing it meant.
func (f *inputFlags) values(ctx context.Context, c *cli) (workflow.Inputs, diag.Diagnostics, error) {
	none := workflow.Inputs{File: f.file}
	if !f.given() {
		return none, nil, nil
	}
	var diags diag.Diagnostics
	in := workflow.Inputs{Values: map[string]any{}, Ranges: map[string]diag.Range{}, File: f.file}
	if f.file != "" {
		c.sources.allow(f.file)
		if in.Values, in.Ranges, diags = config.ReadInputs(ctx, f.file); in.Values == nil {
			return none, diags, nil
		}
	}
	for i, v := range f.vars {
		name, value, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(name) == "" {
			// The argument is not quoted: it may be a secret typed without
			// its name.
			return none, diags, fmt.Errorf("--var wants NAME=VALUE: --var number %d has no NAME= before its value", i+1)
		}
		name = strings.TrimSpace(name)
		in.Values[name] = varValue(value)
		in.Ranges[name] = diag.Range{}
	}
	return in, diags, nil
}

// varValue reads one --var value (see inputFlags.values).
func varValue(s string) any {
	if strings.TrimSpace(s) == "" {
		return s
	}
	n, diags := yamlsrc.Parse("--var", []byte(s), yamlsrc.Limits{})
	if diags.HasErrors() || n == nil {
		return s
	}
	if n.Kind == yamlsrc.Mapping && !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return s
	}
	return n.Interface()
}
