package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/lsp"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// lspFlags are the flags of `xosplan lsp`.
type lspFlags struct {
	stdio   bool
	imports importMapFlags
	root    string
}

func newLSPCommand(c *cli) *cobra.Command {
	var f lspFlags
	cmd := &cobra.Command{
		Use:   "lsp [flags]",
		Short: "Run the language server for TOSCA templates and manifests (LSP over stdio)",
		Long: `Lsp speaks the Language Server Protocol on standard input and output, for editors:
diagnostics as you type (the checks of validate, on the unsaved text), hover, go to definition,
find references, completion and the outline of TOSCA templates, XOS recipes and manifests.
Log lines go to standard error. See docs/editors.md for Neovim and VS Code set-ups.

Exit status: 0 after the editor's shutdown and exit, 1 when it exits without shutdown.`,
		Example: `  xosplan lsp
  xosplan lsp --import-map https://example.org/types.yaml=vendor/types.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLSP(cmd, c, f)
		},
	}
	fs := cmd.Flags()
	// Editors' generic clients often pass --stdio; stdio is the only
	// transport, so the flag is accepted and changes nothing.
	fs.BoolVar(&f.stdio, "stdio", true, "speak over standard input and output (the only transport)")
	fs.StringVar(&f.root, "root", "", "the configuration root `DIR` (default: the editor's workspace folder holding the file, or the repository inside it that holds it; a file outside the workspace is read alone)")
	f.imports.add(fs)
	return cmd
}

func runLSP(cmd *cobra.Command, c *cli, f lspFlags) error {
	opts := lsp.Options{Log: c.stderr, Version: version()}
	if f.root != "" {
		r, err := config.NewRoot(f.root)
		if err != nil {
			return fmt.Errorf("--root %s: %w", f.root, workflow.PlainError(err))
		}
		opts.Root = r
	}
	m, diags, err := f.imports.values(cmd.Context(), c)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if diags.HasErrors() {
		return diags.Err()
	}
	opts.ImportMap = m
	opts.ProfilePath = f.imports.profilePath(c)
	err = lsp.Serve(cmd.Context(), stdio{c.stdin, c.stdout}, opts)
	if errors.Is(err, lsp.ErrExitWithoutShutdown) {
		return exitWith(exitError)
	}
	return err
}

// stdio joins standard input and output into the stream the server
// speaks over. Closing it closes standard input, so that the server's
// reader stops when an interrupt ends the server before the editor
// closes its end; standard output stays open for the last lines.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
