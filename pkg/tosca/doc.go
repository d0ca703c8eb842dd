// Package tosca compiles TOSCA Simple Profile in YAML service templates
// (versions 1.0 to 1.3, and XOS recipes) into the format-neutral resource
// graph of package graph.
//
// It is the front door of two compilers, one per grammar generation:
// internal/tosca1 (1.0–1.3) and internal/tosca2 (2.0), which share
// internal/core (the session of a compile, file reading and confinement,
// limits, diagnostics and their codes, cycles) and never import each
// other. Compile reads the root file and hands it to the compiler of its
// tosca_definitions_version; this package documents both.
//
// # Phases
//
// Compile (compile.go) reads the root file and hands a 1.x one to the
// 1.x compiler (package internal/tosca1, whose files the table names),
// which runs in phases, in the manner of Puccini: each phase is a method
// of the compiler in a file of its own, whose header comment lists what
// that file detects; core/ is package internal/core, which the 1.x and
// 2.0 compilers share. In the order the phases run (the phase column is
// the number in the file's header):
//
//	    Compile calls      file             phase  what it does
//	1   loadRoot           imports.go        2     reads the top-level file, the normative types of its version
//	                                               (normative/) and, depth first, every file it imports
//	                       read.go           1     the grammar of each file: version, metadata, sections, keynames
//	                       core/limits.go    1b    names of at most 255 characters without control characters,
//	                                               descriptions and metadata values of at most 64 KiB
//	                       profiles.go       2     embedded profile types (NFV 1.0), loaded as normative types
//	                       sol001.go         2     ETSI NFV-SOL 001 type libraries by forge URL or bare file name
//	2   loadNonNormative   nonnormative.go   2     the Simple Profile's non-normative types (MySQL, Apache, Docker…),
//	                                               when a template names one that no file it loads defines
//	3   declareAllTypes    types.go          3     namespaces: every type under each name it may be referenced by
//	4   resolveAllTypes    types.go          3     derivation hierarchies, inheritance and refinement
//	5   readTopology       templates.go      5     inputs, node and relationship templates, groups, policies,
//	                                               outputs
//	                       suggest.go        –     values given for undeclared inputs (errors, 1.x and 2.0), with
//	                                               the nearest declared name
//	                       values.go         4     every value checked against its definition and canonicalized
//	6   matchRequirements  requirements.go   6     requirement → capability matching and occurrences
//	7   checkTopology      substitution.go   5     substitution mappings and workflows, once every template is known
//	8   resolveFunctions   functions.go      7     intrinsic functions: get_input and get_property now, get_attribute
//	                                               and get_operation_output as graph.Unknown for apply time
//	                       secrets.go        –     which values carry a secret, counted as values are evaluated
//	                                               (steps 5 and 8)
//	9   render             render.go         9     the graph.Graph: resources, drivers, edges, placement requests;
//	                                               implementations and artifacts confined to the configuration root;
//	                                               health checks and their intervals
//	                       modelpolicy.go    9     xosplan.policies.ModelPolicy policies as graph.Policy, their executable
//	                                               a regular file inside the root
//	                       arch.go           9     the os capability's architecture as a placement trait
//	10  CheckCycles        core/cycles.go    8     dependency cycles among node templates, found on the graph
//	    (in 1, 3, 4, 6, 9) xos.go           10     XOS compatibility: custom_types, BelongsToOne, must-exist,
//	                                               lookup keys
//
// Every problem is a diag.Diagnostic with the file:line:col of the node at
// fault, its YAML path and one of these stable codes:
//
//	tosca.canceled                 the context ended before compiling finished
//	tosca.read                     a file cannot be read
//	tosca.wrong_kind               a value has the wrong YAML kind (map, list, scalar)
//	tosca.version                  tosca_definitions_version missing, not first, or unsupported
//	tosca.metadata                 template metadata of the wrong type
//	tosca.unknown_field            a keyname the grammar does not define
//	tosca.missing_field            a required keyname is missing
//	tosca.bad_name                 a name (type, template, property, metadata key…; see internal/core/limits.go) over 255 characters or with a control character
//	tosca.too_long                 a description or metadata value over 64 KiB
//	tosca.duplicate_key            a repeated mapping key (a warning outside topology_template)
//	tosca.import_not_found         an imported file does not exist
//	tosca.import_outside_root      an import that resolves (links followed) outside the configuration root
//	tosca.import_not_regular       an import that names a FIFO, a device or another file that is not regular
//	tosca.import_too_large         an imported file over the 16 MiB file limit
//	tosca.artifact_outside_root    an artifact file that resolves outside the configuration root (warning)
//	tosca.implementation_outside_root  an operation implementation or dependency that resolves outside the configuration root (warning; apply refuses to run it)
//	tosca.artifact_not_found       in a CSAR (Options.SelfContained), a relative artifact file that is no file of the package
//	tosca.implementation_not_found  in a CSAR, a relative implementation or dependency that is neither an artifact of its node nor a file of the package
//	tosca.network_import           a URL import, or one from a repository on the network (xosplan never uses the network; embedded ETSI SOL001 URLs excepted)
//	tosca.unknown_repository       an import names an undeclared repository
//	tosca.type_redefined           a type defined again in another file (warning)
//	tosca.unknown_type             a type name that is not defined (or of another kind)
//	tosca.unknown_parent           derived_from names an unknown type
//	tosca.derivation_cycle         a type derives from itself
//	tosca.native_type_extended     a data type derived from a primitive adds properties
//	tosca.incompatible_refinement  a refined property changes its type incompatibly
//	tosca.status                   an invalid status, or use of an unsupported (error) or deprecated (warning) property
//	tosca.occurrences              invalid occurrences, or a requirement assigned a wrong number of times
//	tosca.value                    a value that does not fit its type
//	tosca.constraint               a value that violates a constraint
//	tosca.unknown_property         a property, attribute or data type field that is not defined
//	tosca.missing_property         a required property without value or default
//	tosca.missing_input            a required input without value or default (with Options.RequireInputs)
//	tosca.unknown_input            get_input of an undeclared input, or a value given for one (an error, with the
//	                               nearest declared name; UndeclaredInput tells it apart)
//	tosca.copy                     copy names a missing template, or copies form a cycle
//	tosca.directive                an unknown directive (warning)
//	tosca.unknown_capability       a capability assignment the node type does not define
//	tosca.unknown_requirement      a short-form requirement the node type does not define
//	tosca.unknown_interface        an interface assignment the type does not define
//	tosca.unknown_operation        an operation the interface does not define
//	tosca.unknown_template         a reference to a node template (or group) that does not exist
//	tosca.group_members            group members repeated, missing or of a disallowed type
//	tosca.policy_targets           policy targets of a disallowed type
//	tosca.health_check             a health check (xosplan.interfaces.Health) on a node template without lifecycle operations, which never runs (warning)
//	tosca.no_driver                an operation implementation no driver can run: an Ansible playbook among a node's scripts, or a file that is no .sh, .bash or .py and has no #! line (warning)
//	tosca.health_interval          a node template's metadata xosplan.health_interval that is not a duration of at least 1s, or (warning) set without a health check
//	tosca.import_filter            a node template's metadata xosplan.import.filter that is not key=value pairs (at most 32), names an ID field, or is set on a select template
//	tosca.policy_implementation    a model policy's implementation that is a URL, missing, not a regular file, outside the configuration root or inside an archive (it runs at plan time)
//	tosca.unsatisfied_requirement  no node template satisfies a requirement given by type (warning)
//	tosca.node_mismatch            a requirement's target is not of the node type it names (warning)
//	tosca.capability_mismatch      a requirement's target lacks the required capability
//	tosca.valid_source_types       a capability does not accept the requiring node's type
//	tosca.valid_target_types       a relationship type cannot target the matched capability's type
//	tosca.implicit_requirement     an unassigned requirement matched to the first of several templates (warning)
//	tosca.function                 a malformed or unresolvable function call
//	tosca.dependency_cycle         node templates that depend on each other (requirements, or reads of each other's values), named in order
//	tosca.substitution             substitution mappings that do not fit their node type or topology
//	tosca.workflow                 workflow steps with unknown targets, steps or activities
//	tosca.legacy_type              a non-TOSCA integer type name (int, uint32, …) read as integer (warning)
//	tosca.import_fallback          an import found only relative to a folder above the importing file (warning)
//	tosca.newer_keyname            a keyname a later TOSCA version introduced, in a file of an older version (warning)
//	tosca.nonnormative_type        a non-normative type of the Simple Profile, which xosplan supplies (warning)
//	tosca.profile                  (2.0) an unknown profile (the message names the search path), a profile name that is not a string, a profile file that defines a service template
//	tosca.legacy_keyname           (2.0) a TOSCA 1.x keyname that 2.0 dropped or renamed, read as 1.x reads it (warning)
//	tosca.placement                a Placement object (xosplan/placement.yaml, profile xosplan.placement:1.0) without a name or import filter name, or with a name Placement answers 400 for (a resource class that is not [A-Z0-9_]+, reserved over total, min_unit over max_unit)
//	tosca.too_complex              values that expand beyond the work budget (recursive defaults); in 2.0, value work (checks, evaluation, function calls, the type's defaults and validation clauses each representation repeats) over 4,000,000 steps: one error at the value evaluated, and the compile stops
//	tosca.too_deep                 a derivation chain longer than 256 types
//	tosca.expansion_limit          (2.0) counts that expand the service template to more than 250,000 node representations and relationships, or its templates' values to more than 4,000,000 YAML nodes
//	tosca.internal_error           a node template or dependency the graph refused, which no template can cause (a bug of xosplan, reported rather than lost)
//
// Diagnostics of the YAML layer (yaml.*) pass through unchanged.
//
// # Decisions where the specification is silent or tools disagree
//
// The expected verdicts of the corpus (../shared/corpus/tosca) are mostly
// those of tosca-parser's own tests; where the specification allows,
// xosplan follows them, and where it does not, the specification wins
// (testdata/conformance/exceptions.tsv lists those rows with the reason).
//
//   - Grammar inside type definitions (unknown keynames, a capability
//     definition without type, unknown capability/artifact type names) is
//     a warning: real type files (XOS, tosca-parser's test data) carry
//     such slips and tosca-parser accepts them. Unknown parents, unknown
//     data and interface types, valid_source_types, property, attribute
//     and schema definitions without type, a data type without a body and
//     derived_from without a value are errors (the specification requires
//     them wherever they are written; see the table below). Everything in
//     the topology template is strict.
//   - Duplicate mapping keys: a warning outside topology_template (the last
//     wins, as in PyYAML; XOS repeats tosca.relationships.BelongsToOne),
//     an error inside it.
//   - A required requirement left unassigned is matched to the first
//     template in the topology that satisfies it (a warning when several
//     do), and the edge orders apply, unless it would close a dependency
//     cycle (Puccini's functions example), in which case it is left out.
//     When nothing in the topology satisfies it, see the table below. A
//     target of another node type than the definition names is a warning;
//     a target without the required capability is an error.
//   - A template's own string property accepts any scalar as text
//     (`version: 16.04`), as tosca-parser does; inputs and data type fields
//     do not.
//   - Imports resolve relative to the importing file, then the top-level
//     file, then (for the ETSI NFV-SOL 001 files) the embedded SOL001 types,
//     then up to three folders above the importing file (tosca-parser's
//     test layout; a tosca.import_fallback warning), then, for
//     custom_types/<model>.yaml, the embedded XOS types.
//   - ETSI NFV-SOL 001 type libraries (etsi_nfv_sol001_{common,vnfd,nsd,
//     pnfd}_types.yaml), which VNF and NS packages import by forge URL or
//     by bare name and expect the packaging step or the orchestrator to
//     supply, come from package sol001: a forge URL of an embedded version
//     is that file (no network import); a bare name not found beside the
//     importer or the top-level file is the file of the version named by a
//     SOL001 forge URL among the importer's imports, else by the
//     metadata template_version of a SOL001 file already loaded (the
//     package's own copy, or an embedded one), else 2.6.1 for
//     tosca_simple_yaml_1_2 and older and the newest embedded version for
//     1.3. A URL import of a file a package already holds a copy of (same
//     name and template_version) reads that copy, so that no type is
//     defined twice. Other URLs stay tosca.network_import errors, unless
//     Options.ImportMap maps them (or a repository's url joined with the
//     file) to a local file, which is read instead, inside the
//     configuration root or not: the mapping is the user's permission,
//     for that file only. An import whose repository is a URL rather
//     than the name of a declared repository is a network import too. A
//     repository whose url is a file: URL of this host or has no scheme
//     (a relative reference, RFC 3986 §4.2, taken from the folder of the
//     file that defines the repository) is local: an import's file is a
//     path from its root, read with every check of a relative import
//     (inside the configuration root, a regular file, the size limit),
//     and without the fallback folders.
//   - The non-normative types of the Simple Profile (its chapter
//     "Non-normative type definitions": tosca.nodes.DBMS.MySQL,
//     Database.MySQL, WebServer.Apache, WebServer.Nodejs,
//     WebApplication.WordPress, Container.Application.Docker,
//     Container.Runtime.Docker, tosca.capabilities.Container.Docker and
//     the Docker, ISO and QCOW2 image artifact types), which the
//     specification's examples and the templates written from them use
//     without a definition, are supplied from normative/ when a template
//     names one that no file it loads defines, with a
//     tosca.nonnormative_type warning where it is first named: the
//     template then depends on the orchestrator's definition (tosca-parser
//     ships the Docker ones, most orchestrators none). A template's own
//     definition replaces them silently, as it does normative types.
//   - tosca_simple_profile_for_nfv_1_0_0 is 1.0 plus the NFV profile's
//     types (profiles/, written from the NFV 1.0 specification);
//     tosca_simple_profile_for_mec_1_0_0 (accepted by tosca-parser) and the
//     OASIS namespace URI are read as 1.0, MEC types not embedded.
//   - int, int32, int64, uint32 and uint64 (XOS xproto, Tacker) are read as
//     integer with a tosca.legacy_type warning.
//   - "tosca:" qualified short names are accepted in every version (the
//     Puccini 1.0 examples use them).
//   - A dependency cycle is an error even between peers (tosca-parser's HA
//     example): the graph must be ordered to be applied.
//   - A node template that names another in get_property, get_attribute
//     or get_operation_output (in a property, attribute, operation input or
//     relationship operation) is applied after it, as if it required it: a
//     graph.Reads edge, added only where no requirement joins the two
//     already. The edges take part in cycle finding, so two templates that
//     read each other are a dependency cycle. SELF, SOURCE, TARGET and
//     HOST add none (they name the template itself or what its
//     requirements order it after), nor do outputs, which no resource
//     reads.
//
// # For editors
//
// CompileIndexed runs Compile and returns, with its results unchanged, a
// symbols.Index of the names the compile resolved (internal/tosca1/index.go): every type
// with its own properties, attributes, requirements and capabilities,
// every template, input and output, every file read, and each place that
// names one of them — recorded where the compiler resolves the name
// (lookupRef, templateType, derived_from, data types, imports, get_input,
// the entity of get_property and friends) and completed from the
// topology (property keys, requirement assignments and their targets) —
// with what each function call resolves to (never a sensitive value).
// Keynames, Functions, PrimitiveTypes and TypeSection (grammar.go, from
// the lists of internal/tosca1 and internal/tosca2) give
// the grammar's own lists for completion, and JSONSchema (jsonschema.go) a
// JSON Schema of the file format built from them.
//
// # Errors and warnings
//
// An error is a finding that makes a template wrong by the specification
// (TOSCA Simple Profile in YAML 1.3 is the reference for 1.x) or
// impossible to deploy; what an orchestrator may legitimately resolve at
// deploy time, or what is merely suspicious, is a warning (validate
// --strict fails on warnings too). One cause gives one message: an unknown
// parent type, an import that could not be loaded and an undefined type
// name are reported once, where written, and what follows from them is
// counted in that diagnostic's detail ("N more problems follow from
// this") instead of being reported (internal/core/follow.go).
//
//	finding                                              severity  why
//	unassigned requirement                               warning   §2.9, §3.8.2: the orchestrator fulfils dangling requirements (tosca.unsatisfied_requirement), with its own node types too: 1.3's normative Container.Application requires a tosca.capabilities.Storage no normative node type offers
//	  ... naming a capability or node type nothing defines  error  nothing can fulfil it (tosca.occurrences)
//	requirement given by type, nothing in the topology   warning   §3.8.2: the orchestrator selects or substitutes a node
//	assignments over an occurrences bound written        error     §3.7.3: the type's author bounds the count
//	assignments over the default [1, 1] nobody wrote     warning   §3.7.3 defaults to [1, 1], but Puccini and tosca-parser read it as a lower bound and published examples (the 1.3 tutorial) assign twice
//	target without the required capability               error     §3.8.2: the relationship cannot be formed
//	target of another node type than the definition      warning   deployed templates name a sibling type; the capability check still holds
//	valid_target_types / valid_source_types excluded     error     §3.7.3, §3.7.2: normative restrictions of the relationship and capability types
//	get_property/get_attribute [x, requirement, name]    —         §4.4.2, §4.5.2: read on the requirement's target node (xOpera), then the capability it targets (the specification's example), then get_property on its relationship (Puccini)
//	  ... found on none of them                          error     the function cannot be evaluated
//	  ... of an unassigned requirement                   warning   no value until the orchestrator fulfils it; a warning only when no type the definition names (node, capability, relationship) declares the name, since the node selected may be of a subtype
//	get_attribute of an attribute nothing declares       error     §4.5.2: the attribute must exist
//	  ... that an operation output maps                  warning   §3.6.16 operation outputs set attributes at run time
//	files that import each other (a cycle)               none      an import brings definitions into one namespace; each file loads once
//	import not found, refused, over the network          error     the template is incomplete; names it may define are follow-ons
//	unknown type, unknown parent type                    error     §3.7: a type must be defined; later references and members are follow-ons
//	  ... a capability or artifact type named inside type definitions: warning (XOS and tosca-parser test files), its members follow-ons
//	  ... an interface type named by an interface definition  error  §3.6.21: the interface type gives the operations; without it none assigned on the interface can be checked
//	property/attribute definition without type           error     §3.6.10, §3.6.12: type is required, in every type kind as in templates (before issue 21 a warning in node and data types)
//	input or output without type                         none      §3.6.14: type is not required in a parameter definition (before issue 21 an input without type was an error); its value is not checked
//	schema definition without type                       error     §3.6.9: type is required (an entry_schema of constraints only has nothing to check them against)
//	capability definition without type                   warning inside type definitions (Winery's test files write an empty capability); the capability offers nothing to match
//	data type without a body (`name:` and nothing)       error     §3.7.6: a data type definition is a map; an empty body is a definition lost to indentation
//	derived_from written without a value                 error     §3.7.1: derived_from names the parent type (tosca.wrong_kind)
//	repository credential without token                  error     tosca.datatypes.Credential (§5.3) requires token
//	namespace or namespace_uri not a string              error     §3.9.3, §3.6.8: a URI string; one that is not an absolute URI is a warning
//	input whose value or default does not fit its type   error     §3.6.14 parameter definitions
//	artifact type file_ext not a list of extensions      error     §3.7.4.1: list of string
//	keyname of a later version in an older file          warning   read as the later version does; the file does not conform to the version it declares (tosca.newer_keyname)
//	tosca_definitions_version not the first key          warning   §3.9.3.1 asks for it first, but a YAML mapping is unordered (YAML 1.2 §3.2.1.1)
//	node_filter properties written as a map              warning   §3.6.5 grammar is a list; the specification's own examples (§2.9) and Puccini use a map
//	substitution mapping of a capability/requirement the node type lacks  warning  §3.8.13: never consulted, the topology deploys on its own (Tacker VNF flavours)
//	substitution mapping of one the node type has, to a missing template or name  error  the substitution cannot be formed
//	substitution mapping written as an empty list        warning   maps nothing (SOL001 container packages write [] for a VNF requirement they do not fulfil)
//	input and substituted property that do not match by name  warning  §2.10, §3.8.13: matching by name is tosca-parser's convention (MissingRequiredInputError), not grammar (1.2 added the properties mapping, which turns the check off); the specification's own database example breaks it; the topology deploys with its inputs
//	operation defined or assigned as an empty list       warning   §3.6.16, §3.6.17 allow a name or a map, and nothing in the grammar (1.0–1.3) makes [] mean more; SOL001 packages (Tacker) write [] for "nothing to run", in node types and templates; read as no implementation, the message naming the version's form (1.3: under operations); a non-empty list stays an error
//	required property without value or default           error     §3.6.10: required means a value must be given: node and relationship templates, capabilities, policies (tosca-parser checks node templates and policies: a scaling policy's increment)
//	  ... of a node template to select or substitute     none      §3.8.3 directives: the inventory or the substituting topology (its inputs' defaults) gives the values
//	  ... of a group                                     warning   a group names members, neither deployed nor acted on; tosca-parser (Tacker, Heat) does not check its properties, and SOL001 packages Tacker deploys leave PlacementGroup's description out
//	property, attribute, capability or requirement assigned that the type does not define  error  §3.6.11, §3.6.13, §3.8.3: an assignment names one of the type's definitions; tosca-parser (UnknownFieldError) and Puccini reject it, and an orchestrator that dropped the value would deploy something else than written
//	duplicate key inside topology_template               error     YAML 1.2 §3.2.1.1 makes a mapping's keys unique; loaders disagree on which value wins, so what is deployed depends on the loader
//	  ... outside it (types, metadata, imports)          warning   the last definition wins, as PyYAML (tosca-parser, XOS) keeps; XOS's generator and the TC's suite repeat keys there
//	metadata template_version not a TOSCA version        error     1.0 §3.9.3.5 types it version (major.minor[.fix[.qualifier[-build]]], §3.2.2) and the TC's assertion 3.9.3.5-metadata-04 (mandatory) requires rejecting other values; 1.3's metadata is a map of strings, which a version is written as, and xosplan knows no text of 1.1–1.3 that relaxes the keyname's type (tosca-parser accepts any string: a disputed verdict)
//	a non-normative type the template does not define   warning   supplied from the specification's definitions; another orchestrator may define it otherwise or not at all (tosca.nonnormative_type)
//	import of a URL, or with a URL as its repository     error     tosca.network_import, unless Options.ImportMap maps the URL to a local file
//	import from a repository whose url is a path or file:  none      1.3 §3.6.7 and 2.0 §6.5 say only "URL or network address"; a path is a relative reference (RFC 3986 §4.2) from the file that defines the repository, and the file is confined to the root as any import
//	SOL001 types used without importing them             error     §3.9.3.1 imports: a type must be imported to be used (the embedded SOL001 files serve only what is imported)
//	a type defined twice (in two files)                  warning   the last definition wins; values are checked against it
//	dependency cycle among node templates                error     the graph must be ordered to be applied
//	the same diagnostic reached by several YAML paths    once      an interface's inputs are evaluated for each of its operations
//	pattern (1.x) or $matches pattern (2.0) Go's RE2 cannot compile  warning  1.3 §3.6.3 and 2.0 §10.2.2.2.7 name no dialect; profiles write PCRE/ECMAScript lookahead, backreferences, atomic groups: values.unchecked_pattern, values are not checked against it (a 2.0 validation clause holds), in types and templates alike
//	  ... invalid in every dialect (unbalanced ( or [, a quantifier with nothing to repeat)  error  values.bad_pattern: no dialect reads it
//
// # TOSCA 2.0
//
// A file whose tosca_definitions_version is tosca_2_0 is compiled by the
// 2.0 front end (package internal/tosca2 lists its files and phases) with the same loading,
// confinement, limits, diagnostics and graph; the codes above serve both,
// with tosca.profile and tosca.legacy_keyname for 2.0 only. Unlike 1.x,
// 2.0 is strict everywhere, type definitions included: the 2.0
// specification (TOSCA Version 2.0, csd07) is the reference and the OASIS
// TC's suite the measure (TestConformance2; testdata/conformance2/
// exceptions.tsv lists the verdicts the specification contradicts).
// Decisions where the specification is silent:
//
//   - No type is available without an import but the built-in data types
//     (§6.7.2: 2.0 removed 1.x's implicit normative types); the simple
//     profile is org.oasis-open.simple:2.0 (alias
//     org.oasis-open.tosca.simple:2.0), embedded from internal/tosca2/profiles2/, written
//     for xosplan from 1.3's normative types with 2.0's names and grammar.
//     The profile search path (Options.ProfilePath or Options.Profiles)
//     wins over it.
//   - A repository is a name of a namespace, as a type is (§6.7,
//     §6.8.4): an import or artifact may name one a file or profile
//     imported before defines (ns:name through an import with a
//     namespace); a relative repository url is read from the folder of
//     the file that defines it.
//   - Operation, notification and interface inputs are parameter
//     definitions (OASIS Standard §9.8, csd07 §9.7): type may be left
//     out, and an input written as its value alone (anything but a map
//     holding a parameter keyname) is the value the operation receives.
//   - A value tagged !!timestamp is an error (§9.1.2.1: implementations
//     "shall not accept this YAML type"), and a version without its
//     minor number ("2") is no version (§9.1.2.3); 1.x reads "2" as 2.0
//     with a warning (1.3 §3.2.2 requires the minor number too).
//   - A url starting with "/" is read from the repository of the
//     importing file: a CSAR's root, else the top-level template's folder
//     (the service's tree); a profile's, from the search folder it was
//     found in.
//   - 1.3's scalar-unit.size, .time, .frequency and .bitrate, which 2.0
//     left to profiles but 2.0 templates still name, are read with 1.3's
//     units and a tosca.legacy_type warning; other 1.x keynames 2.0
//     dropped are tosca.legacy_keyname warnings, read as 1.3 reads them,
//     or errors where 2.0 has a replacement the file must use
//     (topology_template).
//   - A template with count is one resource per representation, at
//     name[i], even for count 1 (so that raising the count adds resources
//     and renames none); without count it keeps its name. A count only
//     apply time knows is one representation. Values with $node_index are
//     evaluated per representation.
//   - The counts of a requirement's assignments are checked against the
//     upper bound of its count_range only: fewer are fulfilled by the
//     orchestrator (§8.5: implicit assignments).
//   - An unknown function, and a built-in given the wrong number of
//     arguments or values it cannot apply to, are errors. A built-in of
//     §10.2 evaluated from its arguments ($sum, $equal, $concat,
//     $length, …) with one known only at apply time, even inside a list,
//     is graph.Unknown tosca2(name, arguments…), which apply evaluates
//     with the same code once the arguments are known
//     (internal/funceval); arguments that do not fit fail the resource
//     then, with the message validate gives. A custom
//     function call is checked against its signatures in order (§10.4):
//     the first that takes the number of arguments and whose argument
//     definitions (type, entry_schema, key_schema, validation) the
//     arguments known at compile time fit is chosen; an argument known
//     only at apply time fits unless its type is known and cannot be the
//     definition's ($get_input of a typed input, another custom call's
//     result). The chosen signature's result must fit the definition the
//     call is assigned to (neither type derives from the other: an
//     error; an integer fits a float, a complex value a map). The call's
//     value is graph.Unknown function(name, {implementation, timeout,
//     result}, [arguments]): apply runs the chosen signature's
//     implementation (pkg/executor, docs/drivers.md), validate and plan
//     run nothing (templates are untrusted); without implementation apply
//     fails naming the function. With several signatures and arguments
//     known only at apply time, the first that fits what is known now is
//     the one run.
//   - An allocation (§8.5.5) is a placement request of the allocating
//     representation (num_cpus, mem_size, disk_size: VCPU, MEMORY_MB,
//     DISK_GB), which pkg/placement answers against the providers'
//     inventory; the allocations to one capability are also checked
//     against its properties' values when both are known; its entries
//     are amounts, of their types, of properties of the capability of
//     the target (node template or node type), inherited ones included.
//     A 2.0 Compute
//     node makes no request of its own (1.x's does): in 2.0 its capacity
//     is what allocations draw on. $available_allocation is the
//     capability's property value less the template's allocations of it,
//     when both are known at compile time; a capacity the inventory or a
//     substitute gives (select, substitute), or a target with count, stays
//     unknown, which apply reports it cannot resolve (the placement
//     decision is not fed back into values).
//   - $get_property of a value known at compile time is that value;
//     otherwise, and $get_attribute always, the executor's
//     attribute(address, name, path…), read from the recorded state.
//     TOSCA paths follow the relationships requirement matching makes,
//     outgoing and incoming (CAPABILITY <name> RELATIONSHIP <idx>: the
//     relationships that target the capability, ordered by source
//     template, representation, assignment and relationship index), and
//     may end at a relationship, whose properties are those its
//     assignment, relationship template or type gives; SELF in a
//     requirement's relationship context is the relationship (§10.3); a
//     relationship template's interface inputs are checked in the
//     context of the first requirement that uses it. A path that goes on
//     from ALL is followed from each index, the results in one list
//     (several ALLs merged), where the number of indices is known. A
//     relationship's attributes stay unknown: no apply records them. A
//     whole attribute (or property) whose declared type is an integer,
//     float, boolean, list or map (a complex data type) is read as that
//     kind, as(kind, attribute(…)): operations report text, which apply
//     converts ("5432" to 5432, a list or map from JSON) or fails on.
//   - $get_artifact is the artifact's file, taken from the folder of the
//     file that declares the artifact and given relative to the folder of
//     the top-level template (where operations run), confined to the
//     configuration root; a URL, an absolute path or a repository's file
//     as written. TOSCA 1.3's LOCAL_FILE and remove arguments are read as
//     1.3 reads them (a tosca.legacy_keyname warning): the same path, and
//     nothing to remove, since xosplan copies no artifact.
//   - $relationship_index is 0 in every relationship context of a
//     requirement that makes one relationship; with count, it is each
//     relationship's index where xosplan makes one value per relationship
//     (the node [template, index] selects, so that edges go to the
//     representations selected) and in its Configure operations, which
//     run once per relationship; unknown in the relationship's
//     properties; an error in the Configure operations of a requirement
//     whose count is a function call, which run once for it. Outside a
//     relationship context it is an error.
package tosca

