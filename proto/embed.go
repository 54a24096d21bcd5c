package proto

import "embed"

// Sources holds this package's Go files, so the nexus can write them into
// the build folder of a program with a Go pool: a generated Go pool is
// built from source and needs the service's code. The copy leaves out this
// file and tests (see pools/go.WriteModule).
//
//go:embed *.go
var Sources embed.FS
