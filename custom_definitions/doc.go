// Package customdefs ships XOS's core and service model types as TOSCA YAML
// type files, one per model as XOS's own generator lays them out
// (custom_types/site.yaml, custom_types/slice.yaml, …), embedded in the binary.
//
// The TOSCA compiler resolves a recipe's `imports: - custom_types/<name>.yaml`
// from here when the file is not on disk. README.md lists the files, the
// lookup keys of each model and the conventions the files follow.
package customdefs
