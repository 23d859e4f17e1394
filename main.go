// Command cairn is memory for Claude Code: it indexes every transcript,
// searches it, and lets a person curate what is fed back. main only wires
// the command line; the work lives in the packages.
package main

import (
	"os"

	"github.com/cairn-dev/cairn/cli"
)

func main() { os.Exit(cli.Execute()) }
