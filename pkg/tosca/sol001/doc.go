// Package sol001 holds the TOSCA type libraries of ETSI GS NFV-SOL 001 —
// etsi_nfv_sol001_common_types.yaml, _vnfd_types, _nsd_types and
// _pnfd_types — for versions 2.6.1, 2.7.1, 2.8.1, 3.3.1, 3.6.1, 4.2.1 and
// 4.4.1, embedded in the binary, so that VNF and NS packages that import
// them by their ETSI forge URL or by bare file name compile without the
// network.
//
// The files are written for xosplan (v<version>/<file>): type names,
// derived_from and the definitions of properties, attributes,
// capabilities, requirements, interfaces, operations and artifacts (type,
// required, default, constraints, entry_schema, key_schema, status,
// occurrences, valid types, members, targets) are the standard's; the type
// descriptions are ours and short, the standard's property descriptions
// and comments are left out, and types are sorted by name within each
// section. Each file's header says where it was checked. Files import
// their siblings by the forge URL of their own version (the standard's
// development drafts of 2.7.1 and later sometimes import a local copy
// instead, with an editor's note saying the URL is meant), and Lookup
// resolves those URLs to the embedded files.
//
// Where the files were checked:
//
//   - sol001_test.go compares, on every run, the 2.6.1 and 2.7.1 common and
//     VNFD files with every copy of them in the corpus (Tacker's packages
//     and samples under realworld/tacker, by their metadata
//     template_version), and the four 4.4.1 files with Winery's drawing of
//     ETSI NFV 4.4.1 (realworld/tcc/tools/winery-canvas/tosca1.3_etsinfv4.4.1,
//     one type per file, split by template_name), on names, derivations,
//     effective property definitions and every other declaration.
//   - The other files were checked by hand, type by type, against the
//     copies in the GitHub repository openmsa/etsi-mano
//     (MANO-API/package-parser/sol001/versions/<version>/src/main/resources;
//     the 3.6.1 PNFD and the 4.2.1 common types from src/test/resources of
//     the same version, the 4.2.1 PNFD from
//     MANO-API/mano-pkg/mano-pkg-tosca/src/test/resources/ubi-nsd-tosca),
//     not committed here: 2.6.1 and 2.7.1 NSD and PNFD, and all of 2.8.1,
//     3.3.1, 3.6.1 and 4.2.1. Those copies spell the protocol "a/n" of the
//     security group rules "a/MANO-API/n" (a search-and-replace slip); the
//     files here keep the standard's "a/n".
//
// One deviation, said in the file: 3.6.1 declares
// L3AddressData.ip_address_assignment_subtype boolean with string
// valid_values, which no value satisfies; it is a string here, as 4.4.1
// corrects it. The 2.6.1 files define tosca.groups.nfv.PlacementGroup,
// AffinityRule, AntiAffinityRule and SecurityGroupRule in more than one
// file, as the standard does; a template importing all of them gets
// tosca.type_redefined warnings.
//
// Not embedded: 4.3.1 and 4.5.1 (no copy of them could be found to check
// against), and the releases before 2.6.1. A forge URL of such a version
// stays a network import.
//
// Versions share no files: no two files of different versions are equal
// (the PNFD types of 3.3.1, 3.6.1 and 4.2.1 differ only in the version they
// name), so each version has its own folder and Lookup reads
// v<version>/<file> for it.
//
// Which version a bare file name means is the compiler's decision (package
// tosca, sol001.go); DefaultVersion gives the fallback.
package sol001
