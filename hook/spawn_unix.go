//go:build unix

package hook

import "syscall"

// detachedAttrs: a new session, so the child leaves the hook's process
// group and controlling terminal.
func detachedAttrs() []*syscall.SysProcAttr {
	return []*syscall.SysProcAttr{{Setsid: true}}
}
