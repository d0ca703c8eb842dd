// Package process is the one runner of xosplan's subprocesses: the
// drivers' operations and scripts, health checks, discovery and model
// policies (RunProgram) all start and end through Process.Run.
//
// Each process gets its own process group, a timeout, SIGTERM then
// SIGKILL to the group when the operation ends, bounded output, and its
// output redacted (pkg/redact) before it is shown or kept. On Linux,
// once the program called Supervise (xosplan's main does, first thing),
// each process runs under a supervisor (supervise_linux.go): the same
// binary started again from /proc/self/exe, which leads the group, makes
// itself a child subreaper and starts the script in its group with
// Pdeathsig SIGKILL. The supervisor's own Pdeathsig is SIGTERM, which it
// catches: when xosplan dies, even by SIGKILL, the kernel tells it, and
// it kills every process below it — the subreaper keeps the ones that
// left the group or session (setsid, double fork) below it — and then
// its group and itself. A SIGTERM from xosplan ending the group while
// xosplan lives is ignored (the script got it too); the supervisor also
// looks every second whether xosplan is still its parent. It relays the
// script's exit status, and its death by SIGTERM, SIGINT, SIGHUP or
// SIGKILL (other signals: 128 + the signal), and a script that cannot
// start is the runner's error as before (the errno comes back on a
// pipe). Costs: one more process per operation, about 10 ms of CPU (the
// Go start-up of the binary) and 2–3 MiB of private memory (the binary's
// pages are shared with xosplan's).
// Should a supervisor die with xosplan, the group is a leftover the
// next run ends (EndLeftover, which pkg/executor's EndLeftovers calls).
// Elsewhere, and in a program that did not call Supervise, scripts start
// directly (Pdeathsig SIGKILL on Linux).
//
// The package returns data and errors; it never prints.
package process
