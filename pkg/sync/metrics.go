package sync

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/xosplan/xosplan/pkg/executor"
)

// Metrics are the engine's Prometheus metrics, in a registry of their own
// (no process-wide state). The names:
//
//	xosplan_sync_reconciles_total{outcome}               reconciles by outcome (Outcome* constants)
//	xosplan_sync_reconcile_duration_seconds{outcome}     how long each took (histogram)
//	xosplan_sync_actions_total{driver,outcome}           actions run by driver and result (applied, failed, skipped, not_started)
//	xosplan_sync_resources{status}                       resources by status (active, converging, error, pending, ok, not_created)
//	xosplan_sync_drift_total                             resources found changed outside xosplan
//	xosplan_sync_health_checks_total                     health checks and discoveries run
//	xosplan_sync_retry_queue                             resources waiting for a retry
//	xosplan_sync_held_resources                          resources an error of the configuration holds (Goal.Held)
//	xosplan_sync_last_success_timestamp_seconds          when a reconcile last succeeded (Unix time)
type Metrics struct {
	reg         *prometheus.Registry
	reconciles  *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	actions     *prometheus.CounterVec
	resources   *prometheus.GaugeVec
	drift       prometheus.Counter
	checks      prometheus.Counter
	retryQueue  prometheus.Gauge
	held        prometheus.Gauge
	lastSuccess prometheus.Gauge
}

// NewMetrics returns the metrics, registered in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xosplan_sync_reconciles_total",
			Help: "Reconciles by outcome."}, []string{"outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "xosplan_sync_reconcile_duration_seconds",
			Help: "Duration of reconciles (plan and apply) by outcome.", Buckets: prometheus.ExponentialBuckets(0.01, 4, 8)}, []string{"outcome"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xosplan_sync_actions_total",
			Help: "Actions run by reconciles, by driver and result."}, []string{"driver", "outcome"}),
		resources: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "xosplan_sync_resources",
			Help: "Resources by status."}, []string{"status"}),
		drift: prometheus.NewCounter(prometheus.CounterOpts{Name: "xosplan_sync_drift_total",
			Help: "Resources that health checks found changed outside xosplan."}),
		checks: prometheus.NewCounter(prometheus.CounterOpts{Name: "xosplan_sync_health_checks_total",
			Help: "Health checks and discoveries run."}),
		retryQueue: prometheus.NewGauge(prometheus.GaugeOpts{Name: "xosplan_sync_retry_queue",
			Help: "Resources waiting for a retry."}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "xosplan_sync_held_resources",
			Help: "Resources an error of the configuration holds."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "xosplan_sync_last_success_timestamp_seconds",
			Help: "Unix time of the last successful reconcile."}),
	}
	m.reg.MustRegister(m.reconciles, m.duration, m.actions, m.resources, m.drift, m.checks, m.retryQueue, m.held, m.lastSuccess)
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *Metrics) reconciled(outcome string, took time.Duration, lastSuccess time.Time) {
	m.reconciles.WithLabelValues(outcome).Inc()
	m.duration.WithLabelValues(outcome).Observe(took.Seconds())
	if !lastSuccess.IsZero() {
		m.lastSuccess.Set(float64(lastSuccess.UnixNano()) / 1e9)
	}
}

func (m *Metrics) applied(rep *executor.Report, drivers map[string]string) {
	for _, s := range rep.Steps {
		m.actions.WithLabelValues(drivers[s.Address], s.Result).Inc()
	}
}

// observe sets the gauges from the engine's state.
func (e *Engine) observe() {
	m := e.opts.Metrics
	if m == nil {
		return
	}
	counts := map[string]int{}
	queue, held := 0, 0
	e.mu.Lock()
	if e.goal != nil {
		held = len(e.goal.Held)
	}
	if e.recorded != nil {
		for i := range e.recorded.Resources {
			counts[e.recorded.Resources[i].StatusText()]++
		}
	}
	if e.goal != nil && e.recorded != nil {
		counts["not_created"] = max(0, e.goal.Desired.Len()-e.configuredRecorded())
	}
	for _, t := range e.tracked {
		if !t.nextRetry.IsZero() && t.needsChange == "" {
			queue++
		}
	}
	e.mu.Unlock()
	m.resources.Reset()
	for _, s := range []string{"active", "converging", "error", "pending", "ok", "not_created"} {
		m.resources.WithLabelValues(s).Set(float64(counts[s]))
	}
	m.retryQueue.Set(float64(queue))
	m.held.Set(float64(held))
}

// configuredRecorded counts the configured resources the state records;
// the caller holds e.mu.
func (e *Engine) configuredRecorded() int {
	n := 0
	for i := range e.recorded.Resources {
		if _, ok := e.goal.Desired.Resource(e.recorded.Resources[i].Address); ok {
			n++
		}
	}
	return n
}
