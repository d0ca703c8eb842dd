// Package normative holds the normative type definitions of the TOSCA Simple
// Profile in YAML, versions 1.0 to 1.3, as TOSCA YAML embedded in the binary.
//
// The files are written for xosplan from the OASIS specification text (not
// copied from another implementation); normative_test.go checks them against
// the reference copies in ../shared/corpus/tosca/normative-types on type
// names, derivations and property definitions.
//
// Each file is a complete service template of its version that defines every
// normative type of that version and nothing else, except for the
// tosca-parser extras documented at the top of the 1.0 file. The
// compiler loads it before a template's own imports.
//
// Beside the four Simple Profile versions, For knows the profiles listed by
// Profiles: tosca_simple_profile_for_nfv_1_0_0 returns the 1.0 types plus the
// NFV profile's (tosca.nodes.nfv.VNF, VDU, CP, VL, …) in one file, so that a
// compiler loads that one file instead of the 1.0 file.
//
// NonNormative holds the Simple Profile's non-normative types (MySQL,
// Apache, WordPress, Node.js, Docker: the specification's chapter
// "Non-normative type definitions"), which the compiler loads only for a
// template that names one without defining it (pkg/tosca, nonnormative.go);
// normative_test.go compares them with the TOSCA TC's own rendering.
//
// Shorthand names are not declared in the files: the compiler derives them.
// A normative type "tosca.<section>.<rest>" has the shorthand name <rest>
// with a leading "network." or "lifecycle." segment dropped (tosca.nodes.Compute
// → Compute, tosca.capabilities.Endpoint.Admin → Endpoint.Admin,
// tosca.nodes.network.Port → Port) and, from 1.2 on, the type-qualified name
// "tosca:<shorthand>". Shorthands are looked up within the type's own section
// only, because Root and a few others repeat across sections.
package normative
