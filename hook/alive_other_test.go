//go:build !unix

package hook_test

func processAlive(int) bool { return false }
