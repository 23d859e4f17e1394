package hook

import (
	"fmt"
	"os"
	"time"
)

// traceOn makes hooks print step timings on stderr (CAIRN_HOOK_TRACE=1),
// for finding what a slow hook spends its time on.
var traceOn = os.Getenv("CAIRN_HOOK_TRACE") == "1"

var traceStart = time.Now()

func trace(step string) {
	if traceOn {
		fmt.Fprintf(os.Stderr, "cairn hook: %7.2f ms %s\n", float64(time.Since(traceStart).Microseconds())/1000, step)
	}
}
