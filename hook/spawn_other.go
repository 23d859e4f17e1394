//go:build !unix && !windows

package hook

import "syscall"

// detachedAttrs: nothing to detach with; the child is started plainly.
func detachedAttrs() []*syscall.SysProcAttr { return []*syscall.SysProcAttr{nil} }
