package main

import (
	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/config"
)

func newSchemaCommand(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "schema tosca|manifest",
		Short: "Print the JSON Schema of TOSCA templates or manifests, for editors without the language server",
		Long: `Schema prints the JSON Schema (draft 2020-12) of a file format: tosca (TOSCA 1.0-1.3 service
templates and XOS recipes, and TOSCA 2.0 files, told apart by tosca_definitions_version) or
manifest (Tonomi-style application manifests). Save it and name it in a modeline for the YAML
language server, as docs/editors.md shows. It checks the shape of a file (which keys go where);
validate and the language server check the rest.`,
		Example: `  xosplan schema tosca > tosca.schema.json
  # then, first line of a template:
  # yaml-language-server: $schema=./tosca.schema.json`,
		ValidArgs: []string{"tosca", "manifest"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || (args[0] != "tosca" && args[0] != "manifest") {
				return usagef(cmd, "want one format: tosca or manifest")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			format := config.FormatTOSCA
			if args[0] == "manifest" {
				format = config.FormatManifest
			}
			data, err := config.JSONSchema(format)
			if err != nil {
				return err
			}
			return views.NewSchema(c.streams()).Schema(data)
		},
	}
}
