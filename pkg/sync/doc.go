// Package sync is xosplan's long-running synchronizer (`xosplan sync`):
// it keeps the recorded state and the real objects at the goal the
// configuration describes, as the XOS synchronizers, Tonomi's health
// checks and discovery, and ORC's controllers do.
//
// The Engine (engine.go) runs one loop that does everything due, one
// thing at a time, then waits on its Clock until the next scheduled time
// or a trigger (ConfigurationChanged, Check):
//
//	reconcile   reconcile.go  the goal (Options.Goal, made by the code `plan` makes its desired graph with) is
//	                          planned against the state by planner.Diff and applied by executor.Apply: the same
//	                          reasons, journal and crash safety as plan and apply
//	retry       reconcile.go  a failed resource is retried after RetryBase, doubling up to RetryMax, with jitter,
//	                          left out of reconciles until then (the planner leaves out what depends on it, which
//	                          waits on it: waiting is not an error); independent resources go on
//	needs change reconcile.go a failure that only a change can mend (executor.ErrNeedsChange: a missing script),
//	                          and an invalid configuration, wait for the configuration to change
//	held        reconcile.go  an error of the configuration that belongs to some resources (Goal.Held, from
//	                          config.Result.Holds) holds them and what depends on them; the others are reconciled,
//	                          and nothing is deleted until the configuration has no errors
//	converging  reconcile.go  a converging resource holds its dependents until a health check says it is active
//	health      check.go      every resource whose driver has a health check is checked every HealthInterval
//	                          (OptionHealthInterval per resource), jittered, through the refresh-only plan
//	                          `xosplan refresh` makes; the drift is recorded and the next reconcile repairs it
//	drift check driftcheck.go with CheckDrift, every configured resource whose driver can predict (Ansible) has
//	                          the playbooks an update would run run in check mode every CheckDrift, each bounded
//	                          by CheckDriftTimeout (workflow.CheckDrift); predicted changes are reported as drift,
//	                          and with CheckDriftRepair recorded failed for the next reconcile to repair
//	discovery   check.go      a factory with a discovery script runs it on its Quartz schedule
//	                          (graph.OptionDiscoverySchedule, internal/quartz); what it finds is recorded on the factory as refresh does
//	resync      check.go      every resource is checked and the configuration compiled again every Resync,
//	                          jittered; the time is kept in the state (state.SyncInfo), so a restart waits its turn
//	save without engine.go     Resync (POST /v1/resources/{addr}/resync) touches the resource before the next
//	  change                  reconcile (state.Touch: updated > enacted), which actuates it again
//	policy      policed.go    a step that changed feedback a model policy reads asks for a reconcile that compiles
//	  feedback                the goal again, at most workflow.PolicyMaxRounds in a row (XOS: changed_by_step > policed)
//
// Status, Resource and Subscribe show what the engine does; api.go serves
// them over HTTP (Handler) with the Prometheus metrics (metrics.go),
// refusing web pages (a foreign Origin, a rebound host name, a POST body
// that is not JSON), checking the token, and capping the event streams;
// watch.go turns file changes into ConfigurationChanged.
//
// The web console (console.go, consoleweb.go, web/) is served at / of the
// API: the dependency graph drawn by internal/graphview (laid out in Go in
// dependency order, paged at graphview.MaxPageNodes resources), each
// resource coloured by ConsoleStatus and recoloured live from the event
// stream; a resource's page (ResourceDetail: spec, feedback, waits,
// schedule, activity, with every secret masked); the last reconciles and
// the drift found (History, history.go); a factory's discovered instances
// with Adopt (adopt.go: executor.Import, run by the loop); Check now and
// Sync now, which send the API token the page asks for once and keeps in
// the tab's sessionStorage. Its page and assets are embedded, need no
// token (they hold no data) and carry ConsoleCSP: no inline script, style
// or handler, nothing from another origin.
//
// A Service (service.go) is the synchronizer as a program runs it, as
// controller-runtime's manager is started by main: it takes the state
// lock for its whole run, or, with a PostgreSQL state and a JoinFunc
// (pkg/sync/pgcluster.Joiner), joins the cluster of synchronizers sharing
// the workspace and takes the lock for each term it leads; it recovers
// the journal an interrupted apply left, builds the goal of its
// workflow.Spec for every reconcile (pkg/workflow: the goal plan and apply
// make), and runs the Engine with the API, the watch and the reconciles
// asked for (a SIGHUP), routing those to the leader when another member
// leads. The package returns data and logs through log/slog; it never
// prints, and it never imports a format: what it needs of one (a
// discovery schedule) is a field of the graph.
package sync
