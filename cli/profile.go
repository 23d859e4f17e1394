package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addProfileFlags gives cmd the hidden --cpuprofile and --memprofile
// flags (for benchmarks: bench/scale.sh). The returned function starts the
// CPU profile; the function it returns stops it and writes the heap
// profile. Profiles that cannot be written are reported, never fatal.
func addProfileFlags(cmd *cobra.Command) func(o *Options) func() {
	var cpu, mem string
	cmd.Flags().StringVar(&cpu, "cpuprofile", "", "write a CPU profile to this file")
	cmd.Flags().StringVar(&mem, "memprofile", "", "write a heap profile to this file at the end")
	cmd.Flags().MarkHidden("cpuprofile")
	cmd.Flags().MarkHidden("memprofile")
	return func(o *Options) func() {
		var cf *os.File
		if cpu != "" {
			f, err := os.Create(cpu)
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				fmt.Fprintln(o.Stderr, "cairn: cpu profile:", err)
			} else {
				cf = f
			}
		}
		return func() {
			if cf != nil {
				pprof.StopCPUProfile()
				cf.Close()
			}
			if mem == "" {
				return
			}
			f, err := os.Create(mem)
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintln(o.Stderr, "cairn: heap profile:", err)
			}
		}
	}
}