import "github.com/xosplan/xosplan/pkg/tosca/internal/core"

// Diagnostic codes; see the package documentation. They are declared in
// internal/core, through which both grammar generations report them.
const (
	CodeCanceled               = core.CodeCanceled
	CodeRead                   = core.CodeRead
	CodeWrongKind              = core.CodeWrongKind
	CodeVersion                = core.CodeVersion
	CodeMetadata               = core.CodeMetadata
	CodeUnknownField           = core.CodeUnknownField
	CodeMissingField           = core.CodeMissingField
	CodeBadName                = core.CodeBadName
	CodeTooLong                = core.CodeTooLong
	CodeDuplicateKey           = core.CodeDuplicateKey
	CodeImportNotFound         = core.CodeImportNotFound
	CodeImportOutsideRoot      = core.CodeImportOutsideRoot
	CodeImportNotRegular       = core.CodeImportNotRegular
	CodeImportTooLarge         = core.CodeImportTooLarge
	CodeArtifactOutsideRoot    = core.CodeArtifactOutsideRoot
	CodeImplOutsideRoot        = core.CodeImplOutsideRoot
	CodeArtifactNotFound       = core.CodeArtifactNotFound
	CodeImplNotFound           = core.CodeImplNotFound
	CodeNetworkImport          = core.CodeNetworkImport
	CodeUnknownRepository      = core.CodeUnknownRepository
	CodeTypeRedefined          = core.CodeTypeRedefined
	CodeUnknownType            = core.CodeUnknownType
	CodeUnknownParent          = core.CodeUnknownParent
	CodeDerivationCycle        = core.CodeDerivationCycle
	CodeNativeExtended         = core.CodeNativeExtended
	CodeIncompatibleRefinement = core.CodeIncompatibleRefinement
	CodeStatus                 = core.CodeStatus
	CodeOccurrences            = core.CodeOccurrences
	CodeValue                  = core.CodeValue
	CodeConstraint             = core.CodeConstraint
	CodeUnknownProperty        = core.CodeUnknownProperty
	CodeMissingProperty        = core.CodeMissingProperty
	CodeMissingInput           = core.CodeMissingInput
	CodeUnknownInput           = core.CodeUnknownInput
	CodeCopy                   = core.CodeCopy
	CodeDirective              = core.CodeDirective
	CodeUnknownCapability      = core.CodeUnknownCapability
	CodeUnknownRequirement     = core.CodeUnknownRequirement
	CodeUnknownInterface       = core.CodeUnknownInterface
	CodeUnknownOperation       = core.CodeUnknownOperation
	CodeUnknownTemplate        = core.CodeUnknownTemplate
	CodeGroupMembers           = core.CodeGroupMembers
	CodePolicyTargets          = core.CodePolicyTargets
	CodePolicyImplementation   = core.CodePolicyImplementation
	CodeHealthCheck            = core.CodeHealthCheck
	CodeNoDriver               = core.CodeNoDriver
	CodeHealthInterval         = core.CodeHealthInterval
	CodeImportFilter           = core.CodeImportFilter
	CodeUnsatisfied            = core.CodeUnsatisfied
	CodeNodeMismatch           = core.CodeNodeMismatch
	CodeCapabilityMismatch     = core.CodeCapabilityMismatch
	CodeValidSource            = core.CodeValidSource
	CodeFunction               = core.CodeFunction
	CodeDependencyCycle        = core.CodeDependencyCycle
	CodeSubstitution           = core.CodeSubstitution
	CodeWorkflow               = core.CodeWorkflow
	CodeLegacyType             = core.CodeLegacyType
	CodeImportFallback         = core.CodeImportFallback
	CodeTooComplex             = core.CodeTooComplex
	CodeTooDeep                = core.CodeTooDeep
	CodeExpansion              = core.CodeExpansion
	CodeValidTarget            = core.CodeValidTarget
	CodeImplicitRequirement    = core.CodeImplicitRequirement
	CodeNewerKeyname           = core.CodeNewerKeyname
	CodeNonNormativeType       = core.CodeNonNormativeType
	CodeProfile                = core.CodeProfile
	CodeLegacyKeyname          = core.CodeLegacyKeyname
	CodePlacement              = core.CodePlacement
	CodeInternal               = core.CodeInternal
)
