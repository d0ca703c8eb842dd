// Package placement owns xosplan's model of OpenStack Placement: resource
// providers in trees, inventories per resource class, usages, allocations by
// consumer with provider and consumer generations, aggregates, sharing
// providers, standard and custom traits, and the allocation-candidates
// query with Placement's microversion 1.39 semantics.
//
// The embedded Model is the default backend; it answers the same questions a
// real Placement service answers, with the same status codes (Error.Status),
// so that the planner can place compute at plan time without a service.
// Handler exposes the Model through Placement's REST shape; the corpus of
// upstream scenarios is replayed against it.
//
// The package knows nothing of TOSCA or of plans: it takes Queries and
// provider inventories and returns candidates and errors.
package placement
