// Command cairn-hook is cairn's Claude Code hook handler as a lean binary:
// the same handler as `cairn hook`, without the terminal UI's packages,
// whose initialisation alone would take most of a hook's 50 ms budget.
// `cairn install` registers it when it sits beside the cairn binary.
//
//	cairn-hook [EVENT] [--data DIR] [--claude-dir DIR] < hook.json
package main

import (
	"io"
	"log"
	"os"

	"github.com/cairn-dev/cairn/hook"
)

func main() {
	// bleve logs to the standard logger: never onto a hook's stdout.
	log.SetOutput(io.Discard)
	os.Exit(hook.Main(os.Args[1:], os.Stdin, os.Stdout))
}
