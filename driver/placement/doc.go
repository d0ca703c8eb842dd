// Package placement is the driver of Placement objects
// (graph.DriverPlacement): custom traits, custom resource classes and
// resource providers with their inventories, traits and aggregates,
// declared with xosplan's Placement types (xosplan/placement.yaml for
// TOSCA 1.3, the profile xosplan.placement:1.0 for 2.0) and reconciled
// against a real Placement API (driver.Options.Placement: the CLI's
// --placement-url, the token from --placement-token or $OS_AUTH_TOKEN)
// through pkg/placement's Client, in the shape of ORC's controllers.
//
// Spec and status. The properties are the spec: what the driver sets.
// Inventories, traits and aggregates are reconciled only when the spec
// gives them (an empty list clears them; a field left out is not
// managed, so a provider another service fills keeps what it reports).
// What Placement reports is recorded as the resource's attributes (its
// status: uuid, generation, parent and root provider UUIDs, inventories,
// traits, aggregates), as the service answered it.
//
// The API's rules. The client negotiates the microversion (the newest
// both sides speak, at most 1.39; parents need 1.14, aggregates under a
// generation 1.19). Every provider write carries the provider generation;
// a 409 placement.concurrent_update is answered by reading the provider
// again and retrying (five times), and each conflict survived is shown.
// The traits a provider names are checked against the service's own GET
// /traits?name=in: before they are set (a standard trait the service's
// os-traits does not know is refused there, whatever xosplan's embedded
// list says). Deleting a custom trait that a provider still has is a 409
// "in use": the driver waits, asking every PollInterval which providers
// hold it and saying so, until they drop it (ORC's deletion guard: a wait,
// not an error), within the request's timeout.
//
// Management policy. An unmanaged object (management_policy: unmanaged,
// or TOSCA's select directive) is found by its import filter's name
// (never an ID), read, and never written or deleted; reading one that
// does not exist fails.
//
// Health. A health check reads the object back and compares it with the
// spec: a missing object is reported missing, one whose traits,
// inventories, aggregates or parent differ is reported failed with the
// differences, so that the next plan (or sync) runs its create again,
// which repairs it.
package placement
