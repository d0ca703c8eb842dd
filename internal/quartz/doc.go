// Package quartz parses Quartz cron expressions (6 or 7 fields, seconds
// first, with Quartz's ?, L, W and # day forms) and says when one fires
// next. It is the one parser of schedules: pkg/manifest checks a
// factory's discoverySchedule with Check, and pkg/sync fires discovery
// on the Schedule that Parse returns for the graph's format-neutral
// discovery schedule (graph.OptionDiscoverySchedule).
package quartz
