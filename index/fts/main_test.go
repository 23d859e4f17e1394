package fts

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if diskFullChild() {
		return // ran under a file size limit (diskfull_linux_test.go)
	}
	if tmpfsChild() {
		return // ran on a nearly full tmpfs (tmpfs_linux_test.go)
	}
	if helperMain() {
		return // ran as a lock-holding subprocess (lock_test.go)
	}
	var err error
	benchRoot, err = os.MkdirTemp("", "cairn-fts-bench-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(benchRoot)
	os.Exit(code)
}
