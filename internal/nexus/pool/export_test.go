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
