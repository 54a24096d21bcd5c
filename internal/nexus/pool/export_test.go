package pool

import "context"

// Ping runs go-plugin's health check against the running pool of lang.
func Ping(ctx context.Context, s *Supervisor, lang string) error {
	inst, err := s.running(ctx, lang)
	if err != nil {
		return err
	}
	rpc, err := inst.client.Client()
	if err != nil {
		return err
	}
	return rpc.Ping()
}

// Streaming reports whether the running pool of lang takes its calls on
// the Calls stream (false: unary calls, or no pool running).
func Streaming(s *Supervisor, lang string) bool {
	sp, err := s.supervised(lang)
	if err != nil {
		return false
	}
	sp.mu.Lock()
	inst := sp.cur
	sp.mu.Unlock()
	if inst == nil {
		return false
	}
	inst.calls.mu.Lock()
	defer inst.calls.mu.Unlock()
	return inst.calls.err == nil
}
