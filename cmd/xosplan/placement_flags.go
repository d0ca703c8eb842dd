package main

import (
	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// placementFlags are the placement flags plan, apply and destroy share.
// Placement runs only when one of them is given: a configuration whose
// compute asks for placement is otherwise planned without it, as before
// placement existed, so adding an inventory is a deliberate step.
type placementFlags struct {
	providers string
	url       string
	token     string
}

func (f *placementFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.providers, "providers", "", "place compute on the providers of inventory `FILE` (YAML providers: list; \"demo\": the embedded demo cloud)")
	fs.StringVar(&f.url, "placement-url", "", "place compute through the real Placement API at `URL` instead of an inventory file")
	fs.StringVar(&f.token, "placement-token", "", "X-Auth-Token for --placement-url (default: $OS_AUTH_TOKEN)")
}

// addEndpoint declares only the Placement API flags: refresh reads
// placement objects back from the API, and places nothing.
func (f *placementFlags) addEndpoint(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "placement-url", "", "read placement objects back from the Placement API at `URL`")
	fs.StringVar(&f.token, "placement-token", "", "X-Auth-Token for --placement-url (default: $OS_AUTH_TOKEN)")
}

// workflow returns the placement the flags ask for; the token defaults to
// $OS_AUTH_TOKEN, and the inventory is read as a file the person running
// xosplan named (its snippets may be shown).
func (f placementFlags) workflow(c *cli) workflow.Placement {
	token := f.token
	if token == "" {
		token = c.getenv("OS_AUTH_TOKEN")
	}
	return workflow.Placement{Providers: f.providers, URL: f.url, Token: token, ReadFile: c.readNamedFile}
}
