// Package config loads a configuration: it finds the files under the
// paths it is given (files, and folders walked for *.yaml and *.yml),
// detects the format of each, compiles them with their front end
// (pkg/tosca for TOSCA templates and XOS recipes, pkg/manifest for
// Tonomi-style manifests, pkg/placement's checks for provider inventories)
// and merges the compiled units into the one graph a plan covers, with
// every problem found on the way as a positioned diagnostic. It is what
// `xosplan validate`, `plan` and `apply` call, and what a synchronizer or
// a language server calls too: it never prints and knows no command.
//
// # The configuration root
//
// Templates arrive in pull requests, so a name in one is untrusted. Every
// configuration file, and every file a configuration names (a TOSCA
// import, artifact or implementation), must lie inside the configuration
// root once its symbolic links are resolved. A Root is either chosen
// (NewRoot: `--root`) or found for the paths given (FindRoot: for each
// path, the repository holding it, else the working folder when that
// holds it, else the path's own folder).
//
// The front ends' options take the root as plain folder names
// (tosca.Options.Root and manifest.Options.Root are []string; Root.Dirs
// gives them), so that a program outside this module can confine them
// too; each front end builds its own confinement from those folders.
//
// # Reading files
//
// ReadFile is the one way this package, and the commands built on it,
// read a file a user named: through internal/userfile's checks (a FIFO, a
// device, a symbolic-link loop or a file over the size limit is refused
// before it is read, and a configuration file outside the root is refused
// unread). A refusal is a diagnostic that quotes nothing of the file.
// ReadInputs reads a file of TOSCA input values (`--inputs`): a YAML or
// JSON map whose every diagnostic is sensitive, since any value in it may
// be a secret.
//
// # Diagnostic codes
//
// The codes keep the areas they had when the commands held this work, so
// that exception files and CI filters keep matching them:
//
//	load.not_found         a path or file that does not exist
//	load.unreadable        a path or file that cannot be read (permissions, a link loop, finding the root)
//	load.not_regular_file  a named pipe, a device, a socket or a folder where a file is expected
//	load.too_large         a file over the size limit, refused before it is read
//	load.outside_root      a configuration file that resolves outside the configuration root
//	load.no_files          (warning) a folder holding no *.yaml or *.yml file
//	load.canceled          loading stopped (a signal) before every file was checked
//	load.internal_error    a front end failed on a file (a bug of xosplan), or the merge met one
//	load.dangling_edge     a unit's edge names a resource the merged graph does not hold
//	validate.unknown_format (warning) a file that is neither TOSCA, a manifest nor a provider inventory
//	plan.duplicate_address two units define the same resource address
//	inputs.not_a_map       an inputs file that does not hold a map of input names to values
//	inputs.duplicate_key   (warning) an input given twice in an inputs file; the last value wins
package config
