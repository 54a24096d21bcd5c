// Package proto holds the gRPC service every nexus pool serves, generated
// from pool.proto. Arguments and results cross inside its messages as
// msgpack, so the service stays two small messages.
//
// Regenerate the Go code after changing pool.proto with
//
//	go generate ./proto
//
// which needs protoc and, on PATH, the two Go plugins at the versions the
// committed files were made with:
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
package proto

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative pool.proto
