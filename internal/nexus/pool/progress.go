package pool

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nexus-run/nexus/internal/nexus/progress"
	"github.com/nexus-run/nexus/proto"
)

// withProgress sends req as CallWithProgress: the pool streams the
// function's progress reports, which go to report as they come, then its
// reply. A pool built before CallWithProgress existed answers
// UNIMPLEMENTED before running anything; the call is then sent as a plain
// Call, without progress.
func (inst *instance) withProgress(req *proto.CallRequest, report progress.Func) (*proto.CallReply, error) {
	// A stream's resources last until its status is read or its context
	// ends, and inst.life lasts as long as the pool: the stream is done
	// with once the reply is in, whatever follows it.
	ctx, cancel := context.WithCancel(inst.life)
	defer cancel()
	stream, err := inst.pool.CallWithProgress(ctx, req)
	if err != nil {
		return nil, err
	}
	for {
		ev, err := stream.Recv()
		switch {
		case status.Code(err) == codes.Unimplemented:
			return inst.pool.Call(inst.life, req)
		case errors.Is(err, io.EOF):
			return nil, status.Error(codes.Internal, "the pool ended CallWithProgress without a reply")
		case err != nil:
			return nil, err
		}
		switch e := ev.Event.(type) {
		case *proto.CallEvent_Reply:
			if e.Reply == nil {
				return &proto.CallReply{}, nil
			}
			return e.Reply, nil
		case *proto.CallEvent_Progress:
			if p := e.Progress; p != nil {
				report(progress.Report{Done: p.Done, Total: p.GetTotal(), HasTotal: p.Total != nil, Message: p.Message})
			}
		}
		// An event of a kind this nexus does not know is skipped: a newer
		// pool may send more.
	}
}
