package pool

import "time"

// Recent keeps, in place, the times of deaths that are within window of
// now, and returns them: what the guard against restart loops counts, for
// pools and for the MCP servers nexus starts (internal/nexus/mcpsrc).
func Recent(deaths []time.Time, now time.Time, window time.Duration) []time.Time {
	recent := deaths[:0]
	for _, t := range deaths {
		if now.Sub(t) < window {
			recent = append(recent, t)
		}
	}
	return recent
}
