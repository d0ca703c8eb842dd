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
// # Documents of an editor
//
// CompileDocument compiles the unit one file belongs to as Load compiles
// it — a TOSCA file with its imports, a manifest with the manifests of its
// folder — reading the files an editor holds open (Buffers) from their
// unsaved text, and returns the diagnostics with the symbol index of the
// front end (package symbols), whose Files say what the result depends on.
// It is what the language server (pkg/lsp) calls on every change.
// JSONSchema gives the JSON Schema of a format, for editors without it.
//
// # CSAR packages
//
// A path that is a file named *.csar or *.zip is a CSAR archive (TOSCA
// 1.3 §6, TOSCA 2.0 §17, ETSI NFV-SOL 004 §4); a folder that holds
// TOSCA-Metadata/TOSCA.meta (or TOSCA.meta at its top), named or met in a
// walk, is an unpacked one: its files are the package's, not walked. An
// archive met in a walk is left alone: only a named archive is read. Both
// forms go through one logic (packageFiles): TOSCA.meta's block_0
// (Entry-Definitions, Other-Definitions, the versions, the ETSI-Entry-*
// files), else the single YAML file at the top, and the SOL004 manifest.
// Each package is one unit, compiled from its entry definitions with
// tosca.Options.SelfContained: a relative artifact file or implementation
// that is no file of the package is an error.
//
// An archive is never extracted. It is opened through internal/userfile
// (a regular file inside the root, its size checked before it is read)
// and read with archive/zip within ArchiveLimits (defaults: 256 MiB
// archive, 10,000 entries, 1 GiB uncompressed in all, counted on the
// bytes read as well as on the sizes declared, 100:1 compression for an
// entry over 1 MiB; one YAML member within the 16 MiB file limit). Every
// entry is checked when the archive is opened: a name that is absolute,
// climbs out with .., holds a backslash, a NUL or a control character, or
// is not UTF-8, a name listed twice (or as a file and a folder), a
// symbolic link or another special entry refuses the whole archive with
// one error naming it. The compile reads the archive's members through
// tosca.Options.Files: nothing outside the archive is readable from
// inside it but the embedded type libraries and the import map's files.
// Diagnostics name a member PKG.csar!/path/in/archive.yaml
// (diag.MemberName), and ReadFile reads one for the snippets of
// diagnostics. Merge lists an archive, not its members, among the files
// a plan was compiled from.
//
// TOSCA.meta: `keyname: value` lines (keynames compared without regard to
// case, as in the JAR manifests the format comes from), a value continued
// on lines that start with a space, blocks separated by empty lines; only
// block_0 is read, the other blocks (per-file metadata) only for their
// syntax. CSAR-Version 1.0, 1.1 or 2.0 and TOSCA-Meta-File-Version 1.0 or
// 1.1 are read; another value is an error. Entry-Definitions is required
// in a 1.x package; in 2.0 the single YAML file at the top is the entry
// without it. A missing CSAR-Version, TOSCA-Meta-File-Version (1.x) or
// Created-By is a warning. Without TOSCA.meta, the package must hold
// exactly one YAML file at its top, whose tosca_definitions_version is not
// TOSCA 1.0 (1.0 requires the metadata; tosca-parser agrees).
//
// SOL004: the ETSI-Entry-Manifest, -Change-Log, -Certificate (files),
// -Licenses and -Tests (files or folders) that block_0 names must exist;
// a package with ETSI-Entry keynames but no manifest or change log gets a
// warning. The manifest is ETSI-Entry-Manifest, else the file beside the
// entry definitions with its name and the .mf extension. What shows the
// package damaged or incomplete is an error: a Source that is no file of
// the package, a Hash that does not match (SHA-256, SHA-384, SHA-512), a
// Hash without a known Algorithm. What is SOL004 bookkeeping is a
// warning: a missing or incomplete metadata block, files the manifest
// does not list. A Source that is a URL is not fetched; a CMS signature is
// not checked (xosplan holds no trust anchor), nor are the Hash lines
// Tacker writes in TOSCA.meta's other blocks.
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
//	load.spec_string_too_long a string of a resource's spec over SpecLimits.MaxString bytes (64 KiB)
//	load.spec_list_too_long a list of a resource's spec over SpecLimits.MaxList items (10,000)
//	validate.unknown_format a file that is neither TOSCA, a manifest nor a provider inventory: an error
//	                       when it was named, a warning when a folder walk met it and skipped it
//	                       (Result.Skipped)
//	plan.duplicate_address two units define the same resource address, or a model policy of the same name
//	plan.duplicate_output  two units declare an output of the same name
//	inputs.not_a_map       an inputs file that does not hold a map of input names to values
//	inputs.duplicate_key   (warning) an input given twice in an inputs file; the last value wins
//	importmap.not_a_map    an import map file that does not hold a map of URLs to files
//	importmap.bad_entry    an import map entry that is not a URL mapped to a file name
//	importmap.duplicate_url  a URL mapped twice in an import map file
//	csar.not_zip           a CSAR archive that is not a zip file
//	csar.too_large         an archive over ArchiveLimits.Size, refused before it is read
//	csar.too_many_entries  an archive with more entries than ArchiveLimits.Entries (or a directory larger than they need)
//	csar.total_too_large   an archive whose files declare more than ArchiveLimits.Total uncompressed
//	csar.compression_ratio an entry over 1 MiB that expands more than ArchiveLimits.Ratio times (a zip bomb)
//	csar.unsafe_name       an entry name that is absolute, climbs out with .., holds a backslash, NUL or control character, or is not UTF-8
//	csar.duplicate_entry   an entry listed twice, or as both a file and a folder
//	csar.symlink           an entry that is a symbolic link
//	csar.not_regular_entry an entry that is a device, a named pipe or a socket
//	csar.unreadable        a member that cannot be read: encrypted, damaged, or larger than its header says
//	csar.meta_syntax       a TOSCA.meta line that is not `keyname: value`, a keyname given twice in block_0, text that is not UTF-8
//	csar.meta_version      a CSAR-Version or TOSCA-Meta-File-Version xosplan does not read
//	csar.meta_missing_key  (warning) TOSCA.meta without CSAR-Version, TOSCA-Meta-File-Version or Created-By, or an ETSI package without its manifest or change log
//	csar.meta_duplicate    both TOSCA-Metadata/TOSCA.meta and TOSCA.meta
//	csar.no_entry          no entry definitions: a 1.x TOSCA.meta without Entry-Definitions, or no or several YAML files at the top without it
//	csar.no_meta           a TOSCA 1.0 package without TOSCA-Metadata/TOSCA.meta
//	csar.entry_not_found   a file TOSCA.meta names (Entry-Definitions, Other-Definitions, ETSI-Entry-*) that the package lacks
//	csar.bad_path          a path in TOSCA.meta or the manifest that is absolute or climbs out of the package
//	csar.manifest_syntax   a manifest line that is not `keyname: value`, a Hash or Algorithm without its Source, given twice
//	csar.manifest_metadata (warning) a manifest without metadata, or lacking the keys of its kind of package
//	csar.manifest_source   a Source that is no file of the package
//	csar.manifest_algorithm  a Hash without Algorithm, or an Algorithm SOL004 does not name
//	csar.manifest_hash     a Hash that is not a hexadecimal digest, or does not match the file
//	csar.manifest_unlisted (warning) files of the package that the manifest does not list
package config
