// Package placement owns xosplan's model of OpenStack Placement: resource
// providers in trees, inventories per resource class, usages, allocations by
// consumer with provider and consumer generations, aggregates, sharing
// providers, standard and custom traits, and the allocation-candidates
// query with Placement's semantics up to microversion 1.39.
//
// Two backends implement Service (Candidates, Claim, Release): the embedded
// Model, loaded from a YAML inventory (LoadProviders) or the embedded demo
// cloud, and Client, which talks to a real Placement API. A Model's errors
// carry Placement's status codes and error texts; the test-support package
// placementtest serves a Model through Placement's REST shape, and the
// corpus of upstream API sequences is replayed through it. The package
// knows nothing of TOSCA or of plans. MarshalCompact and UnmarshalCompact
// give a model read from an inventory a compact binary form, so that a
// caller can keep it and skip the YAML parse next time (xosplan's
// inventory cache); UnmarshalCompact trusts none of its input.
// AppendPlacementJSON writes the candidates answer by hand rather than
// through encoding/json because the answer is the cost of a large query:
// 10,000 flat candidates took 253 ms and 280,129 allocations built as maps
// and encoded, 147 ms and 60,058 written directly (2-core machine, shared).
// TestPlacementJSONAsEncodingJSON keeps its bytes equal to encoding/json's.
//
// # Candidate semantics
//
// Capacity is int((total - reserved) * allocation_ratio). A group's amount
// must satisfy min_unit, max_unit and step_size; the sum of several groups
// on one provider is checked against capacity and max_unit only. The
// unsuffixed group takes each resource class from one provider of a tree
// or from a sharing provider (MISC_SHARES_VIA_AGGREGATE) anchored to that
// tree — a sharing provider anchors to the roots of every provider it
// shares an aggregate with — and its required traits are met by those
// providers together. A suffixed group takes everything from one provider
// with the traits itself. member_of lists must be met by the provider's own
// aggregates or, in the unsuffixed group, by its tree root's (a sharing
// provider from another tree must itself be a member; a forbidden aggregate
// on the anchor root excludes it). Groups are
// combined per anchor tree; group_policy=isolate keeps suffixed groups on
// distinct providers. root_required applies to the anchor root. Before 1.29
// a candidate may not use two providers of one tree and summaries list only
// used providers; before 1.27 summaries list only requested classes. Before
// 1.34, where mappings are not shown, candidates that differ only in their
// mappings are one candidate (Placement repeats the allocation once per
// hidden mapping).
//
// # Order, limit and the combination cap
//
// Candidates come in a documented, deterministic order: anchor trees by
// root name; within a tree, depth first over the groups in query order
// (unsuffixed first, then suffixes, numbers by value), each group's choices
// by provider depth then name. A candidate reachable from two anchors
// appears once, at its first position. limit keeps the first N of this
// order (Placement's default, randomize_allocation_candidates=false, also
// keeps a prefix of its own order). Generation stops after
// DefaultMaxCombinations examined combinations (SetMaxCombinations changes
// it); the result is then the prefix found so far with Truncated set, so a
// combinatorial request costs bounded time instead of Placement's
// exponential walk.
//
// # Where the real service is wrong
//
// Placement 8.0 and master have two merge defects; the model gives the
// correct answer and the differential test keeps such requests out: (1)
// with the unsuffixed group and a numbered group asking for the same class
// without group_policy=none, a shared object is mutated while merging and
// amounts come out inflated; (2) an unsuffixed candidate made only of
// sharing providers is found once per anchor tree, but its equality ignores
// the anchor, so all anchors but one are lost before the groups are
// combined.
package placement
