package main

import (
	"embed"
	"io/fs"

	"github.com/cairn-dev/cairn/cli"
)

// The bundled sample sessions, for `cairn --demo` from any folder.
//
//go:embed testdata/claude
var sample embed.FS

func init() {
	if sub, err := fs.Sub(sample, "testdata/claude"); err == nil {
		cli.DemoSample = sub
	}
}
