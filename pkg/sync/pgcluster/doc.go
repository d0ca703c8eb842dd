// Package pgcluster lets several `xosplan sync` processes, each on its
// own machine with the same configuration checkout, share one workspace
// of a PostgreSQL state: one leads (it holds the workspace's lease and its
// state lock, and runs the sync.Engine: it plans, runs model policies and
// schedules), and every member, the leader included, runs actions.
//
// Leadership is a lease in the table xosplan_sync_lease, renewed every
// third of its length (Options.Lease, default 15 s) on the member's own
// database session. It is free when it was never granted, when its holder
// has not renewed it for a lease, or at once when its holder's session
// ended (a killed process's connection closes). A new leader takes the
// state lock; a lock still held by a former leader that stopped renewing
// (stopped, cut off) is forced away, which ends its session, so that it
// cannot write any more (LockState). Members renew their membership in
// xosplan_sync_member the same way; Status shows them.
//
// Actions are handed out through River's job queue (riverqueue/river,
// the PostgreSQL job queue of the Go ecosystem: transactional inserts,
// SKIP LOCKED fetches, unique jobs, retries with backoff). The leader's
// apply walk is the executor's: an action is handed out only when
// everything it depends on has completed (the walk calls its driver
// then), with Dispatch's drivers, which insert a job (the jobs waiting
// are inserted together) and wait for its result. A job carries its
// requests and the digest of the configuration the leader planned from
// (sync.CheckoutDigest), and goes to the queue of the workspace and that
// digest: a member works the queue of its own checkout only, so it never
// runs other scripts; one whose checkout is not the leader's says so in
// its log. A job that reaches a member whose checkout changed meanwhile is
// refused and goes to another; an action no live member can run fails,
// naming the members' checkouts. A
// member runs a job with its own drivers and reports the result in
// xosplan_sync_result with a message on the workspace's channel
// (LISTEN/NOTIFY), which the leader waits for. The process groups a
// member starts are reported to the leader, which records them in the
// journal's intents with the member's name: the journal shows every
// attempt, and which member made it.
//
// Failures: a member that dies mid-action (its membership lapses, or its
// session ends) has its job handed out again by the leader, to another
// member, in the next generation of the job's unique key (actuators are
// idempotent, and the journal records both attempts). A leader that dies
// loses its lease with its session; the next leader replans from the
// state and its journal, and an action still running at a member is found
// by its unique key and waited for rather than run twice. An action that
// ran to its end is not run again either: a member stores the result,
// with the action's key (actionKey), before River completes the job, and
// under the workspace's results lock that the leader's inserts take; a
// leader that plans the action again takes a stored result of its key
// that no call took instead of inserting a job. A leader marks the
// results it collects as taken and removes them when its next walk
// starts (the one before has recorded them in the journal), so that a
// leader that dies between collecting a result and recording it leaves
// it to the next. When the
// leader's walk stops waiting (an interrupt after its grace, the lease
// lost) it cancels the job, which River passes to the member running it:
// its driver ends the operation's processes.
//
// Job rows hold an action's request, its secrets included, as the state
// does; completed and cancelled jobs are removed after a minute, results
// when the walk that read them has recorded them (those no leader read,
// after an hour). The password of the connection string
// never appears in an error. pgx and River stay inside this package (and
// pgx in pkg/state's backend).
package pgcluster
